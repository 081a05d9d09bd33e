//! Inertialization: switch to a new pose at once and let the difference from the old one decay
//! (David Bollo, "Inertialization: High-Performance Animation Transitions in Gears of War",
//! GDC 2018; Unreal's `AnimNode_Inertialization`).
//!
//! # The rule
//!
//! At the switch the destination plays at once. Per node, the difference between what was on
//! screen and the destination is taken as nine numbers: translation (3), rotation as a
//! rotation vector (3: axis × angle of `q_source · conj(q_destination)`, the short way round)
//! and scale (3). That offset `x₀` and its velocity `v₀` (the source's velocity minus the
//! destination's, so that what is shown keeps its velocity across the switch) decay to zero
//! over the blend time, each number on its own quintic (see [`quintic_decay`]); every frame
//! shows `destination ⊕ offset(t)`: translation and scale added, rotation
//! `exp(offset) · q_destination`. After the blend time the offset is exactly zero and the pose
//! is the destination's, bit for bit.
//!
//! # Why the quintic and not dead blending
//!
//! Dead blending (Daniel Holden, 2023) extrapolates the source by its decaying velocity and
//! cross-fades it to the destination. It never overshoots, but what it shows depends on how far
//! the extrapolated source drifts, which depends on the source's velocity at the switch: a
//! limb swinging fast keeps swinging for a while before the fade pulls it back. The quintic
//! keeps only a difference that shrinks monotonically in the common case (`x₀` and `v₀` of
//! opposite signs shorten the blend time per number, Bollo's `t₁ = min(t₁, −5 x₀ / v₀)`, so it
//! never crosses zero), ends exactly at the blend time, costs a handful of multiply-adds per
//! number and keeps 18 floats per node (`x₀`, `v₀`), with nothing to sample from the source
//! after the switch. Interruptions need no special case either: the pose on screen (the
//! running offset included) becomes the next source.
//!
//! # Cost and memory
//!
//! [`Inertialization`] holds per number `x₀`, `v₀·t₁` and a third row (27 floats per node,
//! four nodes side by side as the rig's four-node pass reads them); the player keeps one pose
//! more (9 floats per node: translation, rotation vector, scale) for what was on screen when a
//! switch is asked for: 36 floats per node, twice the offset and its velocity. Nothing
//! allocates after [`Inertialization::new`]. While no blend runs it costs nothing. While one
//! runs, a number on the blend's own time costs three multiply-adds on the frame's Hermite
//! basis (computed once per frame: the third row holds its `c₂ = a₀·t₁²`); a number whose
//! blend time Bollo's rule shortened decays as `x₀ (1 − τ)⁵` on its own time (the third row
//! holds `1/t₁`); numbers below a millionth stay 0. Each node's rotation takes one
//! exponential (a power series, no trigonometric call) and one renormalisation, four nodes
//! at a time. A running blend rides the single-clip pass and the layered four-node pass, so a
//! blend adds only its own arithmetic to the pass the layers take anyway.

mod lanes;
mod state;

pub use lanes::OFFSET_STRIDE;
pub use state::Inertialization;

use glam::{Quat, Vec3, Vec4};

use crate::{R_OFF, S_OFF, T_OFF};

/// The quintic that takes `x₀` (moving at `v₀`) to zero at time `t₁`, evaluated at `t`
/// (Bollo 2018): `x(t) = A t⁵ + B t⁴ + C t³ + ½ a₀ t² + v₀ t + x₀` with `x(t₁) = x'(t₁) =
/// x''(t₁) = 0` and `a₀ = max(0, (−8 v₀ t₁ − 20 x₀) / t₁²)` in the direction of the decay.
///
/// When `v₀` points back towards zero, `t₁` is shortened to `−5 x₀ / v₀` so that the curve does
/// not cross zero (overshoot); it is `duration` otherwise. `t ≥ t₁` (or a non-positive
/// duration) gives exactly 0.
///
/// ```
/// use skel_anim::inertial::quintic_decay;
/// assert_eq!(quintic_decay(1.0, 0.0, 0.5, 0.0), 1.0); // starts at x₀
/// assert_eq!(quintic_decay(1.0, 0.0, 0.5, 0.5), 0.0); // zero at the blend time
/// let mid = quintic_decay(1.0, 0.0, 0.5, 0.25);
/// assert!(mid > 0.0 && mid < 1.0);
/// ```
#[must_use]
#[inline]
pub fn quintic_decay(x0: f32, v0: f32, duration: f32, t: f32) -> f32 {
    if duration.is_nan() || duration <= 0.0 || t >= duration {
        return 0.0;
    }
    let mut t1 = duration;
    if x0 * v0 < 0.0 {
        t1 = t1.min(-5.0 * x0 / v0);
    }
    if t >= t1 || t1.is_nan() || t1 <= 0.0 {
        return 0.0;
    }
    let [p0, p1, p2] = quintic_basis(t.max(0.0) / t1);
    let (c1, c2) = scaled_start(x0, v0, t1);
    x0 * p0 + c1 * p1 + c2 * p2
}

