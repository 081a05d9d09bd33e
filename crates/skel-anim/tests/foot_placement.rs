//! Foot placement on the synthetic biped walking at 60 Hz over several cycles (1 unit = 1 m):
//! on planes tilted 0–30° (uphill, downhill, across) and up and down a staircase
//! (`TriangleGround`), no sole point is below the ground, a planted foot's contact moves less
//! than 0.1 cm (0.001) while it is planted, and the pelvis never drops more than the ground
//! asks (at most the step height on stairs); a step edge under a foot moves no joint more
//! than a bound per frame, which a hard cut (no smoothing) breaks.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

mod foot_placement_biped;

use foot_placement_biped::*;
use skel_anim::glam::{Affine3A, Vec3};
use skel_anim::{FootPlacement, FootPlacementDesc, GroundPlane, GroundQuery, TriangleGround};

/// How far (world units) a sole point may be under the ground: f32 rounding of the pose.
const UNDER: f32 = 1e-4;
/// The bound on a planted contact's movement: 0.1 cm.
const PLANTED_SLIDE: f32 = 0.001;

/// The ground's height and normal straight under `p` (a long vertical ray).
fn under(ground: &dyn GroundQuery, p: Vec3) -> Option<(f32, Vec3)> {
    let hit = ground.cast(Vec3::new(p.x, p.y + 50.0, p.z), Vec3::NEG_Y, 100.0)?;
    Some((hit.point.y, hit.normal))
}

/// What a walk measured.
#[derive(Debug, Default)]
struct Walked {
    /// The deepest a sole point went under the ground.
    worst_under: f32,
    /// The most a planted, locked foot moved from where it was locked.
    worst_slide: f32,
    /// Frames with a planted foot, and how many plant periods began.
    planted_frames: usize,
    plants: usize,
    /// The largest pelvis drop.
    worst_drop: f32,
}

fn walk_on(
    data: &skel_anim::AnimationData,
    placement: &FootPlacement,
    ground: &dyn GroundQuery,
    place: impl Fn(f64) -> Affine3A,
) -> Walked {
    let mut w = Walked::default();
    let (ankle_height, toe_height) = placement.sole_heights(0).unwrap();
    let mut anchors: [Option<Vec3>; 2] = [None; 2];
    walk(
        data,
        placement,
        ground,
        240,
        place,
        |_, _| {},
        |f| {
            for foot in 0..2 {
                let (ankle, toe) = (f.at[ANKLE[foot]], f.at[TOE[foot]]);
                let (_, normal) = under(ground, ankle).unwrap();
                for (point, height) in [(ankle, ankle_height), (toe, toe_height)] {
                    let (_, n) = under(ground, point).unwrap();
                    let sole = point - n * height;
                    let (ground_y, _) = under(ground, sole).unwrap();
                    w.worst_under = w.worst_under.max(ground_y - sole.y);
                }
                let _ = normal;
                let s = f.feet[foot];
                if s.planted && s.locked {
                    w.planted_frames += 1;
                    let anchor = *anchors[foot].get_or_insert_with(|| {
                        w.plants += 1;
                        ankle
                    });
                    w.worst_slide = w.worst_slide.max((ankle - anchor).length());
                } else {
                    anchors[foot] = None;
                }
            }
            w.worst_drop = w.worst_drop.max(f.report.pelvis_drop);
        },
    );
    w
}

#[test]
fn tilted_planes_keep_feet_on_the_ground_and_planted_feet_still() {
    let data = biped();
    let placement = FootPlacement::new(&data, &desc()).unwrap();
    for degrees in [0.0_f32, 10.0, 20.0, 30.0] {
        let a = degrees.to_radians();
        // Rising towards +z (uphill), towards -z (downhill), towards +x (across the path).
        for (name, normal) in [
            ("uphill", Vec3::new(0.0, a.cos(), -a.sin())),
            ("downhill", Vec3::new(0.0, a.cos(), a.sin())),
            ("across", Vec3::new(-a.sin(), a.cos(), 0.0)),
        ] {
            let plane = GroundPlane::through(Vec3::ZERO, normal).unwrap();
            let height = move |z: f64| -f64::from(normal.z) * z / f64::from(normal.y);
            let w = walk_on(&data, &placement, &plane, forward(height));
            println!("{degrees}° {name}: {w:?}");
            assert!(
                w.worst_under <= UNDER,
                "{degrees}° {name}: a sole {} under",
                w.worst_under
            );
            assert!(
                w.plants >= 6 && w.planted_frames >= 150,
                "{degrees}° {name}: {w:?}"
            );
            assert!(
                w.worst_slide < PLANTED_SLIDE,
                "{degrees}° {name}: a planted foot moved {}",
                w.worst_slide
            );
            // The lowest foot is at most half a stride (and the ankle's slope shift) down
            // the slope: the pelvis drops no more than that, and on level ground no more than
            // the millimetre a lifting foot's fading lock offset asks of a stretched leg.
            let bound = a.tan() * (STRIDE as f32 / 2.0 + 0.05) + 1e-3;
            assert!(
                w.worst_drop <= bound,
                "{degrees}° {name}: drop {} > {bound}",
                w.worst_drop
            );
        }
    }
}

