//! Blend-space weights against f64 references of the rules in `docs/graph.md`: they sum to 1,
//! are exact at the points and continuous, over random layouts; degenerate layouts refused.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use glam::{DVec2, Vec2};
use proptest::prelude::*;
use skel_graph::{BlendSpace1d, BlendSpace2d, BlendSpaceError, Mode2d};

fn weights_2d(space: &BlendSpace2d, x: Vec2) -> Vec<f32> {
    let mut w = vec![f32::NAN; space.points().len()];
    space.weights(x, &mut w);
    w
}

/// Godot's 1D rule in f64.
fn ref_1d(points: &[f64], x: f64) -> Vec<f64> {
    let mut order: Vec<usize> = (0..points.len()).collect();
    order.sort_by(|&a, &b| points[a].total_cmp(&points[b]));
    let mut w = vec![0.0; points.len()];
    let (first, last) = (order[0], order[order.len() - 1]);
    if x <= points[first] {
        w[first] = 1.0;
    } else if x >= points[last] {
        w[last] = 1.0;
    } else {
        let k = order
            .windows(2)
            .position(|p| points[p[0]] <= x && x < points[p[1]])
            .unwrap();
        let (lo, hi) = (order[k], order[k + 1]);
        let w_hi = (x - points[lo]) / (points[hi] - points[lo]);
        w[hi] = w_hi;
        w[lo] = 1.0 - w_hi;
    }
    w
}

/// Gradient bands in f64: `h_i = max(0, min_j (1 − a·b/|b|²))` with `(a, b)` from `vectors`.
fn ref_bands(n: usize, vectors: impl Fn(usize, usize) -> (DVec2, DVec2)) -> Vec<f64> {
    let h: Vec<f64> = (0..n)
        .map(|i| {
            (0..n)
                .filter(|&j| j != i)
                .map(|j| {
                    let (a, b) = vectors(i, j);
                    1.0 - a.dot(b) / b.length_squared()
                })
                .fold(1.0_f64, f64::min)
                .max(0.0)
        })
        .collect();
    let total: f64 = h.iter().sum();
    h.iter().map(|v| v / total).collect()
}

fn ref_cartesian(p: &[DVec2], x: DVec2) -> Vec<f64> {
    ref_bands(p.len(), |i, j| (x - p[i], p[j] - p[i]))
}

fn angle(a: DVec2, b: DVec2) -> f64 {
    if a == DVec2::ZERO || b == DVec2::ZERO {
        0.0
    } else {
        (a.x * b.y - a.y * b.x).atan2(a.dot(b))
    }
}

/// Freeform directional with the zero-vector rules, in f64.
fn ref_directional(p: &[DVec2], x: DVec2) -> Vec<f64> {
    ref_bands(p.len(), |i, j| {
        let (pi, pj) = (p[i], p[j]);
        let m = (pi.length() + pj.length()) / 2.0;
        let (a_ij, a_ix) = if pi == DVec2::ZERO {
            (angle(pj, x), 0.0)
        } else if pj == DVec2::ZERO {
            (angle(pi, x), angle(pi, x))
        } else if x == DVec2::ZERO {
            (angle(pi, pj), angle(pi, pj))
        } else {
            (angle(pi, pj), angle(pi, x))
        };
        (
            DVec2::new((x.length() - pi.length()) / m, a_ix),
            DVec2::new((pj.length() - pi.length()) / m, a_ij),
        )
    })
}

fn assert_close(got: &[f32], want: &[f64], tol: f64, what: &str) {
    for (g, w) in got.iter().zip(want) {
        assert!(
            (f64::from(*g) - w).abs() <= tol,
            "{what}: got {got:?}, want {want:?}"
        );
    }
}

fn sum(w: &[f32]) -> f32 {
    w.iter().sum()
}

