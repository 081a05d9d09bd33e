//! The slope scene's CPU side, natively: `graphs/default_character_slope.json` on the slope the
//! page draws keeps the built-in character's toes on it (and without foot placement one sinks),
//! its look-at turns the head to the point under the pointer as the page computes it (and
//! weight 0 leaves the head where the clip has it), the probe the page publishes measures what
//! it says, and a frame of it allocates nothing.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use std::sync::Arc;

use glam::{Mat4, Vec2};
use skel::anim::{GroundPlane, Handedness, NullSink, Player, Rig};
use skel::graph::{Graph, GraphPlayer};
use skel::render::{Camera, Vec3};
use skel_web::{
    GROUND_NAME, LOOK_PARAM, LOOK_WEIGHT_PARAM, SLOPE_DEGREES, SLOPE_VIEW, SlopeProbe,
    SlopeReading, slope_look_target, slope_plane,
};

const DT: f32 = 1.0 / 60.0;

/// `graphs/default_character_slope.json`, read at run time (a crate includes only its own
/// files; `cargo xtask web` copies it beside the page).
fn graph_json() -> String {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../graphs/default_character_slope.json"
    );
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The built-in character's rig in the page's handedness.
fn rig() -> Arc<Rig> {
    let options = skel::gltf::LoadOptions::with_handedness(skel::LoadOptions::default().handedness);
    let asset = skel::gltf::load_slice(skel::DEFAULT_CHARACTER, None, &options).unwrap();
    Rig::new(Arc::new(asset.animation)).unwrap()
}

/// The slope graph's player on the slope, at `speed`, feet on or off, looking at `target`
/// with `look_weight`.
fn player(rig: &Arc<Rig>, speed: f32, feet: bool, look_weight: f32) -> GraphPlayer {
    let graph = Graph::from_json(&graph_json(), rig).unwrap();
    let mut gp = GraphPlayer::new(&graph, Player::new(rig)).unwrap();
    assert!(gp.set_ground(GROUND_NAME, Arc::new(slope_plane().unwrap())));
    let params = gp.instance_mut();
    params.set_float("speed", speed).unwrap();
    params.set_float(LOOK_WEIGHT_PARAM, look_weight).unwrap();
    if !feet {
        gp.player_mut()
            .foot_placement_mut()
            .unwrap()
            .state
            .set_active(false);
    }
    gp
}

/// Ticks `frames` frames, returning the probe's readings of the frames after the first second.
fn run(gp: &mut GraphPlayer, probe: &SlopeProbe, target: Vec3, frames: usize) -> Vec<SlopeReading> {
    let plane = slope_plane().unwrap();
    gp.instance_mut().set_vec3(LOOK_PARAM, target).unwrap();
    let mut out = Vec::new();
    for k in 0..frames {
        gp.tick(DT, &mut NullSink);
        if k >= 60 {
            out.push(probe.measure(gp.player_mut().world_matrices(), &plane, target));
        }
    }
    out
}

#[test]
fn the_slope_rises_by_its_angle_across_x() {
    let plane = slope_plane().unwrap();
    let up = plane.normal().dot(Vec3::Y);
    assert!((up - SLOPE_DEGREES.to_radians().cos()).abs() < 1e-6);
    // On the plane, one unit along x is tan(angle) higher; the origin is on it.
    let rise = SLOPE_DEGREES.to_radians().tan();
    assert!(plane.distance(Vec3::new(1.0, rise, 0.0)).abs() < 1e-6);
    assert!(plane.distance(Vec3::ZERO).abs() < 1e-6);
}

/// Idle and walking, foot placement keeps both toes on the slope (within 1 cm of their rest
/// height above a floor, never 5 mm into it); without it, idle, the uphill toe sinks more
/// than 2 cm and the downhill one floats.
#[test]
fn foot_placement_keeps_the_toes_on_the_slope_and_without_it_one_sinks() {
    let rig = rig();
    let probe = SlopeProbe::new(&rig).unwrap();
    let ahead = Vec3::new(0.0, 1.5, 2.0);
    let idle = run(&mut player(&rig, 0.0, true, 1.0), &probe, ahead, 240);
    let worst = idle
        .iter()
        .flat_map(|r| r.toe_gap)
        .fold(0.0_f32, |m, g| m.max(g.abs()));
    assert!(worst < 0.01, "idle on the slope: a toe {worst} m off it");
    let walking = run(&mut player(&rig, 1.4, true, 1.0), &probe, ahead, 300);
    let lowest = walking
        .iter()
        .map(SlopeReading::lowest_gap)
        .fold(f32::INFINITY, f32::min);
    assert!(
        lowest > -0.005,
        "walking, a toe went {lowest} m into the slope"
    );
    let plain = run(&mut player(&rig, 0.0, false, 1.0), &probe, ahead, 240);
    let sunk = plain
        .iter()
        .map(SlopeReading::lowest_gap)
        .fold(f32::NEG_INFINITY, f32::max);
    let floats = plain
        .iter()
        .map(|r| r.toe_gap[0].max(r.toe_gap[1]))
        .fold(f32::INFINITY, f32::min);
    assert!(
        sunk < -0.02 && floats > 0.02,
        "without foot placement the toes should sink and float by 2 cm: {sunk} {floats}"
    );
}

