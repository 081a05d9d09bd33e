//! The seed's names, as thin adapters over [`Rig`](crate::Rig) + [`Player`](crate::Player):
//! the Babylon-style [`AnimationController`](crate::AnimationController) ticking in
//! milliseconds, [`AnimationGroup`](crate::AnimationGroup)s
//! ([`create_animation_groups`](crate::create_animation_groups),
//! [`tick_animation`](crate::tick_animation)), [`WeightedBlend`](crate::WeightedBlend),
//! [`CrossFade`](crate::CrossFade), crowds ([`instantiate`](crate::instantiate) /
//! [`tick_all`](crate::tick_all)) and [`parse_blend_spec`](crate::parse_blend_spec).
//!
//! New code should use [`Rig`](crate::Rig) and [`Player`](crate::Player) directly (seconds,
//! layers, masks, fades, IK, root motion, events); these keep the seed's behaviour and
//! signatures for code ported from it ([`docs/equivalence.md`] maps every name).
//!
//! [`docs/equivalence.md`]: https://github.com/skel-rs/skel/blob/main/docs/equivalence.md

pub mod blend;
pub(crate) mod blend_spec;
pub(crate) mod controller;
pub(crate) mod crossfade;
pub mod group;
pub(crate) mod instances;
#[cfg(feature = "rayon")]
pub(crate) mod parallel;