/// 3 to 8 points in [-2, 2]², at least 0.1 apart.
fn layout() -> impl Strategy<Value = Vec<Vec2>> {
    prop::collection::vec((-2.0_f32..2.0, -2.0_f32..2.0), 3..9)
        .prop_map(|v| {
            v.into_iter()
                .map(|(x, y)| Vec2::new(x, y))
                .collect::<Vec<_>>()
        })
        .prop_filter("points too close", |p| {
            p.iter()
                .enumerate()
                .all(|(i, a)| p[..i].iter().all(|b| a.distance(*b) > 0.1))
        })
}

fn d(v: &[Vec2]) -> Vec<DVec2> {
    v.iter().map(|p| p.as_dvec2()).collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn one_d_follows_godots_rule(
        points in prop::collection::vec(-5.0_f32..5.0, 1..8),
        x in -7.0_f32..7.0,
    ) {
        let space = match BlendSpace1d::new(&points) {
            Ok(s) => s,
            Err(BlendSpaceError::Duplicate { .. }) => return Ok(()),
            Err(e) => panic!("{e}"),
        };
        let mut w = vec![0.0; points.len()];
        space.weights(x, &mut w);
        let p64: Vec<f64> = points.iter().map(|&v| f64::from(v)).collect();
        assert_close(&w, &ref_1d(&p64, f64::from(x)), 1e-5, "1d");
        prop_assert!((sum(&w) - 1.0).abs() < 1e-6);
        for (i, &p) in points.iter().enumerate() {
            space.weights(p, &mut w);
            prop_assert_eq!(w[i], 1.0, "exact at point {}", i);
        }
        // Continuity: a small step moves the weights by at most step / smallest gap.
        let mut sorted = points.clone();
        sorted.sort_by(f32::total_cmp);
        let gap = sorted.windows(2).map(|p| p[1] - p[0]).fold(f32::INFINITY, f32::min);
        let mut w2 = vec![0.0; points.len()];
        space.weights(x, &mut w);
        space.weights(x + 1e-3, &mut w2);
        let jump = w.iter().zip(&w2).map(|(a, b)| (a - b).abs()).fold(0.0, f32::max);
        prop_assert!(jump <= 1e-3 / gap.min(1e6) + 1e-5, "jump {}", jump);
    }

    #[test]
    fn cartesian_matches_the_gradient_band_formula(p in layout(), x in (-3.0_f32..3.0, -3.0_f32..3.0)) {
        let space = BlendSpace2d::new(Mode2d::Cartesian, &p).unwrap();
        let x = Vec2::new(x.0, x.1);
        let w = weights_2d(&space, x);
        assert_close(&w, &ref_cartesian(&d(&p), x.as_dvec2()), 1e-4, "cartesian");
        prop_assert!((sum(&w) - 1.0).abs() < 1e-5);
        for (i, &pi) in p.iter().enumerate() {
            let w = weights_2d(&space, pi);
            prop_assert!((w[i] - 1.0).abs() < 1e-5, "exact at {}: {:?}", i, w);
        }
        let w2 = weights_2d(&space, x + Vec2::splat(1e-4));
        let jump = w.iter().zip(&w2).map(|(a, b)| (a - b).abs()).fold(0.0, f32::max);
        prop_assert!(jump < 1e-2, "jump {}", jump);
    }

    #[test]
    fn directional_matches_the_polar_gradient_band_formula(
        p in layout(),
        with_origin in any::<bool>(),
        x in (-3.0_f32..3.0, -3.0_f32..3.0),
    ) {
        let mut p = p;
        if with_origin && p.iter().all(|v| v.length() > 0.1) {
            p[0] = Vec2::ZERO;
        }
        let space = BlendSpace2d::new(Mode2d::Directional, &p).unwrap();
        let x = Vec2::new(x.0, x.1);
        let want = ref_directional(&d(&p), x.as_dvec2());
        let w = weights_2d(&space, x);
        prop_assert!((sum(&w) - 1.0).abs() < 1e-5);
        if want.iter().all(|v| v.is_finite()) {
            assert_close(&w, &want, 1e-3, "directional");
        }
        for (i, &pi) in p.iter().enumerate() {
            let w = weights_2d(&space, pi);
            prop_assert!((w[i] - 1.0).abs() < 1e-5, "exact at {}: {:?}", i, w);
        }
        // The origin itself, when it is a point or not (the zero-vector rules).
        let w0 = weights_2d(&space, Vec2::ZERO);
        prop_assert!((sum(&w0) - 1.0).abs() < 1e-5);
        let want0 = ref_directional(&d(&p), DVec2::ZERO);
        if want0.iter().all(|v| v.is_finite()) {
            assert_close(&w0, &want0, 1e-3, "directional at the origin");
        }
    }

    /// Continuity of the directional rule on the layouts it is meant for: idle at the origin
    /// and clips around it in every direction (no gap of more than half a turn), away from the
    /// origin itself (where the angle to x has no limit).
    #[test]
    fn directional_is_continuous_around_a_centre(
        ring in prop::collection::vec((0.5_f32..2.0, -0.3_f32..0.3), 4..8),
        x in (0.05_f32..3.0, -std::f32::consts::PI..std::f32::consts::PI),
        step in (-1e-4_f32..1e-4, -1e-4_f32..1e-4),
    ) {
        let k = ring.len() as f32;
        let mut p = vec![Vec2::ZERO];
        p.extend(ring.iter().enumerate().map(|(i, &(r, jitter))| {
            let a = std::f32::consts::TAU * i as f32 / k + jitter;
            Vec2::new(a.cos(), a.sin()) * r
        }));
        let space = BlendSpace2d::new(Mode2d::Directional, &p).unwrap();
        let x = Vec2::new(x.1.cos(), x.1.sin()) * x.0;
        let w = weights_2d(&space, x);
        let w2 = weights_2d(&space, x + Vec2::new(step.0, step.1));
        let jump = w.iter().zip(&w2).map(|(a, b)| (a - b).abs()).fold(0.0, f32::max);
        prop_assert!(jump < 1e-2, "jump {} at {} for {:?}", jump, x, p);
    }

    #[test]
    fn triangles_are_delaunay_barycentric_inside_and_closest_edge_outside(
        p in layout(),
        x in (-3.0_f32..3.0, -3.0_f32..3.0),
    ) {
        let space = match BlendSpace2d::new(Mode2d::Triangles, &p) {
            Ok(s) => s,
            Err(BlendSpaceError::Collinear) => return Ok(()),
            Err(e) => panic!("{e}"),
        };
        let pd = d(&p);
        let tri = space.triangulation().unwrap();
        // Delaunay: no point strictly inside a triangle's circumcircle; the triangles tile
        // the convex hull.
        let mut area = 0.0;
        for t in tri.triangles() {
            let [a, b, c] = t.map(|i| pd[i as usize]);
            let cross = (b - a).perp_dot(c - a);
            prop_assert!(cross > 0.0, "counter-clockwise");
            area += cross / 2.0;
            let centre = circumcentre(a, b, c);
            let r = centre.distance(a);
            for (m, q) in pd.iter().enumerate() {
                if !t.contains(&(m as u32)) {
                    prop_assert!(centre.distance(*q) >= r * (1.0 - 1e-6), "point {} in a circumcircle", m);
                }
            }
        }
        let hull = convex_hull(&pd);
        prop_assert!((area - polygon_area(&hull)).abs() < 1e-6 * (1.0 + area), "tiles the hull");

        let x = Vec2::new(x.0, x.1);
        let w = weights_2d(&space, x);
        prop_assert!((sum(&w) - 1.0).abs() < 1e-5);
        prop_assert!(w.iter().all(|&v| (-1e-6..=1.0 + 1e-6).contains(&v)));
        let xd = x.as_dvec2();
        let rebuilt: DVec2 = w.iter().zip(&pd).map(|(&wi, &pi)| pi * f64::from(wi)).sum();
        if inside(&hull, xd) {
            // Barycentric: the weights rebuild x, on the points of one triangle.
            prop_assert!(rebuilt.distance(xd) < 1e-4, "rebuilt {rebuilt} for {xd}");
            let used: Vec<u32> = (0..p.len() as u32).filter(|&i| w[i as usize] > 1e-6).collect();
            prop_assert!(tri.triangles().iter().any(|t| used.iter().all(|u| t.contains(u))));
        } else {
            // Outside: the closest point of the hull, as (1 − c, c) on one edge. Where two
            // edges are nearly as close (x far out beside a vertex), f32 may pick either: the
            // point must lie on the hull and be as close as the closest, not be the same point.
            let (closest, dist) = closest_on_polygon(&hull, xd);
            let (_, off_hull) = closest_on_polygon(&hull, rebuilt);
            prop_assert!(off_hull < 1e-5, "rebuilt {rebuilt} is {off_hull} off the hull");
            prop_assert!(
                rebuilt.distance(xd) - dist < 1e-5 * (1.0 + dist),
                "rebuilt {rebuilt} is {} from x, closest {closest} {dist}",
                rebuilt.distance(xd)
            );
            prop_assert!(w.iter().filter(|&&v| v > 1e-6).count() <= 2);
        }
        for (i, &pi) in p.iter().enumerate() {
            let w = weights_2d(&space, pi);
            prop_assert!((w[i] - 1.0).abs() < 1e-5, "exact at {}: {:?}", i, w);
        }
        let w2 = weights_2d(&space, x + Vec2::splat(1e-4));
        let jump = w.iter().zip(&w2).map(|(a, b)| (a - b).abs()).fold(0.0, f32::max);
        prop_assert!(jump < 2e-2, "jump {}", jump);
    }
}

