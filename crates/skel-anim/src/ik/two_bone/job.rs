//! What a two-bone IK job asks and answers: [`TwoBoneIk`], [`TwoBoneSolution`], and the
//! reach rule (soften, then the chain's limits) both solve paths share.

use glam::{Quat, Vec3};

use crate::AnimError;
use crate::ik::apply_correction;

/// A two-bone IK job (ozz's `IKTwoBoneJob`, Babylon's `BoneIKController`): turns the start
/// and mid joints of a three-joint chain so that the end joint reaches [`target`](Self::target),
/// with the mid joint (a knee, an elbow) bending towards [`pole`](Self::pole).
///
/// With weight 1, soften 1 and a reachable target (distance from the start joint between the
/// difference and the sum of the two bone lengths), the solved chain has its end on the target,
/// both bones keep their lengths (only rotations change), and the mid joint lies in the
/// half-plane spanned by start → target and the pole, on the pole's side. A target out of reach
/// straightens the chain towards it. The three joints need not be direct parent and child:
/// joints in between stay fixed relative to their parents ([`check_chain`](crate::check_chain)
/// checks a direct chain when that is what a caller wants).
///
/// Positions and directions are in the frame of the matrices handed to
/// [`solve`](Self::solve): any affine model frame works (see [the module](crate::ik)).
///
/// ```
/// use glam::{Affine3A, Quat, Vec3};
/// use skel_anim::TwoBoneIk;
///
/// // A straight leg hanging down the -y axis: hip at 2, knee at 1, foot at 0.
/// let hip = Affine3A::from_translation(Vec3::new(0.0, 2.0, 0.0));
/// let knee = hip * Affine3A::from_translation(Vec3::new(0.0, -1.0, 0.0));
/// let foot = knee * Affine3A::from_translation(Vec3::new(0.0, -1.0, 0.0));
/// let ik = TwoBoneIk {
///     target: Vec3::new(0.0, 0.5, 0.5),
///     pole: Vec3::Z, // the knee points forward
///     ..TwoBoneIk::default()
/// };
/// let s = ik.solve(&hip, &knee, &foot)?;
/// assert!(s.reached);
/// // local = local · correction, then the chain again:
/// let hip2 = hip * Affine3A::from_quat(s.start_correction);
/// let knee2 = hip2 * Affine3A::from_translation(Vec3::new(0.0, -1.0, 0.0))
///     * Affine3A::from_quat(s.mid_correction);
/// let foot2 = knee2 * Affine3A::from_translation(Vec3::new(0.0, -1.0, 0.0));
/// assert!((Vec3::from(foot2.translation) - ik.target).length() < 1e-5);
/// assert!(knee2.translation.z > 0.0); // bent towards the pole
/// # Ok::<(), skel_anim::AnimError>(())
/// ```
///
/// # Degenerate cases
///
/// - Target on the start joint (or closer than the bones' length difference): the chain folds
///   as far as it can; with the target on the start joint the start joint is not turned (there
///   is no direction to turn to). `reached` is false.
/// - Pole parallel to start → target, or zero: no plane is defined; the chain turns onto the
///   target by the shortest arc and keeps the plane it had (ozz leaves this to the caller).
/// - Chain straight (or folded) in the given pose and no [`mid_axis`](Self::mid_axis): the
///   knee bends in the plane of the bones and the pole. Give `mid_axis` (or compute it once
///   from the rest pose with [`TwoBoneIk::bend_axis`]) when the chain may start straight.
/// - Zero-length bones, singular joint matrices: [`AnimError::IkDegenerate`]. NaN or infinite
///   inputs: [`AnimError::NotFiniteValue`]. Weight and soften are clamped to `0..=1`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TwoBoneIk {
    /// Where the end joint should be, in the model frame.
    pub target: Vec3,
    /// The direction the mid joint should point to (a knee's forward), in the model frame.
    pub pole: Vec3,
    /// The mid joint's hinge in its own local space: a positive rotation about it opens the
    /// angle between the two bones, which also says which way the joint bends. `None`: the axis
    /// perpendicular to the two bones in the matrices given (their current bend).
    ///
    /// The solver always turns the mid joint about the axis perpendicular to both bones (the
    /// only one that sets their angle exactly); a given axis picks which way that axis points,
    /// so a joint bent against it flips through straight to its side, and it gives the plane
    /// when the chain is straight. (ozz turns about the given axis and expects it
    /// perpendicular.)
    pub mid_axis: Option<Vec3>,
    /// Radians the solved chain is turned about the start → target line, right-handed in the
    /// model frame (0: the mid joint is on the pole's side).
    pub twist: f32,
    /// ozz's soften ratio in `0..=1`: the fraction of the chain's length from which the end
    /// starts falling behind the target, so that the chain never snaps straight (1: no
    /// softening, the end follows the target up to full reach). Past that distance the reach
    /// is `da + ds · (1 − (4 / (α + 4))⁴)` with `da = soften · length`, `ds = length − da`,
    /// `α = (distance − da) / ds`: slope 1 where it starts, never past the target (ozz's
    /// curve uses 3 and overshoots a little).
    pub soften: f32,
    /// How much of the correction to apply, `0..=1`: 0 leaves the pose as it is, 1 solves
    /// fully; in between the end aims at the point that far along the straight line from where
    /// it is to where the full solve puts it (with the pole alignment and twist scaled alike),
    /// so the end-to-target distance falls monotonically as the weight rises. (ozz lerps the
    /// two corrections from the identity instead, which can first swing the end away.)
    pub weight: f32,
}

