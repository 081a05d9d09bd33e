//! Cross-fades are continuous: no frame-to-frame change during a fade — at its first frame, in
//! the middle, when a new fade interrupts it, or when it ends — is larger than the motion the
//! clips make between two frames plus what the fade itself moves in one frame. Measured on the
//! bone matrices of a generated rig (the skel-gltf loader was not in the tree yet).

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

mod common;
mod playback_rig;

use std::sync::Arc;

use common::flat;
use playback_rig::{DURATION, RUN, WALK, WAVE, max_abs_diff, rig};
use skel_anim::{AnimError, AnimationController, AnimationData, CrossFade, RecordingSink};

const JOINTS: usize = 8;
const DT_MS: f32 = 1000.0 / 60.0;

fn data() -> Arc<AnimationData> {
    Arc::new(rig(JOINTS))
}

fn bones_of(data: &Arc<AnimationData>, clip: Option<usize>, t: f32) -> Vec<f32> {
    let mut c = AnimationController::new(data.clone()).unwrap();
    let mut sink = RecordingSink::default();
    c.evaluate_at(clip, t, &mut sink).unwrap();
    flat(&sink.bone_matrices.concat()).to_vec()
}

/// What may change between two frames of a fade of `fade_s` seconds, on this rig: the most any
/// clip (or the rest pose) moves in one frame, plus the largest distance between any two of
/// their poses times the fraction of the fade one frame covers, with 10 % for the non-linearity
/// of the quaternion blend and the hierarchy.
fn frame_budget(data: &Arc<AnimationData>, fade_s: f32) -> f32 {
    let dt = DT_MS / 1000.0;
    let clips = [Some(WALK), Some(RUN), Some(WAVE), None];
    let mut motion = 0.0_f32;
    let mut distance = 0.0_f32;
    let steps = (DURATION / dt) as usize;
    for clip in clips {
        for k in 0..steps {
            let t = k as f32 * dt;
            let here = bones_of(data, clip, t);
            motion = motion.max(max_abs_diff(&here, &bones_of(data, clip, t + dt)));
            for other in clips {
                for j in (0..steps).step_by(7) {
                    let there = bones_of(data, other, j as f32 * dt);
                    distance = distance.max(max_abs_diff(&here, &there));
                }
            }
        }
    }
    assert!(motion > 0.0 && distance > 0.0);
    (motion + distance * dt / fade_s) * 1.1
}

/// Ticks `fader` `frames` times, returning the largest change between consecutive frames'
/// bone matrices (starting from `last`, which is updated).
fn largest_step(fader: &mut CrossFade, frames: usize, last: &mut Vec<f32>) -> f32 {
    let mut sink = RecordingSink::default();
    let mut largest = 0.0_f32;
    for _ in 0..frames {
        fader.tick(DT_MS, &mut sink);
        let now = flat(&sink.bone_matrices.concat()).to_vec();
        if !last.is_empty() {
            largest = largest.max(max_abs_diff(last, &now));
        }
        *last = now;
    }
    largest
}

#[test]
fn a_fade_and_an_interrupting_fade_never_pop() {
    let data = data();
    let fade_s = 0.5;
    let budget = frame_budget(&data, fade_s);
    let mut fader = CrossFade::new(data.clone()).unwrap();
    fader.play(WALK).unwrap();
    let mut last = Vec::new();
    let steady = largest_step(&mut fader, 40, &mut last);
    assert!(steady <= budget);

    fader.fade_to(RUN, fade_s).unwrap();
    let first = largest_step(&mut fader, 1, &mut last);
    assert!(
        first <= budget,
        "first faded frame moved {first}, budget {budget}"
    );
    let middle = largest_step(&mut fader, 14, &mut last);
    assert!(
        middle <= budget,
        "fade moved {middle} in a frame, budget {budget}"
    );
    assert!(fader.is_fading());
    let (target, progress) = fader.fade_progress().unwrap();
    assert_eq!(target, RUN);
    assert!((progress - 0.5).abs() < 1e-3, "progress {progress}");

    // Half-way there, back to the walk: the pose on screen is frozen and faded from.
    fader.fade_to(WALK, fade_s).unwrap();
    let interrupted = largest_step(&mut fader, 1, &mut last);
    assert!(
        interrupted <= budget,
        "interrupting moved {interrupted}, budget {budget}"
    );
    // And interrupt the interruption, to a clip that animates only the hand.
    let more = largest_step(&mut fader, 10, &mut last);
    fader.fade_to(WAVE, fade_s).unwrap();
    let again = largest_step(&mut fader, 40, &mut last);
    assert!(
        more.max(again) <= budget,
        "{more}, {again}; budget {budget}"
    );
    assert!(!fader.is_fading(), "the last fade has ended");
    let on_screen: Vec<f32> = fader
        .blend()
        .layers()
        .iter()
        .map(skel_anim::Layer::effective_weight)
        .collect();
    assert_eq!(on_screen, [0.0, 0.0, 1.0, 0.0], "only the wave is left");
}

