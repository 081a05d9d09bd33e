//! The union of spheres' boxes under a pose, and its finiteness test, written once for both
//! ways of finding the spheres' matrices ([`JointSpheres`](crate::JointSpheres)' runs and
//! [`carried_spheres_box`](crate::carried_spheres_box)'s pairs).
//!
//! A crowd boxes every joint of every character every frame, so the common case costs two adds
//! a sphere for the finiteness test: the boxes' corners are summed as they are joined (a NaN or
//! an infinity survives a sum, where a min or a max may drop it), and only when the sum is not
//! finite does a second pass leave the bad spheres out one by one.

use skel_anim::glam::{Vec3, Vec4};

/// Spheres whose boxes under a pose can be walked (a clone for each walk: the second is taken
/// only when a box is not finite).
pub(crate) trait SphereBoxes: Clone {
    /// Hands every sphere's box to `to`, in four lanes (the fourth finite whenever the
    /// sphere's matrix is).
    fn each_box(self, to: &mut impl Join);
}

/// What a walk does with each box.
pub(crate) trait Join {
    /// Takes the box `lo..hi`.
    fn join(&mut self, lo: Vec4, hi: Vec4);
}

/// The first walk: every box joined, and summed.
struct Union {
    min: Vec4,
    max: Vec4,
    sum: Vec4,
}

impl Join for Union {
    #[inline(always)]
    fn join(&mut self, lo: Vec4, hi: Vec4) {
        self.min = self.min.min(lo);
        self.max = self.max.max(hi);
        self.sum += lo + hi;
    }
}

/// The second walk: only the finite boxes joined.
struct FiniteUnion {
    min: Vec4,
    max: Vec4,
}

impl Join for FiniteUnion {
    #[inline(always)]
    fn join(&mut self, lo: Vec4, hi: Vec4) {
        if (lo + hi).is_finite() {
            self.min = self.min.min(lo);
            self.max = self.max.max(hi);
        }
    }
}

/// The box `(min, max)` joining the boxes of `spheres` that are finite; `None` when none is.
///
/// A box is judged by `lo + hi`, not `hi` alone, so that a box whose corners' sum overflows
/// (a bone at x = 3e38) is left out, as the second pass and the GPU cull leave it out.
/// Inlined into each caller, with the joins, so that the loop stays a few instructions a
/// sphere.
#[inline(always)]
pub(crate) fn finite_union(spheres: impl SphereBoxes) -> Option<(Vec3, Vec3)> {
    let mut all = Union {
        min: Vec4::INFINITY,
        max: Vec4::NEG_INFINITY,
        sum: Vec4::ZERO,
    };
    spheres.clone().each_box(&mut all);
    let (min, max) = if all.sum.is_finite() {
        (all.min, all.max)
    } else {
        let mut finite = FiniteUnion {
            min: Vec4::INFINITY,
            max: Vec4::NEG_INFINITY,
        };
        spheres.each_box(&mut finite);
        (finite.min, finite.max)
    };
    let (min, max) = (min.truncate(), max.truncate());
    min.cmple(max).all().then_some((min, max))
}