/// For pointer positions across the canvas, the page's target (the pointer's point in front of
/// the character) is faced by the head within 0.1 rad with the look-at, and at least 0.15 rad
/// less than with its weight at 0 (the clip's head, which faces some of these points better
/// than others: 0.21 to 0.89 rad off them; 0.02 with it).
#[test]
fn the_look_at_turns_the_head_to_the_point_under_the_pointer() {
    let rig = rig();
    let probe = SlopeProbe::new(&rig).unwrap();
    let centre = Vec3::new(0.0, 0.9, 0.0);
    let camera = Camera::orbit(
        centre,
        5.0,
        SLOPE_VIEW.0,
        SLOPE_VIEW.1,
        4.0 / 3.0,
        Handedness::LeftHanded,
    );
    for ndc in [
        Vec2::new(0.5, 0.5),
        Vec2::new(-0.6, 0.4),
        Vec2::new(0.7, -0.2),
    ] {
        let target = slope_look_target(&camera, centre, ndc).unwrap();
        let on = run(&mut player(&rig, 0.0, true, 1.0), &probe, target, 120);
        let off = run(&mut player(&rig, 0.0, true, 0.0), &probe, target, 120);
        let (on, off) = (
            on.last().unwrap().head_angle,
            off.last().unwrap().head_angle,
        );
        eprintln!("pointer {ndc}: head {on} rad off with the look-at, {off} without");
        assert!(
            on < 0.1 && off - on > 0.15,
            "pointer {ndc}: target {target}, head {on} rad off with the look-at, {off} without"
        );
    }
}

/// The probe: a toe's gap is its distance from the plane less its rest height; the head's
/// angle is between its +z axis and the target.
#[test]
fn the_probe_measures_gaps_and_the_heads_angle() {
    let rig = rig();
    let probe = SlopeProbe::new(&rig).unwrap();
    let rest = probe.toe_rest();
    assert!(
        rest.iter().all(|h| (0.0..0.1).contains(h)),
        "rest toe heights {rest:?}"
    );
    let node = |name: &str| rig.node_index(name).unwrap();
    let mut world = vec![Mat4::IDENTITY; rig.node_count()];
    let (left, right) = (Vec3::new(0.1, 0.3, 0.0), Vec3::new(-0.2, -0.05, 0.4));
    world[node("LeftToes")] = Mat4::from_translation(left);
    world[node("RightToes")] = Mat4::from_translation(right);
    let head = Vec3::new(0.0, 1.6, 0.0);
    world[node("Head")] = Mat4::from_translation(head) * Mat4::from_rotation_y(0.5);
    let ground = GroundPlane::new(Vec3::new(0.1, 1.0, 0.0), 0.05).unwrap();
    let target = head + Vec3::new(0.5_f32.sin(), 0.0, 0.5_f32.cos()) * 2.0;
    let r = probe.measure(&world, &ground, target);
    assert!((r.toe_gap[0] - (ground.distance(left) - rest[0])).abs() < 1e-6);
    assert!((r.toe_gap[1] - (ground.distance(right) - rest[1])).abs() < 1e-6);
    assert_eq!(r.lowest_gap(), r.toe_gap[1]);
    assert!(r.head_angle < 1e-3, "facing the target: {}", r.head_angle);
    let aside = probe.measure(
        &world,
        &ground,
        head + Vec3::new(0.5_f32.cos(), 0.0, -0.5_f32.sin()),
    );
    assert!((aside.head_angle - std::f32::consts::FRAC_PI_2).abs() < 1e-3);
}

/// What the page adds to a frame of the slope scene (the pointer's point, the look-at's
/// parameters, the probe) allocates nothing; nor does the graph's tick with foot placement and
/// the look-at once running.
#[test]
fn a_slope_frame_allocates_nothing() {
    let rig = rig();
    let probe = SlopeProbe::new(&rig).unwrap();
    let plane = slope_plane().unwrap();
    let centre = Vec3::new(0.0, 0.9, 0.0);
    let camera = Camera::orbit(centre, 5.0, 0.3, 0.2, 1.5, Handedness::LeftHanded);
    let mut gp = player(&rig, 1.0, true, 1.0);
    run(&mut gp, &probe, Vec3::new(0.0, 1.5, 2.0), 90);
    let mut angle = 0.0;
    let count = allocation_counter::measure(|| {
        for k in 0..30 {
            let ndc = Vec2::new(0.02 * k as f32 - 0.3, 0.4);
            let target = slope_look_target(&camera, centre, ndc).unwrap();
            let params = gp.instance_mut();
            params.set_float(LOOK_WEIGHT_PARAM, 1.0).unwrap();
            params.set_vec3(LOOK_PARAM, target).unwrap();
            gp.tick(DT, &mut NullSink);
            angle += probe
                .measure(gp.player_mut().world_matrices(), &plane, target)
                .head_angle;
        }
    })
    .count_total;
    assert!(angle.is_finite());
    assert_eq!(count, 0, "30 frames allocated {count} times");
}

#[test]
fn a_rig_without_the_joints_is_a_typed_error() {
    let bytes = std::fs::read(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../fixtures/eight_influences_u8.glb"),
    )
    .unwrap();
    let asset = skel::gltf::load_slice(&bytes, None, &skel::gltf::LoadOptions::default()).unwrap();
    let rig = Rig::new(Arc::new(asset.animation)).unwrap();
    let err = SlopeProbe::new(&rig).unwrap_err();
    assert!(err.to_string().contains("LeftToes"), "{err}");
}
