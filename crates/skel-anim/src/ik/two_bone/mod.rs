//! Two-bone IK: a start/mid/end chain (thigh, calf, foot) whose end reaches a target.

use glam::{Affine3A, DAffine3, DQuat, DVec3, Quat, Vec3};

use super::{REL_EPS, angle_about, finite1, finite3, joint_frame, weighted};
use crate::AnimError;

mod bent;
mod job;

pub(crate) use bent::BENT;
use job::reach;
pub use job::{TwoBoneIk, TwoBoneSolution};

/// A rotation as an f32 quaternion with w ≥ 0.
fn unit(q: DQuat) -> Quat {
    weighted(q, 1.0)
}

/// The chain in the start joint's space (`ss`) and the mid joint's space (`ms`).
struct Chain {
    start: DAffine3,
    start_inv: DAffine3,
    mid: DAffine3,
    /// Mid and end positions seen from the start joint.
    mid_ss: DVec3,
    end_ss: DVec3,
    /// Mid → start and mid → end seen from the mid joint.
    to_start_ms: DVec3,
    to_end_ms: DVec3,
    /// Bone lengths in start-joint units.
    upper: f64,
    lower: f64,
}

impl Chain {
    fn new(start: &Affine3A, mid: &Affine3A, end: &Affine3A) -> Result<Self, AnimError> {
        let (start, start_inv) = joint_frame("IK start joint matrix", start)?;
        let (mid, mid_inv) = joint_frame("IK mid joint matrix", mid)?;
        finite3("IK end joint position", Vec3::from(end.translation))?;
        let end_pos = Vec3::from(end.translation).as_dvec3();
        let mid_ss = start_inv.transform_point3(mid.translation);
        let end_ss = start_inv.transform_point3(end_pos);
        let upper = mid_ss.length();
        let lower = (end_ss - mid_ss).length();
        let chain = upper + lower;
        if !(upper > REL_EPS * chain && lower > REL_EPS * chain && chain.is_finite()) {
            return Err(AnimError::IkDegenerate {
                reason: "a bone of the two-bone chain has zero length",
            });
        }
        Ok(Self {
            to_start_ms: mid_inv.transform_point3(start.translation),
            to_end_ms: mid_inv.transform_point3(end_pos),
            start,
            start_inv,
            mid,
            mid_ss,
            end_ss,
            upper,
            lower,
        })
    }

    /// The hinge in mid space and the current bend angle signed about it (positive: bent the
    /// way the hinge opens), as its cosine and sine.
    fn hinge(&self, mid_axis: Option<Vec3>, pole: Vec3) -> (DVec3, (f64, f64)) {
        let (u, v) = (self.to_start_ms, self.to_end_ms);
        let (a, b) = (self.upper, self.lower);
        let cos_now =
            ((a * a + b * b - self.end_ss.length_squared()) / (2.0 * a * b)).clamp(-1.0, 1.0);
        let now = (cos_now, (1.0 - cos_now * cos_now).max(0.0).sqrt());
        let normal = u.cross(v);
        if normal.length() > 1e-7 * u.length() * v.length() {
            let n = normal.normalize();
            return match mid_axis {
                Some(k) if k.as_dvec3().dot(n) < 0.0 => (-n, (now.0, -now.1)),
                _ => (n, now),
            };
        }
        // Straight or folded: any axis perpendicular to the lower bone bends it; take the
        // given one, else the one that bends towards the pole, else any.
        let v_dir = v.normalize();
        let perpendicular = |k: DVec3| {
            let p = k - v_dir * v_dir.dot(k);
            (p.length() > 1e-6 * k.length() && p.length() > 0.0).then(|| p.normalize())
        };
        if let Some(k) = mid_axis.and_then(|k| perpendicular(k.as_dvec3())) {
            return (k, now);
        }
        let pole_ms = self.mid.inverse().transform_vector3(pole.as_dvec3());
        let k =
            perpendicular(v_dir.cross(pole_ms)).unwrap_or_else(|| v_dir.any_orthonormal_vector());
        (k, now)
    }
}

