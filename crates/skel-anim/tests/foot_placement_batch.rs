//! `FootPlacement::solve_batch` against `solve` on each character: five bipeds (an odd count:
//! the last goes alone) at different phases and places, walking up a 20° slope and up and down
//! stairs for 240 frames, one switched off half-way and back on, planted by hand for a while:
//! every pose, report and foot status the same bits as one `solve` per character. A job
//! whose state belongs to another placement, or whose pose is NaN, gets its own error and
//! keeps its pose while the others are placed; reports of the wrong count are refused; the
//! batch allocates nothing.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

mod foot_placement_biped;

use foot_placement_biped::*;
use skel_anim::glam::{Affine3A, Vec3};
use skel_anim::{
    AnimError, AnimationData, FootBatchJob, FootDesc, FootPlacement, FootPlacementDesc,
    FootPlacementState, FootReport, GroundPlane, GroundQuery, PoseScratch, T_OFF, TRS_STRIDE,
    TriangleGround, apply_clip,
};

const CHARACTERS: usize = 5;

/// A staircase along +z, 0.3 deep, each tread `rise` above the last.
fn stairs(rise: f32) -> TriangleGround {
    let mut triangles = Vec::new();
    for k in -10..40 {
        let (y, z0, z1) = (k as f32 * rise, k as f32 * 0.3, (k + 1) as f32 * 0.3);
        let p = |y: f32, z: f32, x: f32| Vec3::new(x, y, z);
        for (a, b, c, d) in [
            (p(y, z0, -9.0), p(y, z0, 9.0), p(y, z1, 9.0), p(y, z1, -9.0)),
            (
                p(y - rise, z0, -9.0),
                p(y - rise, z0, 9.0),
                p(y, z0, 9.0),
                p(y, z0, -9.0),
            ),
        ] {
            triangles.push([a, b, c]);
            triangles.push([a, c, d]);
        }
    }
    TriangleGround::new(triangles).unwrap()
}

/// Character `i`'s clip pose at `frame` and its place on a slope of `slope` (rise per z).
fn pose_and_root(data: &AnimationData, i: usize, frame: usize, slope: f32) -> (Vec<f32>, Affine3A) {
    let mut scratch = PoseScratch::new(data).unwrap();
    let t = (frame as f64 / 60.0 + 0.17 * i as f64) % CYCLE;
    apply_clip(data, 0, t as f32, &mut scratch);
    let z = (SPEED * frame as f64 / 60.0) as f32 + 0.1 * i as f32;
    let root = Affine3A::from_translation(Vec3::new(0.8 * i as f32 - 1.6, z * slope - 0.06, z));
    (scratch.trs, root)
}

/// What a frame changes, as bits.
fn bits(trs: &[f32], state: &FootPlacementState, report: &Result<FootReport, AnimError>) -> String {
    let pose: Vec<u32> = trs.iter().map(|v| v.to_bits()).collect();
    format!("{pose:?} {:?} {report:?}", state.feet())
}

#[test]
fn a_batch_places_every_character_as_solve_does_bit_for_bit() {
    let data = biped();
    let desc = FootPlacementDesc {
        max_step_down: 0.15,
        ..desc()
    };
    let placement = FootPlacement::new(&data, &desc).unwrap();
    let a = 20_f32.to_radians();
    let slope = GroundPlane::through(Vec3::ZERO, Vec3::new(0.0, a.cos(), -a.sin())).unwrap();
    let (up, down) = (stairs(0.15), stairs(-0.15));
    let cases: [(&str, &dyn GroundQuery, f32); 3] = [
        ("20° uphill", &slope, a.tan()),
        ("stairs up", &up, 0.5),
        ("stairs down", &down, -0.5),
    ];
    for (name, ground, rise) in cases {
        let mut single: Vec<FootPlacementState> = (0..CHARACTERS)
            .map(|_| FootPlacementState::new(&placement))
            .collect();
        let mut batched = single.clone();
        let mut reports: Vec<Result<FootReport, AnimError>> =
            (0..CHARACTERS).map(|_| Ok(FootReport::default())).collect();
        for frame in 0..240 {
            // Character 1 switched off for a while (eased out and in), character 3 planted by
            // hand for a while.
            for states in [&mut single, &mut batched] {
                states[1].set_active(!(80..140).contains(&frame));
                states[3]
                    .set_planted(0, (60..90).contains(&frame).then_some(true))
                    .unwrap();
            }
            let placed: Vec<(Vec<f32>, Affine3A)> = (0..CHARACTERS)
                .map(|i| pose_and_root(&data, i, frame, rise))
                .collect();
            let mut alone: Vec<Vec<f32>> = placed.iter().map(|p| p.0.clone()).collect();
            let mut together = alone.clone();
            let want: Vec<String> = (0..CHARACTERS)
                .map(|i| {
                    let report = placement.solve(
                        &mut single[i],
                        &data,
                        &mut alone[i],
                        &placed[i].1,
                        ground,
                        1.0 / 60.0,
                    );
                    assert!(report.is_ok(), "{name} frame {frame}: {report:?}");
                    bits(&alone[i], &single[i], &report)
                })
                .collect();
            let mut jobs: Vec<FootBatchJob> = batched
                .iter_mut()
                .zip(&mut together)
                .zip(&placed)
                .map(|((state, trs), placed)| FootBatchJob {
                    state,
                    trs,
                    root: placed.1,
                })
                .collect();
            placement
                .solve_batch(&data, &mut jobs, &mut reports, ground, 1.0 / 60.0)
                .unwrap();
            drop(jobs);
            for i in 0..CHARACTERS {
                assert_eq!(
                    bits(&together[i], &batched[i], &reports[i]),
                    want[i],
                    "{name}, frame {frame}, character {i}"
                );
            }
        }
    }
}

