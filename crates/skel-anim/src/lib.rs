//! The CPU pose pipeline of skel: keyframe sampling, clips, node hierarchy, the per-frame
//! [`AnimationController`] and CPU reference skinning. No GPU, no glTF.
//!
//! Data arrives as plain [`AnimationData`] (built by `skel-gltf` from a file, or by hand), is
//! shared between characters behind an [`Arc`](std::sync::Arc), and every frame
//! [`AnimationController::tick`] writes bone matrices and morph weights to a [`PoseSink`]
//! (`skel-gpu` implements one that uploads to wgpu; a `Vec<f32>` will do in tests).
//!
//! The runtime behind it: a [`Rig`] compiles an asset once (evaluation plan, four-node key
//! blocks, blend maps, the CPU kernels: [`Rig::with_kernels`]) and every [`Player`] of the
//! asset shares it; a player holds an ordered list of [`Layer`]s (blend or additive, masks,
//! cross-fades, IK, root motion, events) and poses single clips and layer stacks four nodes at
//! a time. The seed's names are thin adapters over it: [`AnimationGroup`]s play one clip each
//! with play / pause / stop / seek / speed / loop / sub-range ([`group`] has an example), a
//! [`WeightedBlend`] mixes any number of clips with per-property weight normalisation
//! ([`blend`] says what you will see), [`CrossFade`] fades between clips without pops, and
//! [`instantiate`] / [`tick_all`] (or `par_tick_all` with the `rayon` feature) drive crowds that
//! share one asset's keyframes.
//!
//! ```
//! use std::sync::Arc;
//! use skel_anim::*;
//!
//! // One root joint that moves along x from 0 to 2 over one second, skinning a mesh on node 1.
//! let data = AnimationData {
//!     nodes: vec![NodeRest::new("root", None), NodeRest::new("mesh", None)],
//!     clips: vec![Clip::new(
//!         "slide",
//!         vec![Sampler::new(vec![0.0, 1.0], vec![0.0, 0.0, 0.0, 2.0, 0.0, 0.0], Interpolation::Linear).unwrap()],
//!         vec![Channel { sampler: 0, node: 0, path: ChannelPath::Translation }],
//!     )],
//!     skeletons: vec![SkeletonBinding::new(0, 1, vec![0], vec![]).unwrap()],
//!     morph_bindings: vec![],
//!     handedness: Handedness::RightHanded,
//! };
//! let mut controller = AnimationController::new(Arc::new(data)).unwrap();
//! controller.set_clip(Some(0)).unwrap();
//! let mut sink = RecordingSink::default();
//! controller.tick(500.0, &mut sink); // half a second
//! let bone = &sink.bone_matrices[0];
//! assert!((bone[12] - 1.0).abs() < 1e-6); // translated by 1 along x
//! ```

// No `unsafe` outside the run-time detected CPU kernels (`wide`) and the passes that call them
// (`single`, `player::quad_mix`): each has its own `allow` and a `// SAFETY:` reason on every
// block.
#![deny(unsafe_code)]

/// The math crate of the public API (root-motion deltas, IK targets), re-exported so that a
/// user names the same version.
pub use glam;

pub mod blend;
mod blend_map;
mod blend_spec;
mod blend_tracks;
mod clip;
mod clock;
mod compression;
mod controller;
mod crossfade;
mod data;
mod error;
pub mod group;
mod hierarchy;
mod hooks;
pub mod ik;
mod instances;
mod interpolate;
mod kinds;
mod layout;
mod packed;
mod packed_build;
#[cfg(feature = "rayon")]
mod parallel;
mod plan;
mod player;
mod pose;
mod poser;
mod quad_plan;
mod quad_sample;
mod quads;
mod rig;
mod sampler;
mod single;
mod sink;
mod skinning;
mod slerp_wide;
mod timeline;
mod tracks;
mod wide;

pub use blend::{BlendLayer, WeightedBlend};
pub use blend_spec::parse_blend_spec;
pub use clip::{Channel, Clip, Marker};
pub use clock::{LoopMode, PlaybackClock};
pub use compression::{ClipCompression, Compression, RigOptions};
pub use controller::AnimationController;
pub use crossfade::CrossFade;
pub use data::{
    AnimationData, Handedness, MorphBinding, R_OFF, S_OFF, SkeletonBinding, T_OFF, TRS_STRIDE,
};
pub use error::AnimError;
pub use group::{
    AnimationGroup, create_animation_groups, create_animation_groups_for, tick_animation,
};
pub use hierarchy::{NodeRest, compute_topo_order};
pub use hooks::PoseHook;
pub use ik::{
    AimIk, AimSolution, TwoBoneIk, TwoBoneSolution, apply_correction, check_chain, model_matrix,
    model_matrix_from_trs,
};
pub use instances::{Animate, instantiate, tick_all};
pub use kinds::{ChannelPath, Interpolation};
#[cfg(feature = "rayon")]
pub use parallel::par_tick_all;
pub use player::{
    AnimationEvent, FadeSync, IkJob, Layer, LayerDesc, LayerMix, LayerMode, MAX_WEIGHT, Mask,
    Player, Reference, RootDelta, RootMotion, mix_layers,
};
pub use pose::{
    PoseScratch, apply_clip, compute_bone_matrices, compute_world_matrices, reset_to_rest,
};
pub use rig::Rig;
pub use sampler::{Sampler, SamplerCursor, evaluate_sampler, evaluate_sampler_cursor};
pub use sink::{NullSink, PoseSink, RecordingSink};
pub use skinning::{MorphTargets, VertexInfluences, skin_vertices};
pub use wide::CpuKernels;
