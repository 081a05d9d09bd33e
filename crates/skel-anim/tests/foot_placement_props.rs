//! Foot placement against an f64 reference: random planes (tilted 0–30° any way, at any
//! height within the rays' reach), random leg poses and character placements, one frame from
//! a fresh state. The pose stays finite, every bone keeps its length (1e-5 relative), each
//! foot's target and the pelvis drop are the ones the rules give (recomputed in f64 from the
//! f32 records), the ankle lands on its target whenever the target is within reach, the sole
//! is turned onto the plane and is not under it. The grounds' ray casts are checked against
//! brute force in f64.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

mod foot_placement_biped;

use foot_placement_biped::*;
use proptest::prelude::*;
use skel_anim::glam::{Affine3A, DAffine3, DQuat, DVec3, Quat, Vec3};
use skel_anim::{
    AnimationData, FootPlacement, FootPlacementState, GroundPlane, GroundQuery, PoseScratch, R_OFF,
    S_OFF, T_OFF, TRS_STRIDE, TriangleGround,
};

/// Node `node`'s model matrix in f64 from the f32 records, `root` in front.
fn model(data: &AnimationData, trs: &[f32], node: usize, root: &Affine3A) -> DAffine3 {
    let rec = &trs[node * TRS_STRIDE..(node + 1) * TRS_STRIDE];
    let local = DAffine3::from_scale_rotation_translation(
        Vec3::from_slice(&rec[S_OFF..]).as_dvec3(),
        Quat::from_slice(&rec[R_OFF..]).as_dquat().normalize(),
        Vec3::from_slice(&rec[T_OFF..]).as_dvec3(),
    );
    match data.nodes[node].parent {
        Some(p) => model(data, trs, p, root) * local,
        None => root.as_daffine3() * local,
    }
}

fn at(data: &AnimationData, trs: &[f32], node: usize, root: &Affine3A) -> DVec3 {
    model(data, trs, node, root).translation
}

/// The plane's height (y) over `(x, z)`.
fn plane_y(plane: &GroundPlane, x: f64, z: f64) -> f64 {
    let n = plane.normal().as_dvec3();
    -(n.x * x + n.z * z + f64::from(plane.offset())) / n.y
}

/// The least drop `d ≥ 0` with `|v − d·up| ≤ reach` (0 when none helps), in f64.
fn drop_to_reach(v: DVec3, reach: f64) -> f64 {
    if v.length() <= reach || v.y <= 0.0 {
        return 0.0;
    }
    let disc = v.y * v.y - (v.length_squared() - reach * reach);
    if disc < 0.0 { v.y } else { v.y - disc.sqrt() }
}

