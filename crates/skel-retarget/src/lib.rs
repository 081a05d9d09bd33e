//! Retargeting: one rig's animation clips baked onto another rig, with the rule of
//! Babylon.js's `AnimatorAvatar.retargetAnimationGroup`, humanoid auto-mapping, root-position
//! scaling and (beyond Babylon.js) rest alignment.
//!
//! For each channel of a source clip whose node `S` drives a target node `T`, every key is
//! rewritten with constant matrices from the two rest poses (column vectors, `W` a node's rest
//! world matrix, `P` its parent's):
//!
//! ```text
//! L_T(key) = P_T⁻¹ · P_S · L_S(key) · W_S⁻¹ · W_T
//! ```
//!
//! where `L_S(key)` is the source's rest TRS with the key replacing the animated part, and
//! only that part of `L_T` is kept. At the source's rest, `L_T` is the target's rest: a
//! source that does not move leaves the target in its own rest pose. The root's translation
//! follows the source root's world motion scaled by the ratio of the rigs' heights
//! ([`RetargetOptions::fix_root_position`]). The result is ordinary clips: nothing is paid per
//! frame. `docs/retarget.md` in the repository derives the rule and compares it with
//! Babylon.js's code.
//!
//! ```
//! use skel_anim::{AnimationData, Channel, ChannelPath, Clip, Interpolation, NodeRest, Sampler, SkeletonBinding};
//! use skel_retarget::{NodeMap, RetargetOptions, retarget};
//!
//! // Two one-joint rigs: the target's joint is turned 90° about z at rest.
//! let rig = |name: &str, rotation: [f32; 4]| AnimationData {
//!     nodes: vec![NodeRest { rotation, ..NodeRest::new(name, None) }, NodeRest::new("mesh", None)],
//!     skeletons: vec![SkeletonBinding::new(0, 1, vec![0], vec![]).unwrap()],
//!     ..AnimationData::default()
//! };
//! let h = std::f32::consts::FRAC_1_SQRT_2;
//! let mut source = rig("bone", [0.0, 0.0, 0.0, 1.0]);
//! let target = rig("joint", [0.0, 0.0, h, h]);
//! let turn = Sampler::new(vec![0.0, 1.0], vec![0.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.0, 0.0], Interpolation::Linear)?;
//! source.clips.push(Clip::new("spin", vec![turn], vec![Channel { sampler: 0, node: 0, path: ChannelPath::Rotation }]));
//!
//! let map = NodeMap::from_names(&source, &target, [("joint", "bone")])?;
//! let options = RetargetOptions { fix_root_position: false, ..RetargetOptions::default() };
//! let clips = retarget(&source, &target, &map, &options)?;
//! // At the source's rest (key 0), the target is at its own rest.
//! let first = &clips[0].samplers[0].output()[..4];
//! assert!((first[2] - h).abs() < 1e-6 && (first[3] - h).abs() < 1e-6);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod align;
mod bake;
mod error;
pub mod humanoid;
mod map;
mod map_json;
mod mapping;
mod morph;
mod rest;
mod retarget;
mod root;
mod rule;
mod vrma;

pub use bake::{retarget, with_clips};
pub use error::{RetargetError, Side};
pub use humanoid::{BodySide, Finger, HumanBone, HumanoidMap, Limb};
pub use map::NodeMap;
pub use mapping::Mapping;
pub use morph::MorphTargetNames;
pub use retarget::RetargetOptions;
pub use root::{RootOffset, VerticalAxis};
pub use vrma::{Vrma, VrmaPair, retarget_vrma, vrma_pairs};