fn circumcentre(a: DVec2, b: DVec2, c: DVec2) -> DVec2 {
    let d = 2.0 * (a.x * (b.y - c.y) + b.x * (c.y - a.y) + c.x * (a.y - b.y));
    let (a2, b2, c2) = (a.length_squared(), b.length_squared(), c.length_squared());
    DVec2::new(
        (a2 * (b.y - c.y) + b2 * (c.y - a.y) + c2 * (a.y - b.y)) / d,
        (a2 * (c.x - b.x) + b2 * (a.x - c.x) + c2 * (b.x - a.x)) / d,
    )
}

/// Andrew's monotone chain, counter-clockwise.
fn convex_hull(p: &[DVec2]) -> Vec<DVec2> {
    let mut pts = p.to_vec();
    pts.sort_by(|a, b| a.x.total_cmp(&b.x).then(a.y.total_cmp(&b.y)));
    let mut hull: Vec<DVec2> = Vec::new();
    for pass in 0..2 {
        let start = hull.len();
        let iter: Box<dyn Iterator<Item = &DVec2>> = if pass == 0 {
            Box::new(pts.iter())
        } else {
            Box::new(pts.iter().rev())
        };
        for &q in iter {
            while hull.len() >= start + 2 {
                let (a, b) = (hull[hull.len() - 2], hull[hull.len() - 1]);
                if (b - a).perp_dot(q - a) <= 0.0 {
                    hull.pop();
                } else {
                    break;
                }
            }
            hull.push(q);
        }
        hull.pop();
    }
    hull
}