prop_compose! {
    fn euler(x: f64, y: f64, z: f64)(a in -x..=x, b in -y..=y, c in -z..=z) -> Quat {
        DQuat::from_euler(skel_anim::glam::EulerRot::XYZ, a, b, c).as_quat()
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 384, ..ProptestConfig::default() })]

    #[test]
    fn one_frame_follows_the_rules(
        tilt in 0.0..30.0_f64, azimuth in 0.0..std::f64::consts::TAU, height in -0.25..0.25_f64,
        pelvis_y in 0.75..0.97_f64, pelvis_r in euler(0.15, 0.3, 0.15),
        hips in prop::array::uniform2(euler(0.8, 0.3, 0.3)),
        knees in prop::array::uniform2(0.0..1.6_f64),
        ankles in prop::array::uniform2(euler(0.6, 0.2, 0.2)),
        turn in 0.0..std::f64::consts::TAU, place in prop::array::uniform3(-1.0..1.0_f64),
    ) {
        let data = biped();
        let placement = FootPlacement::new(&data, &desc()).unwrap();
        let mut state = FootPlacementState::new(&placement);
        let mut trs = PoseScratch::new(&data).unwrap().trs;
        let set_r = |trs: &mut [f32], node: usize, q: Quat| {
            q.write_to_slice(&mut trs[node * TRS_STRIDE + R_OFF..node * TRS_STRIDE + R_OFF + 4]);
        };
        trs[PELVIS * TRS_STRIDE + T_OFF + 1] = pelvis_y as f32;
        set_r(&mut trs, PELVIS, pelvis_r);
        for leg in 0..2 {
            set_r(&mut trs, HIP[leg], hips[leg]);
            set_r(&mut trs, KNEE[leg], DQuat::from_rotation_x(knees[leg]).as_quat());
            set_r(&mut trs, ANKLE[leg], ankles[leg]);
        }
        let (t, a) = (tilt.to_radians(), azimuth);
        let normal = DVec3::new(t.sin() * a.cos(), t.cos(), t.sin() * a.sin());
        let plane = GroundPlane::through(Vec3::new(0.0, height as f32, 0.0), normal.as_vec3()).unwrap();
        let root = Affine3A::from_rotation_translation(
            Quat::from_rotation_y(turn as f32),
            (DVec3::from_array(place) * DVec3::new(1.0, 0.1, 1.0)).as_vec3(),
        );
        let before = trs.clone();
        let report = placement
            .solve(&mut state, &data, &mut trs, &root, &plane, 1.0 / 60.0)
            .unwrap();
        prop_assert!(trs.iter().all(|v| v.is_finite()));

        // The rules in f64 (a fresh state: no easing, nothing planted yet).
        let origin = root.translation.as_dvec3();
        // (Renormalised in f64: an f32 unit normal can be 1 + 3e-8 long, which glam's arc
        // takes for no turn at all.)
        let n = plane.normal().as_dvec3().normalize();
        let align = DQuat::from_rotation_arc(DVec3::Y, n);
        let (ah, th) = (ANKLE_HEIGHT, TOE_HEIGHT);
        let mut need = 0.0_f64;
        let mut targets = [DVec3::ZERO; 2];
        for leg in 0..2 {
            let clip = |node| at(&data, &before, node, &root);
            let (hip, knee, ankle, toe) = (clip(HIP[leg]), clip(KNEE[leg]), clip(ANKLE[leg]), clip(TOE[leg]));
            let ground = plane_y(&plane, ankle.x, ankle.z) - origin.y;
            let toe_ground = plane_y(&plane, toe.x, toe.z) - origin.y;
            // Grounds outside the rays (0.5 above, 0.5 below the clip's) are not this test's.
            prop_assume!(ground.abs() < 0.49 && toe_ground.abs() < 0.49);
            let lift = ankle.y - origin.y - ah;
            let sole = (n - DVec3::Y) * ah;
            let toe_moved = ankle + sole + align * (toe - ankle);
            // The toes `th` from the plane along its normal: th / cos(tilt) above it.
            let floor = (ground - lift).max(toe_ground + th / n.y - (toe_moved.y - origin.y));
            let target = ankle + DVec3::Y * ground.max(floor) + sole;
            let status = state.feet()[leg];
            prop_assert!((status.target.as_dvec3() - target).length() < 2e-5,
                "leg {leg}: target {} against {target}", status.target);
            targets[leg] = target;
            let length = (knee - hip).length() + (ankle - knee).length();
            need = need.max(drop_to_reach(hip - target, (0.98 * length).max((ankle - hip).length())));
        }
        let drop = need.clamp(0.0, 0.5);
        prop_assert!((f64::from(report.pelvis_drop) - drop).abs() < 2e-5,
            "drop {} against {drop}", report.pelvis_drop);

        for leg in 0..2 {
            let (old, new) = (|n| at(&data, &before, n, &root), |n| at(&data, &trs, n, &root));
            for (a, b) in [(PELVIS, HIP[leg]), (HIP[leg], KNEE[leg]), (KNEE[leg], ANKLE[leg]), (ANKLE[leg], TOE[leg])] {
                let (was, is) = ((old(b) - old(a)).length(), (new(b) - new(a)).length());
                prop_assert!((is - was).abs() <= 1e-5 * was, "bone {a}-{b}: {was} became {is}");
            }
            let hip = new(HIP[leg]);
            let (upper, lower) = ((old(KNEE[leg]) - old(HIP[leg])).length(), (old(ANKLE[leg]) - old(KNEE[leg])).length());
            let reach = (targets[leg] - hip).length();
            if reach <= (upper + lower) * (1.0 - 1e-4) && reach >= (upper - lower).abs() + 1e-4 {
                let miss = (new(ANKLE[leg]) - targets[leg]).length();
                prop_assert!(miss <= 1e-5 * (upper + lower), "leg {leg}: ankle {miss} off its target");
                let sole = new(ANKLE[leg]) - n * ah;
                prop_assert!(plane.distance(sole.as_vec3()) > -1e-5);
            }
            // The foot's orientation is the clip's turned from up onto the plane's normal.
            let (was, is) = (model(&data, &before, ANKLE[leg], &root), model(&data, &trs, ANKLE[leg], &root));
            for axis in [DVec3::X, DVec3::Y, DVec3::Z] {
                let want = align * was.transform_vector3(axis).normalize();
                let got = is.transform_vector3(axis).normalize();
                prop_assert!(want.angle_between(got) < 2e-4, "leg {leg}: foot axis {axis} off by {}", want.angle_between(got));
            }
        }
    }
}

