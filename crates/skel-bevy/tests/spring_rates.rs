//! VRM springs in a Bevy app are independent of the app's frame rate: at 30, 60, 120 and
//! 144 Hz the spring joints are in the same places at the instants the rates share, while
//! the character plays a clip and walks and turns at a steady pace.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

mod common;

use std::time::Duration;

use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use common::vrm::{app_with, vrm_with_nod};
use skel_bevy::{SkelLayer, SkelPlayer};

/// Seconds simulated.
const SECONDS: f64 = 2.0;

/// The root at `t` seconds after the character binds: still for 1/6 s (so the frame it binds
/// on needs no root; an instant of every rate here), then walking at 0.8 m/s and turning at
/// 0.5 rad/s. Linear in time between frames, so the root the springs interpolate between two
/// frames is the root at that instant at any of these rates.
fn root(t: f64) -> Transform {
    #[expect(clippy::cast_possible_truncation, reason = "seconds of a test")]
    let s = (t - 1.0 / 6.0).max(0.0) as f32;
    Transform::from_xyz(0.8 * s, 0.0, 0.3 * s).with_rotation(Quat::from_rotation_y(0.5 * s))
}

/// Each frame of "Nod" on `v1_hair` at `hz` frames a second: the seconds since the character
/// bound (the frame it binds included) and the world position of every spring node.
fn run_at(hz: f64) -> Vec<(f64, Vec<Vec3>)> {
    let (mut app, _dir) = app_with(&vrm_with_nod("v1_hair.vrm"), &format!("rates-{hz}"));
    let frame = Duration::from_secs_f64(1.0 / hz);
    app.insert_resource(TimeUpdateStrategy::ManualDuration(frame));
    let player = SkelPlayer::new().with_layer(SkelLayer::clip("Nod"));
    let character = common::spawn(&mut app, "avatar.glb", player);
    common::run_until_bound(&mut app, character);
    let rig = common::rig(&common::fixture("vrm/v1_hair.vrm"));
    let joints = common::joints(&mut app, character);
    let hair: Vec<Entity> = joints
        .iter()
        .filter(|(n, _)| rig.data().nodes[*n].name.starts_with("hair"))
        .map(|&(_, e)| e)
        .collect();
    assert_eq!(hair.len(), 16);
    let delta = |app: &App| app.world().resource::<Time>().delta().as_secs_f64();
    let mut t = delta(&app);
    let mut out = Vec::new();
    while t < SECONDS {
        let next = t + frame.as_secs_f64();
        *app.world_mut().get_mut::<Transform>(character).unwrap() = root(next);
        app.update();
        t += delta(&app);
        let at = |e: &Entity| {
            app.world()
                .get::<GlobalTransform>(*e)
                .unwrap()
                .translation()
        };
        out.push((t, hair.iter().map(at).collect()));
    }
    out
}

/// The largest distance between two runs' hair at the instants both have (within 1 µs),
/// and how many instants were compared.
fn apart_at_shared(a: &[(f64, Vec<Vec3>)], b: &[(f64, Vec<Vec3>)]) -> (f32, usize) {
    let mut worst = 0.0f32;
    let mut shared = 0;
    for (ta, pa) in a {
        if let Some((_, pb)) = b.iter().find(|(tb, _)| (ta - tb).abs() < 1e-6) {
            shared += 1;
            for (p, q) in pa.iter().zip(pb) {
                worst = worst.max(p.distance(*q));
            }
        }
    }
    (worst, shared)
}

#[test]
fn the_hair_is_in_the_same_place_at_any_frame_rate() {
    let at60 = run_at(60.0);
    // The hair does move: the clip and the walk swing it.
    let first = &at60[0].1;
    let travel = at60
        .iter()
        .flat_map(|(_, p)| p.iter().zip(first).map(|(a, b)| (*a - *b).y.abs()))
        .fold(0.0f32, f32::max);
    assert!(
        travel > 0.01,
        "the hair barely moved ({travel} m up or down)"
    );
    // 30 and 120 Hz share every 30 Hz instant with 60 Hz, 144 Hz every 1/12 s.
    for (hz, instants) in [(30.0, 55), (120.0, 110), (144.0, 20)] {
        let (worst, shared) = apart_at_shared(&run_at(hz), &at60);
        println!("{hz} Hz against 60 Hz: {shared} shared instants, worst {worst:e} m");
        assert!(shared >= instants, "{hz} Hz: only {shared} shared instants");
        // The same steps on the same poses; the root composed from other frames' (measured:
        // 7.3e-7 m at most). A root that bends between two frames of one rate would be
        // interpolated across the bend (0.16 mm here had the walk started off a 144 Hz frame).
        assert!(worst <= 2e-6, "{hz} Hz: the hair is {worst} m from 60 Hz's");
    }
}