/// The quintic in normalised time `τ = t / t₁` is `x₀·p₀(τ) + (v₀·t₁)·p₁(τ) + (a₀·t₁²)·p₂(τ)`,
/// with the three Hermite polynomials that start at (1, 0, 0), (0, 1, 0), (0, 0, 1) in value,
/// slope and curvature and end flat at τ = 1: one set per frame serves every number whose
/// blend time is the blend's.
#[inline]
pub(crate) fn quintic_basis(tau: f32) -> [f32; 3] {
    let t2 = tau * tau;
    let t3 = t2 * tau;
    [
        1.0 + t3 * (-10.0 + tau * (15.0 - 6.0 * tau)),
        tau + t3 * (-6.0 + tau * (8.0 - 3.0 * tau)),
        0.5 * t2 + t3 * (-1.5 + tau * (1.5 - 0.5 * tau)),
    ]
}

/// `v₀·t₁` and `a₀·t₁²` of Bollo's quintic, `a₀ = (−8 v₀ t₁ − 20 x₀) / t₁²` kept on the
/// decay's side (never accelerating away from zero), as multiples of the basis.
#[inline]
fn scaled_start(x0: f32, v0: f32, t1: f32) -> (f32, f32) {
    let c1 = v0 * t1;
    let k = -8.0 * c1 - 20.0 * x0;
    let c2 = if x0 < 0.0 { k.min(0.0) } else { k.max(0.0) };
    (c1, c2)
}

/// The offset of pose record `a` over record `b` (`a ⊖ b`, nine numbers): `a`'s translation
/// and scale minus `b`'s, and the rotation vector of `q_a · conj(q_b)` the short way round.
#[must_use]
#[inline]
pub fn record_difference(a: &[f32], b: &[f32]) -> [f32; OFFSET_STRIDE] {
    let qa = Quat::from_slice(&a[R_OFF..R_OFF + 4]);
    let qb = Quat::from_slice(&b[R_OFF..R_OFF + 4]);
    let r = rotation_vector(qa * qb.conjugate());
    let t = Vec3::from_slice(&a[T_OFF..T_OFF + 3]) - Vec3::from_slice(&b[T_OFF..T_OFF + 3]);
    let s = Vec3::from_slice(&a[S_OFF..S_OFF + 3]) - Vec3::from_slice(&b[S_OFF..S_OFF + 3]);
    let out = [t.x, t.y, t.z, r.x, r.y, r.z, s.x, s.y, s.z];
    if out.iter().all(|x| x.is_finite()) {
        out
    } else {
        [0.0; OFFSET_STRIDE]
    }
}

/// Adds offset `x` to pose record `rec` (`rec ⊕ x`): translation and scale added, rotation
/// `exp(x_r) · q`, renormalised.
#[inline]
pub fn add_offset(rec: &mut [f32], x: &[f32; OFFSET_STRIDE]) {
    for i in 0..3 {
        rec[T_OFF + i] += x[i];
        rec[S_OFF + i] += x[6 + i];
    }
    rotate(rec, Vec3::new(x[3], x[4], x[5]));
}

/// `q ← exp(r) · q` on a record's rotation (renormalised: both are unit, so the product is
/// within rounding of unit length; a normalisation keeps repeated blends from drifting).
#[inline]
fn rotate(rec: &mut [f32], r: Vec3) {
    if r == Vec3::ZERO {
        return;
    }
    let mut q = [0.0; 4];
    q.copy_from_slice(&rec[R_OFF..R_OFF + 4]);
    let turned = lanes::rotate_lanes(
        skel_math::lanes::Quatx4::from_lanes([q; 4]),
        [Vec4::splat(r.x), Vec4::splat(r.y), Vec4::splat(r.z)],
        lanes::Separate,
    )
    .lane(0);
    if turned.iter().all(|c| c.is_finite()) {
        rec[R_OFF..R_OFF + 4].copy_from_slice(&turned);
    }
}

