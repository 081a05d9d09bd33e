//! Inertialized switches are continuous: world joint positions sampled at 240 Hz through a
//! switch (walk → run, and run → wave interrupted by wave → walk inside the blend time) move
//! no more in one step than either clip moves on its own, their velocity changes no more per
//! step than the clips' own does (within a stated factor, for the quintic's opening
//! acceleration), and after the blend time the pose is the destination's. A cut fails the
//! first check, so the check can fail.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

mod playback_rig;

use std::sync::Arc;

use glam::Vec3;
use playback_rig::{DURATION, RUN, WALK, WAVE, rig};
use skel_anim::{LayerDesc, NullSink, Player, Rig};

const JOINTS: usize = 8;
const HZ: f32 = 240.0;
const H: f32 = 1.0 / HZ;
/// The blend time of the switches. The offset's own motion peaks at about 1.9 × its size over
/// the blend time (the quintic's largest slope), so the blend time must be long enough for
/// the distance between the poses: this rig's clips are up to 5 units apart at the chain's
/// tip (eight unit bones) and move at most 0.079 units per 1/240 s.
const BLEND: f32 = 0.6;

fn rig_arc() -> Arc<Rig> {
    Rig::new(Arc::new(rig(JOINTS))).unwrap()
}

fn positions(player: &mut Player) -> Vec<Vec3> {
    player
        .world_matrices()
        .iter()
        .take(JOINTS)
        .map(|m| m.w_axis.truncate())
        .collect()
}

fn step_size(a: &[Vec3], b: &[Vec3]) -> f32 {
    a.iter()
        .zip(b)
        .map(|(p, q)| (*p - *q).length())
        .fold(0.0, f32::max)
}

/// Largest per-step move, and largest per-step change of velocity (per step, per step), of
/// `clip` played alone at 240 Hz over its whole length.
fn clip_bounds(rig: &Arc<Rig>, clip: usize) -> (f32, f32) {
    let mut p = Player::new(rig);
    p.add_layer(LayerDesc::new(clip)).unwrap();
    let mut trail = vec![];
    // Up to the clip's end, not across the loop (these clips do not loop seamlessly).
    for _ in 0..(DURATION * HZ) as usize - 1 {
        p.tick(H, &mut NullSink);
        trail.push(positions(&mut p));
    }
    bounds(&trail)
}

fn bounds(trail: &[Vec<Vec3>]) -> (f32, f32) {
    let mut step = 0.0_f32;
    let mut accel = 0.0_f32;
    for k in 1..trail.len() {
        step = step.max(step_size(&trail[k], &trail[k - 1]));
        if k >= 2 {
            let a = trail[k]
                .iter()
                .zip(&trail[k - 1])
                .zip(&trail[k - 2])
                .map(|((p2, p1), p0)| (*p2 - 2.0 * *p1 + *p0).length())
                .fold(0.0, f32::max);
            accel = accel.max(a);
        }
    }
    (step, accel)
}

/// Plays `first` from 0, switches by `switch` at each of `at` (seconds) to the given clips,
/// and records the world positions every 1/240 s until `until`.
fn run(
    rig: &Arc<Rig>,
    first: usize,
    switches: &[(f32, usize)],
    until: f32,
    switch: &dyn Fn(&mut Player, usize),
) -> Vec<Vec<Vec3>> {
    let mut p = Player::new(rig);
    p.add_layer(LayerDesc::new(first)).unwrap();
    let mut trail = vec![];
    let mut next = 0;
    let steps = (until * HZ).round() as usize;
    for k in 0..steps {
        let now = k as f32 * H;
        if next < switches.len() && now >= switches[next].0 - 1e-6 {
            switch(&mut p, switches[next].1);
            next += 1;
        }
        p.tick(H, &mut NullSink);
        trail.push(positions(&mut p));
    }
    trail
}

fn inertialize(duration: f32) -> impl Fn(&mut Player, usize) {
    move |p: &mut Player, clip: usize| {
        p.inertialize_to(clip, duration).unwrap();
    }
}

