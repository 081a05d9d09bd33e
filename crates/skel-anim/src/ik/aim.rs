//! Aim IK: one node (a head, a gun) turned so that a local axis points at a target.

use glam::{Affine3A, DQuat, DVec3, Quat, Vec3};

use super::{angle_about, apply_correction, finite1, finite3, joint_frame, weighted};
use crate::AnimError;

/// An aim IK job (ozz's `IKAimJob`, Babylon's `BoneLookController`): turns one node so that
/// its local [`forward`](Self::forward) axis points at [`target`](Self::target), then about
/// that line so that its local [`up`](Self::up) axis comes as close as possible to
/// [`pole`](Self::pole).
///
/// With weight 1 and no offset, the solved node's forward axis points exactly at the target
/// and its up axis lies in the half-plane spanned by the aiming line and the pole, on the
/// pole's side (the closest an up axis can get while the forward axis is held). With an
/// [`offset`](Self::offset), the line through the offset point along the forward axis passes
/// through the target instead (a gun's barrel beside the hand joint, eyes above the neck).
///
/// Positions and directions are in the frame of the matrix handed to [`solve`](Self::solve):
/// any affine model frame works (see [the module](crate::ik)).
///
/// ```
/// use glam::{Affine3A, Vec3};
/// use skel_anim::AimIk;
///
/// // A head at (0, 1.5, 0) looking down its local +z; look at a point to its right.
/// let head = Affine3A::from_translation(Vec3::new(0.0, 1.5, 0.0));
/// let aim = AimIk {
///     target: Vec3::new(3.0, 1.5, 0.0),
///     forward: Vec3::Z,
///     up: Vec3::Y,
///     pole: Vec3::Y,
///     ..AimIk::default()
/// };
/// let s = aim.solve(&head)?;
/// let turned = head * Affine3A::from_quat(s.correction);
/// let forward = turned.transform_vector3(Vec3::Z);
/// assert!(forward.angle_between(Vec3::X) < 1e-4);
/// assert!(turned.transform_vector3(Vec3::Y).angle_between(Vec3::Y) < 1e-4);
/// # Ok::<(), skel_anim::AnimError>(())
/// ```
///
/// # Degenerate cases
///
/// - Target on the node (or, with an offset, closer to the node than the offset line passes):
///   no direction to aim; the correction is the identity and `reached` is false.
/// - Pole (or the turned up axis) parallel to the aiming line, or zero: no roll is defined;
///   the node turns by the shortest arc only.
/// - Zero forward or up axis, singular matrix: [`AnimError::IkDegenerate`]. NaN or infinite
///   inputs: [`AnimError::NotFiniteValue`]. The weight is clamped to `0..=1`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AimIk {
    /// The point to aim at, in the model frame.
    pub target: Vec3,
    /// The node's local axis that should point at the target.
    pub forward: Vec3,
    /// The node's local axis that should come as close as possible to the pole.
    pub up: Vec3,
    /// The model-frame direction the up axis should lean towards.
    pub pole: Vec3,
    /// A point in the node's local space that should lie on the aiming line (zero: the node's
    /// origin, the usual case).
    pub offset: Vec3,
    /// Radians the solved node is rolled about the aiming line, right-handed in the model frame.
    pub twist: f32,
    /// How much of the correction to apply, `0..=1` (normalised lerp from the identity).
    pub weight: f32,
}

impl Default for AimIk {
    /// Target at the origin, forward +z, up +y, pole +y, no offset, no twist, weight 1.
    fn default() -> Self {
        Self {
            target: Vec3::ZERO,
            forward: Vec3::Z,
            up: Vec3::Y,
            pole: Vec3::Y,
            offset: Vec3::ZERO,
            twist: 0.0,
            weight: 1.0,
        }
    }
}

/// What [`AimIk::solve`] found.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AimSolution {
    /// Multiply onto the node's local rotation: `local = local · correction`.
    pub correction: Quat,
    /// Whether the aim has a direction (the target is not on the node, nor inside the
    /// offset's circle) and the weight is 1.
    pub reached: bool,
}

impl AimSolution {
    /// No correction (what weight 0 gives).
    pub const IDENTITY: Self = Self {
        correction: Quat::IDENTITY,
        reached: false,
    };

    /// Multiplies the correction onto node `node`'s local rotation in a TRS buffer (see
    /// [`apply_correction`](crate::apply_correction)). Allocates nothing.
    ///
    /// # Errors
    /// [`AnimError::LengthMismatch`] when the buffer has no record `node`.
    pub fn apply(&self, trs: &mut [f32], node: usize) -> Result<(), AnimError> {
        apply_correction(trs, node, self.correction)
    }
}

impl AimIk {
    /// Solves the aim from the node's model matrix, in the frame the target and pole are given
    /// in.
    ///
    /// # Errors
    /// [`AnimError::NotFiniteValue`] for a NaN or infinite input, [`AnimError::IkDegenerate`]
    /// for a zero forward or up axis or a singular matrix. Everything else has a result (see
    /// "Degenerate cases" on [`AimIk`]).
    pub fn solve(&self, node: &Affine3A) -> Result<AimSolution, AnimError> {
        finite3("aim target", self.target)?;
        finite3("aim forward axis", self.forward)?;
        finite3("aim up axis", self.up)?;
        finite3("aim pole", self.pole)?;
        finite3("aim offset", self.offset)?;
        finite1("aim twist", self.twist)?;
        finite1("aim weight", self.weight)?;
        if self.forward == Vec3::ZERO || self.up == Vec3::ZERO {
            return Err(AnimError::IkDegenerate {
                reason: "the aim forward or up axis is zero",
            });
        }
        let (frame, inverse) = joint_frame("aim node matrix", node)?;
        let weight = f64::from(self.weight.clamp(0.0, 1.0));
        if weight == 0.0 {
            return Ok(AimSolution::IDENTITY);
        }
        let target = inverse.transform_point3(self.target.as_dvec3());
        let forward = self.forward.as_dvec3().normalize();
        let offset = self.offset.as_dvec3();
        let Some(from) = aim_point(forward, offset, target) else {
            return Ok(AimSolution::IDENTITY);
        };
        let dir = target.normalize();
        let onto = DQuat::from_rotation_arc(from.normalize(), dir);
        let up = onto * self.up.as_dvec3();
        let pole = inverse.transform_vector3(self.pole.as_dvec3());
        let roll = angle_about(dir, up, pole)
            .map_or(DQuat::IDENTITY, |angle| DQuat::from_axis_angle(dir, angle));
        let handed = frame.matrix3.determinant().signum();
        let twist = DQuat::from_axis_angle(dir, f64::from(self.twist) * handed);
        Ok(AimSolution {
            correction: weighted(twist * roll * onto, weight),
            reached: weight >= 1.0,
        })
    }
}

/// The point of the line `offset + s · forward` (s ≥ the foot of the perpendicular from the
/// origin) at the target's distance from the origin: turning it onto the target puts the target
/// on the turned line. `None` when the target is on the origin or inside the line's reach.
pub(crate) fn aim_point(forward: DVec3, offset: DVec3, target: DVec3) -> Option<DVec3> {
    let r2 = target.length_squared();
    let scale = r2.max(offset.length_squared());
    if r2.is_nan() || r2 <= 1e-18 * scale.max(f64::MIN_POSITIVE) {
        return None;
    }
    let along = forward.dot(offset);
    let across2 = (offset.length_squared() - along * along).max(0.0);
    if across2 >= r2 {
        return None;
    }
    let point = offset + forward * ((r2 - across2).sqrt() - along);
    (point.length_squared() > 0.0).then_some(point)
}
