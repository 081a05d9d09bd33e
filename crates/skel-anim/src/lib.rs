//! The CPU pose pipeline of skel: clips sampled, layered and posed through a node hierarchy
//! into skinning matrices, with zero allocations per frame. No GPU, no glTF.
//!
//! Compile an asset once into a [`Rig`] and give every character a [`Player`]: the player holds
//! an ordered list of [`Layer`]s (blend or additive, with masks, cross-fades, IK, root motion and
//! events), advances them in **seconds**, and every tick writes bone matrices and morph weights
//! to a [`PoseSink`] (`skel-gpu` implements one that uploads to wgpu; [`RecordingSink`] keeps
//! them in memory).
//!
//! ```
//! use std::sync::Arc;
//! use skel_anim::*;
//!
//! // One root joint that moves along x from 0 to 2 over one second, skinning a mesh on node 1.
//! let slide = Sampler::new(vec![0.0, 1.0], vec![0.0, 0.0, 0.0, 2.0, 0.0, 0.0], Interpolation::Linear)?;
//! let data = AnimationData {
//!     nodes: vec![NodeRest::new("root", None), NodeRest::new("mesh", None)],
//!     clips: vec![Clip::new(
//!         "slide",
//!         vec![slide],
//!         vec![Channel { sampler: 0, node: 0, path: ChannelPath::Translation }],
//!     )],
//!     skeletons: vec![SkeletonBinding::new(0, 1, vec![0], vec![])?],
//!     morph_bindings: vec![],
//!     handedness: Handedness::RightHanded,
//! };
//! let rig = Rig::new(Arc::new(data))?; // once per asset
//! let mut player = Player::new(&rig); // once per character
//! player.add_layer(LayerDesc::new(0))?;
//! let mut sink = RecordingSink::default();
//! player.tick(0.5, &mut sink); // half a second
//! let bone = sink.bone_matrices[0][0]; // binding 0, joint 0: a glam::Mat4
//! assert!((bone.w_axis.x - 1.0).abs() < 1e-6); // translated by 1 along x
//! # Ok::<(), AnimError>(())
//! ```
//!
//! # How the crate is laid out
//!
//! The modules follow the data, bottom to top; each depends only on those before it
//! (`cargo xtask ci` fails on an import circle):
//!
//! | stage | when it runs | what it holds |
//! |---|---|---|
//! | `data` | load time | [`AnimationData`], [`Clip`], [`Sampler`], [`NodeRest`]: what a loader produces |
//! | `sample` | per frame | key-interval cursors, the four-node key blocks' format and readers (lossless and compressed), [`evaluate_sampler`] |
//! | `rig` | built once, read per frame | [`Rig`]: the evaluation plan, hierarchy layout, four-node blocks, blend maps, CPU kernels |
//! | `pose` | per frame | sampling into local transforms, local → world, skinning matrices, [`PoseSink`], [`PoseHook`] |
//! | `compile` | once per asset | [`Rig::new`] / [`Rig::with_options`], the clip compressor (which plays its trials through `pose`) |
//! | [`ik`] | per frame | stateless solvers: two-bone, aim, chain (FABRIK, CCD), look-at, full body |
//! | [`inertial`] | per frame | inertialized switches: the quintic decay of an offset and its velocity |
//! | [`foot`] | per frame | foot placement on the caller's ground (planes, triangle meshes) |
//! | [`mirror`] | once per asset, or per frame | left/right mirroring of poses and clips |
//! | `player` | per frame | [`Player`]: layers, masks, fades, events, root motion, IK jobs, inertialization, foot placement |
//! | [`compat`] | per frame | the seed's Babylon-style names as thin adapters |
//!
//! # The seed's names
//!
//! The Babylon-style API of the seed sits in [`compat`] as thin adapters over [`Rig`] +
//! [`Player`], in milliseconds where the seed's signatures are: [`AnimationController`],
//! [`AnimationGroup`]s with play / pause / stop / seek / speed / loop / sub-range
//! ([`compat::group`] has an example), [`WeightedBlend`] ([`compat::blend`] says what you will
//! see), [`CrossFade`], and [`instantiate`] / [`tick_all`] (or `par_tick_all` with the `rayon`
//! feature) for crowds that share one asset's keyframes.

