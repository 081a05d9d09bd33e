//! Godot's 2D blend rule: a Delaunay triangulation of the points, barycentric weights inside a
//! triangle, the closest point on the hull outside.
//!
//! The triangulation is built once, by brute force (blend spaces have a handful of points):
//! every triple whose circumcircle holds no other point is a Delaunay triangle. Cocircular
//! points (a square's corners) make several triangulations valid and every one of their triples
//! qualifies; the first triples (in index order) that do not overlap the ones already taken
//! are kept, which tiles the same area.

use glam::{DVec2, Vec2};

use crate::BlendSpaceError;

/// A triangulation of a 2D blend space's points and its hull edges.
#[derive(Debug, Clone, PartialEq)]
pub struct Triangulation {
    triangles: Vec<[u32; 3]>,
    /// Per triangle: twice its area (the scale of the inside test's tolerance).
    areas: Vec<f32>,
    hull: Vec<[u32; 2]>,
}

impl Triangulation {
    /// The Delaunay triangulation of `points` (distinct and finite, as
    /// [`BlendSpace2d::new`](crate::BlendSpace2d::new) checks).
    ///
    /// # Errors
    /// [`BlendSpaceError::Collinear`] when all points lie on one line.
    pub fn new(points: &[Vec2]) -> Result<Self, BlendSpaceError> {
        let p: Vec<DVec2> = points.iter().map(|v| v.as_dvec2()).collect();
        let n = p.len();
        let (lo, hi) = p.iter().fold(
            (DVec2::splat(f64::INFINITY), DVec2::splat(f64::NEG_INFINITY)),
            |(lo, hi), &v| (lo.min(v), hi.max(v)),
        );
        let scale = (hi - lo).max_element().max(f64::MIN_POSITIVE);
        // Tolerances relative to the layout's size: areas in scale², in-circle terms in scale⁴.
        let area_eps = 1e-9 * scale * scale;
        let circle_eps = 1e-9 * scale.powi(4);
        let mut taken: Vec<[usize; 3]> = Vec::new();
        for i in 0..n {
            for j in i + 1..n {
                for k in j + 1..n {
                    let orient = cross(p[j] - p[i], p[k] - p[i]);
                    if orient.abs() <= area_eps {
                        continue;
                    }
                    let tri = if orient > 0.0 { [i, j, k] } else { [i, k, j] };
                    let empty = (0..n).all(|m| {
                        m == i
                            || m == j
                            || m == k
                            || in_circle(p[tri[0]], p[tri[1]], p[tri[2]], p[m]) <= circle_eps
                    });
                    if empty && taken.iter().all(|t| !overlap(&p, t, &tri, area_eps)) {
                        taken.push(tri);
                    }
                }
            }
        }
        if taken.is_empty() {
            return Err(BlendSpaceError::Collinear);
        }
        let mut hull = Vec::new();
        for t in &taken {
            for e in 0..3 {
                let (a, b) = (t[e], t[(e + 1) % 3]);
                let shared = taken
                    .iter()
                    .filter(|u| (0..3).any(|f| u[f] == b && u[(f + 1) % 3] == a))
                    .count();
                if shared == 0 {
                    #[expect(clippy::cast_possible_truncation, reason = "at most MAX_POINTS")]
                    hull.push([a as u32, b as u32]);
                }
            }
        }
        #[expect(clippy::cast_possible_truncation, reason = "areas of f32 points")]
        let areas = taken
            .iter()
            .map(|t| cross(p[t[1]] - p[t[0]], p[t[2]] - p[t[0]]) as f32)
            .collect();
        #[expect(clippy::cast_possible_truncation, reason = "at most MAX_POINTS")]
        let triangles = taken
            .iter()
            .map(|t| [t[0] as u32, t[1] as u32, t[2] as u32])
            .collect();
        Ok(Self {
            triangles,
            areas,
            hull,
        })
    }

    /// The triangles, as point indices in counter-clockwise order.
    #[must_use]
    pub fn triangles(&self) -> &[[u32; 3]] {
        &self.triangles
    }

    /// The hull's edges (each in one triangle only), counter-clockwise.
    #[must_use]
    pub fn hull(&self) -> &[[u32; 2]] {
        &self.hull
    }

    /// Writes the weights of `points` (those this was built from) at `x` into `out`.
    pub(crate) fn weights(&self, points: &[Vec2], x: Vec2, out: &mut [f32]) {
        out.fill(0.0);
        for (t, &area) in self.triangles.iter().zip(&self.areas) {
            let [a, b, c] = t.map(|i| points[i as usize]);
            // Edge functions: twice the areas of the sub-triangles opposite each vertex. At a
            // vertex the other two are exactly 0, so the weights are exact there.
            let wa = (b - x).perp_dot(c - x);
            let wb = (c - x).perp_dot(a - x);
            let wc = (a - x).perp_dot(b - x);
            let slack = -1e-6 * area;
            if wa >= slack && wb >= slack && wc >= slack {
                // Clamp the rounding slack and renormalise, so the weights stay in 0..=1.
                let (wa, wb, wc) = (wa.max(0.0), wb.max(0.0), wc.max(0.0));
                let sum = wa + wb + wc;
                out[t[0] as usize] = wa / sum;
                out[t[1] as usize] = wb / sum;
                out[t[2] as usize] = wc / sum;
                return;
            }
        }
        // Outside the hull: the closest point on its edges.
        let mut best = (f32::INFINITY, 0, 0, 0.0);
        for &[a, b] in &self.hull {
            let (pa, pb) = (points[a as usize], points[b as usize]);
            let e = pb - pa;
            let c = ((x - pa).dot(e) / e.length_squared()).clamp(0.0, 1.0);
            let dist = (pa + e * c - x).length_squared();
            if dist < best.0 {
                best = (dist, a, b, c);
            }
        }
        let (_, a, b, c) = best;
        out[a as usize] += 1.0 - c;
        out[b as usize] += c;
    }
}

fn cross(a: DVec2, b: DVec2) -> f64 {
    a.x * b.y - a.y * b.x
}

/// Positive when `d` lies inside the circumcircle of the counter-clockwise triangle `abc`.
fn in_circle(a: DVec2, b: DVec2, c: DVec2, d: DVec2) -> f64 {
    let (ad, bd, cd) = (a - d, b - d, c - d);
    let (la, lb, lc) = (
        ad.length_squared(),
        bd.length_squared(),
        cd.length_squared(),
    );
    ad.x * (bd.y * lc - lb * cd.y) - ad.y * (bd.x * lc - lb * cd.x)
        + la * (bd.x * cd.y - bd.y * cd.x)
}

/// Whether the interiors of two counter-clockwise triangles overlap (no edge of either
/// separates them: the separating axis test, exact for convex shapes).
fn overlap(p: &[DVec2], s: &[usize; 3], t: &[usize; 3], eps: f64) -> bool {
    let separates = |tri: &[usize; 3], other: &[usize; 3]| {
        (0..3).any(|e| {
            let (a, b) = (p[tri[e]], p[tri[(e + 1) % 3]]);
            other.iter().all(|&o| cross(b - a, p[o] - a) <= eps)
        })
    };
    !(separates(s, t) || separates(t, s))
}
