//! The additive rules on one property: translations and scales add `w · (value − reference)`,
//! rotations multiply by `(conj(reference) · value)^w`. The property-by-property pass applies
//! them directly; the four-node pass falls back to [`add_rotation`] for weights outside `0..=1`.

use glam::{Quat, Vec4};

use crate::Rig;

/// An additive translation or scale: `v ← v + w · (value − reference)`.
#[inline]
pub(super) fn add_vec3(
    trs: &mut [f32],
    rig: &Rig,
    slot: usize,
    value: Vec4,
    reference: Vec4,
    w: f32,
) {
    let at = rig.maps.trs_slots[slot].at;
    let d = (value - reference) * w;
    trs[at] += d.x;
    trs[at + 1] += d.y;
    trs[at + 2] += d.z;
}

/// An additive rotation (see [`add_rotation`]).
#[inline]
pub(super) fn add_quat(
    trs: &mut [f32],
    rig: &Rig,
    slot: usize,
    value: Vec4,
    reference: Vec4,
    w: f32,
) {
    let at = rig.maps.trs_slots[slot].at;
    let q = Quat::from_slice(&trs[at..at + 4]);
    let out = add_rotation(q, Quat::from_vec4(reference), Quat::from_vec4(value), w);
    out.write_to_slice(&mut trs[at..at + 4]);
}

/// `q · (conj(reference) · value)^w`: the additive rotation rule, the difference taken on the
/// short path (three.js slerps from the identity towards it), any real `w` (negative undoes).
/// Weights in `0..=1` take the polynomial slerp from the identity (within 2e-7 of the exact
/// weights); others the exact power through the angle.
#[inline]
pub(crate) fn add_rotation(q: Quat, reference: Quat, value: Quat, w: f32) -> Quat {
    let mut delta = reference.conjugate() * value;
    if delta.w < 0.0 {
        delta = -delta;
    }
    let powered = if w == 1.0 {
        delta
    } else if (0.0..=1.0).contains(&w) {
        Quat::from_vec4(crate::math::interpolate::slerp(
            Vec4::W,
            Vec4::from(delta),
            w,
        ))
    } else {
        let v = glam::Vec3::new(delta.x, delta.y, delta.z);
        let sin_half = v.length();
        if sin_half <= 1e-12 {
            Quat::IDENTITY
        } else {
            let half = sin_half.atan2(delta.w) * w;
            let axis = v / sin_half;
            let (s, c) = half.sin_cos();
            Quat::from_xyzw(axis.x * s, axis.y * s, axis.z * s, c)
        }
    };
    let out = q * powered;
    let len_sq = out.length_squared();
    if len_sq > 0.0 && len_sq.is_finite() {
        out / len_sq.sqrt()
    } else {
        q
    }
}