// No `unsafe` outside the run-time detected CPU kernels (`pose::avx2`) and the passes that
// call them (`pose::bones`, `pose::single_clip`, `player::quad_mix`): each has its own `allow`
// and a `// SAFETY:` reason on every block.
#![deny(unsafe_code)]

/// The math crate of the public API (root-motion deltas, IK targets), re-exported so that a
/// user names the same version.
pub use glam;

pub mod compat;
mod compile;
pub mod constraint;
mod data;
mod error;
pub mod foot;
pub mod ik;
pub mod inertial;
mod kinds;
mod math;
pub mod mirror;
mod player;
mod pose;
mod rig;
mod sample;
pub mod spring;

pub use compat::blend::{BlendLayer, WeightedBlend};
pub use compat::blend_spec::parse_blend_spec;
pub use compat::controller::AnimationController;
pub use compat::crossfade::CrossFade;
pub use compat::group::{
    AnimationGroup, create_animation_groups, create_animation_groups_for, tick_animation,
};
pub use compat::instances::{Animate, instantiate, tick_all};
#[cfg(feature = "rayon")]
pub use compat::parallel::par_tick_all;
pub use compile::shell;
pub use data::clip::{Channel, Clip, Marker};
pub use data::hierarchy::{NodeRest, compute_topo_order};
pub use data::property::{PropertyKind, PropertyTrack};
pub use data::sampler::Sampler;
pub use data::stored_keys::StoredKeys;
pub use data::{
    AnimationData, Handedness, MorphBinding, R_OFF, S_OFF, SkeletonBinding, T_OFF, TRS_STRIDE,
};
pub use error::AnimError;
pub use foot::{
    FootBatchJob, FootDesc, FootPlacement, FootPlacementDesc, FootPlacementState, FootReport,
    FootStatus, GroundHit, GroundPlane, GroundQuery, TriangleGround,
};
pub use ik::{
    AimIk, AimSolution, TwoBoneIk, TwoBoneSolution, apply_correction, check_chain, model_matrix,
    model_matrix_from_trs,
};
pub use ik::{
    BodyJoints, BodyPose, BodySolution, ChainIk, ChainJoints, ChainSolution, ChainSolver, Effector,
    EffectorGoal, FullBodyIk, JointLimit, JointShare, LookAtIk, LookAtJoints, LookAtSolution,
};
pub use kinds::{ChannelPath, Interpolation};
pub use player::clock::{LoopMode, PlaybackClock};
pub use player::{
    AnimationEvent, FadeSync, FootPlacementJob, GroupDesc, GroupMode, IkJob, Layer, LayerDesc,
    LayerGroup, LayerMix, LayerMode, MAX_WEIGHT, Mask, Player, PropertyPose, Reference, RootDelta,
    RootMotion, SpringJob, mix_layers,
};
pub use pose::bones::compute_bone_matrices;
pub use pose::hook::PoseHook;
pub use pose::sink::{NullSink, PoseSink, RecordingSink};
pub use pose::skinning::{MorphTargets, VertexInfluences, skin_vertices};
pub use pose::steps::{PoseScratch, apply_clip, compute_world_matrices, reset_to_rest};
pub use rig::asset::Rig;
pub use rig::kernels::CpuKernels;
pub use rig::options::{ClipCompression, Compression, KeyFormat, RigOptions};
pub use sample::lane_bits::sqrt as lane_sqrt;
pub use sample::sampler::{SamplerCursor, evaluate_sampler, evaluate_sampler_cursor};

pub use mirror::{MIRROR_SUFFIX, MirrorMap, MirrorPlane, mirror_clip};
