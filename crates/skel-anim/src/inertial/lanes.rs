//! The offset four nodes at a time, for the player's fused pass (mix, offset, compose and place
//! in one walk over the quads): the same quintic and the same rotation exponential as
//! [`Inertialization::apply`](super::Inertialization::apply), lane by lane.
//!
//! The exponential of a rotation vector `r` (angle `θ = |r|`, half-angle `h = θ/2`) is
//! `(r · sin h / θ, cos h)`; both `sin h / h` and `cos h` are power series in `u = h² = |r|²/4`,
//! so it needs no square root, no division and no trigonometric call: eight terms of each keep
//! the error under 3e-7 up to a half turn (`θ ≤ π`, where an offset starts: the short way
//! round; the first term left out is below 1e-8 there) and under 1e-5 up to a full turn (a
//! quintic overshoots only a little), where the normalisation that follows takes the rest.

use glam::Vec4;
use skel_math::lanes::{Quatx4, Vec3x4};

#[cfg(target_arch = "x86_64")]
pub(crate) use crate::math::mul_add::Fused;
pub(crate) use crate::math::mul_add::{MulAdd4, Separate};

/// `sin h / h` and `cos h` as series in `u = h²`, to the eighth term (Horner).
#[inline(always)]
fn half_angle_series(u: Vec4, m: impl MulAdd4) -> (Vec4, Vec4) {
    // sin h / h = Σ (−u)^k / (2k + 1)!
    const S: [f32; 8] = [
        1.0,
        -1.0 / 6.0,
        1.0 / 120.0,
        -1.0 / 5_040.0,
        1.0 / 362_880.0,
        -1.0 / 39_916_800.0,
        1.0 / 6_227_020_800.0,
        -1.0 / 1_307_674_368_000.0,
    ];
    // cos h = Σ (−u)^k / (2k)!
    const C: [f32; 8] = [
        1.0,
        -1.0 / 2.0,
        1.0 / 24.0,
        -1.0 / 720.0,
        1.0 / 40_320.0,
        -1.0 / 3_628_800.0,
        1.0 / 479_001_600.0,
        -1.0 / 87_178_291_200.0,
    ];
    let mut s = Vec4::splat(S[7]);
    let mut c = Vec4::splat(C[7]);
    for k in (0..7).rev() {
        s = m.mul_add(s, u, Vec4::splat(S[k]));
        c = m.mul_add(c, u, Vec4::splat(C[k]));
    }
    (s, c)
}

/// `exp(r)` for four rotation vectors: the unit quaternions turning by `|r|` about `r`.
#[inline(always)]
pub(crate) fn exp4(r: Vec3x4, m: impl MulAdd4) -> Quatx4 {
    let u = m.mul_add(r.z, r.z, m.mul_add(r.y, r.y, r.x * r.x)) * Vec4::splat(0.25);
    let (sinc, cos) = half_angle_series(u, m);
    let half = sinc * Vec4::splat(0.5);
    Quatx4::new(r.x * half, r.y * half, r.z * half, cos)
}

/// Numbers per node in an offset or a velocity: translation, rotation vector, scale.
pub const OFFSET_STRIDE: usize = 9;

/// A number whose offset and velocity × blend time are both at most this is left at 0: a
/// millionth of a metre, a radian or a unit of scale, rounding rather than motion.
const NEGLIGIBLE: f32 = 1e-6;

/// Per four-lane mask (bit `lane`), the lanes as a selection.
const LANE_MASKS: [Vec4; 16] = {
    const fn bit(m: usize, b: usize) -> f32 {
        if m & (1 << b) != 0 { 1.0 } else { 0.0 }
    }
    let mut out = [Vec4::ZERO; 16];
    let mut m = 0;
    while m < 16 {
        out[m] = Vec4::new(bit(m, 0), bit(m, 1), bit(m, 2), bit(m, 3));
        m += 1;
    }
    out
};

/// Readies one quad's rows (`x₀`, `c₁ = v₀·t₁`, `1/t₁` of nine numbers, as
/// `Inertialization::set_node` writes them) for a blend at `rate = 1/duration`: a number whose
/// blend time is the blend's gets `c₂ = a₀·t₁²` in its third row and shares the frame's
/// Hermite basis; one whose blend time Bollo's rule shortened keeps `1/t₁`. Below
/// [`NEGLIGIBLE`] in value and in velocity × blend time a number is rounding (a scale keyed as
/// 0.99999994 against 1): it is zeroed and costs nothing. Returns which parts move (bits 0, 1,
/// 2: translation, rotation, scale) and, per number, the shortened lanes (bit `lane`).
pub(crate) fn prepare_rows(rows: &mut [Vec4], rate: f32) -> (u8, [u8; OFFSET_STRIDE]) {
    let (mut parts, mut shortened) = (0, [0; OFFSET_STRIDE]);
    let (rate, small) = (Vec4::splat(rate), Vec4::splat(NEGLIGIBLE));
    for i in 0..OFFSET_STRIDE {
        let (x, c1, r) = (
            rows[i],
            rows[OFFSET_STRIDE + i],
            rows[2 * OFFSET_STRIDE + i],
        );
        let moving = x.abs().cmpgt(small) | c1.abs().cmpgt(small);
        if !moving.any() {
            for row in [i, OFFSET_STRIDE + i, 2 * OFFSET_STRIDE + i] {
                rows[row] = Vec4::ZERO;
            }
            continue;
        }
        parts |= 1 << (i / 3);
        let short = moving & r.cmpne(rate);
        #[expect(clippy::cast_possible_truncation, reason = "a four-bit mask")]
        {
            shortened[i] = short.bitmask() as u8;
        }
        rows[2 * OFFSET_STRIDE + i] = Vec4::select(short, r, start_acceleration(x, c1));
    }
    (parts, shortened)
}

