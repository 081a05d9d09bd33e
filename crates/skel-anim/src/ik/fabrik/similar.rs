//! FABRIK for chains without limits whose joint frames are similarities (a rotation and one
//! scale, mirrored or not: every rig whose model frame is), in f32 with no matrix inverse.
//! [`ChainIk`](crate::ik::ChainIk) takes this path when it can and the f64 chain of
//! [`super`] otherwise; both give the same corrections up to rounding.
//!
//! The passes ([`passes`](super::passes)) leave joint positions; the pole step turns them
//! about the root → tip line before they become rotations (the tip stays), which is the same
//! as turning the root's correction afterwards when nothing limits it; `rotations.rs` turns
//! them into corrections.

use glam::{Affine3A, Quat, Vec3A, Vec4};

use super::passes::{Goal, run};
use super::rotations::{Frames, rotation_scale, sandwich, tip_under, to_corrections};
use super::scale::inverse_sqrt;
use crate::ik::links::MAX_CHAIN_JOINTS;

/// Distances past this leave the f32 path (their squares would come near f32's range).
const BIG: f32 = 1e15;

/// What to solve for (the [`ChainIk`](crate::ik::ChainIk) fields, checked finite).
#[derive(Clone, Copy)]
pub(crate) struct Request {
    pub(crate) target: Vec3A,
    pub(crate) pole: Option<Vec3A>,
    pub(crate) tolerance: f32,
    /// 0 when the weight is 0.
    pub(crate) iterations: u32,
    /// In `0..=1`.
    pub(crate) weight: f32,
}

/// What a solve found.
pub(crate) struct Outcome {
    pub(crate) iterations: u32,
    /// The tip's distance from the target under the corrections written.
    pub(crate) distance: f32,
    /// The chain's length.
    pub(crate) total: f32,
}

/// Solves the chain `models` (root first) into `corrections`, or returns `None`, writing
/// nothing, when a frame is not a finite similarity or a bone has no length (the f64 chain
/// then solves it, or says why it cannot).
pub(crate) fn solve(
    models: &[Affine3A],
    request: &Request,
    corrections: &mut [Quat],
) -> Option<Outcome> {
    let mut chain = Prepared::of(models);
    if !chain.prepare(request) {
        return None;
    }
    if let Some(goal) = chain.goal {
        let n = models.len();
        chain.used = run(&mut chain.p[..n], &chain.length[..n - 1], &goal);
    }
    Some(chain.finish(request, corrections))
}

/// A chain made ready for the passes (or already solved without them): its positions from
/// the root, bones and frames. [`solve`] runs the passes on one; a batch runs them on four
/// at once (`passes_x4.rs`).
pub(crate) struct Prepared<'a> {
    /// The joints' positions from the root (`origin`); after the passes, where they left them.
    pub(crate) p: [Vec3A; MAX_CHAIN_JOINTS],
    /// Bone lengths.
    pub(crate) length: [f32; MAX_CHAIN_JOINTS],
    /// What the passes must do, or `None` when there is nothing to iterate (no iterations
    /// asked, or the target out of reach and the chain already straightened).
    pub(crate) goal: Option<Goal>,
    /// Iterations run (set by whoever runs the passes).
    pub(crate) used: u32,
    /// The bones' unit directions as given.
    bone: [Vec3A; MAX_CHAIN_JOINTS],
    frames: Frames<'a>,
    total: f32,
    /// The target from the root.
    target: Vec3A,
}

impl<'a> Prepared<'a> {
    /// The chain `models`, not yet prepared.
    #[inline(always)]
    pub(crate) fn of(models: &'a [Affine3A]) -> Self {
        Self {
            p: [Vec3A::ZERO; MAX_CHAIN_JOINTS],
            length: [0.0; MAX_CHAIN_JOINTS],
            goal: None,
            used: 0,
            bone: [Vec3A::ZERO; MAX_CHAIN_JOINTS],
            frames: Frames {
                models,
                scale: [0.0; MAX_CHAIN_JOINTS],
            },
            total: 0.0,
            target: Vec3A::ZERO,
        }
    }

