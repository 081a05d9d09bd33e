//! Slerps of rotations far apart, four lanes at once in registers: polynomial `acos` and `sin`
//! for an additive layer's rotation differences (often wider than the key intervals the
//! sampling polynomial of [`interpolate`](super::interpolate) is built for), and the slerp from
//! the identity that applies such a difference at a weight.

use glam::Vec4;

use crate::math::interpolate::{POLY_SLERP_MIN_COS, slerp_weights_soa_near};

/// `interpolate::slerp_soa` from the identity to `b` (each lane's `w` ≥ 0, on the identity's
/// hemisphere): `slerp(identity, b, s)` lane by lane, with the products by the identity's zeros
/// and ones left out, for `s ∈ [0, 1]`. What an additive layer's weight does to its rotation
/// delta. Lanes where `b` is within 51.7° of the identity get `interpolate::slerp`'s polynomial weights;
/// wider ones polynomial `acos` and `sin` ([`slerp_weights_soa_wide`]), within 1e-7 of them.
/// Not normalised: for a unit `b` the result is unit within 2e-7, and its one caller
/// normalises the product it is multiplied into.
#[inline(always)]
#[must_use]
pub(crate) fn slerp_soa_from_identity(b: [Vec4; 4], s: Vec4) -> [Vec4; 4] {
    let [bx, by, bz, bw] = b;
    let cos = bw;
    let (wa, wb) = slerp_weights_soa_wide(cos, s);
    [bx * wb, by * wb, bz * wb, wa + bw * wb]
}

/// `interpolate::slerp_weights_soa` for weights `s ∈ [0, 1]` without leaving the registers: lanes below
/// [`POLY_SLERP_MIN_COS`] take `sin(sθ) / sin θ` from polynomial `acos` and `sin`
/// ([`acos_soa`], [`sin_soa`]; within 1e-7 of the scalar `acos`/`sin` weights, see the tests)
/// instead of a scalar call per lane. An additive layer's rotation differences are often that
/// wide (a clip's pose against its first frame), a key interval's rotation almost never; the
/// sampling passes keep `interpolate::slerp_weights_soa`, whose lanes are the scalar function's bits.
#[inline(always)]
pub(crate) fn slerp_weights_soa_wide(cos: Vec4, s: Vec4) -> (Vec4, Vec4) {
    let (wa, wb) = slerp_weights_soa_near(cos, s);
    let far = cos.cmplt(Vec4::splat(POLY_SLERP_MIN_COS));
    if !far.any() {
        return (wa, wb);
    }
    let theta = acos_soa(cos.clamp(Vec4::ZERO, Vec4::ONE));
    let inv_sin = Vec4::ONE / sin_soa(theta);
    (
        Vec4::select(far, sin_soa((Vec4::ONE - s) * theta) * inv_sin, wa),
        Vec4::select(far, sin_soa(s * theta) * inv_sin, wb),
    )
}

/// `acos x` for `x ∈ [0, 1]`: `√(1 − x)` times a degree-7 polynomial (Abramowitz and Stegun
/// 4.4.46, error at most 2.2e-8).
#[inline(always)]
fn acos_soa(x: Vec4) -> Vec4 {
    const A: [f32; 8] = [
        core::f32::consts::FRAC_PI_2,
        -0.214_598_8,
        0.088_978_99,
        -0.050_174_3,
        0.030_891_88,
        -0.017_088_126,
        0.006_670_09,
        -0.001_262_491_1,
    ];
    let p = A
        .iter()
        .rev()
        .fold(Vec4::ZERO, |p, &a| p * x + Vec4::splat(a));
    (Vec4::ONE - x).map(f32::sqrt) * p
}

/// `sin x` for `x ∈ [0, π/2]`: the Taylor series to `x¹¹` (error at most 5.7e-8 there).
#[inline(always)]
fn sin_soa(x: Vec4) -> Vec4 {
    const C: [f32; 5] = [
        -1.0 / 6.0,
        1.0 / 120.0,
        -1.0 / 5040.0,
        1.0 / 362_880.0,
        -1.0 / 39_916_800.0,
    ];
    let x2 = x * x;
    let p = C
        .iter()
        .rev()
        .fold(Vec4::ZERO, |p, &c| (p + Vec4::splat(c)) * x2);
    x + x * p
}