impl Default for TwoBoneIk {
    /// Target at the origin, pole +y, mid axis from the pose, no twist, soften 1, weight 1.
    fn default() -> Self {
        Self {
            target: Vec3::ZERO,
            pole: Vec3::Y,
            mid_axis: None,
            twist: 0.0,
            soften: 1.0,
            weight: 1.0,
        }
    }
}

/// What [`TwoBoneIk::solve`] found: two local-space corrections and whether the target was
/// reached.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TwoBoneSolution {
    /// Multiply onto the start joint's local rotation: `local = local · start_correction`.
    pub start_correction: Quat,
    /// Multiply onto the mid joint's local rotation: `local = local · mid_correction`.
    pub mid_correction: Quat,
    /// Whether the end lands on the target: the target is within reach (softened reach when
    /// soften < 1) and the weight is 1 (ozz's definition).
    pub reached: bool,
}

impl TwoBoneSolution {
    /// No correction (what weight 0 gives).
    pub const IDENTITY: Self = Self {
        start_correction: Quat::IDENTITY,
        mid_correction: Quat::IDENTITY,
        reached: false,
    };

    /// Multiplies the corrections onto the local rotations of nodes `start` and `mid` in a TRS
    /// buffer (see [`apply_correction`](crate::apply_correction)). Allocates nothing.
    ///
    /// # Errors
    /// [`AnimError::LengthMismatch`] when the buffer has no record for one of the nodes (then
    /// nothing is written).
    pub fn apply(&self, trs: &mut [f32], start: usize, mid: usize) -> Result<(), AnimError> {
        let records = trs.len() / crate::TRS_STRIDE;
        if start >= records || mid >= records {
            return Err(AnimError::LengthMismatch {
                what: "IK TRS records",
                expected: start.max(mid).saturating_add(1) * crate::TRS_STRIDE,
                got: trs.len(),
            });
        }
        apply_correction(trs, start, self.start_correction)?;
        apply_correction(trs, mid, self.mid_correction)
    }
}

/// How far from the start joint the end aims for a target `dist` away, with bones `a` and
/// `b`: ozz's soften past `soften · (a + b)` (the reach approaches the full length along
/// `1 − (4 / (x + 4))⁴`, whose slope is 1 where softening starts: ozz's comment asks for that,
/// its 3 gives 4/3 and overshoots the target, so the end never snaps nor passes the target),
/// then into `|a − b|..=a + b`, the closest the chain can reach. Also whether the target is
/// within the softened reach (`reached` before the weight). Both solve paths use it.
pub(crate) fn reach(dist: f64, a: f64, b: f64, soften: f64) -> (f64, bool) {
    let length = a + b;
    let da = length * soften;
    let ds = length - da;
    let mut reach = dist;
    if dist > da && dist > 0.0 && ds > 0.0 {
        let alpha = (dist - da) / ds;
        let ratio = (4.0 / (alpha + 4.0)).powi(4);
        reach = da + ds - ds * ratio;
    }
    let within = dist <= da && dist > (a - b).abs();
    if reach > length {
        reach = length;
    } else if reach > 0.0 && reach < (a - b).abs() {
        reach = (a - b).abs();
    }
    (reach, within)
}
