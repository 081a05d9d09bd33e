//! skel for Bevy: skel's layered players (and with them its graphs, IK, root motion, events
//! and retargeted clips) drive the joints of characters spawned by bevy's own glTF loader.
//!
//! The plugin is CPU-side: it writes the joints' local `Transform`s, and bevy's transform
//! propagation and skinning do the rest, so bevy's renderer and wgpu version never meet skel's.
//!
//! ```no_run
//! use bevy::prelude::*;
//! use bevy::gltf::GltfAssetLabel;
//! use bevy::world_serialization::WorldAssetRoot;
//! use skel_bevy::{SkelLayer, SkelPlayer, SkelPlugin};
//!
//! fn spawn(mut commands: Commands, server: Res<AssetServer>) {
//!     let scene = server.load(GltfAssetLabel::Scene(0).from_asset("Fox.glb"));
//!     commands.spawn((
//!         WorldAssetRoot(scene),
//!         SkelPlayer::new().with_layer(SkelLayer::clip("Run")),
//!     ));
//! }
//! # let _ = (spawn, SkelPlugin);
//! ```
//!
//! # When things run
//!
//! [`SkelPlugin`] adds [`SkelSystems`] to `PostUpdate`, after bevy's `AnimationSystems` (so
//! skel wins on a joint both animate) and asset events, and before
//! `TransformSystems::Propagate`. It reads each new character's [`SkelRig`] from the file its
//! `WorldAssetRoot` came from (once per file) and binds skel's nodes to the spawned entities
//! by name once the scene is ready (a [`SkelJoint`] on each; a [`SkelGraph`] waits for its
//! file and is compiled against the rig, and again when the file changes). Then every frame
//! it advances the players (and graphs) in parallel, applies [`SkelRootMotion`], sets
//! [`SkelIk`] targets from their entities' transforms of this frame, poses the players in
//! parallel, writes the joints' `Transform`s where they changed, and triggers [`SkelEvent`]s.
//! A character that cannot be bound gets a [`SkelBindError`] (also logged) and keeps its
//! transforms.

mod animate;
mod bind;
mod driver;
mod error;
mod foot;
mod graph_asset;
mod graph_targets;
mod ik;
mod ik_targets;
mod player;
mod retargeted;
mod rig_asset;
mod rig_files;

use bevy::app::AnimationSystems;
use bevy::asset::AssetEventSystems;
use bevy::prelude::*;
use bevy::transform::TransformSystems;

pub use animate::{SkelEvent, SkelRootMotion};
pub use bind::{SkelBindError, SkelRigHandle, SkelSceneReady};
pub use error::SkelBevyError;
pub use foot::{SkelFootError, SkelFootPlacement};
pub use graph_asset::{SkelGraph, SkelGraphFile, SkelGraphLoader};
pub use graph_targets::SkelGraphTargets;
pub use ik::{SkelIk, SkelIkChain, SkelIkError, SkelIkJob};
pub use player::{SkelJoint, SkelLayer, SkelPlayer};
pub use retargeted::{SkelMapping, SkelRetarget};
pub use rig_asset::SkelRig;
/// skel's CPU animation crate, re-exported so that users name the same version.
pub use skel_anim as anim;
/// skel's animation-graph crate, re-exported so that users name the same version.
pub use skel_graph as graph;
/// skel's retargeting crate (options, maps), re-exported so that users name the same version.
pub use skel_retarget as retarget;

/// The system set of the plugin's `PostUpdate` systems.
#[derive(SystemSet, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SkelSystems;

/// Registers [`SkelRig`] and [`SkelGraphFile`] assets (with [`SkelGraphLoader`]), the
/// scene-ready observer and [`SkelSystems`].
#[derive(Debug, Default, Clone, Copy)]
pub struct SkelPlugin;

impl Plugin for SkelPlugin {
    fn build(&self, app: &mut App) {
        app.init_asset::<SkelRig>()
            .init_asset::<SkelGraphFile>()
            .register_asset_loader(SkelGraphLoader)
            .init_resource::<rig_files::RigFiles>()
            .init_resource::<bind::CompiledGraphs>()
            .add_observer(bind::mark_scene_ready)
            .configure_sets(
                PostUpdate,
                SkelSystems
                    .after(AnimationSystems)
                    // A graph file changed this frame is seen this frame.
                    .after(AssetEventSystems)
                    .before(TransformSystems::Propagate),
            )
            .add_systems(
                PostUpdate,
                (
                    bind::request_rigs,
                    bind::reload_graphs,
                    rig_files::finish_rig_reads,
                    bind::bind_characters,
                    animate::advance_players,
                    animate::apply_root_motion,
                    ik_targets::aim_ik,
                    graph_targets::aim_graph_targets,
                    foot::place_feet,
                    animate::pose_players,
                    animate::write_joints,
                    animate::emit_events,
                )
                    .chain()
                    .in_set(SkelSystems),
            );
    }
}