/// The nine numbers of one quad readied by [`prepare_rows`], `t` seconds into the blend whose
/// Hermite basis is then `basis` (the parts not in `parts` left at 0): three multiply-adds per
/// number on the blend's time, [`short_decay`] in its shortened lanes.
#[inline(always)]
pub(crate) fn decay_rows(
    rows: &[Vec4],
    shortened: &[u8; OFFSET_STRIDE],
    basis: [f32; 3],
    t: f32,
    parts: u8,
    m: impl MulAdd4,
) -> [Vec4; OFFSET_STRIDE] {
    let mut x = [Vec4::ZERO; OFFSET_STRIDE];
    let [p0, p1, p2] = basis.map(Vec4::splat);
    for part in 0..3 {
        if parts & (1 << part) == 0 {
            continue;
        }
        for i in 3 * part..3 * part + 3 {
            let (x0, c1, c) = (
                rows[i],
                rows[OFFSET_STRIDE + i],
                rows[2 * OFFSET_STRIDE + i],
            );
            let common = m.mul_add(c, p2, m.mul_add(c1, p1, x0 * p0));
            x[i] = match shortened[i] {
                0 => common,
                m => {
                    let lanes = LANE_MASKS[usize::from(m & 15)].cmpne(Vec4::ZERO);
                    Vec4::select(lanes, short_decay(x0, c, t), common)
                }
            };
        }
    }
    x
}

/// Four numbers whose blend time Bollo's rule shortened (`x₀` and `v₀` of opposite signs,
/// `t₁ = −5 x₀ / v₀`), `t` seconds in, from `x₀` and `r = 1/t₁`: with `c₁ = −5 x₀` and
/// `c₂ = 20 x₀` the quintic `x₀ p₀ + c₁ p₁ + c₂ p₂` is `x₀ (1 − τ)⁵`, at `τ = min(t·r, 1)`.
#[inline(always)]
pub(crate) fn short_decay(x: Vec4, r: Vec4, t: f32) -> Vec4 {
    let u = Vec4::ONE - (Vec4::splat(t) * r).min(Vec4::ONE);
    let u2 = u * u;
    x * (u2 * u2 * u)
}

/// `c₂ = a₀·t₁²` of four numbers from `x₀` and `c₁ = v₀·t₁`: `−8 c₁ − 20 x₀`, kept only on
/// the decay's side (Bollo's `a₀ = max(0, …)` for a positive offset).
#[inline(always)]
pub(crate) fn start_acceleration(x: Vec4, c1: Vec4) -> Vec4 {
    let k = Vec4::splat(-8.0) * c1 - Vec4::splat(20.0) * x;
    Vec4::select(x.cmplt(Vec4::ZERO), k.min(Vec4::ZERO), k.max(Vec4::ZERO))
}

/// `exp(r) · q`, renormalised, for four rotations and rotation vectors (`r` as x, y, z rows).
/// A lane whose product has a zero or non-finite length keeps `q`'s lane (as
/// `Quatx4::normalize_or`; here by one reciprocal and four products instead of four
/// divisions).
#[inline(always)]
pub(crate) fn rotate_lanes(q: Quatx4, r: [Vec4; 3], m: impl MulAdd4) -> Quatx4 {
    let turned = product(exp4(Vec3x4::new(r[0], r[1], r[2]), m), q, m);
    // Paired as `Quatx4::length_squared` pairs them: the same bits without FMA.
    let len_sq = m.mul_add(turned.z, turned.z, turned.x * turned.x)
        + m.mul_add(turned.w, turned.w, turned.y * turned.y);
    // A normal, finite square only: the FMA build's estimate has no answer for a subnormal.
    let ok = len_sq.cmpge(Vec4::splat(f32::MIN_POSITIVE)) & len_sq.cmplt(Vec4::INFINITY);
    let inverse = m.inverse_sqrt(len_sq);
    Quatx4::select(ok, turned * inverse, q)
}

