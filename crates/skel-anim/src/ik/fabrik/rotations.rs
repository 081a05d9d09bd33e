//! From FABRIK's positions to corrections, for joint frames that are similarities (see
//! `similar.rs`): the frames as the conversion reads them, the conversion itself, and the
//! tip a set of corrections gives.
//!
//! # From positions to corrections
//!
//! The corrections follow root first as model-space rotations `D` (`D₋₁ = 1`): joint `i`
//! turns its bone, as its parents' turns left it (`Dᵢ₋₁ · u⁰ᵢ`, `u⁰` the bone as given), onto
//! `p[i + 1] − p[i]` by the shortest arc `Fᵢ` taken in the frame as given, so
//! `Dᵢ = Dᵢ₋₁ · Fᵢ`. A joint whose frame's rotation part is `R` (its matrix is `±s · R`) then
//! takes the local correction `R⁻¹ · Fᵢ · R`: `Fᵢ` with its axis carried into the joint's
//! local frame by `Rᵀ`. No inverse, no trigonometry: one quaternion turn, one arc, one product
//! per joint.
//!
//! The arc from a unit `a` to `v` is `(a × v, |v| + a · v)` over its norm. The norm is taken
//! as it is, not as the `2 |v| (|v| + a · v)` it equals for exact unit quaternions: `D`'s
//! rounding would enter every later arc's norm and grow.

use glam::{Affine3A, DQuat, DVec4, Quat, Vec3A, Vec4};

use super::scale::{inverse_sqrt, rsqrt_estimate};
use crate::ik::links::MAX_CHAIN_JOINTS;

/// How far a joint frame may be from a similarity for this path: each product of two
/// columns and each difference of two columns' squared lengths, relative to a column's
/// squared length (f32 hierarchies stay near 1e-6). Farther frames take the f64 chain.
const SIMILAR: f32 = 1e-5;

/// The joint frames as given, each with the factor that makes its matrix a rotation.
pub(super) struct Frames<'a> {
    pub(super) models: &'a [Affine3A],
    /// `±1 / s` for a matrix `s · R` (or `−s · R`): `R = scale · M`.
    pub(super) scale: [f32; MAX_CHAIN_JOINTS],
}

impl Frames<'_> {
    /// `Rᵀ v` for joint `i`'s rotation `R`: a model-frame axis carried into its local frame.
    #[inline]
    pub(super) fn to_local(&self, i: usize, v: Vec3A) -> Vec3A {
        let m = &self.models[i].matrix3;
        Vec3A::new(m.x_axis.dot(v), m.y_axis.dot(v), m.z_axis.dot(v)) * self.scale[i]
    }

    /// `R v`: a local axis carried back into the model frame.
    #[inline]
    pub(super) fn to_model(&self, i: usize, v: Vec3A) -> Vec3A {
        (self.models[i].matrix3 * v) * self.scale[i]
    }
}

/// The factor `±1 / s` that makes `m`'s linear part a proper rotation, or `None` when `m` is
/// not a finite similarity.
#[inline]
pub(super) fn rotation_scale(m: &Affine3A) -> Option<f32> {
    let (a, b, c) = (m.matrix3.x_axis, m.matrix3.y_axis, m.matrix3.z_axis);
    let s2 = a.length_squared();
    let tol = SIMILAR * s2;
    // Every test taken (`&`, not `&&`): cheaper than a branch each.
    let similar = s2.is_normal()
        & s2.is_finite()
        & ((b.length_squared() - s2).abs() <= tol)
        & ((c.length_squared() - s2).abs() <= tol)
        & (a.dot(b).abs() <= tol)
        & (a.dot(c).abs() <= tol)
        & (b.dot(c).abs() <= tol)
        & m.translation.is_finite();
    if !similar {
        return None;
    }
    let sign = if a.dot(b.cross(c)) < 0.0 { -1.0 } else { 1.0 };
    Some(sign * inverse_sqrt(s2))
}