/// Möller–Trumbore in f64: `(t, u, v)` of the ray against the triangle's plane, or `None`
/// when the ray is (nearly) parallel to it.
fn mt(tri: &[DVec3; 3], o: DVec3, d: DVec3) -> Option<(f64, f64, f64)> {
    let (e1, e2) = (tri[1] - tri[0], tri[2] - tri[0]);
    let p = d.cross(e2);
    let det = e1.dot(p);
    if det.abs() <= 1e-6 * e1.length() * e2.length() {
        return None;
    }
    let s = o - tri[0];
    let q = s.cross(e1);
    Some((e2.dot(q) / det, s.dot(p) / det, d.dot(q) / det))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    /// The hierarchy finds the nearest hit brute force finds (rays that graze an edge, a
    /// plane or the reach within 1e-4 are left out: either answer is right there).
    #[test]
    fn triangle_ground_finds_the_nearest_hit(
        corners in prop::collection::vec(prop::array::uniform3(prop::array::uniform3(-2.0..2.0_f64)), 1..150),
        origin in prop::array::uniform3(-3.0..3.0_f64), dir in prop::array::uniform3(-1.0..1.0_f64),
        reach in 0.1..6.0_f64,
    ) {
        let triangles: Vec<[Vec3; 3]> = corners.iter().map(|t| t.map(|c| DVec3::from_array(c).as_vec3())).collect();
        let exact: Vec<[DVec3; 3]> = triangles.iter().map(|t| t.map(|c| c.as_dvec3())).collect();
        let d = DVec3::from_array(dir);
        prop_assume!(d.length() > 0.1);
        let (o, d) = (Vec3::from_array(origin.map(|v| v as f32)), d.normalize().as_vec3());
        let (od, dd) = (o.as_dvec3(), d.as_dvec3());
        let m = 1e-4;
        let mut nearest: Option<f64> = None;
        for tri in &exact {
            let Some((t, u, v)) = mt(tri, od, dd) else {
                // Parallel: a hit only if the ray lies in the plane; keep rays well off it.
                let n = (tri[1] - tri[0]).cross(tri[2] - tri[0]);
                prop_assume!(n.length() < 1e-12 || (od - tri[0]).dot(n.normalize()).abs() > m);
                continue;
            };
            let inside = u >= m && v >= m && u + v <= 1.0 - m && t >= m && t <= reach - m;
            let outside = u < -m || v < -m || u + v > 1.0 + m || t < -m || t > reach + m;
            prop_assume!(inside || outside);
            if inside {
                nearest = Some(nearest.map_or(t, |n: f64| n.min(t)));
            }
        }
        let ground = TriangleGround::new(triangles).unwrap();
        let hit = ground.cast(o, d, reach as f32);
        match (nearest, hit) {
            (None, None) => {}
            (Some(t), Some(h)) => {
                let got = (h.point.as_dvec3() - od).length();
                prop_assert!((got - t).abs() < 1e-4, "hit at {got}, nearest at {t}");
                prop_assert!(h.normal.dot(d) <= 0.0 && (h.normal.length() - 1.0).abs() < 1e-5);
            }
            (want, got) => prop_assert!(false, "nearest {want:?}, the ground said {got:?}"),
        }
    }

    /// A plane's hit is on the plane, at the distance f64 gives, its normal facing the ray.
    #[test]
    fn ground_plane_hits_where_f64_says(
        normal in prop::array::uniform3(-1.0..1.0_f64), offset in -3.0..3.0_f64,
        origin in prop::array::uniform3(-3.0..3.0_f64), dir in prop::array::uniform3(-1.0..1.0_f64),
    ) {
        let (n, d) = (DVec3::from_array(normal), DVec3::from_array(dir));
        prop_assume!(n.length() > 0.1 && d.length() > 0.1);
        let plane = GroundPlane::new(n.as_vec3(), offset as f32).unwrap();
        let (n, d, o) = (n.normalize(), d.normalize(), DVec3::from_array(origin));
        let along = n.dot(d);
        let t = -(n.dot(o) + offset / DVec3::from_array(normal).length()) / along;
        prop_assume!(along.abs() > 1e-3 && (t - 0.0).abs() > 1e-3 && (t - 5.0).abs() > 1e-3);
        let hit = plane.cast(o.as_vec3(), d.as_vec3(), 5.0);
        prop_assert_eq!(hit.is_some(), (0.0..=5.0).contains(&t));
        if let Some(h) = hit {
            // Where the ray grazes the plane, the f32 rounding of its inputs (about 1e-7 of
            // the origin's and the offset's size) moves the hit along the plane by that over
            // |n·d|: held to 1e-4 only where |n·d| > 0.05 (3 million cases found a hit 1e-4
            // off at a grazing angle).
            if along.abs() > 0.05 {
                prop_assert!((h.point.as_dvec3() - (o + d * t)).length() < 1e-4);
            }
            prop_assert!(h.normal.as_dvec3().dot(d) < 0.0);
        }
    }
}
