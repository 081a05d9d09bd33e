//! [`TwoBoneIk::solve`] in f32 for chains bent by more than about half a degree before and
//! after the solve (the sine of the mid joint's bend over 1e-2), with well-conditioned joint
//! frames: the same steps as the f64 solve of [`super`] (its `turn_between` and `turn_about`
//! have f32 twins here), on glam's SIMD types, about half the instructions (foot placement
//! runs two of them per character and frame).
//!
//! # Why the bend bound
//!
//! The hinge is the normal of the two bones, a cross product of f32 vectors whose direction
//! is off by about 1e-7 over the sine of the bend; the knee's plane inherits that error times
//! the knee's distance from the start → target line. Past a sine of 1e-2 it stays under 1e-5
//! of the chain (the tests' bound); straighter chains, whose normal is ill-conditioned from
//! f32 input, are solved in f64 (which also has the rules for straight and folded chains).
//! The current bend itself is read from the cross and dot products, exact to f32's rounding
//! at any angle; the bend to reach the target comes from the law of cosines, which loses half
//! the digits near straight or folded, so a goal there is solved in f64 too.

use glam::{Affine3A, DQuat, Quat, Vec3A};

use super::job::{TwoBoneIk, TwoBoneSolution, reach};
use crate::ik::{angle_about, turn_between};

/// The least sine of the mid joint's bend this path takes (see the module).
pub(crate) const BENT: f32 = 1e-2;

/// Solves `ik` (inputs checked finite, `weight` in `0..=1` and above 0), or returns `None`
/// when the chain is too straight or folded, a joint frame is not finite or is badly
/// conditioned, or a bone is too short: then the f64 solve decides.
#[inline(always)]
pub(super) fn solve(
    ik: &TwoBoneIk,
    start: &Affine3A,
    mid: &Affine3A,
    end: &Affine3A,
    weight: f32,
) -> Option<TwoBoneSolution> {
    let (start_inv, start_sign) = inverse(start)?;
    let (mid_inv, mid_sign) = inverse(mid)?;
    if !end.translation.is_finite() {
        return None;
    }
    let mid_ss = start_inv.transform_point3a(mid.translation);
    let end_ss = start_inv.transform_point3a(end.translation);
    // The triangle at the mid joint, in the start joint's units.
    let (p, q) = (-mid_ss, end_ss - mid_ss);
    let (a, b) = (p.length(), q.length());
    let length = a + b;
    // Squares of distances must stay inside f32: farther out, the f64 solve takes it.
    let far = Vec3A::from(ik.target)
        .length_squared()
        .max(start.translation.length_squared());
    if !(a > 1e-6 * length && b > 1e-6 * length && length < 1e15 && far < 1e30) {
        return None;
    }
    let sin_now = p.cross(q).length() / (a * b);
    if sin_now.is_nan() || sin_now <= BENT {
        return None;
    }
    let cos_now = (p.dot(q) / (a * b)).clamp(-1.0, 1.0);
    // The hinge in mid space: the bones' normal, turned to the given axis's side.
    let (u, v) = (
        mid_inv.transform_point3a(start.translation),
        mid_inv.transform_point3a(end.translation),
    );
    let normal = u.cross(v).try_normalize()?;
    let (axis, now) = match ik.mid_axis {
        Some(k) if Vec3A::from(k).dot(normal) < 0.0 => (-normal, (cos_now, -sin_now)),
        _ => (normal, (cos_now, sin_now)),
    };

    // Soften, reach and weight as the f64 solve (see its comments).
    let target_ss = start_inv.transform_point3a(ik.target.into());
    let dist = target_ss.length();
    let (reach, within) = reach(
        f64::from(dist),
        f64::from(a),
        f64::from(b),
        f64::from(ik.soften.clamp(0.0, 1.0)),
    );
    let reached = within && weight >= 1.0;
    let goal = if dist > 0.0 {
        target_ss * (reach as f32 / dist)
    } else {
        target_ss
    };
    let aim = if weight >= 1.0 {
        goal
    } else {
        end_ss + (goal - end_ss) * weight
    };
    let aim_len = aim.length();

    let cos_goal = ((a * a + b * b - aim_len * aim_len) / (2.0 * a * b)).clamp(-1.0, 1.0);
    let sin_goal = (1.0 - cos_goal * cos_goal).max(0.0).sqrt();
    if sin_goal.is_nan() || sin_goal <= BENT {
        // Straight or folded to reach: the law of cosines leaves the sine at the square root
        // of f32's rounding (the knee off the line by 4e-4 of the bone); f64 keeps it.
        return None;
    }
    let goal_angle = (cos_goal, sin_goal);
    let mid_rot = turn_between(axis, now, goal_angle);

    let lower_ss = start_inv.transform_vector3a(mid.transform_vector3a(mid_rot * v));
    let end_new = mid_ss + lower_ss;
    let start_rot = if aim_len > 1e-6 * length && end_new.length() > 1e-6 * length {
        let dir = aim / aim_len;
        let onto = arc(end_new.normalize(), dir);
        let pole_ss = start_inv.transform_vector3a(ik.pole.into());
        let relative_axis = start_inv.transform_vector3a(mid.transform_vector3a(axis));
        let hinge = onto * relative_axis * (start_sign * mid_sign);
        let pole_normal = dir.cross(pole_ss);
        let plane = if weight >= 1.0 {
            turn_about(dir, hinge, pole_normal)
        } else {
            angle_about(dir.as_dvec3(), hinge.as_dvec3(), pole_normal.as_dvec3())
                .map(|angle| Quat::from_axis_angle(dir.into(), angle as f32 * weight))
        }
        .unwrap_or(Quat::IDENTITY);
        if ik.twist == 0.0 {
            plane * onto
        } else {
            let twist = Quat::from_axis_angle(dir.into(), ik.twist * start_sign * weight);
            twist * plane * onto
        }
    } else {
        Quat::IDENTITY
    };
    Some(TwoBoneSolution {
        start_correction: unit(start_rot)?,
        mid_correction: unit(mid_rot)?,
        reached,
    })
}

