//! skel for Bevy: skel's layered players (and with them its graphs, IK, root motion, events
//! and retargeted clips) drive the joints of characters spawned by bevy's own glTF loader.
//!
//! The plugin is CPU-side: it writes the joints' local `Transform`s, and bevy's transform
//! propagation and skinning do the rest, so bevy's renderer and wgpu version never meet skel's.
//!
//! A character playing an animation graph (skel-graph's JSON format: state machines, blend
//! spaces, IK operations), driven from a system:
//!
//! ```no_run
//! use bevy::prelude::*;
//! use skel_bevy::{SkelGraph, SkelPlayer, SkelPlugin};
//!
//! fn main() {
//!     App::new()
//!         .add_plugins((DefaultPlugins, SkelPlugin))
//!         .add_systems(Startup, spawn)
//!         .add_systems(Update, run)
//!         .run();
//! }
//!
//! fn spawn(mut commands: Commands, server: Res<AssetServer>) {
//!     commands.spawn((
//!         bevy::world_serialization::WorldAssetRoot(
//!             server.load(GltfAssetLabel::Scene(0).from_asset("character.glb")),
//!         ),
//!         SkelGraph::new(server.load("character.skelgraph.json")),
//!     ));
//! }
//!
//! fn run(time: Res<Time>, mut players: Query<&mut SkelPlayer>) {
//!     for mut player in &mut players {
//!         if let Some(graph) = player.graph_mut() {
//!             let _ = graph.set_float("speed", 1.0 + time.elapsed_secs().sin());
//!         }
//!     }
//! }
//! ```
//!
//! Without a graph, layers of clips (skel's `LayerDesc`, clips named):
//! `SkelPlayer::new().with_layer("Run")`, or
//! `.with_layer(SkelLayer::clip("Wave").with(|d| d.weight(0.5).mask(upper_body)))`.
//!
//! Everything the plugin takes and gives is in Bevy's types: IK poles and axes, ground planes
//! and root-motion deltas are `bevy::math` vectors (skel uses the same glam), transforms are
//! `Transform`s, markers are [`SkelEvent`]s.
//!
//! # VRM avatars: spring bones and node constraints
//!
//! A character whose file is a VRM (`VRMC_springBone`, VRM 0.x's `secondaryAnimation`,
//! `VRMC_node_constraint`) has its hair, tails and skirts simulated by skel's own springs,
//! with nothing to add: skel's player steps them at a fixed 1/60 s (frame-rate independent,
//! teleports carried rather than swung) after the layers or graph, IK and foot placement, and
//! the joints' `Transform`s show the result. Moving the character (its `Transform`, from any
//! system) swings the chains. [`SkelSprings`] turns them off or changes the step and the host
//! loop:
//!
//! ```no_run
//! use bevy::prelude::*;
//! use skel_bevy::{SkelPlayer, SkelSprings};
//!
//! fn spawn(mut commands: Commands, server: Res<AssetServer>) {
//!     let scene = server.load(GltfAssetLabel::Scene(0).from_asset("avatar.vrm"));
//!     commands.spawn((
//!         bevy::world_serialization::WorldAssetRoot(scene),
//!         SkelPlayer::new().with_layer("Idle"),
//!         // Springs at 120 Hz; `SkelSprings::OFF` would hold the chains where the clip puts them.
//!         SkelSprings::default().with_step(1.0 / 120.0),
//!     ));
//! }
//!
//! fn walk(time: Res<Time>, mut avatars: Query<&mut Transform, With<SkelSprings>>) {
//!     for mut t in &mut avatars {
//!         t.translation.x = time.elapsed_secs().sin(); // the hair swings with the sway
//!     }
//! }
//! # let _ = (spawn, walk);
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
//! it hands each VRM character's springs ([`SkelSprings`]) where its scene stands this frame,
//! advances the players (and graphs) in parallel (the springs step as they advance), applies
//! [`SkelRootMotion`], sets [`SkelIk`] targets from their entities' transforms of this frame,
//! poses the players in parallel, writes the joints' `Transform`s and the morph weights
//! (bevy's `MorphWeights` on each mesh node with targets, [`SkelMorph`]) where they changed,
//! and triggers [`SkelEvent`]s.
//!
//! # Files
//!
//! A rig is read through bevy's asset reader from the same source as the scene: a `.gltf`'s
//! external buffers (`.bin`) are read beside it. A file written by `skel compress --out`
//! requires skel's stored-clip extension, which bevy's glTF loader refuses: spawned as any
//! other (`WorldAssetRoot` of its `Scene0`), its character is respawned from the rig's copy
//! of the file without that extension (put in bevy's `embedded://` source under
//! `skel_bevy/`, loaded by bevy's own glTF loader with the app's settings; its animations
//! have no channels there, skel plays them). Bevy logs its refusal of the original once.
//! A character that cannot be bound gets a [`SkelBindError`] (also logged) and keeps its
//! transforms.

mod animate;
mod bind;
mod bind_state;
mod driver;
mod error;
mod foot;
mod gltf_bytes;
mod graph_asset;
mod graph_targets;
mod ik;
mod ik_targets;
mod joint_writes;
mod morph;
mod player;
mod retargeted;
mod rig_asset;
mod rig_files;
mod spring_settings;
mod springs;

use bevy::app::AnimationSystems;
use bevy::asset::AssetEventSystems;
use bevy::prelude::*;
use bevy::transform::TransformSystems;

pub use animate::{SkelEvent, SkelRootMotion};
pub use bind_state::{SkelBindError, SkelRigHandle, SkelSceneReady};
pub use error::SkelBevyError;
pub use foot::{SkelFootError, SkelFootPlacement};
pub use graph_asset::{SkelGraph, SkelGraphFile, SkelGraphLoader};
pub use graph_targets::SkelGraphTargets;
pub use ik::{SkelIk, SkelIkChain, SkelIkError, SkelIkJob};
pub use morph::SkelMorph;
pub use player::{SkelJoint, SkelLayer, SkelPlayer};
pub use retargeted::{SkelMapping, SkelRetarget};
pub use rig_asset::SkelRig;
/// skel's CPU animation crate, re-exported so that users name the same version.
pub use skel_anim as anim;
/// skel's animation-graph crate, re-exported so that users name the same version.
pub use skel_graph as graph;
/// skel's retargeting crate (options, maps), re-exported so that users name the same version.
pub use skel_retarget as retarget;
pub use spring_settings::{SkelSprings, SkelSpringsError};

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
            .init_resource::<springs::CompiledSprings>()
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
                    rig_files::respawn_from_scene_copies,
                    bind::bind_characters,
                    springs::feed_springs,
                    animate::advance_players,
                    animate::apply_root_motion,
                    ik_targets::aim_ik,
                    graph_targets::aim_graph_targets,
                    foot::place_feet,
                    animate::pose_players,
                    animate::write_joints,
                    morph::write_morph_weights,
                    animate::emit_events,
                )
                    .chain()
                    .in_set(SkelSystems),
            );
    }
}
