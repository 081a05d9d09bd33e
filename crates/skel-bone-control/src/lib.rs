//! Opt-in bone control for skel: `Skeleton` / `Bone` handles discovered from a loaded asset's
//! skins, and overrides of individual bones (position, rotation, scaling, visibility) that show
//! on a static model (eager bake) and survive clip playback by the rules below.
//!
//! Nothing here exists until [`enable_bone_control`] is called for an asset: without it no
//! handle, parent reference or override map is made, and an [`AnimationController`] holds no
//! hook (one `None` check per tick). The crates below (`skel-anim`, `skel-gpu`, `skel-gltf`)
//! never name this one; uploads go through `skel_anim::PoseSink`.
//!
//! Rules (the seed's "Bone Control (opt-in)"):
//! - **Eager bake.** Each immediate `set_bone_*` recomputes the asset's bone matrices from the
//!   rest pose + overrides and hands them to the sink (the GPU upload), so it shows with no clip
//!   playing. Deferred setters write only; [`Skeleton::bake_skeleton`] uploads the batch.
//! - **Animation wins per component, except visibility.** The installed hook writes the
//!   translation / rotation / scaling overrides after the rest reset and before channels, so a
//!   clip overwrites the components it animates; it zeroes the scale of hidden bones after
//!   channels (and after blending), so hidden stays hidden under any clip.
//! - **Visibility has its own bit.** Showing a bone again keeps an explicit scaling override.
//! - **One handle per skinned mesh, one override map per asset.** A skin split across meshes
//!   has a handle per mesh; any of them re-bakes every mesh.
//!
//! ```
//! use std::sync::Arc;
//! use skel_anim::*;
//! use skel_bone_control::enable_bone_control;
//!
//! // A two-joint arm skinning a mesh on node 2.
//! let mut hand = NodeRest::new("hand", Some(0));
//! hand.translation = [0.0, 1.0, 0.0];
//! let data = Arc::new(AnimationData {
//!     nodes: vec![NodeRest::new("arm", None), hand, NodeRest::new("mesh", None)],
//!     skeletons: vec![SkeletonBinding::new(0, 2, vec![0, 1], vec![]).unwrap()],
//!     handedness: Handedness::RightHanded,
//!     ..Default::default()
//! });
//! let bones = enable_bone_control(&data).unwrap();
//! let skeleton = &bones.skeletons()[0];
//! assert_eq!(skeleton.bones()[1].parent, Some(0));
//!
//! // Hide the hand: the bake hands the new matrices to the sink at once.
//! let mut sink = RecordingSink::default();
//! let hand = skeleton.get_bone_by_name("hand").unwrap();
//! skeleton.set_bone_visible(hand, false, &mut sink).unwrap();
//! let hand_matrix = sink.bone_matrices[0][1]; // binding 0, joint 1: a glam::Mat4
//! assert_eq!(hand_matrix.x_axis.truncate(), skel_anim::glam::Vec3::ZERO); // scaled to zero
//!
//! // A playing controller keeps it hidden through the hook.
//! let mut controller = AnimationController::new(Arc::clone(&data)).unwrap();
//! bones.install(&mut controller).unwrap();
//! controller.tick(16.0, &mut sink);
//! assert_eq!(sink.bone_matrices[0][1].x_axis.truncate(), skel_anim::glam::Vec3::ZERO);
//! ```
//!
//! [`AnimationController`]: skel_anim::AnimationController

#![forbid(unsafe_code)]

mod asset;
mod control;
mod error;
pub mod mesh;
mod overrides;
mod skeleton;
mod state;
mod world_pose;

pub use asset::{BoneControlAsset, PoseHookHost, enable_bone_control, enable_bone_control_for_rig};
pub use error::BoneControlError;
pub use mesh::{
    HasMeshSkeleton, MeshSkeleton, MeshVisibility, SkeletonAssociation, collect_skeletons,
    get_mesh_skeleton, set_mesh_visible, skeleton_association,
};
pub use overrides::BoneOverrideState;
pub use skeleton::{Bone, BoneKey, Skeleton};
pub use world_pose::BoneWorldPose;