/// A staircase along +z, each tread `rise` above the one before (negative: down), 0.3 deep,
/// risers included; tread 0 starts at z = 0.
fn stairs(rise: f32) -> TriangleGround {
    let depth = 0.3;
    let mut triangles = Vec::new();
    let quad = |a: Vec3, b: Vec3, c: Vec3, d: Vec3| [[a, b, c], [a, c, d]];
    for k in -10..30 {
        let (y, z0, z1) = (k as f32 * rise, k as f32 * depth, (k + 1) as f32 * depth);
        let p = |x: f32, y: f32, z: f32| Vec3::new(x, y, z);
        triangles.extend(quad(
            p(-2.0, y, z0),
            p(2.0, y, z0),
            p(2.0, y, z1),
            p(-2.0, y, z1),
        ));
        let below = y - rise;
        triangles.extend(quad(
            p(-2.0, below, z0),
            p(2.0, below, z0),
            p(2.0, y, z0),
            p(-2.0, y, z0),
        ));
    }
    TriangleGround::new(triangles).unwrap()
}

#[test]
fn stairs_up_and_down_keep_feet_on_the_treads_and_the_pelvis_within_a_step() {
    let data = biped();
    let rise = 0.15;
    let desc = FootPlacementDesc {
        max_step_down: rise,
        ..desc()
    };
    let placement = FootPlacement::new(&data, &desc).unwrap();
    for (name, step) in [("up", rise), ("down", -rise)] {
        let ground = stairs(step);
        let slope = f64::from(step) / 0.3;
        // The root rides the line through the treads' upper corners (nosings going up, far
        // edges going down), lowered so that a foot half a stride back is at most one step
        // below the clip's ground.
        let nosing = if step > 0.0 { 0.0 } else { -f64::from(step) };
        let height = move |z: f64| slope * z + nosing - 0.125;
        let w = walk_on(&data, &placement, &ground, forward(height));
        println!("stairs {name}: {w:?}");
        assert!(
            w.worst_under <= UNDER,
            "stairs {name}: a sole {} under",
            w.worst_under
        );
        assert!(
            w.plants >= 6 && w.planted_frames >= 150,
            "stairs {name}: {w:?}"
        );
        assert!(
            w.worst_slide < PLANTED_SLIDE,
            "stairs {name}: slid {}",
            w.worst_slide
        );
        assert!(w.worst_drop <= rise, "stairs {name}: drop {}", w.worst_drop);
    }
}

/// Every node's world position, each foot's status and the report of every frame of a walk.
fn recorded(
    data: &skel_anim::AnimationData,
    placement: &FootPlacement,
    ground: &dyn GroundQuery,
    place: impl Fn(f64) -> Affine3A,
) -> Vec<String> {
    let mut frames = Vec::new();
    walk(
        data,
        placement,
        ground,
        240,
        place,
        |_, _| {},
        |f| {
            let bits: Vec<[u32; 3]> =
                f.at.iter()
                    .map(|p| p.to_array().map(f32::to_bits))
                    .collect();
            frames.push(format!("{bits:?} {:?} {:?}", f.feet, f.report));
        },
    );
    frames
}

#[test]
fn the_avx2_build_places_the_feet_as_the_baseline_bit_for_bit() {
    let data = biped();
    let desc = FootPlacementDesc {
        max_step_down: 0.15,
        ..desc()
    };
    let detected = FootPlacement::new(&data, &desc).unwrap();
    let baseline = detected
        .clone()
        .with_kernels(skel_anim::CpuKernels::Baseline);
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma") {
        // Two builds are compared, not one with itself.
        assert_ne!(detected, baseline);
    }
    let a = 20_f32.to_radians();
    let slope = GroundPlane::through(Vec3::ZERO, Vec3::new(0.0, a.cos(), -a.sin())).unwrap();
    let up = stairs(0.15);
    let down = stairs(-0.15);
    let cases: [(&str, &dyn GroundQuery, f64, f64); 3] = [
        ("20° uphill", &slope, f64::from(a.tan()), 0.0),
        ("stairs up", &up, 0.5, -0.125),
        ("stairs down", &down, -0.5, 0.15 - 0.125),
    ];
    for (name, ground, slope, lift) in cases {
        let place = move |z: f64| slope * z + lift;
        let fast = recorded(&data, &detected, ground, forward(place));
        let reference = recorded(&data, &baseline, ground, forward(place));
        assert_eq!(fast.len(), 240);
        for (frame, (f, r)) in fast.iter().zip(&reference).enumerate() {
            assert_eq!(f, r, "{name}, frame {frame}");
        }
    }
}