fn polygon_area(poly: &[DVec2]) -> f64 {
    (0..poly.len())
        .map(|i| poly[i].perp_dot(poly[(i + 1) % poly.len()]))
        .sum::<f64>()
        / 2.0
}

fn inside(poly: &[DVec2], x: DVec2) -> bool {
    (0..poly.len()).all(|i| (poly[(i + 1) % poly.len()] - poly[i]).perp_dot(x - poly[i]) >= -1e-9)
}

fn closest_on_polygon(poly: &[DVec2], x: DVec2) -> (DVec2, f64) {
    (0..poly.len())
        .map(|i| {
            let (a, b) = (poly[i], poly[(i + 1) % poly.len()]);
            let c = ((x - a).dot(b - a) / (b - a).length_squared()).clamp(0.0, 1.0);
            let q = a + (b - a) * c;
            (q, q.distance(x))
        })
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .unwrap()
}

#[test]
fn a_square_with_a_centre_is_four_triangles() {
    let p = [
        Vec2::ZERO,
        Vec2::new(1.0, 1.0),
        Vec2::new(-1.0, 1.0),
        Vec2::new(-1.0, -1.0),
        Vec2::new(1.0, -1.0),
    ];
    let space = BlendSpace2d::new(Mode2d::Triangles, &p).unwrap();
    assert_eq!(space.triangulation().unwrap().triangles().len(), 4);
    // A bare square's corners are cocircular: two triangles, not four overlapping ones.
    let space = BlendSpace2d::new(Mode2d::Triangles, &p[1..]).unwrap();
    assert_eq!(space.triangulation().unwrap().triangles().len(), 2);
    let w = weights_2d(&space, Vec2::new(0.0, 3.0));
    assert_eq!(w, [0.5, 0.5, 0.0, 0.0], "above the top edge: its midpoint");
}