/// Corrections that put each bone on the positions' (see the module), the tip's identity;
/// returns where they put the tip (the root plus each bone's length along its position's
/// direction).
///
/// `D` is kept unnormalised, its squared norm `k` tracked beside it: each product `D F` is
/// scaled by the 12-bit estimate of the arc's reciprocal norm (which keeps `k` near 1, and is
/// worked out beside the product, not before it) rather than normalised (a square root and a
/// Newton step in the chain), the vectors turned by `D` carry the factor `k`, and the arcs,
/// which only need directions, take them as they come.
#[inline]
pub(super) fn to_corrections(
    p: &[Vec3A],
    bone: &[Vec3A; MAX_CHAIN_JOINTS],
    length: &[f32; MAX_CHAIN_JOINTS],
    frames: &Frames<'_>,
    out: &mut [Quat],
) -> Vec3A {
    let n = p.len();
    let mut d = Quat::IDENTITY;
    let mut k = 1.0_f32;
    let mut tip = p[0];
    for i in 0..n - 1 {
        let w = p[i + 1] - p[i];
        let a = bone[i];
        // k D⁻¹ w, and its length.
        let v = unturn(d, k, w);
        let w_len = w.length();
        let len = w_len * k;
        let h = len + a.dot(v);
        let f = if h > 0.25 * len {
            Vec4::from((a.cross(v), h))
        } else {
            Vec4::from(wide_arc(a, v))
        };
        let f2 = f.length_squared();
        let r = rsqrt_estimate(f2);
        d = Quat::from_vec4(Vec4::from(d * Quat::from_vec4(f)) * r);
        k *= f2 * r * r;
        // The corrections lay each bone along `w` (to f32's rounding of `D` and the arcs):
        // the tip they give, without turning each bone by `D`.
        tip += if w_len > 0.0 {
            w * (length[i] / w_len)
        } else {
            sandwich(d, a * length[i]) / k
        };
        let unit = f * inverse_sqrt(f2);
        let axis = frames.to_local(i, unit.truncate().into());
        out[i] = Quat::from_vec4(Vec4::from((axis, unit.w))).normalize();
    }
    out[n - 1] = Quat::IDENTITY;
    tip
}

/// `k q* v q` for `q = (u, s)` of squared norm `k`: `v` turned back by `q`'s rotation and
/// scaled by `k`, with `s² − u · u` taken as `2 s² − k` (one multiply-add where a dot
/// product would stand in the conversion's chain; `k` is tracked to within `D`'s rounding).
#[inline]
fn unturn(q: Quat, k: f32, v: Vec3A) -> Vec3A {
    let u = Vec3A::from(q.xyz());
    let s = q.w;
    v * (2.0 * s * s - k) + u * (2.0 * u.dot(v)) - u.cross(v) * (2.0 * s)
}

/// `q v q*` for any quaternion `q = (u, s)`: `v` turned by `q`'s rotation and scaled by
/// `|q|²` (glam's product assumes a unit `q`).
#[inline]
pub(super) fn sandwich(q: Quat, v: Vec3A) -> Vec3A {
    let u = Vec3A::from(q.xyz());
    let s = q.w;
    v * (s * s - u.length_squared()) + u * (2.0 * u.dot(v)) + u.cross(v) * (2.0 * s)
}

/// The shortest arc from the unit `a` to `v` for turns past about 140°, in f64: near a half
/// turn the arc's axis `a × v` is a small difference of large products, which f32 leaves
/// wrong by 1e-7 over the sine of the turn (measured: 1e-5 of the chain at 179°); in f64
/// the arc maps `a` onto `v` as given. A half turn exactly, or no `v`, turns about any axis
/// across `a` (or not at all).
#[cold]
fn wide_arc(a: Vec3A, v: Vec3A) -> Quat {
    let (a, v) = (a.as_dvec3(), v.as_dvec3());
    let len = v.length();
    let h = len + a.dot(v);
    if len == 0.0 {
        return Quat::IDENTITY;
    }
    let q = if h > 1e-12 * len {
        DQuat::from_vec4(DVec4::from((a.cross(v), h))).normalize()
    } else {
        DQuat::from_vec4(DVec4::from((a.any_orthonormal_vector(), 0.0)))
    };
    q.as_quat()
}

/// The tip's position when `corrections` are applied: `D` rebuilt from them (each
/// correction's axis carried back to the frame as given) and the bones turned by it.
pub(super) fn tip_under(
    corrections: &[Quat],
    root: Vec3A,
    bone: &[Vec3A; MAX_CHAIN_JOINTS],
    length: &[f32; MAX_CHAIN_JOINTS],
    frames: &Frames<'_>,
) -> Vec3A {
    let mut d = Quat::IDENTITY;
    let mut tip = root;
    for (i, c) in corrections[..corrections.len() - 1].iter().enumerate() {
        let axis = frames.to_model(i, Vec3A::from(c.xyz()));
        d *= Quat::from_vec4(Vec4::from((axis, c.w)));
        tip += d * (bone[i] * length[i]);
    }
    tip
}
