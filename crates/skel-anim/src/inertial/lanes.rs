//! The offset four nodes at a time, for the player's fused pass (mix, offset, compose and place
//! in one walk over the quads): the same quintic and the same rotation exponential as
//! [`Inertialization::apply`](super::Inertialization::apply), lane by lane.
//!
//! The exponential of a rotation vector `r` (angle `θ = |r|`, half-angle `h = θ/2`) is
//! `(r · sin h / θ, cos h)`; both `sin h / h` and `cos h` are power series in `u = h² = |r|²/4`,
//! so it needs no square root, no division and no trigonometric call: ten terms of each keep
//! the error under 3e-7 up to a half turn (`θ ≤ π`, where an offset starts: the short way
//! round) and under 1e-6 up to a full turn (a quintic overshoots only a little).

use glam::Vec4;
use skel_math::lanes::{Quatx4, Vec3x4};

/// `sin h / h` and `cos h` as series in `u = h²`, to the tenth term (Horner).
#[inline(always)]
fn half_angle_series(u: Vec4) -> (Vec4, Vec4) {
    // sin h / h = Σ (−u)^k / (2k + 1)!
    const S: [f32; 10] = [
        1.0,
        -1.0 / 6.0,
        1.0 / 120.0,
        -1.0 / 5_040.0,
        1.0 / 362_880.0,
        -1.0 / 39_916_800.0,
        1.0 / 6_227_020_800.0,
        -1.0 / 1_307_674_368_000.0,
        1.0 / 355_687_428_096_000.0,
        -1.0 / 121_645_100_408_832_000.0,
    ];
    // cos h = Σ (−u)^k / (2k)!
    const C: [f32; 10] = [
        1.0,
        -1.0 / 2.0,
        1.0 / 24.0,
        -1.0 / 720.0,
        1.0 / 40_320.0,
        -1.0 / 3_628_800.0,
        1.0 / 479_001_600.0,
        -1.0 / 87_178_291_200.0,
        1.0 / 20_922_789_888_000.0,
        -1.0 / 6_402_373_705_728_000.0,
    ];
    let mut s = Vec4::splat(S[9]);
    let mut c = Vec4::splat(C[9]);
    for k in (0..9).rev() {
        s = s * u + Vec4::splat(S[k]);
        c = c * u + Vec4::splat(C[k]);
    }
    (s, c)
}

/// `exp(r)` for four rotation vectors: the unit quaternions turning by `|r|` about `r`.
#[inline(always)]
pub(crate) fn exp4(r: Vec3x4) -> Quatx4 {
    let u = r.dot(r) * Vec4::splat(0.25);
    let (sinc, cos) = half_angle_series(u);
    let half = sinc * Vec4::splat(0.5);
    Quatx4::new(r.x * half, r.y * half, r.z * half, cos)
}

/// Four numbers of a blend `t` seconds in, from their rows `x₀`, `c₁ = v₀·t₁` and `r = 1/t₁`:
/// `x₀·p₀(τ) + c₁·p₁(τ) + c₂·p₂(τ)` at `τ = min(t·r, 1)`, with the Hermite polynomials of
/// [`quintic_decay`](super::quintic_decay) and `c₂ = a₀·t₁² = max(0, −8 c₁ − 20 x₀)` on the
/// decay's side. At `τ = 1` every polynomial is exactly 0: a number past its own blend time is
/// done.
#[inline(always)]
pub(crate) fn decay_row(x: Vec4, c1: Vec4, r: Vec4, t: f32) -> Vec4 {
    let tau = (Vec4::splat(t) * r).min(Vec4::ONE);
    let t2 = tau * tau;
    let t3 = t2 * tau;
    let p0 = Vec4::ONE + t3 * (Vec4::splat(-10.0) + tau * (Vec4::splat(15.0) - 6.0 * tau));
    let p1 = tau + t3 * (Vec4::splat(-6.0) + tau * (Vec4::splat(8.0) - 3.0 * tau));
    let p2 = 0.5 * t2 + t3 * (Vec4::splat(-1.5) + tau * (Vec4::splat(1.5) - 0.5 * tau));
    let k = Vec4::splat(-8.0) * c1 - Vec4::splat(20.0) * x;
    let c2 = Vec4::select(x.cmplt(Vec4::ZERO), k.min(Vec4::ZERO), k.max(Vec4::ZERO));
    x * p0 + c1 * p1 + c2 * p2
}

/// `exp(r) · q`, renormalised, for four rotations and rotation vectors (`r` as x, y, z rows).
#[inline(always)]
pub(crate) fn rotate_lanes(q: Quatx4, r: [Vec4; 3]) -> Quatx4 {
    (exp4(Vec3x4::new(r[0], r[1], r[2])) * q).normalize_or(q)
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::{Quat, Vec3};

    #[test]
    fn the_series_exponential_is_the_rotation() {
        for (axis, angle) in [
            (Vec3::X, 0.0_f32),
            (Vec3::new(1.0, 2.0, 3.0).normalize(), 1e-4),
            (Vec3::new(-1.0, 0.5, 0.2).normalize(), 1.0),
            (Vec3::Y, std::f32::consts::PI),
            (
                Vec3::new(0.3, -0.7, 0.1).normalize(),
                2.0 * std::f32::consts::PI - 0.1,
            ),
        ] {
            let r = axis * angle;
            let lanes = Vec3x4::new(Vec4::splat(r.x), Vec4::splat(r.y), Vec4::splat(r.z));
            let q = exp4(lanes).lane(0);
            let want = Quat::from_scaled_axis(r);
            let got = Quat::from_array(q);
            let tolerance = if angle <= std::f32::consts::PI {
                3e-7
            } else {
                1e-6
            };
            assert!(
                (got - want).length() < tolerance || (got + want).length() < tolerance,
                "{angle}: {got} vs {want}"
            );
        }
    }
}