/// `m`'s inverse and the sign of its determinant, or `None` when `m` is not finite or its
/// determinant is under 1e-4 of its columns' lengths' product (f32 inverses lose digits
/// there; the f64 solve takes such frames, and says which it cannot use).
#[inline(always)]
fn inverse(m: &Affine3A) -> Option<(Affine3A, f32)> {
    if !m.is_finite() {
        return None;
    }
    let c = &m.matrix3;
    let det = c.determinant();
    let scale2 = c.x_axis.length_squared() * c.y_axis.length_squared() * c.z_axis.length_squared();
    let conditioned = det * det > 1e-8 * scale2;
    if !conditioned {
        return None;
    }
    Some((m.inverse(), det.signum()))
}

/// `q` with w ≥ 0, normalised; `None` if it is not finite.
#[inline(always)]
fn unit(q: Quat) -> Option<Quat> {
    let q = if q.w < 0.0 { -q } else { q }.normalize();
    q.is_finite().then_some(q)
}

/// The shortest arc from unit `from` to unit `to`: `(from × to, 1 + from · to)` normalised,
/// in f64 past a quarter turn, where that f32 sum cancels and the axis loses digits.
#[inline(always)]
fn arc(from: Vec3A, to: Vec3A) -> Quat {
    let c = from.dot(to);
    if c > -0.5 {
        let v = from.cross(to);
        Quat::from_xyzw(v.x, v.y, v.z, 1.0 + c).normalize()
    } else {
        DQuat::from_rotation_arc(from.as_dvec3().normalize(), to.as_dvec3().normalize()).as_quat()
    }
}

/// The turn about unit `axis` taking `from`'s part across the axis onto `to`'s, or `None`
/// when either part is too short (relative to its vector) to have a direction.
#[inline(always)]
fn turn_about(axis: Vec3A, from: Vec3A, to: Vec3A) -> Option<Quat> {
    let f = from - axis * axis.dot(from);
    let t = to - axis * axis.dot(to);
    let (ff, tt) = (f.length(), t.length());
    if !(ff > 1e-6 * from.length() && tt > 1e-6 * to.length()) {
        return None;
    }
    let norm = ff * tt;
    Some(turn_between(
        axis,
        (1.0, 0.0),
        (f.dot(t) / norm, axis.dot(f.cross(t)) / norm),
    ))
}

#[cfg(test)]
mod tests {
    use glam::Vec3;

    use super::*;

    #[test]
    fn turns_between_angles_match_axis_angle_turns() {
        let axis = Vec3A::new(0.3, -0.5, 0.8).normalize();
        for k in 0..200 {
            let from = -3.1 + 0.031 * k as f32;
            for to in [0.0_f32, 0.4, 1.6, 3.0] {
                let got = turn_between(axis, (from.cos(), from.sin()), (to.cos(), to.sin()));
                let want = Quat::from_axis_angle(axis.into(), to - from);
                assert!(
                    got.dot(want).abs() > 1.0 - 1e-6,
                    "{from} → {to}: {got} vs {want}"
                );
            }
        }
    }

    #[test]
    fn straight_chains_and_singular_frames_go_to_f64() {
        let hip = Affine3A::IDENTITY;
        let knee = Affine3A::from_translation(Vec3::new(0.0, -1.0, 0.0));
        let ankle = Affine3A::from_translation(Vec3::new(0.0, -2.0, 0.001));
        let ik = TwoBoneIk::default();
        assert!(solve(&ik, &hip, &knee, &ankle, 1.0).is_none(), "straight");
        let flat = Affine3A::from_scale(Vec3::new(1.0, 1.0, 0.0));
        let bent = Affine3A::from_translation(Vec3::new(0.0, -2.0, 0.5));
        assert!(solve(&ik, &flat, &knee, &bent, 1.0).is_none(), "singular");
        assert!(
            solve(
                &ik,
                &hip,
                &knee,
                &Affine3A::from_translation(Vec3::NAN),
                1.0
            )
            .is_none()
        );
        // Far out, squares leave f32: f64 answers, finite.
        let far = TwoBoneIk {
            target: Vec3::splat(1e20),
            ..TwoBoneIk::default()
        };
        assert!(solve(&far, &hip, &knee, &bent, 1.0).is_none());
        let s = far.solve(&hip, &knee, &bent).unwrap();
        assert!(s.start_correction.is_finite() && s.mid_correction.is_finite());
    }
}