/// The Hamilton products `a[i] · b[i]` (as `Quatx4`'s `*`), each component a product and
/// three multiply-adds.
#[inline(always)]
fn product(a: Quatx4, b: Quatx4, m: impl MulAdd4) -> Quatx4 {
    Quatx4::new(
        m.mul_add(
            -a.z,
            b.y,
            m.mul_add(a.y, b.z, m.mul_add(a.x, b.w, a.w * b.x)),
        ),
        m.mul_add(
            a.z,
            b.x,
            m.mul_add(a.y, b.w, m.mul_add(-a.x, b.z, a.w * b.y)),
        ),
        m.mul_add(
            a.z,
            b.w,
            m.mul_add(-a.y, b.x, m.mul_add(a.x, b.y, a.w * b.z)),
        ),
        m.mul_add(
            -a.z,
            b.z,
            m.mul_add(-a.y, b.y, m.mul_add(-a.x, b.x, a.w * b.w)),
        ),
    )
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
            let want = Quat::from_scaled_axis(r);
            let close = |got: Quat, tolerance: f32| {
                (got - want).length() < tolerance || (got + want).length() < tolerance
            };
            // The series alone, then as the blend uses it (turning a rotation, normalised).
            let series = Quat::from_array(exp4(lanes, Separate).lane(0));
            let identity = Quatx4::from_lanes([[0.0, 0.0, 0.0, 1.0]; 4]);
            let turned = Quat::from_array(
                rotate_lanes(identity, [lanes.x, lanes.y, lanes.z], Separate).lane(0),
            );
            if angle <= std::f32::consts::PI {
                assert!(close(series, 3e-7), "{angle}: {series} vs {want}");
                assert!(close(turned, 3e-7), "{angle}: {turned} vs {want}");
            } else {
                assert!(close(series, 2e-5), "{angle}: {series} vs {want}");
                assert!(close(turned, 1e-5), "{angle}: {turned} vs {want}");
            }
        }
    }

    /// The fused build (the AVX2 + FMA passes') within rounding of the baseline: the rotation
    /// turned by an offset and the decayed rows, on this machine when it has FMA.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn fused_lanes_round_near_the_baseline() {
        if !std::arch::is_x86_feature_detected!("fma") {
            return;
        }
        #[expect(unsafe_code, reason = "the FMA token, after detection")]
        // SAFETY: FMA was just detected, and `Fused` only calls the FMA intrinsic.
        let fused = unsafe { Fused::new() };
        let q = Quatx4::from_lanes([
            Quat::from_rotation_x(0.4).to_array(),
            Quat::from_euler(glam::EulerRot::XYZ, 1.0, -2.0, 0.5).to_array(),
            Quat::IDENTITY.to_array(),
            Quat::from_rotation_z(-3.0).to_array(),
        ]);
        let r = [
            Vec4::new(0.3, -1.2, 0.0, 2.5),
            Vec4::new(0.01, 0.7, 0.0, -0.4),
            Vec4::new(-0.2, 0.05, 0.0, 0.9),
        ];
        let (a, b) = (rotate_lanes(q, r, Separate), rotate_lanes(q, r, fused));
        for lane in 0..4 {
            let (a, b) = (Vec4::from(a.lane(lane)), Vec4::from(b.lane(lane)));
            assert!(
                (a - b).abs().max_element() < 1e-6,
                "lane {lane}: {a} vs {b}"
            );
        }
        // A rotation whose square is subnormal is left as it was, in both builds (the FMA
        // build's estimate has no answer for it), never turned into NaN.
        let tiny = Quatx4::from_lanes([[1e-21, 0.0, 0.0, 0.0]; 4]);
        for turned in [
            rotate_lanes(tiny, r, Separate),
            rotate_lanes(tiny, r, fused),
        ] {
            for lane in 0..4 {
                assert_eq!(turned.lane(lane), [1e-21, 0.0, 0.0, 0.0], "lane {lane}");
            }
        }
        let mut rows: Vec<Vec4> = (0..3 * OFFSET_STRIDE)
            .map(|i| {
                let f = i as f32;
                Vec4::new(0.1 * f - 1.0, 0.5 - 0.07 * f, 0.02 * f, -0.3 + 0.01 * f)
            })
            .collect();
        let (parts, shortened) = prepare_rows(&mut rows, 2.0);
        let basis = super::super::quintic_basis(0.3);
        let a = decay_rows(&rows, &shortened, basis, 0.15, parts, Separate);
        let b = decay_rows(&rows, &shortened, basis, 0.15, parts, fused);
        for (i, (a, b)) in a.iter().zip(&b).enumerate() {
            let scale = a.abs().max_element().max(1.0);
            assert!(
                (*a - *b).abs().max_element() < 1e-6 * scale,
                "number {i}: {a} vs {b}"
            );
        }
    }
}