#[test]
fn a_failing_job_keeps_its_pose_and_the_others_are_placed() {
    let data = biped();
    let placement = FootPlacement::new(&data, &desc()).unwrap();
    let other = FootPlacement::new(
        &data,
        &FootPlacementDesc::new(PELVIS, vec![FootDesc::new(HIP[0], KNEE[0], ANKLE[0], None)]),
    )
    .unwrap();
    let ground = GroundPlane::new(Vec3::Y, -0.1).unwrap();
    let mut states: Vec<FootPlacementState> = (0..4)
        .map(|_| FootPlacementState::new(&placement))
        .collect();
    states[1] = FootPlacementState::new(&other);
    let (clip, root) = pose_and_root(&data, 0, 10, 0.0);
    let mut poses = vec![clip.clone(); 4];
    poses[2][PELVIS * TRS_STRIDE + T_OFF] = f32::NAN;
    let before = poses.clone();
    let mut reports: Vec<Result<FootReport, AnimError>> =
        (0..4).map(|_| Ok(FootReport::default())).collect();
    let mut jobs: Vec<FootBatchJob> = states
        .iter_mut()
        .zip(&mut poses)
        .map(|(state, trs)| FootBatchJob { state, trs, root })
        .collect();
    // Reports of the wrong count: nothing placed.
    let err = placement.solve_batch(&data, &mut jobs, &mut reports[..3], &ground, 1.0 / 60.0);
    assert!(
        matches!(err, Err(AnimError::LengthMismatch { .. })),
        "{err:?}"
    );
    placement
        .solve_batch(&data, &mut jobs, &mut reports, &ground, 1.0 / 60.0)
        .unwrap();
    drop(jobs);
    assert!(
        matches!(reports[1], Err(AnimError::LengthMismatch { .. })),
        "{:?}",
        reports[1]
    );
    assert!(
        matches!(reports[2], Err(AnimError::NotFiniteValue { .. })),
        "{:?}",
        reports[2]
    );
    for k in [1, 2] {
        let same = poses[k]
            .iter()
            .zip(&before[k])
            .all(|(a, b)| a.to_bits() == b.to_bits());
        assert!(same, "job {k}'s pose changed");
    }
    for k in [0, 3] {
        assert!(reports[k].is_ok(), "{:?}", reports[k]);
        assert_ne!(poses[k], before[k], "job {k} was not placed");
    }
}

#[test]
fn a_batch_allocates_nothing() {
    let data = biped();
    let placement = FootPlacement::new(&data, &desc()).unwrap();
    let ground = stairs(0.1);
    let mut states: Vec<FootPlacementState> = (0..3)
        .map(|_| FootPlacementState::new(&placement))
        .collect();
    let (clip, root) = pose_and_root(&data, 0, 0, 0.3);
    let mut poses = vec![clip.clone(); 3];
    let mut reports: Vec<Result<FootReport, AnimError>> =
        (0..3).map(|_| Ok(FootReport::default())).collect();
    let mut jobs: Vec<FootBatchJob> = states
        .iter_mut()
        .zip(&mut poses)
        .map(|(state, trs)| FootBatchJob { state, trs, root })
        .collect();
    let info = allocation_counter::measure(|| {
        for _ in 0..100 {
            for job in &mut jobs {
                job.trs.copy_from_slice(&clip);
            }
            placement
                .solve_batch(&data, &mut jobs, &mut reports, &ground, 1.0 / 60.0)
                .unwrap();
        }
    });
    assert_eq!(info.count_total, 0);
    assert!(reports.iter().all(Result::is_ok));
}
