//! Cross-fade continuity on a real asset: the Fox (`../shared/assets/Fox`, clips Survey, Walk
//! and Run). Fading Survey → Walk and interrupting half-way with a fade to Run never changes the
//! bone matrices between two frames by more than the clips themselves move in one frame plus
//! the share of the pose difference one frame of the fade covers; a hard switch does.
//! (The skel-anim crate tests the same on a generated rig; this is the real-data check.)

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use std::sync::Arc;

use skel_anim::{AnimationController, AnimationData, CrossFade, RecordingSink};
use skel_gltf::{LoadOptions, load_path};

const DT_MS: f32 = 1000.0 / 60.0;

fn fox() -> Option<Arc<AnimationData>> {
    let path = skel_test_support::shared_asset("crossfade_fox", "Fox/Fox.glb")?;
    let opts = LoadOptions {
        decode_images: false,
        ..LoadOptions::default()
    };
    Some(Arc::new(load_path(&path, &opts).unwrap().animation))
}

fn max_abs_diff(a: &[f32], b: &[f32]) -> f32 {
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f32::max)
}

/// Per-frame motion of every clip, and the largest distance between poses of any two clips,
/// sampled every frame (distance: every 5th frame of the other clip).
fn motion_and_distance(data: &Arc<AnimationData>, clips: &[usize]) -> (f32, f32) {
    let mut controller = AnimationController::new(data.clone()).unwrap();
    let dt = DT_MS / 1000.0;
    let mut poses: Vec<Vec<Vec<f32>>> = Vec::new();
    for &clip in clips {
        let frames = (data.clips[clip].duration() / dt) as usize + 2;
        poses.push(
            (0..frames)
                .map(|k| {
                    let mut sink = RecordingSink::default();
                    controller
                        .evaluate_at(Some(clip), k as f32 * dt, &mut sink)
                        .unwrap();
                    bytemuck::cast_slice(&sink.bone_matrices.concat()).to_vec()
                })
                .collect(),
        );
    }
    let motion = poses
        .iter()
        .flat_map(|p| p.windows(2).map(|w| max_abs_diff(&w[0], &w[1])))
        .fold(0.0, f32::max);
    let mut distance = 0.0_f32;
    for a in &poses {
        for b in &poses {
            for x in a {
                for y in b.iter().step_by(5) {
                    distance = distance.max(max_abs_diff(x, y));
                }
            }
        }
    }
    (motion, distance)
}

fn step(fader: &mut CrossFade, frames: usize, last: &mut Vec<f32>) -> f32 {
    let mut sink = RecordingSink::default();
    let mut largest = 0.0_f32;
    for _ in 0..frames {
        fader.tick(DT_MS, &mut sink);
        let now = bytemuck::cast_slice(&sink.bone_matrices.concat()).to_vec();
        if !last.is_empty() {
            largest = largest.max(max_abs_diff(last, &now));
        }
        *last = now;
    }
    largest
}

#[test]
fn fox_cross_fades_are_continuous() {
    let Some(data) = fox() else {
        return;
    };
    let clip = |name: &str| data.clip_index(name).unwrap();
    let (survey, walk, run) = (clip("Survey"), clip("Walk"), clip("Run"));
    let fade_s = 0.4;
    let (motion, distance) = motion_and_distance(&data, &[survey, walk, run]);
    // What one frame may move: the clips' own motion plus the fade's share of the difference
    // between poses, with 10 % for the non-linear blend and hierarchy.
    let budget = (motion + distance * (DT_MS / 1000.0) / fade_s) * 1.1;

    let mut fader = CrossFade::new(data.clone()).unwrap();
    fader.play(survey).unwrap();
    let mut last = Vec::new();
    step(&mut fader, 30, &mut last);
    fader.fade_to(walk, fade_s).unwrap();
    let fading = step(&mut fader, 7, &mut last);
    let just_before = step(&mut fader, 5, &mut last);
    fader.fade_to(run, fade_s).unwrap();
    let interrupted = step(&mut fader, 1, &mut last);
    let rest = step(&mut fader, 40, &mut last);
    // Sharper at the interruption: no more than the motion of the frames just before it plus
    // one frame of the new fade.
    let local = (just_before + distance * (DT_MS / 1000.0) / fade_s) * 1.1;
    let fading = fading.max(just_before);
    eprintln!(
        "Fox: clip motion {motion:.3}/frame, pose distance {distance:.3}, budget {budget:.3}; \
         largest step fading {fading:.3}, at the interruption {interrupted:.3} (local budget \
         {local:.3}), after {rest:.3}"
    );
    assert!(fading <= budget, "fading moved {fading} (budget {budget})");
    assert!(
        interrupted <= local,
        "interrupting moved {interrupted} (local budget {local})"
    );
    assert!(
        rest <= budget,
        "after the interruption {rest} (budget {budget})"
    );
    assert!(!fader.is_fading());

    // The measure can fail: switching at once mid-fade is a pop over the budget.
    fader.fade_to(survey, fade_s).unwrap();
    step(&mut fader, 10, &mut last);
    fader.play(walk).unwrap();
    let pop = step(&mut fader, 1, &mut last);
    eprintln!("Fox: a hard switch mid-fade moves {pop:.3}");
    assert!(
        pop > budget,
        "a hard switch moved only {pop} (budget {budget})"
    );
}
