//! Gradient band interpolation (Johansen 2009, "Automated Semi-Procedural Animation for
//! Character Locomotion", §6.3), in the plane (Unity's Freeform Cartesian) and over polar
//! differences (Unity's Freeform Directional, with cocos-engine's reading of the zero-vector
//! cases).

use glam::Vec2;

/// Weights of the Cartesian gradient bands: for each point `pᵢ`,
/// `hᵢ = max(0, min_{j≠i} (1 − (x − pᵢ)·(pⱼ − pᵢ) / |pⱼ − pᵢ|²))` (1 for a single point), and
/// `wᵢ = hᵢ / Σₖ hₖ`. The nearest point always has `hᵢ ≥ ½`, so the sum is never 0. Points must
/// be distinct (as [`BlendSpace2d::new`](crate::BlendSpace2d::new) checks). Writes
/// `out[..points.len()]`; allocates nothing.
pub fn cartesian_weights(points: &[Vec2], x: Vec2, out: &mut [f32]) {
    bands(points, x, out, |i, j| {
        let (pi, pj) = (points[i], points[j]);
        let d = pj - pi;
        (x - pi).dot(d) / d.length_squared()
    });
}

/// Weights of the directional gradient bands: as [`cartesian_weights`] with the vectors
/// `vᵢⱼ = ((|pⱼ| − |pᵢ|)/mᵢⱼ, α·∠(pᵢ, pⱼ))` and `vᵢₓ = ((|x| − |pᵢ|)/mᵢⱼ, α·∠(pᵢ, x))`, where
/// `mᵢⱼ = (|pᵢ| + |pⱼ|)/2`, `∠` is the signed angle in radians and α = 1. Zero vectors have no
/// direction: when `pᵢ` is the origin, `∠(pᵢ, pⱼ)` is taken as `∠(pⱼ, x)` and `∠(pᵢ, x)` as 0;
/// when `pⱼ` is the origin, `∠(pᵢ, pⱼ)` is taken as `∠(pᵢ, x)`; when `x` is the origin,
/// `∠(pᵢ, x)` is taken as `∠(pᵢ, pⱼ)`. When every band is 0 (a layout without a point in some
/// direction), the nearest point takes weight 1. Writes `out[..points.len()]`; allocates
/// nothing.
pub fn directional_weights(points: &[Vec2], x: Vec2, out: &mut [f32]) {
    const ALPHA: f32 = 1.0;
    let x_len = x.length();
    bands(points, x, out, |i, j| {
        let (pi, pj) = (points[i], points[j]);
        let (li, lj) = (pi.length(), pj.length());
        let m = (li + lj) * 0.5;
        let (angle_ij, angle_ix) = if li == 0.0 {
            (signed_angle(pj, x, x_len), 0.0)
        } else if lj == 0.0 {
            let a = signed_angle(pi, x, x_len);
            (a, a)
        } else {
            let a = signed_angle(pi, pj, lj);
            let b = if x_len == 0.0 {
                a
            } else {
                signed_angle(pi, x, x_len)
            };
            (a, b)
        };
        let vij = Vec2::new((lj - li) / m, ALPHA * angle_ij);
        let vix = Vec2::new((x_len - li) / m, ALPHA * angle_ix);
        vix.dot(vij) / vij.length_squared()
    });
}

/// The signed angle from `a` to `b` (`b_len` = |b|; 0 when `b` is the origin).
fn signed_angle(a: Vec2, b: Vec2, b_len: f32) -> f32 {
    if b_len == 0.0 {
        0.0
    } else {
        a.perp_dot(b).atan2(a.dot(b))
    }
}

/// `hᵢ = max(0, min_{j≠i} (1 − ratio(i, j)))`, normalised; the nearest point alone when they
/// are all 0.
fn bands(points: &[Vec2], x: Vec2, out: &mut [f32], ratio: impl Fn(usize, usize) -> f32) {
    let n = points.len();
    let out = &mut out[..n];
    let mut total = 0.0;
    for (i, slot) in out.iter_mut().enumerate() {
        let mut h = 1.0_f32;
        for j in 0..n {
            if j != i {
                h = h.min(1.0 - ratio(i, j));
            }
        }
        let h = if h > 0.0 { h } else { 0.0 };
        *slot = h;
        total += h;
    }
    if total > 0.0 && total.is_finite() {
        for w in out.iter_mut() {
            *w /= total;
        }
    } else {
        out.fill(0.0);
        // Only reachable for the directional rule.
        if let Some(nearest) = (0..n).min_by(|&a, &b| {
            let key = |k: usize| (points[k] - x).length_squared();
            key(a).total_cmp(&key(b))
        }) {
            out[nearest] = 1.0;
        }
    }
}