#[test]
fn a_pop_is_what_this_measure_catches() {
    // The same interruption done by switching at once is a pop far over the budget: the
    // measure above can fail.
    let data = data();
    let fade_s = 0.5;
    let budget = frame_budget(&data, fade_s);
    let mut fader = CrossFade::new(data).unwrap();
    fader.play(WALK).unwrap();
    let mut last = Vec::new();
    largest_step(&mut fader, 40, &mut last);
    fader.fade_to(RUN, fade_s).unwrap();
    largest_step(&mut fader, 15, &mut last);
    fader.play(WAVE).unwrap();
    let pop = largest_step(&mut fader, 1, &mut last);
    assert!(
        pop > 3.0 * budget,
        "a hard switch moves {pop}, budget {budget}"
    );
}

#[test]
fn fading_in_a_clip_that_animates_more_bones_starts_from_where_they_were() {
    // WAVE moves only the hand; the walk moves every bone. Fading WAVE → WALK must start with
    // the body at rest (where WAVE left it), not jump to the full walk because the walk is the
    // only clip animating the body (normalising weights over the clips present would).
    let data = data();
    let fade_s = 1.0;
    let budget = frame_budget(&data, fade_s);
    let mut fader = CrossFade::new(data).unwrap();
    fader.play(WAVE).unwrap();
    let mut last = Vec::new();
    largest_step(&mut fader, 20, &mut last);
    fader.fade_to(WALK, fade_s).unwrap();
    let step = largest_step(&mut fader, 70, &mut last);
    assert!(step <= budget, "moved {step} in a frame, budget {budget}");
}

#[test]
fn a_finished_fade_is_the_target_clip_exactly() {
    let data = data();
    let mut fader = CrossFade::new(data.clone()).unwrap();
    fader.play(WALK).unwrap();
    let mut sink = RecordingSink::default();
    fader.tick(100.0, &mut sink);
    fader.fade_to(RUN, 0.25).unwrap();
    for _ in 0..20 {
        fader.tick(DT_MS, &mut sink);
    }
    assert!(!fader.is_fading());
    let weights: Vec<f32> = fader
        .blend()
        .layers()
        .iter()
        .map(skel_anim::Layer::effective_weight)
        .collect();
    assert_eq!(weights, [0.0, 1.0, 0.0, 0.0]);
    let t = fader.blend().layers()[RUN].clock().time();
    assert!(
        t > 0.3 && t < 0.4,
        "the run restarted at the fade's start: {t}"
    );
    assert_eq!(
        flat(&sink.bone_matrices.concat()),
        bones_of(&data, Some(RUN), t)
    );
}

#[test]
fn zero_and_bad_durations_switch_at_once_and_bad_clips_are_errors() {
    let data = data();
    let mut fader = CrossFade::new(data.clone()).unwrap();
    for duration in [0.0, -1.0, f32::NAN, f32::INFINITY] {
        fader.play(WALK).unwrap();
        fader.fade_to(RUN, duration).unwrap();
        assert!(!fader.is_fading());
        assert_eq!(fader.blend().layers()[RUN].effective_weight(), 1.0);
        assert_eq!(fader.blend().layers()[WALK].effective_weight(), 0.0);
    }
    assert_eq!(
        fader.fade_to(7, 1.0),
        Err(AnimError::NoSuchClip {
            clip: 7,
            clip_count: 4
        })
    );
    assert!(fader.play(4).is_err());
}

#[test]
fn fades_and_interruptions_allocate_nothing_per_tick() {
    let data = data();
    let mut fader = CrossFade::new(data).unwrap();
    fader.play(WALK).unwrap();
    let mut sink = RecordingSink::default();
    fader.tick(DT_MS, &mut sink);
    let info = allocation_counter::measure(|| {
        fader.fade_to(RUN, 0.5).unwrap();
        for frame in 0..200 {
            fader.tick(DT_MS, &mut sink);
            if frame % 20 == 10 {
                fader
                    .fade_to([WALK, RUN, WAVE][frame / 20 % 3], 0.5)
                    .unwrap();
            }
        }
    });
    assert_eq!(info.count_total, 0, "{info:?}");
}