#[test]
fn degenerate_layouts_are_refused() {
    let v = |x: f32, y: f32| Vec2::new(x, y);
    let err = |mode, p: &[Vec2]| BlendSpace2d::new(mode, p).unwrap_err();
    assert_eq!(
        err(Mode2d::Triangles, &[v(0.0, 0.0), v(1.0, 0.0)]),
        BlendSpaceError::TooFewPoints { got: 2, need: 3 }
    );
    assert_eq!(
        err(
            Mode2d::Triangles,
            &[v(0.0, 0.0), v(1.0, 1.0), v(2.0, 2.0), v(-3.0, -3.0)]
        ),
        BlendSpaceError::Collinear
    );
    for mode in [Mode2d::Triangles, Mode2d::Cartesian, Mode2d::Directional] {
        assert_eq!(
            err(mode, &[v(0.0, 0.0), v(1.0, 0.0), v(0.0, 1.0), v(1.0, 0.0)]),
            BlendSpaceError::Duplicate {
                first: 1,
                second: 3
            }
        );
        assert_eq!(
            err(mode, &[v(0.0, 0.0), v(f32::NAN, 0.0), v(0.0, 1.0)]),
            BlendSpaceError::NotFinite { point: 1 }
        );
        assert_eq!(
            err(mode, &[]),
            BlendSpaceError::TooFewPoints {
                got: 0,
                need: if mode == Mode2d::Triangles { 3 } else { 1 }
            }
        );
        let many: Vec<Vec2> = (0..65).map(|i| v(i as f32, (i * i) as f32)).collect();
        assert!(matches!(
            err(mode, &many),
            BlendSpaceError::TooManyPoints { got: 65, .. }
        ));
    }
    assert_eq!(
        BlendSpace1d::new(&[0.0, 1.0, 0.0]).unwrap_err(),
        BlendSpaceError::Duplicate {
            first: 0,
            second: 2
        }
    );
    assert_eq!(
        BlendSpace1d::new(&[0.0, f32::INFINITY]).unwrap_err(),
        BlendSpaceError::NotFinite { point: 1 }
    );
    assert_eq!(
        BlendSpace1d::new(&[]).unwrap_err(),
        BlendSpaceError::TooFewPoints { got: 0, need: 1 }
    );
}

#[test]
fn directional_blends_by_angle_and_speed() {
    // Unity's usual layout: idle at the centre, walks in four directions.
    let p = [
        Vec2::ZERO,
        Vec2::new(0.0, 1.0),
        Vec2::new(1.0, 0.0),
        Vec2::new(0.0, -1.0),
        Vec2::new(-1.0, 0.0),
    ];
    let space = BlendSpace2d::new(Mode2d::Directional, &p).unwrap();
    let w = weights_2d(&space, Vec2::new(0.0, 0.5));
    assert!(
        (w[0] - 0.5).abs() < 1e-5 && (w[1] - 0.5).abs() < 1e-5,
        "half way to forward: {w:?}"
    );
    let w = weights_2d(&space, Vec2::new(1.0, 1.0).normalize());
    assert!(
        w[1] > 0.3 && w[2] > 0.3 && (w[1] - w[2]).abs() < 1e-5,
        "diagonal shares forward and right: {w:?}"
    );
}