impl TwoBoneIk {
    /// The mid joint's hinge found from a pose (typically the rest pose, once at setup): the
    /// unit axis, in the mid joint's local space, perpendicular to both bones, oriented so
    /// that a positive rotation opens the joint. `None` when the bones are straight, folded or
    /// of zero length, or a matrix is singular or not finite.
    ///
    /// The matrices are the three joints' model matrices in any one frame.
    #[must_use]
    pub fn bend_axis(start: &Affine3A, mid: &Affine3A, end: &Affine3A) -> Option<Vec3> {
        let chain = Chain::new(start, mid, end).ok()?;
        let normal = chain.to_start_ms.cross(chain.to_end_ms);
        let scale = chain.to_start_ms.length() * chain.to_end_ms.length();
        (normal.length() > 1e-6 * scale).then(|| normal.normalize().as_vec3())
    }

    /// Solves the chain from the model matrices of its start, mid and end joints (`start` an
    /// ancestor of `mid`, `mid` of `end`), in the frame the target and pole are given in.
    ///
    /// # Errors
    /// [`AnimError::NotFiniteValue`] for a NaN or infinite input, [`AnimError::IkDegenerate`]
    /// for a zero-length bone, a zero mid axis or a singular joint matrix. Everything else has
    /// a result (see "Degenerate cases" on [`TwoBoneIk`]).
    pub fn solve(
        &self,
        start: &Affine3A,
        mid: &Affine3A,
        end: &Affine3A,
    ) -> Result<TwoBoneSolution, AnimError> {
        self.solve_inline(start, mid, end)
    }

    /// [`Self::solve`] inlined into its caller (foot placement's AVX2 build).
    #[inline(always)]
    pub(crate) fn solve_inline(
        &self,
        start: &Affine3A,
        mid: &Affine3A,
        end: &Affine3A,
    ) -> Result<TwoBoneSolution, AnimError> {
        finite3("IK target", self.target)?;
        finite3("IK pole", self.pole)?;
        if let Some(axis) = self.mid_axis {
            finite3("IK mid axis", axis)?;
            if axis == Vec3::ZERO {
                return Err(AnimError::IkDegenerate {
                    reason: "the two-bone mid axis is zero",
                });
            }
        }
        finite1("IK twist", self.twist)?;
        finite1("IK soften", self.soften)?;
        finite1("IK weight", self.weight)?;
        let weight = self.weight.clamp(0.0, 1.0);
        if weight > 0.0
            && let Some(solution) = bent::solve(self, start, mid, end, weight)
        {
            return Ok(solution);
        }
        self.solve_f64(start, mid, end)
    }