#[test]
fn a_switch_moves_no_more_than_the_clips() {
    let rig = rig_arc();
    let clips = [clip_bounds(&rig, WALK), clip_bounds(&rig, RUN)];
    let max_step = clips.iter().map(|c| c.0).fold(0.0, f32::max);
    let max_accel = clips.iter().map(|c| c.1).fold(0.0, f32::max);
    let trail = run(&rig, WALK, &[(0.7, RUN)], 1.5, &inertialize(BLEND));
    let (step, accel) = bounds(&trail);
    println!("inside the clips: step {max_step}, accel {max_accel}; across: {step}, {accel}");
    assert!(step <= max_step, "{step} > {max_step}");
    // The quintic opens with an acceleration of its own (Bollo's a0): allowed twice the
    // clips' largest.
    assert!(accel <= 2.0 * max_accel, "{accel} > 2 × {max_accel}");

    // The same switch as a cut jumps.
    let cut = run(&rig, WALK, &[(0.7, RUN)], 1.5, &inertialize(0.0));
    let (cut_step, _) = bounds(&cut);
    println!("cut: step {cut_step}");
    assert!(cut_step > 2.0 * max_step, "the cut moved only {cut_step}");
}

#[test]
fn an_interrupted_switch_continues_without_a_jump() {
    let rig = rig_arc();
    let clips = [
        clip_bounds(&rig, WALK),
        clip_bounds(&rig, RUN),
        clip_bounds(&rig, WAVE),
    ];
    let max_step = clips.iter().map(|c| c.0).fold(0.0, f32::max);
    let max_accel = clips.iter().map(|c| c.1).fold(0.0, f32::max);
    let trail = run(
        &rig,
        RUN,
        &[(0.6, WAVE), (0.9, WALK)],
        1.8,
        &inertialize(BLEND),
    );
    let (step, accel) = bounds(&trail);
    println!("inside: {max_step}, {max_accel}; across: {step}, {accel}");
    assert!(step <= max_step, "{step} > {max_step}");
    assert!(accel <= 2.0 * max_accel, "{accel} > 2 × {max_accel}");
}

#[test]
fn after_the_blend_time_the_pose_is_the_destination() {
    let rig = rig_arc();
    let duration = 0.25;
    let mut p = Player::new(&rig);
    p.add_layer(LayerDesc::new(WALK)).unwrap();
    for _ in 0..100 {
        p.tick(H, &mut NullSink);
    }
    p.inertialize_to(RUN, duration).unwrap();
    let mut alone = Player::new(&rig);
    alone.add_layer(LayerDesc::new(RUN)).unwrap();
    for k in 0..(0.5 * HZ) as usize {
        p.tick(H, &mut NullSink);
        alone.tick(H, &mut NullSink);
        let t = (k + 1) as f32 * H;
        let gap = step_size(&positions(&mut p), &positions(&mut alone));
        if t >= duration + 1e-4 {
            assert!(
                gap < 1e-5,
                "at {t} s the pose is {gap} from the destination"
            );
            assert!(p.inertialization().is_none());
        } else if k == 0 {
            assert!(gap > 1e-3, "the switch showed the destination at once");
        }
    }
}

#[test]
fn bad_durations_are_errors_and_change_nothing() {
    let rig = rig_arc();
    let mut p = Player::new(&rig);
    p.add_layer(LayerDesc::new(WALK)).unwrap();
    assert!(p.inertialize_to(RUN, f32::NAN).is_err());
    assert!(p.inertialize_to(99, 0.2).is_err());
    assert_eq!(p.layers().len(), 1);
    assert!(p.inertialization().is_none());
}

#[test]
fn switching_and_blending_allocate_nothing_after_a_reservation() {
    let rig = rig_arc();
    let mut p = Player::new(&rig);
    p.add_layer(LayerDesc::new(WALK)).unwrap();
    p.add_layer(LayerDesc::new(RUN).weight(0.0)).unwrap();
    p.reserve_inertialization();
    p.tick(H, &mut NullSink);
    let count = allocation_counter::measure(|| {
        for k in 0..200 {
            if k % 50 == 10 {
                // Swap which layer shows, inertialized (a graph does the same with weights).
                p.inertialize(BLEND).unwrap();
                let (a, b) = if k % 100 == 10 {
                    (0.0, 1.0)
                } else {
                    (1.0, 0.0)
                };
                p.set_weight(0, a).unwrap();
                p.set_weight(1, b).unwrap();
            }
            p.tick(H, &mut NullSink);
        }
    })
    .count_total;
    assert_eq!(count, 0);
    // The counter counts: the first switch without a reservation allocates.
    let mut q = Player::new(&rig);
    q.add_layer(LayerDesc::new(WALK)).unwrap();
    let count = allocation_counter::measure(|| q.inertialize(BLEND).unwrap()).count_total;
    assert!(count > 0);
}

