//! Foot placement eases what it changes: a step edge passing under the feet moves no joint
//! more than a bound per frame (a hard cut, with no smoothing, moves them a whole step in
//! one), switching the job off returns to the clip's pose without a jump, and the pelvis
//! never drops more than `max_step_down` however deep the ground under a foot falls away.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

mod foot_placement_biped;

use foot_placement_biped::*;
use skel_anim::glam::{Affine3A, Vec3};
use skel_anim::{FootPlacement, FootPlacementDesc, GroundPlane, TriangleGround};

/// Level ground at y = 0 before z = 0, `drop` lower from there on, with the riser.
fn edge(drop: f32) -> TriangleGround {
    let p = |x: f32, y: f32, z: f32| Vec3::new(x, y, z);
    TriangleGround::new(vec![
        [p(-2.0, 0.0, -3.0), p(2.0, 0.0, -3.0), p(2.0, 0.0, 0.0)],
        [p(-2.0, 0.0, -3.0), p(2.0, 0.0, 0.0), p(-2.0, 0.0, 0.0)],
        [p(-2.0, -drop, 0.0), p(2.0, -drop, 0.0), p(2.0, -drop, 3.0)],
        [p(-2.0, -drop, 0.0), p(2.0, -drop, 3.0), p(-2.0, -drop, 3.0)],
        [p(-2.0, -drop, 0.0), p(2.0, -drop, 0.0), p(2.0, 0.0, 0.0)],
        [p(-2.0, -drop, 0.0), p(2.0, 0.0, 0.0), p(-2.0, 0.0, 0.0)],
    ])
    .unwrap()
}

/// The held pose with both feet down (left forward, right back) slid over a 0.15 step down
/// at 0.3 m/s, feet not planted (they follow the ground): the largest per-frame move of any
/// joint relative to the root, after the first frame.
fn worst_move_over_an_edge(desc: &FootPlacementDesc) -> f32 {
    let data = biped();
    let placement = FootPlacement::new(&data, desc).unwrap();
    let ground = edge(0.15);
    let place = |t: f64| Affine3A::from_translation(Vec3::new(0.0, 0.0, (-0.6 + 0.3 * t) as f32));
    let mut last: Option<Vec<Vec3>> = None;
    let mut worst = 0.0_f32;
    let mut dropped = 0.0_f32;
    let unplanted = |_, s: &mut skel_anim::FootPlacementState| {
        s.set_planted(0, Some(false)).unwrap();
        s.set_planted(1, Some(false)).unwrap();
    };
    play(
        &data,
        &placement,
        &ground,
        240,
        |_| 0.0,
        place,
        unplanted,
        |f| {
            let root = Vec3::from(f.root.translation);
            let now: Vec<Vec3> = f.at.iter().map(|p| *p - root).collect();
            if let Some(before) = &last {
                for (a, b) in now.iter().zip(before) {
                    worst = worst.max((*a - *b).length());
                }
            }
            last = Some(now);
            dropped = dropped.max(f.report.pelvis_drop);
        },
    );
    // Both feet ended on the lower floor: the pelvis went down about a step.
    assert!(dropped > 0.1, "pelvis drop {dropped}");
    worst
}

/// 1 − exp(−(1/60) / 0.1) of a 0.15 step is 2.3 cm a frame for the feet and the pelvis; the
/// knee of the leg that stays (nearly straight, its hip lowered) moves up to 2.3 times that.
const SMOOTH_BOUND: f32 = 0.06;

#[test]
fn a_step_edge_under_the_feet_is_eased() {
    let worst = worst_move_over_an_edge(&desc());
    assert!(worst <= SMOOTH_BOUND, "a joint moved {worst} in one frame");
}

#[test]
fn a_hard_cut_jumps_past_the_bound() {
    // The check above can fail: without smoothing the feet drop the whole step at once.
    let hard = FootPlacementDesc {
        ground_time: 0.0,
        pelvis_time: 0.0,
        ..desc()
    };
    let worst = worst_move_over_an_edge(&hard);
    assert!(
        worst > 0.1,
        "a hard cut moved joints only {worst} in a frame"
    );
}

#[test]
fn switching_off_eases_back_to_the_clip_and_on_again() {
    let data = biped();
    let placement = FootPlacement::new(&data, &desc()).unwrap();
    // Standing (the pose held) across a 20° ramp: the placed pose is centimetres from the
    // clip's, and only the switch changes it.
    let a = 20_f32.to_radians();
    let ramp = GroundPlane::through(Vec3::ZERO, Vec3::new(-a.sin(), a.cos(), 0.0)).unwrap();
    let mut last: Option<Vec<Vec3>> = None;
    let mut worst_jump = 0.0_f32;
    let (mut on_gap, mut off_gap, mut again_gap) = (0.0_f32, f32::MAX, 0.0_f32);
    let switch = |f: usize, s: &mut skel_anim::FootPlacementState| match f {
        100 => s.set_active(false),
        200 => s.set_active(true),
        _ => {}
    };
    let still = |_| Affine3A::IDENTITY;
    play(
        &data,
        &placement,
        &ramp,
        330,
        |_| 0.0,
        still,
        switch,
        |f| {
            let frame = (f.time * 60.0).round() as usize;
            let gap: Vec<Vec3> = f.at.iter().zip(&f.clip_at).map(|(a, c)| *a - *c).collect();
            if let Some(before) = &last {
                for (a, b) in gap.iter().zip(before) {
                    worst_jump = worst_jump.max((*a - *b).length());
                }
            }
            let largest = gap.iter().map(|g| g.length()).fold(0.0, f32::max);
            match frame {
                99 => on_gap = largest,
                199 => off_gap = largest,
                300.. => again_gap = again_gap.max(largest),
                _ => {}
            }
            last = Some(gap);
        },
    );
    assert!(on_gap > 0.02, "placed, only {on_gap} from the clip");
    assert!(
        off_gap == 0.0,
        "switched off for 100 frames, still {off_gap} from the clip"
    );
    assert!(
        again_gap > 0.02,
        "switched on again, only {again_gap} from the clip"
    );
    // 1 − exp(−(1/60) / 0.2) = 8 % of the correction a frame at most.
    assert!(
        worst_jump <= 0.1 * on_gap,
        "the correction jumped {worst_jump} in a frame"
    );
}

#[test]
fn the_pelvis_drops_at_most_max_step_down_over_a_pit() {
    let data = biped();
    let desc = FootPlacementDesc {
        max_step_down: 0.12,
        max_step_up: 0.3,
        ..desc()
    };
    let placement = FootPlacement::new(&data, &desc).unwrap();
    // The ground 0.4 down, within the rays' reach (0.7 below the clip's ground): the feet
    // want to go 0.4 down, the pelvis stops at 0.12.
    let pit = GroundPlane::new(Vec3::Y, 0.4).unwrap();
    let mut worst = 0.0_f32;
    walk(
        &data,
        &placement,
        &pit,
        120,
        forward(|_| 0.0),
        |_, _| {},
        |f| {
            worst = worst.max(f.report.pelvis_drop);
            assert!(f.report.hits == 2, "{:?}", f.report);
        },
    );
    assert!((worst - 0.12).abs() < 1e-6, "pelvis drop {worst}");
}
