//! Joint limits for the chain solvers: a swing cone with a twist range, a hinge, or an Euler
//! box (three.js's `rotationMin` / `rotationMax`).
//!
//! # What a limit bounds
//!
//! A limit bounds a joint's local rotation **relative to its reference orientation**:
//! `relative = reference⁻¹ · local`, the rotation that takes the joint from its reference to
//! where it is, expressed in the joint's own local axes at the reference. The reference is the
//! rest pose when the solver is told the joints' rotations relative to rest
//! ([`ChainIk::solve_from_rest`](super::ChainIk::solve_from_rest), and the
//! [`Player`](crate::Player), which reads the rig's rest), and the pose as given otherwise
//! ([`ChainIk::solve`](super::ChainIk::solve): the limit bounds the correction itself).
//!
//! Axes are in that local space (a bone that points down its joint's +y has its bone axis at
//! +y); angles are radians, right-handed about the axis. A rotation and its negated quaternion
//! are the same rotation: angles are read from the one with `w ≥ 0`, so twists and hinge angles
//! lie in `-π..=π`.

use glam::{DQuat, DVec3, Quat, Vec3};

use crate::AnimError;

/// How far one joint of a chain may turn from its reference orientation (see
/// [the module](self) for the frame). The solvers clamp each joint's rotation to its limit
/// every time they turn it, so a solved pose never leaves the limits, and a target the limits
/// keep out of reach is approached as far as they allow.
///
/// ```
/// use glam::{Quat, Vec3};
/// use skel_anim::ik::JointLimit;
///
/// // An elbow: turns only about its local x, between 0 and 150 degrees.
/// let elbow = JointLimit::Hinge { axis: Vec3::X, min: 0.0, max: 150f32.to_radians() };
/// let bent_back = Quat::from_rotation_x(-0.3);
/// assert!(elbow.clamp(bent_back).angle_between(Quat::IDENTITY) < 1e-6);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub enum JointLimit {
    /// No limit.
    #[default]
    Free,
    /// A ball joint (shoulder, hip, spine): the bone axis stays within `max_swing` radians of
    /// where it points at the reference, and the twist about it stays in
    /// `min_twist..=max_twist`. The rotation is split as `swing · twist` (twist about `axis`,
    /// swing about an axis perpendicular to it) and each part clamped.
    Cone {
        /// The bone axis in the joint's local space (need not be unit length).
        axis: Vec3,
        /// The cone's half-angle, `0..=π`.
        max_swing: f32,
        /// The least twist about the axis, `-π..=max_twist`.
        min_twist: f32,
        /// The most twist about the axis.
        max_twist: f32,
    },
    /// A hinge (elbow, knee, finger): only rotation about `axis`, by an angle in `min..=max`.
    /// Any swing off the axis is dropped (the rotation's twist about the axis is kept).
    Hinge {
        /// The hinge axis in the joint's local space (need not be unit length).
        axis: Vec3,
        /// The least angle, `-π..=max`.
        min: f32,
        /// The most angle.
        max: f32,
    },
    /// An Euler box, three.js's `rotationMin` / `rotationMax` on a `CCDIKSolver` link: the
    /// rotation read as three.js's XYZ Euler angles (`R = Rx · Ry · Rz`), each angle wrapped
    /// to within π of the range's centre and clamped. The y angle is an arcsine, so its range
    /// must lie in `-π/2..=π/2`.
    Euler {
        /// The least x, y and z angles.
        min: Vec3,
        /// The most x, y and z angles.
        max: Vec3,
    },
}

impl JointLimit {
    /// A cone of half-angle `max_swing` about `axis` with the twist about it kept in
    /// `-max_twist..=max_twist`.
    #[must_use]
    pub fn cone(axis: Vec3, max_swing: f32, max_twist: f32) -> Self {
        Self::Cone {
            axis,
            max_swing,
            min_twist: -max_twist,
            max_twist,
        }
    }

