//! Left/right mirroring of poses and clips: a walk that leads with the left foot played
//! leading with the right, a wave of the right hand made a wave of the left.
//!
//! # The rule
//!
//! Mirroring is a map on local poses, built once per asset from its rest pose, exact and its
//! own inverse. With `W_j` a node's world matrix, `rot(W_j)` its rest world rotation (the
//! product of the rest rotations down to it, scale left out), `p(j)` its partner (itself for
//! a centre node) and `R` the reflection about the [`MirrorPlane`]:
//!
//! ```text
//! A_j  = rot(W_p(j))⁻¹ · R · rot(W_j)            (3×3, determinant −1; A_p(j) = A_j⁻¹)
//! L'_j = A_parent(j)⁻¹ · L_p(j) · A_j            (a root's parent reflection is R itself)
//! ```
//!
//! and so, for any pose, `W'_j = R · W_p(j) · A_j`: every node lands where the reflection of
//! its partner was (`position'_j = R(position_p(j))`), turned as the reflection of its partner
//! was, with no world matrix read at run time. Mirroring twice gives the pose back.
//!
//! Each part of a local transform maps on its own:
//!
//! - rotation: `q' = a_j · q · b_j`, where `a_j`, `b_j` are the unit quaternions of
//!   `−A_parent(j)⁻¹` and `−A_j` (a reflection is minus a rotation, and the two signs
//!   cancel);
//! - translation: `t' = A_parent(j)⁻¹ · t`, plus the plane's offset `2 d n` on a root;
//! - scale: `s'_i = Σ_k A_j[k][i]² · s_k`, the diagonal of `A_j⁻¹ · S · A_j`.
//!
//! The rotation and scale maps are linear in the components and the translation map is
//! affine, so a clip mirrors key by key, tangents included, and slerp commutes with the
//! rotation map: [`mirror_clip`] bakes a clip whose samples are exactly the mirrored samples
//! of the source, for STEP, LINEAR and CUBICSPLINE alike. Baked clips cost nothing per frame
//! and go wherever clips go (layers, graphs, compression, GPU posing);
//! [`MirrorMap::mirror_pose`] mirrors a pose in place of a clip, allocating nothing.
//!
//! # Pairs and plane
//!
//! Pairs come from names ([`pairs_by_name`]: `mixamorig:LeftArm`, `upper_arm.L`,
//! `ShoulderL`, `thigh_l`, `L_Hand`, …) or are given ([`MirrorMap::from_pairs`]; skel-retarget's
//! `HumanoidMap::mirror_pairs` gives a humanoid's). A pair must respect the hierarchy: the
//! partner of a node's parent is its partner's parent, else
//! [`AnimError::MirrorPairBreaksHierarchy`](crate::AnimError::MirrorPairBreaksHierarchy)
//! names the node. The plane is found from the rest pose in the asset's frame: its normal the
//! normalised average of `left − right` over the pairs at the top of their limbs (of skin
//! joints, when the asset has skins), through the average of their midpoints; or it is given
//! ([`MirrorMap::with_plane`]).
//!
//! # What mirroring cannot do
//!
//! - **Non-uniform scale** maps exactly when `A_j` maps axes to axes (a bone and its partner
//!   rolled as each other's mirror image, as Blender's and Maya's symmetrise make them) or the
//!   scale is uniform. Otherwise `A_j⁻¹ · S · A_j` is not diagonal and no local scale shows it:
//!   the scale's diagonal is kept, and mirroring twice gives a scale that differs by the
//!   off-axis part.
//! - **An asymmetric rest**: the mirrored rest is the reflection of the partners' rests, not
//!   the rest itself (an arm longer on one side stays the longer arm's length on the other
//!   side). [`mirror_clip`] adds a one-key track where that differs from a node's own rest,
//!   so baked clips and [`MirrorMap::mirror_pose`] agree.
//! - **Morph targets** swap by name only when the map is given their names
//!   ([`MirrorMap::with_morph_target_names`]: glTF keeps them in `mesh.extras.targetNames`,
//!   outside the data a clip is baked from); otherwise weights follow their node to its
//!   partner in order.
//! - The plane and the model-space helpers ([`MirrorMap::mirror_point`],
//!   [`MirrorMap::mirror_vector`], [`MirrorMap::mirror_rotation`]) are in the asset's frame;
//!   [`MirrorPlane::for_handedness`] gives the plane in a left-handed world.
//!
//! ```
//! use skel_anim::*;
//!
//! // Hips, and a leg on each side that swings forward (+z) over one second.
//! let leg = |name: &str, x: f32| NodeRest { translation: [x, -1.0, 0.0], ..NodeRest::new(name, Some(0)) };
//! let swing = Sampler::new(vec![0.0, 1.0], vec![0.0, 0.0, 0.0, 1.0, 0.3, 0.0, 0.0, 0.954], Interpolation::Linear)?;
//! let mut data = AnimationData {
//!     nodes: vec![NodeRest::new("Hips", None), leg("Leg.L", 0.2), leg("Leg.R", -0.2)],
//!     clips: vec![Clip::new("step", vec![swing], vec![Channel { sampler: 0, node: 1, path: ChannelPath::Rotation }])],
//!     ..AnimationData::default()
//! };
//! let map = MirrorMap::from_names(&data)?;
//! let added = data.append_mirrored_clips(&map, &[0])?;
//! let mirrored = &data.clips[added[0]];
//! assert_eq!(mirrored.name, "step.mirror");
//! assert_eq!(mirrored.channels[0].node, 2); // the right leg swings now
//! # Ok::<(), AnimError>(())
//! ```

mod clip;
mod map;
mod names;
mod plane;
mod pose;

pub use clip::{MIRROR_SUFFIX, mirror_clip};
pub use map::MirrorMap;
pub use names::{merge_pairs, mirrored_name, pairs_by_name};
pub use plane::MirrorPlane;