    /// The solve in f64, for every chain (inputs checked finite).
    fn solve_f64(
        &self,
        start: &Affine3A,
        mid: &Affine3A,
        end: &Affine3A,
    ) -> Result<TwoBoneSolution, AnimError> {
        let chain = Chain::new(start, mid, end)?;
        let (axis, now) = chain.hinge(self.mid_axis, self.pole);
        let weight = f64::from(self.weight.clamp(0.0, 1.0));
        if weight == 0.0 {
            return Ok(TwoBoneSolution::IDENTITY);
        }
        let soften = f64::from(self.soften.clamp(0.0, 1.0));
        let (a, b) = (chain.upper, chain.lower);
        let length = a + b;

        let target_ss = chain.start_inv.transform_point3(self.target.as_dvec3());
        let dist = target_ss.length();
        let (reach, within) = reach(dist, a, b, soften);
        let reached = within && weight >= 1.0;
        let goal = if dist > 0.0 {
            target_ss * (reach / dist)
        } else {
            target_ss
        };
        // Weight: the end aims at a point moving straight from where it is to the goal, so
        // the end-to-target distance shrinks monotonically as the weight rises (ozz lerps the
        // corrections instead, which can swing the end away first).
        let aim = if weight >= 1.0 {
            goal
        } else {
            chain.end_ss + (goal - chain.end_ss) * weight
        };
        let aim_len = aim.length();

        // Mid joint: the interior angle the triangle (a, b, aim_len) needs, law of cosines.
        let cos_goal = ((a * a + b * b - aim_len * aim_len) / (2.0 * a * b)).clamp(-1.0, 1.0);
        let goal = (cos_goal, (1.0 - cos_goal * cos_goal).max(0.0).sqrt());
        let mid_rot = turn_between(axis, now, goal);

        // Start joint: turn the new end onto the aim, then about start → aim so that the mid
        // joint is on the pole's side, then the twist (both scaled by the weight).
        let lower_ss = chain
            .start_inv
            .transform_vector3(chain.mid.transform_vector3(mid_rot * chain.to_end_ms));
        let end_new = chain.mid_ss + lower_ss;
        let start_rot = if aim_len > REL_EPS * length && end_new.length() > REL_EPS * length {
            let dir = aim / aim_len;
            let onto = DQuat::from_rotation_arc(end_new.normalize(), dir);
            let pole_ss = chain.start_inv.transform_vector3(self.pole.as_dvec3());
            // The hinge is the chain plane's normal, oriented like `start→end × start→mid`
            // (a cross product: flipped when the joints between are mirrored); the pole
            // plane's is `start→target × pole`. The hinge stays defined for a straight chain.
            let relative = chain.start_inv.matrix3 * chain.mid.matrix3;
            let hinge = onto * (relative * axis) * relative.determinant().signum();
            let pole_normal = dir.cross(pole_ss);
            let plane = if weight >= 1.0 {
                turn_about(dir, hinge, pole_normal)
            } else {
                angle_about(dir, hinge, pole_normal)
                    .map(|angle| DQuat::from_axis_angle(dir, angle * weight))
            }
            .unwrap_or(DQuat::IDENTITY);
            if self.twist == 0.0 {
                plane * onto
            } else {
                // A right-handed turn in the model frame is a left-handed one in a mirrored
                // joint.
                let handed = chain.start.matrix3.determinant().signum();
                let twist = DQuat::from_axis_angle(dir, f64::from(self.twist) * handed * weight);
                twist * plane * onto
            }
        } else {
            DQuat::IDENTITY
        };
        Ok(TwoBoneSolution {
            start_correction: unit(start_rot),
            mid_correction: unit(mid_rot),
            reached,
        })
    }
}

/// The turn about unit `axis` from the angle whose cosine and sine are `from` to the one
/// whose cosine and sine are `to`, with no trigonometric call: the difference's cosine `c` and
/// sine `s` give the quaternion `(axis · s, 1 + c)` normalised (twice the half-angle's, exact
/// near no turn); a half turn, where both vanish, is `(axis, 0)`.
fn turn_between(axis: DVec3, from: (f64, f64), to: (f64, f64)) -> DQuat {
    let c = to.0 * from.0 + to.1 * from.1;
    let s = to.1 * from.0 - to.0 * from.1;
    let w = 1.0 + c;
    let v = axis * s;
    let len = (v.length_squared() + w * w).sqrt();
    if len > 1e-12 {
        DQuat::from_xyzw(v.x / len, v.y / len, v.z / len, w / len)
    } else {
        DQuat::from_xyzw(axis.x, axis.y, axis.z, 0.0)
    }
}

/// The turn about unit `axis` taking `from`'s part perpendicular to the axis onto `to`'s (the
/// rotation by [`angle_about`]'s angle, with no trigonometric call: see [`turn_between`]), or
/// `None` where `angle_about` has none.
fn turn_about(axis: DVec3, from: DVec3, to: DVec3) -> Option<DQuat> {
    let f = from - axis * axis.dot(from);
    let t = to - axis * axis.dot(to);
    let (ff, tt) = (f.length(), t.length());
    // `angle_about`'s test for a part too short to have a direction.
    let tiny = 1e-9;
    if ff <= tiny * from.length() || tt <= tiny * to.length() || ff == 0.0 || tt == 0.0 {
        return None;
    }
    let norm = ff * tt;
    let cos_sin = (f.dot(t) / norm, axis.dot(f.cross(t)) / norm);
    Some(turn_between(axis, (1.0, 0.0), cos_sin))
}

