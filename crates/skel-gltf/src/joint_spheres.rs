//! Joint spheres laid out for boxing many poses of one character from its bone matrices (a
//! crowd boxes every instance every frame): the spheres sorted by the place of the matrix
//! that carries them, in runs of consecutive places, each sphere's centre and radius stored
//! splatted across four lanes. A run is boxed by walking its matrices and spheres side by
//! side (one bounds check a run, not one a joint), and a sphere costs one point carried, one
//! `sqrtps` for the three row lengths, a min, a max and two adds for the finiteness test.

use skel_anim::glam::{Mat4, Vec3, Vec4};

use crate::box_join::{Join, SphereBoxes, finite_union};

/// Spheres `(place, centre, radius)` carried by matrices `bones[place]`, laid out so that
/// [`boxed`](Self::boxed) costs a few instructions a sphere: the box is exactly
/// [`carried_spheres_box`](crate::carried_spheres_box) of the same spheres (the union of the
/// exact boxes of their images; a sphere whose box is not finite left out).
///
/// ```
/// use skel_gltf::JointSpheres;
/// use skel_anim::glam::{Mat4, Vec3};
///
/// let spheres = JointSpheres::new([(1, Vec3::ZERO, 0.5), (0, Vec3::Y, 0.25)]);
/// let bones = [Mat4::IDENTITY, Mat4::from_translation(Vec3::X)];
/// let (min, max) = spheres.boxed(&bones).unwrap();
/// assert_eq!((min, max), (Vec3::new(-0.25, -0.5, -0.5), Vec3::new(1.5, 1.25, 0.5)));
/// // A place past the matrices' end is left out.
/// assert_eq!(spheres.boxed(&bones[..1]), Some((Vec3::new(-0.25, 0.75, -0.25), Vec3::new(0.25, 1.25, 0.25))));
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
pub struct JointSpheres {
    /// Each run's first place and its spheres' range (places `first..first + len`).
    runs: Vec<(usize, core::ops::Range<usize>)>,
    spheres: Vec<Splat>,
}

/// A sphere's centre coordinates and radius, each in all four lanes: multiplied straight from
/// memory with a matrix's columns, no shuffles.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Splat {
    x: Vec4,
    y: Vec4,
    z: Vec4,
    r: Vec4,
}

impl JointSpheres {
    /// The spheres `(place, centre, radius)`, in any order; several may share a place.
    #[must_use]
    pub fn new(spheres: impl IntoIterator<Item = (usize, Vec3, f32)>) -> Self {
        let mut all: Vec<(usize, Vec3, f32)> = spheres.into_iter().collect();
        // Stable: spheres of one place keep their order.
        all.sort_by_key(|s| s.0);
        let mut out = Self::default();
        for (place, c, r) in all {
            let at = out.spheres.len();
            match out.runs.last_mut() {
                Some((first, range)) if *first + range.len() == place => range.end += 1,
                _ => out.runs.push((place, at..at + 1)),
            }
            out.spheres.push(Splat {
                x: Vec4::splat(c.x),
                y: Vec4::splat(c.y),
                z: Vec4::splat(c.z),
                r: Vec4::splat(r),
            });
        }
        out
    }

    /// How many spheres are held.
    #[must_use]
    pub fn len(&self) -> usize {
        self.spheres.len()
    }

    /// Whether no sphere is held.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.spheres.is_empty()
    }

    /// The box `(min, max)` of the spheres under `bones`: each sphere's image's exact box
    /// (centre `M c`, half extent `r` times the length of each row of `M`'s 3×3 part), joined.
    /// A sphere whose place is past `bones`' end, or whose box is not finite (a NaN or
    /// infinite matrix), is left out; `None` when none is left. Allocates nothing.
    ///
    /// The common case costs two adds a sphere for the finiteness test (each box's corners
    /// are summed as they are joined); only when the sum is not finite does a second pass
    /// leave the bad spheres out one by one (the same union as `carried_spheres_box`'s).
    #[must_use]
    pub fn boxed(&self, bones: &[Mat4]) -> Option<(Vec3, Vec3)> {
        finite_union(Under {
            spheres: self,
            bones,
        })
    }

    /// Calls `f(lo, hi)` with every sphere's box under `bones`, run by run.
    #[inline(always)]
    fn each(&self, bones: &[Mat4], mut f: impl FnMut(Vec4, Vec4)) {
        for (first, range) in &self.runs {
            let spheres = self.spheres.get(range.clone()).unwrap_or_default();
            // A run reaching past the matrices' end keeps the places that exist.
            let matrices = bones.get(*first..).unwrap_or_default();
            for (m, s) in matrices.iter().zip(spheres) {
                let (lo, hi) = splat_box(m, s);
                f(lo, hi);
            }
        }
    }
}