    /// Makes this the chain `models`, not yet prepared, in place.
    #[inline(always)]
    pub(crate) fn reset(&mut self, models: &'a [Affine3A]) {
        self.frames.models = models;
        self.goal = None;
        self.used = 0;
    }

    /// Makes the chain ready for `request`; false when this path cannot take it (see
    /// [`solve`]). Works in place: a chain is too big to move about cheaply.
    #[inline(always)]
    pub(crate) fn prepare(&mut self, request: &Request) -> bool {
        let n = self.joints();
        let models = self.frames.models;
        let Self {
            p,
            length,
            bone,
            frames,
            used,
            goal,
            ..
        } = self;
        // The tip's rotation is never read (its correction is the identity): only where it is.
        let Some((tip, joints)) = models.split_last() else {
            return false;
        };
        for ((m, p), scale) in joints.iter().zip(p.iter_mut()).zip(&mut frames.scale) {
            let Some(s) = rotation_scale(m) else {
                return false;
            };
            *scale = s;
            *p = m.translation;
        }
        if !tip.translation.is_finite() {
            return false;
        }
        p[n - 1] = tip.translation;
        // Everything from the root, so that the rounding is the chain's, not the world's: a
        // character far from the origin solves as one at it.
        let origin = p[0];
        for p in &mut p[..n] {
            *p -= origin;
        }
        // Bones: unit directions as given and lengths.
        let mut total = 0.0_f32;
        let mut shortest = f32::INFINITY;
        for i in 0..n - 1 {
            let u = p[i + 1] - p[i];
            length[i] = u.length();
            bone[i] = u / length[i];
            total += length[i];
            shortest = shortest.min(length[i]);
        }
        // Squares of distances from the root must stay inside f32: a target farther out goes
        // to the f64 chain (whose conversion to rotations is f64; its passes are these, in
        // f32).
        let target = request.target - origin;
        if !(shortest > 1e-6 * total && total < BIG && target.length_squared() < BIG * BIG) {
            return false;
        }
        let root = p[0];
        let axis = (target - root)
            .try_normalize()
            .or_else(|| (p[n - 1] - root).try_normalize())
            .unwrap_or(Vec3A::X);
        if request.iterations > 0 {
            *used = 1;
            if (target - root).length() >= total {
                // Out of reach: the straightened chain, exact.
                for i in 1..n {
                    p[i] = p[i - 1] + axis * length[i - 1];
                }
            } else {
                unbend(&mut p[..n], axis, request.pole, total);
                *goal = Some(Goal {
                    root,
                    target,
                    axis,
                    tolerance: request.tolerance,
                    iterations: request.iterations,
                });
            }
        }
        self.total = total;
        self.target = target;
        true
    }

    /// The joints in the chain.
    pub(crate) fn joints(&self) -> usize {
        self.frames.models.len()
    }

    /// From the positions to `corrections` (see [`solve`]): the pole step, the conversion, the
    /// weight.
    pub(crate) fn finish(&mut self, request: &Request, corrections: &mut [Quat]) -> Outcome {
        let n = self.joints();
        let (p, root) = (&mut self.p, Vec3A::ZERO);
        let tip = if request.iterations > 0 {
            if let Some(pole) = request.pole {
                face_pole(&mut p[..n], pole, self.total);
            }
            let (bone, length, frames) = (&self.bone, &self.length, &self.frames);
            let mut tip = to_corrections(&p[..n], bone, length, frames, corrections);
            if request.weight < 1.0 {
                for c in &mut corrections[..n] {
                    *c = Quat::IDENTITY.lerp(*c, request.weight).normalize();
                }
                tip = tip_under(corrections, root, bone, length, frames);
            }
            tip
        } else {
            corrections.fill(Quat::IDENTITY);
            p[n - 1]
        };
        Outcome {
            iterations: self.used,
            distance: (tip - self.target).length(),
            total: self.total,
        }
    }
}

