//! Property: the world and bone matrices that `tick` produces equal a recursive f64 reference
//! (`world(n) = world(parent) · local(n)`, samplers evaluated by an independent f64
//! implementation of glTF 2.0's interpolation) on random hierarchies stored in random order,
//! with random rest poses, random clips (random TRS keys and interpolations) and a random
//! handedness.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

mod common;

use std::sync::Arc;

use common::{M64, bones_f64, max_diff, pose_f64, world_f64};
use proptest::prelude::*;
use skel_anim::{AnimationController, AnimationData, RecordingSink};

/// Tolerance relative to the size of the matrix: chains of f32 products lose a few ulps a level.
fn tolerance(want: &M64) -> f64 {
    2e-4 * (1.0 + want.iter().fold(0.0_f64, |m, v| m.max(v.abs())))
}

fn check_against_reference(
    c: &mut AnimationController,
    data: &AnimationData,
    sink: &RecordingSink,
) -> Result<(), TestCaseError> {
    let (trs, _) = pose_f64(data, c.clip(), c.time);
    let world = world_f64(data, &trs);
    for (node, want) in world.iter().enumerate() {
        let time = c.time;
        let got = &c.world_matrices()[node];
        let d = max_diff(got, want);
        prop_assert!(
            d <= tolerance(want),
            "node {} at t = {}: world differs by {}\n got  {:?}\n want {:?}",
            node,
            time,
            d,
            got,
            want
        );
    }
    for (b, bones) in bones_f64(data, &world).iter().enumerate() {
        for (i, want) in bones.iter().enumerate() {
            let got = &sink.bone_matrices[b][i];
            // The inverse of the mesh world amplifies rounding by its condition number.
            let d = max_diff(got, want);
            prop_assert!(
                d <= 10.0 * tolerance(want),
                "binding {} bone {} at t = {}: differs by {}",
                b,
                i,
                c.time,
                d
            );
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn tick_matches_the_recursive_f64_reference(
        data in common::arb_animated_rig(16, 12),
        start in -0.5_f32..5.0,
        steps in prop::collection::vec(-400.0_f32..900.0, 1..4),
        looping in any::<bool>(),
        speed in prop_oneof![Just(1.0_f32), -2.0_f32..2.0],
    ) {
        let mut c = AnimationController::new(Arc::new(data.clone())).unwrap();
        c.set_clip(Some(0)).unwrap();
        c.looping = looping;
        c.speed_ratio = speed;
        // A paused clock poses at any time at all, also before the first key and past the end.
        c.playing = false;
        c.time = start;
        let mut sink = RecordingSink::default();
        c.tick(16.0, &mut sink);
        prop_assert_eq!(c.time, start);
        check_against_reference(&mut c, &data, &sink)?;
        // A playing clock: the reference is evaluated at whatever time the clock reached.
        c.playing = true;
        for delta in steps {
            c.tick(delta, &mut sink);
            let d = c.duration();
            prop_assert!((0.0..=d).contains(&c.time), "time {} outside [0, {}]", c.time, d);
            check_against_reference(&mut c, &data, &sink)?;
        }
    }

    #[test]
    fn the_rest_pose_matches_the_recursive_f64_reference(data in common::arb_animated_rig(24, 0)) {
        let mut c = AnimationController::new(Arc::new(data.clone())).unwrap();
        let mut sink = RecordingSink::default();
        c.tick(16.0, &mut sink);
        check_against_reference(&mut c, &data, &sink)?;
    }
}