/// A hook that changes nothing: it sends the player down the step-by-step pose pass.
#[derive(Debug)]
struct StepByStep;

impl skel_anim::PoseHook for StepByStep {
    fn before_channels(&self, _trs: &mut [f32]) {}
    fn after_channels(&self, _trs: &mut [f32]) {}
}

#[test]
fn the_fused_pass_and_the_step_by_step_pass_blend_alike() {
    // The fused pass adds the offset four nodes at a time with a series exponential; the
    // step-by-step pass node by node: the same poses within f32 rounding.
    let rig = rig_arc();
    // One clip plays at a time: the blend rides the single-clip pass, four nodes at a time,
    // also over quads WAVE leaves unkeyed (composed at build time when no blend runs).
    assert!(
        [WALK, RUN, WAVE]
            .iter()
            .all(|&c| rig.layers_four_nodes_at_a_time(c))
    );
    let plan = [(0.3, RUN), (0.45, WAVE), (0.9, WALK)];
    let fused = run(&rig, WALK, &plan, 1.6, &inertialize(BLEND));
    let mut p = Player::new(&rig);
    p.set_pose_hook(Some(Arc::new(StepByStep)));
    p.add_layer(LayerDesc::new(WALK)).unwrap();
    let mut next = 0;
    let mut worst = 0.0_f32;
    for (k, shown) in fused.iter().enumerate() {
        let now = k as f32 * H;
        if next < plan.len() && now >= plan[next].0 - 1e-6 {
            p.inertialize_to(plan[next].1, BLEND).unwrap();
            next += 1;
        }
        p.tick(H, &mut NullSink);
        worst = worst.max(step_size(shown, &positions(&mut p)));
    }
    println!("largest difference between the passes: {worst}");
    assert!(worst < 2e-5, "{worst}");
}

/// Root velocities (extracted ground-plane translation per second) at 240 Hz, switching from
/// `first` to `then` at 0.7 s with `switch`.
fn root_velocities(rig: &Arc<Rig>, first: usize, then: usize, blend: f32) -> Vec<Vec3> {
    let mut p = Player::new(rig);
    p.add_layer(LayerDesc::new(first)).unwrap();
    p.set_root_motion(Some(skel_anim::RootMotion {
        node: 0,
        translation: [true, false, true],
        yaw: false,
    }))
    .unwrap();
    let mut out = vec![];
    for k in 0..(1.6 * HZ) as usize {
        if k == (0.7 * HZ) as usize {
            p.inertialize_to(then, blend).unwrap();
        }
        p.tick(H, &mut NullSink);
        out.push(p.root_motion_delta().translation / H);
    }
    out
}

#[test]
fn root_motion_keeps_its_velocity_through_a_switch() {
    let rig = rig_arc();
    let largest_change = |v: &[Vec3]| {
        v.windows(2)
            .map(|w| (w[1] - w[0]).length())
            .fold(0.0, f32::max)
    };
    // Inside either clip alone (no switch: the same clip twice).
    let inside = largest_change(&root_velocities(&rig, WALK, WALK, 0.0)[..(0.7 * HZ) as usize])
        .max(largest_change(
            &root_velocities(&rig, RUN, RUN, 0.0)[..(0.7 * HZ) as usize],
        ));
    let across = largest_change(&root_velocities(&rig, WALK, RUN, BLEND));
    let cut = largest_change(&root_velocities(&rig, WALK, RUN, 0.0));
    println!("root velocity change per step: inside {inside}, inertialized {across}, cut {cut}");
    assert!(across <= 2.0 * inside, "{across} > 2 × {inside}");
    assert!(
        cut > 4.0 * inside,
        "the cut changed the root's velocity by only {cut}"
    );
}
