//! The offset four nodes at a time, for the player's fused pass (mix, offset, compose and place
//! in one walk over the quads): the same quintic and the same rotation exponential as
//! [`Inertialization::apply`](super::Inertialization::apply), lane by lane.
//!
//! The exponential of a rotation vector `r` (angle `θ = |r|`, half-angle `h = θ/2`) is
//! `(r · sin h / θ, cos h)`; both `sin h / h` and `cos h` are power series in `u = h² = |r|²/4`,
//! so it needs no square root, no division and no trigonometric call: ten terms of each keep
//! the error under 3e-7 up to a half turn (`θ ≤ π`, where an offset starts: the short way
//! round) and under 1e-6 up to a full turn (a quintic overshoots only a little).

use glam::{BVec4A, Vec4};
use skel_math::lanes::{Quatx4, Vec3x4};

use super::{Inertialization, OFFSET_STRIDE};
use crate::sample::four_node::{Lanes, Quad};

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

/// The quintic of four numbers at once (see [`quintic_decay`](super::quintic_decay)), with
/// `basis` the Hermite polynomials at `t / d` for the lanes that keep the blend time.
///
/// A lane moving back towards zero fast enough to overshoot (`x v < 0`, `−5 x v < d v²`) has
/// the shorter blend time `t₁ = −5 x / v`; there `v t₁ = −5 x` and `a₀ t₁² = 20 |x|`, so only its
/// normalised time `t / t₁ = −t v / (5 x)` costs a division.
#[inline(always)]
fn decay4(x: Vec4, v: Vec4, d: f32, t: f32, basis: [f32; 3]) -> Vec4 {
    let zero = Vec4::ZERO;
    let short = (x * v).cmplt(zero) & (Vec4::splat(-5.0) * x * v).cmplt(Vec4::splat(d) * v * v);
    // Lanes that keep the blend time: v₀ t₁ = v d, a₀ t₁² on the decay's side.
    let c1 = v * d;
    let k = Vec4::splat(-8.0) * c1 - Vec4::splat(20.0) * x;
    let c2 = Vec4::select(x.cmplt(zero), k.min(zero), k.max(zero));
    let full = x * basis[0] + c1 * basis[1] + c2 * basis[2];
    // Computed for every lane and selected (no branch: whether a lane is short is data, and a
    // mispredicted branch costs more than the few products).
    let tau = (Vec4::splat(-t) * v / (Vec4::splat(5.0) * x)).min(Vec4::ONE);
    let t2 = tau * tau;
    let t3 = t2 * tau;
    let p0 = Vec4::ONE + t3 * (Vec4::splat(-10.0) + tau * (Vec4::splat(15.0) - 6.0 * tau));
    let p1 = tau + t3 * (Vec4::splat(-6.0) + tau * (Vec4::splat(8.0) - 3.0 * tau));
    let p2 = 0.5 * t2 + t3 * (Vec4::splat(-1.5) + tau * (Vec4::splat(1.5) - 0.5 * tau));
    // At τ = 1 the Hermite polynomials are exactly 0: a lane past its blend time is done.
    let shortened = x * (p0 - Vec4::splat(5.0) * p1 + Vec4::splat(20.0) * p2);
    Vec4::select(short, shortened, full)
}

impl Inertialization {
    /// Adds the offset at the current time to quad `q`'s layered transforms (its nodes' lanes;
    /// padding lanes untouched). Nothing to add: `out` as it is.
    #[inline(always)]
    pub(crate) fn apply_quad(&self, q: &Quad, out: crate::sample::four_node::Lanes) -> Lanes {
        let mut parts = 0_u8;
        for &node in q.nodes.iter().take(q.lanes) {
            parts |= self.parts.get(node as usize).copied().unwrap_or(0);
        }
        if parts == 0 || !self.active {
            return out;
        }
        #[expect(
            clippy::cast_possible_truncation,
            reason = "seconds within a blend time"
        )]
        let t = self.elapsed as f32;
        let d = self.duration;
        let basis = super::quintic_basis(t / d);
        // The nine numbers of the four nodes as rows (padding lanes: zero, no offset).
        let mut xs = [[0.0_f32; 4]; OFFSET_STRIDE];
        let mut vs = [[0.0_f32; 4]; OFFSET_STRIDE];
        for (lane, &node) in q.nodes.iter().take(q.lanes).enumerate() {
            let o = node as usize * OFFSET_STRIDE;
            if let (Some(x), Some(v)) = (
                self.x0.get(o..o + OFFSET_STRIDE),
                self.v0.get(o..o + OFFSET_STRIDE),
            ) {
                for i in 0..OFFSET_STRIDE {
                    xs[i][lane] = x[i];
                    vs[i][lane] = v[i];
                }
            }
        }
        let number = |i: usize| {
            decay4(
                Vec4::from_array(xs[i]),
                Vec4::from_array(vs[i]),
                d,
                t,
                basis,
            )
        };
        let mut out = out;
        if parts & 1 != 0 {
            out.t = out.t + Vec3x4::new(number(0), number(1), number(2));
        }
        if parts & 4 != 0 {
            out.s = out.s + Vec3x4::new(number(6), number(7), number(8));
        }
        if parts & 2 != 0 {
            let turned = exp4(Vec3x4::new(number(3), number(4), number(5))) * out.r;
            let lanes = BVec4A::new(q.lanes > 0, q.lanes > 1, q.lanes > 2, q.lanes > 3);
            out.r = Quatx4::select(lanes, turned.normalize_or(out.r), out.r);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::{Quat, Vec3};

    proptest::proptest! {
        #[test]
        fn four_lanes_decay_as_one(
            x in proptest::array::uniform4(-3.0_f32..3.0),
            v in proptest::array::uniform4(-30.0_f32..30.0),
            d in 0.05_f32..1.0,
            u in 0.0_f32..0.999,
        ) {
            let t = u * d;
            let got = decay4(Vec4::from_array(x), Vec4::from_array(v), d, t, super::super::quintic_basis(u));
            for lane in 0..4 {
                let want = super::super::quintic_decay(x[lane], v[lane], d, t);
                let scale = x[lane].abs() + v[lane].abs() * d + 1e-3;
                proptest::prop_assert!((got[lane] - want).abs() <= 2e-5 * scale, "{} vs {want}", got[lane]);
            }
        }
    }

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
