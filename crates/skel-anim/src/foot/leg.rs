//! One leg of the per-frame job: its joints read from the local pose, then solved onto its
//! target with the foot turned onto the ground.

use glam::{Affine3A, Mat3A, Quat, Vec3, Vec3A};

use super::placement::Leg;
use super::state::LegWork;
use crate::ik::finite1;
use crate::{
    AnimError, AnimationData, R_OFF, S_OFF, T_OFF, TRS_STRIDE, TwoBoneIk, model_matrix_from_trs,
};

/// Reads one leg's model matrices (in the ground's frame) into `work`.
#[inline(always)]
pub(crate) fn read_leg(
    data: &AnimationData,
    trs: &[f32],
    root: &Affine3A,
    pelvis: &Affine3A,
    leg: &Leg,
    work: &mut LegWork,
) -> Result<(), AnimError> {
    work.hip = if leg.under_pelvis {
        *pelvis * local(trs, leg.hip)
    } else {
        model_matrix_from_trs(data, trs, leg.hip, root)?
    };
    work.knee_local = local(trs, leg.knee);
    work.ankle_local = local(trs, leg.ankle);
    work.knee = work.hip * work.knee_local;
    work.ankle = work.knee * work.ankle_local;
    // One test for all 36 numbers: an infinity or a NaN makes the sum infinite or NaN. (A sum
    // of finite numbers that overflows falls through to the test of each number.)
    let sum = |m: &Affine3A| m.matrix3.x_axis + m.matrix3.y_axis + m.matrix3.z_axis + m.translation;
    let all = sum(&work.hip) + sum(&work.knee) + sum(&work.ankle);
    if all.is_finite() {
        return Ok(());
    }
    for m in [&work.hip, &work.knee, &work.ankle] {
        for value in m.to_cols_array() {
            finite1("foot placement joint matrix", value)?;
        }
    }
    Ok(())
}

/// Lowers the leg by `shift`, solves it onto its target with the knee kept on its side, and
/// turns the ankle so that the foot's world orientation is the clip's turned by `align`.
/// Fills the three corrections; returns whether the target was reached.
#[inline(always)]
pub(crate) fn solve_leg(leg: &Leg, work: &mut LegWork, shift: Vec3) -> Result<bool, AnimError> {
    let moved = |m: Affine3A| Affine3A {
        translation: m.translation + Vec3A::from(shift),
        ..m
    };
    let (hip, knee, ankle) = (moved(work.hip), moved(work.knee), moved(work.ankle));
    let ik = TwoBoneIk {
        target: work.target.into(),
        pole: knee_side(hip.translation, knee.translation, ankle.translation).into(),
        mid_axis: leg.bend_axis,
        ..TwoBoneIk::default()
    };
    let solution = ik.solve_inline(&hip, &knee, &ankle)?;
    // The ankle's world frame after the solve (its linear part: only that is turned).
    let now = hip.matrix3
        * Mat3A::from_quat(solution.start_correction)
        * work.knee_local.matrix3
        * Mat3A::from_quat(solution.mid_correction)
        * work.ankle_local.matrix3;
    let want = Mat3A::from_quat(work.align) * ankle.matrix3;
    let turn = inverse(&now)? * want;
    let fix = Quat::from_mat3a(&Mat3A::from_cols(
        turn.x_axis.normalize_or_zero(),
        turn.y_axis.normalize_or_zero(),
        turn.z_axis.normalize_or_zero(),
    ))
    .normalize();
    if !fix.is_finite() {
        return Err(AnimError::IkDegenerate {
            reason: "the ankle's frame cannot be turned onto the ground",
        });
    }
    work.hip_fix = solution.start_correction;
    work.knee_fix = solution.mid_correction;
    work.ankle_fix = fix;
    Ok(solution.reached)
}

/// The inverse of a joint's linear part, or why there is none.
pub(crate) fn inverse(m: &Mat3A) -> Result<Mat3A, AnimError> {
    let scale = m.x_axis.length() * m.y_axis.length() * m.z_axis.length();
    let det = m.determinant();
    if det.is_finite() && det.abs() > 1e-6 * scale && scale > 0.0 {
        Ok(m.inverse())
    } else {
        Err(AnimError::IkDegenerate {
            reason: "a joint's model matrix is singular (scaled to zero)",
        })
    }
}

/// The knee's offset from the hip → ankle line: the side the solved knee stays on. Zero for a
/// straight leg (the solver then keeps the leg's plane, or the rest pose's hinge).
#[inline(always)]
pub(super) fn knee_side(hip: Vec3A, knee: Vec3A, ankle: Vec3A) -> Vec3A {
    let axis = ankle - hip;
    let v = knee - hip;
    let side = v - axis * (v.dot(axis) / axis.length_squared());
    if side.is_finite() && side.length() > 1e-6 * v.length() {
        side
    } else {
        Vec3A::ZERO
    }
}

/// Node `node`'s local matrix from its TRS record.
pub(crate) fn local(trs: &[f32], node: usize) -> Affine3A {
    let rec = &trs[node * TRS_STRIDE..(node + 1) * TRS_STRIDE];
    Affine3A::from_scale_rotation_translation(
        Vec3::from_slice(&rec[S_OFF..S_OFF + 3]),
        Quat::from_slice(&rec[R_OFF..R_OFF + 4]),
        Vec3::from_slice(&rec[T_OFF..T_OFF + 3]),
    )
}