    /// Checks the limit once at setup (the solvers call it too): finite numbers, a non-zero
    /// axis, ranges whose minimum is not above their maximum, a cone of `0..=π`.
    ///
    /// # Errors
    /// [`AnimError::IkBadLimit`] naming `joint` and the rule broken.
    pub fn validate(&self, joint: usize) -> Result<(), AnimError> {
        let bad = |reason| Err(AnimError::IkBadLimit { joint, reason });
        let axis_ok = |axis: Vec3| axis.is_finite() && axis.length_squared() > 0.0;
        match *self {
            Self::Free => Ok(()),
            Self::Cone {
                axis,
                max_swing,
                min_twist,
                max_twist,
            } => {
                if !axis_ok(axis) {
                    bad("has a zero or non-finite cone axis")
                } else if !(0.0..=std::f32::consts::PI).contains(&max_swing) {
                    bad("has a cone half-angle outside 0..=π")
                } else if min_twist > max_twist || !min_twist.is_finite() || !max_twist.is_finite()
                {
                    bad(
                        "has a twist range that is not finite or whose minimum is above its maximum",
                    )
                } else {
                    Ok(())
                }
            }
            Self::Hinge { axis, min, max } => {
                if !axis_ok(axis) {
                    bad("has a zero or non-finite hinge axis")
                } else if min > max || !min.is_finite() || !max.is_finite() {
                    bad(
                        "has a hinge range that is not finite or whose minimum is above its maximum",
                    )
                } else {
                    Ok(())
                }
            }
            Self::Euler { min, max } => {
                let half_pi = std::f32::consts::FRAC_PI_2;
                if !min.is_finite() || !max.is_finite() || min.cmpgt(max).any() {
                    bad("has an Euler box that is not finite or whose minimum is above its maximum")
                } else if min.y < -half_pi || max.y > half_pi {
                    bad("has an Euler y range outside -π/2..=π/2 (three.js reads y as an arcsine)")
                } else {
                    Ok(())
                }
            }
        }
    }

    /// `relative` (a joint's rotation from its reference, see [the module](self)) clamped to
    /// the limit: the rotation itself when it is inside, else the nearest the limit's rule
    /// gives (each part of a cone clamped, a hinge's twist clamped, each Euler angle clamped).
    /// A limit that [`validate`](Self::validate) refuses leaves the rotation as it is.
    #[must_use]
    pub fn clamp(&self, relative: Quat) -> Quat {
        if self.validate(0).is_err() {
            return relative;
        }
        let q = self.clamp_f64(relative.as_dquat().normalize());
        if q.is_finite() { q.as_quat() } else { relative }
    }

    /// [`clamp`](Self::clamp) in f64 on a unit quaternion (the limit is valid).
    pub(crate) fn clamp_f64(&self, q: DQuat) -> DQuat {
        match *self {
            Self::Free => q,
            Self::Cone {
                axis,
                max_swing,
                min_twist,
                max_twist,
            } => {
                let a = axis.as_dvec3().normalize();
                let (swing, twist) = swing_twist(q, a);
                let angle = twist_angle(twist, a).clamp(f64::from(min_twist), f64::from(max_twist));
                let twist = DQuat::from_axis_angle(a, angle);
                let (swing_axis, swing_angle) = swing.to_axis_angle();
                let swing = if swing_angle > f64::from(max_swing) {
                    DQuat::from_axis_angle(swing_axis, f64::from(max_swing))
                } else {
                    swing
                };
                swing * twist
            }
            Self::Hinge { axis, min, max } => {
                let a = axis.as_dvec3().normalize();
                let (_, twist) = swing_twist(q, a);
                DQuat::from_axis_angle(
                    a,
                    twist_angle(twist, a).clamp(f64::from(min), f64::from(max)),
                )
            }
            Self::Euler { min, max } => {
                let e = three_euler_xyz(q);
                let (min, max) = (min.as_dvec3(), max.as_dvec3());
                let centre = (min + max) * 0.5;
                let tau = std::f64::consts::TAU;
                let wrap = |v: f64, c: f64| {
                    c + (v - c + std::f64::consts::PI).rem_euclid(tau) - std::f64::consts::PI
                };
                let e = DVec3::new(
                    wrap(e.x, centre.x),
                    wrap(e.y, centre.y),
                    wrap(e.z, centre.z),
                );
                three_quat_xyz(e.clamp(min, max))
            }
        }
    }

    /// three.js's `CCDIKSolver` rules: a hinge keeps the rotation's `w` (so its whole angle)
    /// and puts its axis on the hinge, signed by the side the rotation's axis was on (its
    /// `limitation`), then clamps the angle to `min..=max`; a cone and an Euler box as
    /// [`clamp_f64`](Self::clamp_f64).
    pub(crate) fn clamp_three(&self, q: DQuat) -> DQuat {
        match *self {
            Self::Hinge { axis, min, max } => {
                let a = axis.as_dvec3().normalize();
                let c = q.w.min(1.0);
                let sign = if q.xyz().dot(a) < 0.0 { -1.0 } else { 1.0 };
                let s = sign * (1.0 - c * c).max(0.0).sqrt();
                let hinge = DQuat::from_xyzw(a.x * s, a.y * s, a.z * s, c);
                let angle = twist_angle(hinge, a);
                if (f64::from(min)..=f64::from(max)).contains(&angle) {
                    hinge
                } else {
                    DQuat::from_axis_angle(a, angle.clamp(f64::from(min), f64::from(max)))
                }
            }
            _ => self.clamp_f64(q),
        }
    }