/// A chain lying along `axis` through the root, target on that line, cannot bend by itself:
/// its interior joints move sideways by 1 % of its length, towards the pole when there is one.
fn unbend(p: &mut [Vec3A], axis: Vec3A, pole: Option<Vec3A>, total: f32) {
    let n = p.len();
    if n < 3 {
        return;
    }
    let off = |v: Vec3A| v - axis * axis.dot(v);
    let widest = p[1..]
        .iter()
        .map(|&q| off(q - p[0]).length_squared())
        .fold(0.0, f32::max);
    if widest > (1e-6 * total) * (1e-6 * total) {
        return;
    }
    let side = pole
        .and_then(|pole| off(pole).try_normalize())
        .unwrap_or_else(|| axis.any_orthonormal_vector());
    for q in &mut p[1..n - 1] {
        *q += side * (0.01 * total);
    }
}

/// The pole step on positions: every joint turned about the root → tip line so that the
/// interior joints' mean offset from it faces `pole` (skipped when either is along the line).
pub(super) fn face_pole(p: &mut [Vec3A], pole: Vec3A, total: f32) {
    let n = p.len();
    if n < 3 {
        return;
    }
    // The line unnormalised (`a`, with `ra = 1 / |a|`): one reciprocal square root, no
    // division, waits in the chain.
    let a = p[n - 1] - p[0];
    let aa = a.length_squared();
    if aa.is_nan() || aa <= f32::MIN_POSITIVE {
        return;
    }
    let ra = inverse_sqrt(aa);
    let inv_aa = ra * ra;
    let off = |v: Vec3A| v - a * (a.dot(v) * inv_aa);
    let bend: Vec3A = p[1..n - 1].iter().map(|&q| off(q - p[0])).sum();
    let want = off(pole);
    let (bb, ww) = (bend.length_squared(), want.length_squared());
    let least = 1e-6 * total;
    if bb <= least * least || ww <= 1e-12 * pole.length_squared() {
        return;
    }
    // Both lie across the line, so the turn is about it, by the angle φ from `bend` to
    // `want`; with `N = |bend| |want|`, `N cos φ = bend · want` and `N sin φ = â · (bend ×
    // want)`. The half-angle as `(â N sin φ, N (1 + cos φ))`, or `(â N (1 − cos φ), N sin φ)`
    // past a quarter turn, where the first form cancels.
    let norm = (bb * ww).sqrt();
    let (cos, sin) = (bend.dot(want), a.dot(bend.cross(want)) * ra);
    let (s, c) = if cos >= 0.0 {
        (sin, norm + cos)
    } else {
        (norm - cos, sin)
    };
    // Turned by the quaternion as it is and divided by its squared norm afterwards: the
    // division runs beside the turn instead of a normalisation before it.
    let q = Vec4::from((a * (s * ra), c));
    let scale = 1.0 / q.length_squared();
    let turn = Quat::from_vec4(q);
    for i in 1..n {
        p[i] = p[0] + sandwich(turn, p[i] - p[0]) * scale;
    }
}

#[cfg(test)]
mod tests {
    use glam::{Quat, Vec3};

    use super::*;
    use crate::ik::links::{Goal, Links};

    /// A chain of `n` joints bending about changing axes, under a root frame `base`.
    fn chain(n: usize, base: Affine3A) -> Vec<Affine3A> {
        let mut m = vec![base; n];
        for i in 1..n {
            let t = i as f32;
            let bend = Quat::from_rotation_z(0.3 + 0.1 * t) * Quat::from_rotation_x(0.2 - 0.05 * t);
            m[i] = m[i - 1]
                * Affine3A::from_quat(bend)
                * Affine3A::from_translation(Vec3::Y * (0.2 + 0.1 * t));
        }
        m
    }

