//! The slerp weights `(sin((1−t)θ) / sin θ, sin(tθ) / sin θ)`: a polynomial in `cos θ` for
//! rotations near each other (every key interval of a real clip), `acos`/`sin` below it, and
//! for rotations far apart (an additive layer's differences) polynomial `acos` and `sin` four
//! lanes at once in registers. Interpolation ([`interpolate`](super::interpolate)) builds on
//! these.

use glam::Vec4;

/// `cos θ` from which [`slerp_weights`] uses the polynomial (θ ≤ 25.8°, i.e. key rotations up to
/// 51.7° apart); below it the weights come from `acos` and `sin`.
pub(crate) const POLY_SLERP_MIN_COS: f32 = 0.9;

/// Coefficients `u_i = 1 / (i (2i + 1))` and `v_i = i / (2i + 1)`, i = 1..4, of Eberly's series
/// for `sin(tθ) / sin θ` in powers of `cos θ − 1` ("A Fast and Accurate Algorithm for Computing
/// SLERP", Journal of Graphics, GPU, and Game Tools 15(3), 2011).
const U: [f32; 4] = [1.0 / 3.0, 1.0 / 10.0, 1.0 / 21.0, 1.0 / 36.0];
const V: [f32; 4] = [1.0 / 3.0, 2.0 / 5.0, 3.0 / 7.0, 4.0 / 9.0];

/// `sin(tθ) / sin θ` for `x = cos θ ≥ 0.9` by four terms of Eberly's series (truncation error
/// below 5e-8 there; see the tests).
#[inline]
#[must_use]
fn sin_ratio(x_minus_1: f32, t: f32) -> f32 {
    let t2 = t * t;
    let mut r = 1.0;
    r = 1.0 + r * (U[3] * t2 - V[3]) * x_minus_1;
    r = 1.0 + r * (U[2] * t2 - V[2]) * x_minus_1;
    r = 1.0 + r * (U[1] * t2 - V[1]) * x_minus_1;
    r = 1.0 + r * (U[0] * t2 - V[0]) * x_minus_1;
    t * r
}

/// The slerp weights `(sin((1−t)θ) / sin θ, sin(tθ) / sin θ)` for `cos = cos θ ∈ [0, 1]`: by
/// the polynomial from [`POLY_SLERP_MIN_COS`] up, by `acos`/`sin` below, and `(1 − t, t)` (lerp)
/// when θ is too small for `sin θ` to divide by.
#[inline]
#[must_use]
pub(crate) fn slerp_weights(cos: f32, t: f32) -> (f32, f32) {
    if cos >= POLY_SLERP_MIN_COS {
        let xm1 = cos - 1.0;
        (sin_ratio(xm1, 1.0 - t), sin_ratio(xm1, t))
    } else {
        let theta = cos.max(-1.0).acos();
        let sin = theta.sin();
        (((1.0 - t) * theta).sin() / sin, (t * theta).sin() / sin)
    }
}

/// [`slerp_weights`] of four lanes: the polynomial where `cos ≥ POLY_SLERP_MIN_COS`, the
/// scalar function's other branches lane by lane elsewhere; the same bits as the scalar one.
#[inline(always)]
pub(crate) fn slerp_weights_soa(cos: Vec4, s: Vec4) -> (Vec4, Vec4) {
    let (mut wa, mut wb) = slerp_weights_soa_near(cos, s);
    let far = cos.cmplt(Vec4::splat(POLY_SLERP_MIN_COS));
    if far.any() {
        let (mut wa_l, mut wb_l) = (wa.to_array(), wb.to_array());
        let (c, t) = (cos.to_array(), s.to_array());
        for lane in 0..4 {
            if far.test(lane) {
                (wa_l[lane], wb_l[lane]) = slerp_weights(c[lane], t[lane]);
            }
        }
        (wa, wb) = (Vec4::from_array(wa_l), Vec4::from_array(wb_l));
    }
    (wa, wb)
}

/// The polynomial of [`slerp_weights_soa`] in every lane (meaningful where
/// `cos ≥ POLY_SLERP_MIN_COS`).
#[inline(always)]
pub(crate) fn slerp_weights_soa_near(cos: Vec4, s: Vec4) -> (Vec4, Vec4) {
    let xm1 = cos - Vec4::ONE;
    let ratio = |t: Vec4| {
        let t2 = t * t;
        let mut r = Vec4::ONE;
        r = Vec4::ONE + r * (Vec4::splat(U[3]) * t2 - Vec4::splat(V[3])) * xm1;
        r = Vec4::ONE + r * (Vec4::splat(U[2]) * t2 - Vec4::splat(V[2])) * xm1;
        r = Vec4::ONE + r * (Vec4::splat(U[1]) * t2 - Vec4::splat(V[1])) * xm1;
        r = Vec4::ONE + r * (Vec4::splat(U[0]) * t2 - Vec4::splat(V[0])) * xm1;
        t * r
    };
    (ratio(Vec4::ONE - s), ratio(s))
}

/// [`slerp_weights_soa`] for weights `s ∈ [0, 1]` without leaving the registers: lanes below
/// [`POLY_SLERP_MIN_COS`] take `sin(sθ) / sin θ` from polynomial `acos` and `sin`
/// ([`acos_soa`], [`sin_soa`]; within 1e-7 of the scalar `acos`/`sin` weights, see the tests)
/// instead of a scalar call per lane. An additive layer's rotation differences are often that
/// wide (a clip's pose against its first frame), a key interval's rotation almost never; the
/// sampling passes keep [`slerp_weights_soa`], whose lanes are the scalar function's bits.
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