#[cfg(test)]
mod tests {
    use glam::{Affine3A, EulerRot, Quat, Vec3};

    use super::TwoBoneIk;

    /// The f32 path against the f64 solve on chains it takes.
    #[test]
    fn bent_chains_match_the_f64_solve() {
        let base = Affine3A::from_scale_rotation_translation(
            Vec3::splat(1.7),
            Quat::from_euler(EulerRot::XYZ, 0.3, -0.8, 1.9),
            Vec3::new(2.0, -1.0, 0.4),
        );
        for bend in [0.05_f32, 0.4, 1.2, 2.6] {
            let hip = base;
            let knee = hip * Affine3A::from_translation(Vec3::new(0.0, -0.45, 0.0));
            let knee = knee * Affine3A::from_rotation_x(bend);
            let ankle = knee * Affine3A::from_translation(Vec3::new(0.0, -0.4, 0.05));
            for (target, weight, twist) in [
                (Vec3::new(2.1, -2.0, 0.9), 1.0, 0.0),
                (Vec3::new(1.5, -1.2, 0.2), 0.6, 0.3),
                (Vec3::new(5.0, -3.0, 1.0), 1.0, 0.0),
            ] {
                let ik = TwoBoneIk {
                    target,
                    pole: Vec3::Z,
                    twist,
                    weight,
                    soften: 0.9,
                    ..TwoBoneIk::default()
                };
                let fast =
                    super::bent::solve(&ik, &hip, &knee, &ankle, weight).expect("a bent chain");
                let slow = ik.solve_f64(&hip, &knee, &ankle).unwrap();
                for (f, s) in [
                    (fast.start_correction, slow.start_correction),
                    (fast.mid_correction, slow.mid_correction),
                ] {
                    // f32's rounding over the sine of the smaller bend, before or after
                    // (see the module): 2e-5 at this path's bound.
                    let tolerance = 2e-5;
                    assert!((f - s).length() < tolerance, "bend {bend}: {f} vs {s}");
                }
                assert_eq!(fast.reached, slow.reached);
            }
        }
    }

    use super::{turn_about, turn_between};
    use crate::ik::angle_about;
    use glam::{DQuat, DVec3};
    use std::f64::consts::PI;

    proptest::proptest! {
        #[test]
        fn a_turn_between_two_angles_is_their_difference(
            from in -PI..PI, to in 0.0..PI, axis in proptest::array::uniform3(-1.0_f64..1.0),
        ) {
            let axis = DVec3::from(axis);
            proptest::prop_assume!(axis.length() > 1e-3);
            let axis = axis.normalize();
            let got = turn_between(axis, (from.cos(), from.sin()), (to.cos(), to.sin()));
            let want = DQuat::from_axis_angle(axis, to - from);
            // The same rotation, either sign.
            proptest::prop_assert!(got.dot(want).abs() > 1.0 - 1e-12, "{got} vs {want}");
        }

        #[test]
        fn a_turn_about_an_axis_is_the_angle_about_it(
            axis in proptest::array::uniform3(-1.0_f64..1.0),
            from in proptest::array::uniform3(-2.0_f64..2.0),
            to in proptest::array::uniform3(-2.0_f64..2.0),
        ) {
            let axis = DVec3::from(axis);
            proptest::prop_assume!(axis.length() > 1e-3);
            let axis = axis.normalize();
            let (from, to) = (DVec3::from(from), DVec3::from(to));
            let got = turn_about(axis, from, to);
            let want = angle_about(axis, from, to).map(|a| DQuat::from_axis_angle(axis, a));
            proptest::prop_assert_eq!(got.is_some(), want.is_some());
            if let (Some(got), Some(want)) = (got, want) {
                proptest::prop_assert!(got.dot(want).abs() > 1.0 - 1e-12, "{got} vs {want}");
            }
        }
    }
}