/// [`JointSpheres`] under a pose's bone matrices.
#[derive(Clone, Copy)]
struct Under<'a> {
    spheres: &'a JointSpheres,
    bones: &'a [Mat4],
}

impl SphereBoxes for Under<'_> {
    #[inline(always)]
    fn each_box(self, to: &mut impl Join) {
        self.spheres.each(self.bones, |lo, hi| to.join(lo, hi));
    }
}

/// One sphere's box under `m`, in four lanes (the fourth finite whenever the matrix is): the
/// carried centre less and plus `r` times each row's length (the rows' squares summed column
/// by column, their roots in one `sqrtps`).
#[inline(always)]
fn splat_box(m: &Mat4, s: &Splat) -> (Vec4, Vec4) {
    let center = m.x_axis * s.x + m.y_axis * s.y + m.z_axis * s.z + m.w_axis;
    let rows = m.x_axis * m.x_axis + m.y_axis * m.y_axis + m.z_axis * m.z_axis;
    let half = skel_anim::lane_sqrt(rows) * s.r;
    (center - half, center + half)
}

#[cfg(test)]
mod tests {
    use skel_anim::glam::Quat;

    use super::*;
    use crate::carried_spheres_box;

    /// A small deterministic generator (no test dependency).
    fn lcg(state: &mut u64) -> f32 {
        *state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        ((*state >> 40) as f32) / (1u64 << 24) as f32
    }

    /// The union written out plainly, sphere by sphere: the reference for both boxes, which
    /// share their code (`box_join`). Each sphere's image's box (the carried centre, `r` times
    /// the length of each row of the 3×3 part), left out when `lo + hi` is not finite.
    fn plain_union(spheres: &[(usize, Vec3, f32)], bones: &[Mat4]) -> Option<(Vec3, Vec3)> {
        let mut union: Option<(Vec3, Vec3)> = None;
        for &(place, center, radius) in spheres {
            let Some(m) = bones.get(place) else {
                continue;
            };
            let half = Vec3::from_array([0, 1, 2].map(|i| m.row(i).truncate().length())) * radius;
            let center = m.transform_point3(center);
            let (lo, hi) = (center - half, center + half);
            if (lo + hi).is_finite() {
                union = Some(union.map_or((lo, hi), |(a, b)| (a.min(lo), b.max(hi))));
            }
        }
        union
    }

    #[test]
    fn the_box_is_carried_spheres_box_of_the_same_spheres() {
        let mut s = 7;
        let mut r = || lcg(&mut s) * 2.0 - 1.0;
        for case in 0..200 {
            let bones: Vec<Mat4> = (0..12)
                .map(|_| {
                    Mat4::from_scale_rotation_translation(
                        Vec3::new(1.0 + r() * 0.5, 1.0 + r() * 0.5, 1.0 + r() * 0.5),
                        Quat::from_euler(skel_anim::glam::EulerRot::XYZ, r() * 3.0, r(), r()),
                        Vec3::new(r(), r(), r()) * 3.0,
                    )
                })
                .collect();
            // Gaps, repeats and places past the end.
            let spheres: Vec<(usize, Vec3, f32)> = (0..10)
                .map(|k| {
                    let place = (k * 7 + case) % 15;
                    (place, Vec3::new(r(), r(), r()), r().abs())
                })
                .collect();
            let mut bad = bones.clone();
            if case % 3 == 0 {
                bad[case % 12] = Mat4::NAN;
            }
            if case % 5 == 0 {
                bad[(case + 4) % 12] = Mat4::from_translation(Vec3::INFINITY);
            }
            if case % 7 == 0 {
                // Finite, but the box's corners sum past f32::MAX: left out by both.
                bad[(case + 2) % 12] = Mat4::from_translation(Vec3::new(3.0e38, 0.0, 0.0));
            }
            for bones in [&bones, &bad] {
                let want = carried_spheres_box(
                    spheres
                        .iter()
                        .filter_map(|&(p, c, r)| Some((bones.get(p)?, c, r))),
                );
                assert_eq!(
                    JointSpheres::new(spheres.clone()).boxed(bones),
                    want,
                    "{case}"
                );
                assert_eq!(want, plain_union(&spheres, bones), "{case}");
            }
        }
    }

    #[test]
    fn no_finite_sphere_gives_none() {
        let spheres = JointSpheres::new([(0, Vec3::ZERO, 1.0), (1, Vec3::ONE, 1.0)]);
        assert_eq!(spheres.boxed(&[Mat4::NAN; 2]), None);
        assert_eq!(spheres.boxed(&[]), None);
        assert_eq!(JointSpheres::default().boxed(&[Mat4::IDENTITY]), None);
    }
}