    /// The joint's new relative rotation after turning it from `relative` so that `bone` (a
    /// vector in the joint's local space: a child joint, the chain's tip) points as close as
    /// the limit allows towards `toward` (a direction in the reference's axes), by at most
    /// `max_step` radians. Free, cone and Euler joints take the shortest arc and are clamped;
    /// a hinge takes the angle about its axis that best points the bone (exact, not a
    /// projection of the arc). Vectors too short to have a direction leave `relative` as it is.
    pub(crate) fn turn(&self, relative: DQuat, bone: DVec3, toward: DVec3, max_step: f64) -> DQuat {
        if let Self::Hinge { axis, min, max } = *self {
            let a = axis.as_dvec3().normalize();
            let (_, twist) = swing_twist(relative, a);
            let now = twist_angle(twist, a);
            let Some(want) = super::angle_about(a, bone, toward) else {
                return DQuat::from_axis_angle(a, now.clamp(f64::from(min), f64::from(max)));
            };
            let step = wrap_pi(want - now).clamp(-max_step, max_step);
            return DQuat::from_axis_angle(a, (now + step).clamp(f64::from(min), f64::from(max)));
        }
        let (Some(from), Some(to)) = ((relative * bone).try_normalize(), toward.try_normalize())
        else {
            return relative;
        };
        let arc = DQuat::from_rotation_arc(from, to);
        let arc = if arc.w < 0.0 { -arc } else { arc };
        let arc = if max_step >= std::f64::consts::PI {
            arc
        } else {
            let (axis, angle) = arc.to_axis_angle();
            if angle > max_step {
                DQuat::from_axis_angle(axis, max_step)
            } else {
                arc
            }
        };
        self.clamp_f64((arc * relative).normalize())
    }
}

/// `q = swing · twist` with `twist` about unit `axis` and `swing` about an axis perpendicular
/// to it, both with `w ≥ 0`. A half-turn swing (no twist part at all) gives the identity twist.
pub(crate) fn swing_twist(q: DQuat, axis: DVec3) -> (DQuat, DQuat) {
    let q = if q.w < 0.0 { -q } else { q };
    let along = axis * axis.dot(q.xyz());
    let twist = DQuat::from_xyzw(along.x, along.y, along.z, q.w);
    let len = twist.length();
    let twist = if len > 1e-12 {
        twist / len
    } else {
        DQuat::IDENTITY
    };
    let swing = q * twist.conjugate();
    (if swing.w < 0.0 { -swing } else { swing }, twist)
}

/// The signed angle (`-π..=π`) of a rotation about unit `axis` (`twist` has `w ≥ 0` and its
/// vector part along the axis).
pub(crate) fn twist_angle(twist: DQuat, axis: DVec3) -> f64 {
    let twist = if twist.w < 0.0 { -twist } else { twist };
    2.0 * axis.dot(twist.xyz()).atan2(twist.w)
}

/// `angle` wrapped into `-π..π`.
fn wrap_pi(angle: f64) -> f64 {
    use std::f64::consts::{PI, TAU};
    (angle + PI).rem_euclid(TAU) - PI
}

/// three.js's `Euler.setFromQuaternion(q, 'XYZ')`: through the rotation matrix, as its
/// `Matrix4.makeRotationFromQuaternion` and `Euler.setFromRotationMatrix` compute it.
fn three_euler_xyz(q: DQuat) -> DVec3 {
    let (x, y, z, w) = (q.x, q.y, q.z, q.w);
    let (x2, y2, z2) = (x + x, y + y, z + z);
    let (xx, xy, xz) = (x * x2, x * y2, x * z2);
    let (yy, yz, zz) = (y * y2, y * z2, z * z2);
    let (wx, wy, wz) = (w * x2, w * y2, w * z2);
    let m11 = 1.0 - (yy + zz);
    let m12 = xy - wz;
    let m13 = xz + wy;
    let m22 = 1.0 - (xx + zz);
    let m23 = yz - wx;
    let m32 = yz + wx;
    let m33 = 1.0 - (xx + yy);
    let ey = m13.clamp(-1.0, 1.0).asin();
    if m13.abs() < 0.999_999_9 {
        DVec3::new((-m23).atan2(m33), ey, (-m12).atan2(m11))
    } else {
        DVec3::new(m32.atan2(m22), ey, 0.0)
    }
}

/// three.js's `Quaternion.setFromEuler` for order XYZ.
fn three_quat_xyz(e: DVec3) -> DQuat {
    let (s1, c1) = (e.x * 0.5).sin_cos();
    let (s2, c2) = (e.y * 0.5).sin_cos();
    let (s3, c3) = (e.z * 0.5).sin_cos();
    DQuat::from_xyzw(
        s1 * c2 * c3 + c1 * s2 * s3,
        c1 * s2 * c3 - s1 * c2 * s3,
        c1 * c2 * s3 + s1 * s2 * c3,
        c1 * c2 * c3 - s1 * s2 * s3,
    )
}