/// Axis × angle of unit quaternion `q`, taking the shorter way round (angle in `0..=π`).
#[must_use]
#[inline]
pub fn rotation_vector(q: Quat) -> Vec3 {
    let q = if q.w < 0.0 { -q } else { q };
    let v = Vec3::new(q.x, q.y, q.z);
    let s = v.length();
    if s < 1e-12 {
        // exp(v) ≈ 1 + v/2·…: the vector part is half the rotation vector.
        return 2.0 * v;
    }
    let angle = 2.0 * s.atan2(q.w);
    v * (angle / s)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::TRS_STRIDE;

    #[test]
    fn quintic_meets_its_ends() {
        for &(x0, v0) in &[(1.0_f32, 0.0_f32), (1.0, 3.0), (-2.0, 1.0), (0.5, -0.5)] {
            let d = 0.4;
            assert!((quintic_decay(x0, v0, d, 0.0) - x0).abs() < 1e-6);
            // Slope at 0 is v0 (finite difference).
            let h = 1e-3;
            let slope = (quintic_decay(x0, v0, d, h) - quintic_decay(x0, v0, d, 0.0)) / h;
            assert!(
                (slope - v0).abs() < 0.05 * (1.0 + v0.abs()),
                "{slope} vs {v0}"
            );
            assert_eq!(quintic_decay(x0, v0, d, d), 0.0);
            // f32 rounding of the polynomial near its triple zero.
            assert!(quintic_decay(x0, v0, d, d - 1e-4).abs() < 1e-4);
        }
    }

    /// Bollo's quintic as his slides write it, in f64: the coefficients A, B, C from x₀, v₀,
    /// a₀ and t₁.
    fn bollo_f64(x0: f64, v0: f64, duration: f64, t: f64) -> f64 {
        let (sign, x0, v0) = if x0 < 0.0 {
            (-1.0, -x0, -v0)
        } else {
            (1.0, x0, v0)
        };
        let mut t1 = duration;
        if v0 < 0.0 && x0 > 0.0 {
            t1 = t1.min(-5.0 * x0 / v0);
        }
        if t >= t1 {
            return 0.0;
        }
        let a0 = ((-8.0 * v0 * t1 - 20.0 * x0) / (t1 * t1)).max(0.0);
        let a = -(a0 * t1 * t1 + 6.0 * v0 * t1 + 12.0 * x0) / (2.0 * t1.powi(5));
        let b = (3.0 * a0 * t1 * t1 + 16.0 * v0 * t1 + 30.0 * x0) / (2.0 * t1.powi(4));
        let c = -(3.0 * a0 * t1 * t1 + 12.0 * v0 * t1 + 20.0 * x0) / (2.0 * t1.powi(3));
        sign * (a * t.powi(5) + b * t.powi(4) + c * t.powi(3) + 0.5 * a0 * t * t + v0 * t + x0)
    }

    proptest::proptest! {
        #[test]
        fn the_basis_form_is_bollos_quintic(
            x0 in -3.0_f32..3.0, v0 in -30.0_f32..30.0, d in 0.05_f32..1.0, u in 0.0_f32..1.2,
        ) {
            let t = u * d;
            let want = bollo_f64(f64::from(x0), f64::from(v0), f64::from(d), f64::from(t));
            let got = f64::from(quintic_decay(x0, v0, d, t));
            let scale = f64::from(x0.abs() + v0.abs() * d) + 1e-3;
            proptest::prop_assert!((got - want).abs() <= 1e-5 * scale, "{got} vs {want}");
        }
    }

    #[test]
    fn offset_round_trips() {
        let a = Quat::from_rotation_y(2.5);
        let b = Quat::from_rotation_x(-1.0);
        let mut ra = [0.0; TRS_STRIDE];
        let mut rb = [0.0; TRS_STRIDE];
        a.write_to_slice(&mut ra[R_OFF..R_OFF + 4]);
        b.write_to_slice(&mut rb[R_OFF..R_OFF + 4]);
        ra[T_OFF] = 3.0;
        let x = record_difference(&ra, &rb);
        add_offset(&mut rb, &x);
        let q = Quat::from_slice(&rb[R_OFF..R_OFF + 4]);
        assert!(q.dot(a).abs() > 1.0 - 1e-6);
        assert_eq!(rb[T_OFF], 3.0);
    }
}