    /// The f64 chain's FABRIK on the same input.
    fn general(
        models: &[Affine3A],
        target: Vec3,
        pole: Option<Vec3>,
        iterations: u32,
    ) -> Vec<Quat> {
        let mut links = Links::new(models, &[], &[]).unwrap();
        let goal = Goal {
            target: target.as_dvec3(),
            pole: pole.map(|p| p.as_dvec3()),
            tolerance: 0.0,
            max_step: std::f64::consts::PI,
            iterations,
        };
        super::super::solve(&mut links, &goal);
        links.corr[..models.len()]
            .iter()
            .map(|c| c.as_quat())
            .collect()
    }

    #[test]
    fn matches_the_f64_chain_on_rotated_scaled_and_mirrored_frames() {
        let bases = [
            Affine3A::IDENTITY,
            Affine3A::from_scale_rotation_translation(
                Vec3::splat(2.5),
                Quat::from_euler(glam::EulerRot::XYZ, 0.4, -1.1, 2.0),
                Vec3::new(3.0, -1.0, 0.5),
            ),
            Affine3A::from_scale_rotation_translation(
                Vec3::new(-0.5, 0.5, 0.5),
                Quat::from_rotation_y(0.7),
                Vec3::ZERO,
            ),
        ];
        for base in bases {
            for n in [2, 3, 6, 9] {
                let models = chain(n, base);
                let reach: f32 = (1..n)
                    .map(|i| (models[i].translation - models[i - 1].translation).length())
                    .sum();
                let root = Vec3::from(models[0].translation);
                for (target, pole) in [
                    (root + Vec3::new(0.4, 0.5, 0.2) * reach, Some(Vec3::Z)),
                    (root + Vec3::new(-0.3, 0.2, 0.1) * reach, None),
                    (root + Vec3::new(1.0, 1.0, 0.0) * reach, Some(Vec3::X)),
                ] {
                    let request = Request {
                        target: target.into(),
                        pole: pole.map(Vec3A::from),
                        tolerance: 0.0,
                        iterations: 10,
                        weight: 1.0,
                    };
                    let mut fast = vec![Quat::NAN; n];
                    let out = solve(&models, &request, &mut fast).expect("similar frames");
                    assert!(out.distance.is_finite() && out.iterations >= 1);
                    let want = general(&models, target, pole, 10);
                    for (i, (a, b)) in fast.iter().zip(&want).enumerate() {
                        // Same rotation, either sign, to f32's rounding of both paths.
                        let gap = (*a - *b).length().min((*a + *b).length());
                        assert!(
                            gap < 2e-6,
                            "n {n} joint {i}: {a:?} against {b:?}, target {target:?}, pole {pole:?}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn frames_that_are_not_similarities_are_left_to_the_f64_chain() {
        let sheared =
            Affine3A::from_cols(Vec3A::X, Vec3A::new(0.3, 1.0, 0.0), Vec3A::Z, Vec3A::ZERO);
        let stretched = Affine3A::from_scale(Vec3::new(1.0, 2.0, 1.0));
        let flat = Affine3A::from_scale(Vec3::new(1.0, 1.0, 0.0));
        let nan = Affine3A::from_translation(Vec3::NAN);
        for bad in [sheared, stretched, flat, nan] {
            assert!(rotation_scale(&bad).is_none(), "{bad:?}");
            let models = chain(4, bad);
            let request = Request {
                target: Vec3A::new(0.2, 0.5, 0.1),
                pole: None,
                tolerance: 0.0,
                iterations: 4,
                weight: 1.0,
            };
            let mut out = [Quat::IDENTITY; 4];
            assert!(solve(&models, &request, &mut out).is_none());
            assert_eq!(out, [Quat::IDENTITY; 4], "nothing written");
        }
    }

    #[test]
    fn far_chains_and_targets_are_left_to_the_f64_chain() {
        let far = Affine3A::from_translation(Vec3::splat(1e18));
        let request = |target: Vec3| Request {
            target: target.into(),
            pole: Some(Vec3A::Z),
            tolerance: 0.0,
            iterations: 10,
            weight: 1.0,
        };
        let mut out = [Quat::IDENTITY; 4];
        // At 1e18 f32 holds no bone of the chain (every joint rounds to the same point).
        assert!(solve(&chain(4, far), &request(Vec3::splat(1e18)), &mut out).is_none());
        assert!(
            solve(
                &chain(4, Affine3A::IDENTITY),
                &request(Vec3::splat(1e20)),
                &mut out
            )
            .is_none()
        );
        // The public solve still answers, finite.
        let ik = crate::ik::ChainIk {
            target: Vec3::splat(1e20),
            ..crate::ik::ChainIk::default()
        };
        ik.solve(&chain(4, Affine3A::IDENTITY), &[], &mut out)
            .unwrap();
        assert!(out.iter().all(|q| q.is_finite()), "{out:?}");
    }

    #[test]
    fn a_mirrored_frame_keeps_its_rotation_proper() {
        let m = Affine3A::from_scale_rotation_translation(
            Vec3::new(-2.0, 2.0, 2.0),
            Quat::from_rotation_x(0.5),
            Vec3::ZERO,
        );
        let r = m.matrix3 * rotation_scale(&m).unwrap();
        assert!((r.determinant() - 1.0).abs() < 1e-6, "{r:?}");
        let frames = Frames {
            models: std::slice::from_ref(&m),
            scale: [rotation_scale(&m).unwrap(); MAX_CHAIN_JOINTS],
        };
        let v = Vec3A::new(0.3, -0.2, 0.9);
        assert!((frames.to_model(0, frames.to_local(0, v)) - v).length() < 1e-6);
    }

    /// A chain and target moved far from the origin (to points f32 holds exactly, so that the
    /// input is the same) solve to the same corrections: the passes run from the root, on
    /// both paths (no limits: this one; limits: the f64 chain).
    #[test]
    fn a_chain_far_from_the_origin_solves_as_at_it() {
        use crate::ik::{ChainIk, JointLimit};
        // Joints on a 1/64 grid, held exactly at 16 384 (f32's spacing there is 1/512).
        let at = |offset: Vec3| -> Vec<Affine3A> {
            [
                Vec3::new(0.0, 0.0, 0.0),
                Vec3::new(0.015_625, 0.5, 0.0),
                Vec3::new(0.25, 0.984_375, 0.125),
                Vec3::new(0.5, 1.375, 0.25),
                Vec3::new(0.5625, 1.75, 0.5),
            ]
            .iter()
            .map(|&p| Affine3A::from_translation(p + offset))
            .collect()
        };
        let offset = Vec3::new(8_192.0, -4_096.0, 16_384.0);
        let (home, away) = (at(Vec3::ZERO), at(offset));
        for limits in [vec![], vec![JointLimit::cone(Vec3::Y, 1.2, 0.5); 5]] {
            let ik = |target: Vec3| ChainIk {
                target,
                pole: Some(Vec3::Z),
                iterations: 10,
                tolerance: 0.0,
                ..ChainIk::default()
            };
            let target = Vec3::new(0.75, 0.875, 0.5);
            let (mut a, mut b) = ([Quat::NAN; 5], [Quat::NAN; 5]);
            ik(target).solve(&home, &limits, &mut a).unwrap();
            ik(target + offset).solve(&away, &limits, &mut b).unwrap();
            for (i, (a, b)) in a.iter().zip(&b).enumerate() {
                let gap = (*a - *b).length().min((*a + *b).length());
                assert!(
                    gap < 1e-6,
                    "limits {}: joint {i}: {a:?} against {b:?}",
                    limits.len()
                );
            }
        }
    }
}
