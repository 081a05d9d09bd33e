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
    directional_with(points, None, x, out);
}

/// What the directional rule needs of the points alone, computed once per blend space: each
/// point's length and the signed angle between every two non-zero points (`n × n`).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Polar {
    lengths: Vec<f32>,
    angles: Vec<f32>,
}

impl Polar {
    pub(crate) fn new(points: &[Vec2]) -> Self {
        let n = points.len();
        let lengths: Vec<f32> = points.iter().map(|p| p.length()).collect();
        let mut angles = vec![0.0; n * n];
        for i in 0..n {
            for j in 0..n {
                angles[i * n + j] = signed_angle(points[i], points[j], lengths[j]);
            }
        }
        Self { lengths, angles }
    }
}

/// [`directional_weights`], with the points' lengths and pair angles from `polar` when given
/// (the same numbers, computed once).
pub(crate) fn directional_with(points: &[Vec2], polar: Option<&Polar>, x: Vec2, out: &mut [f32]) {
    const ALPHA: f32 = 1.0;
    let n = points.len().min(crate::MAX_POINTS);
    let x_len = x.length();
    // Per point: its length and the angle from it to x (once, not once per pair).
    let mut len = [0.0_f32; crate::MAX_POINTS];
    let mut to_x = [0.0_f32; crate::MAX_POINTS];
    for i in 0..n {
        len[i] = polar.map_or_else(|| points[i].length(), |p| p.lengths[i]);
        to_x[i] = signed_angle(points[i], x, x_len);
    }
    bands(&points[..n], x, out, |i, j| {
        let (li, lj) = (len[i], len[j]);
        let m = (li + lj) * 0.5;
        let (angle_ij, angle_ix) = if li == 0.0 {
            (to_x[j], 0.0)
        } else if lj == 0.0 {
            (to_x[i], to_x[i])
        } else {
            let a = polar.map_or_else(
                || signed_angle(points[i], points[j], lj),
                |p| p.angles[i * n + j],
            );
            (a, if x_len == 0.0 { a } else { to_x[i] })
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
