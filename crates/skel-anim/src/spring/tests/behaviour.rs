//! What the module promises: rate independence, hitches, center space, host loops,
//! teleports, the profiles' defaults and lengths, bad input.

use glam::{Affine3A, Vec3, Vec3A};

use super::{SWINGY, root_at, run, run_along, tail};
use crate::spring::*;

/// Runs `seconds` of display time at `hz` (each frame's pose: rest under `root_at` of the
/// step's instant); returns the state.
fn at_rate(hz: f32, seconds: f32, options: SpringOptions) -> SpringState {
    let (nodes, desc) = tail(4, SWINGY);
    let springs = SpringBones::new(&desc, &nodes, options).unwrap();
    let mut state = springs.new_state();
    let rest = springs.rest_trs();
    let mut pose = rest.clone();
    let frames = (seconds * hz).round() as u32;
    for _ in 0..frames {
        springs.advance(&mut state, &mut pose, 1.0 / hz, |instant, trs| {
            trs.copy_from_slice(&rest);
            root_at((instant * 60.0).round() as u32)
        });
    }
    state
}

#[test]
fn every_display_rate_runs_the_same_steps() {
    let want = at_rate(60.0, 2.0, SpringOptions::default());
    for hz in [24.0, 30.0, 90.0, 120.0, 144.0, 240.0] {
        let got = at_rate(hz, 2.0, SpringOptions::default());
        assert_eq!(got.steps, 120, "{hz} Hz");
        for j in 0..4 {
            assert_eq!(got.tail(j), want.tail(j), "{hz} Hz, joint {j}");
        }
    }
    // Stepped at the display rate instead, 30 Hz and 144 Hz disagree: the check can fail.
    let display = |hz: f32| {
        let options = SpringOptions {
            step: 1.0 / hz,
            ..SpringOptions::default()
        };
        at_rate(hz, 2.0, options).tail(3).unwrap()
    };
    assert!((display(30.0) - display(144.0)).length() > 1e-3);
}

#[test]
fn a_hitch_runs_at_most_the_configured_steps() {
    let (nodes, desc) = tail(2, SWINGY);
    let options = SpringOptions {
        max_steps: 3,
        ..SpringOptions::default()
    };
    let springs = SpringBones::new(&desc, &nodes, options).unwrap();
    let mut state = springs.new_state();
    let rest = springs.rest_trs();
    let mut pose = rest.clone();
    let pose_at = |_: f64, trs: &mut [f32]| {
        trs.copy_from_slice(&rest);
        Affine3A::IDENTITY
    };
    assert_eq!(springs.advance(&mut state, &mut pose, 1.0, pose_at), 3);
    // The time past the limit is dropped, the phase kept: the next frame runs one step.
    assert_eq!(
        springs.advance(&mut state, &mut pose, 1.0 / 60.0, pose_at),
        1
    );
    assert_eq!(state.steps, 61);
}

#[test]
fn a_center_carries_the_chain_with_it() {
    // The same motion of the root, with the root as the spring's center: the tails move with
    // it, so the chain hangs as if the root stood still.
    let (nodes, mut desc) = tail(3, SWINGY);
    let still = run_along(&nodes, &desc, SpringOptions::default(), 60, |_| {
        Affine3A::IDENTITY
    });
    desc.springs[0].center = Some(0);
    let moved = |k: u32| Affine3A::from_translation(Vec3::new(0.2 * k as f32, 0.0, 0.0));
    let state = run_along(&nodes, &desc, SpringOptions::default(), 60, moved);
    for node in 1..5 {
        let a = still.world(node).unwrap().translation;
        let b = state.world(node).unwrap().translation - Vec3A::new(12.0, 0.0, 0.0);
        assert!((a - b).length() < 1e-4, "node {node}: {a} vs {b}");
    }
    // Without the center the same motion drags the chain behind the root.
    desc.springs[0].center = None;
    let state = run_along(&nodes, &desc, SpringOptions::default(), 60, moved);
    let a = still.world(4).unwrap().translation;
    let b = state.world(4).unwrap().translation - Vec3A::new(12.0, 0.0, 0.0);
    assert!((a - b).length() > 0.01, "{a} vs {b}");
}

#[test]
fn the_host_loops_differ_only_while_the_character_moves() {
    let (nodes, desc) = tail(3, SWINGY);
    let previous = SpringOptions {
        host_loop: HostLoop::PreviousChild,
        ..SpringOptions::default()
    };
    let a = run(&nodes, &desc, SpringOptions::default(), 60);
    let b = run(&nodes, &desc, previous, 60);
    let gap = (a.world(4).unwrap().translation - b.world(4).unwrap().translation).length();
    assert!(gap > 1e-4, "{gap}");
    // Standing still, both measure the same lengths.
    let still = |options| {
        let state = run_along(&nodes, &desc, options, 60, |_| Affine3A::IDENTITY);
        state.world(4).unwrap().translation
    };
    assert!((still(SpringOptions::default()) - still(previous)).length() < 1e-6);
}

#[test]
fn bad_input_is_an_error_or_finite() {
    let (nodes, desc) = tail(2, SWINGY);
    let mut bad = desc.clone();
    bad.springs[0].joints[0].node = 99;
    assert!(matches!(
        SpringBones::new(&bad, &nodes, SpringOptions::default()),
        Err(crate::AnimError::BadSpring { .. })
    ));
    let mut bad = desc.clone();
    bad.springs[0].joints[1].child = Some(0);
    assert!(SpringBones::new(&bad, &nodes, SpringOptions::default()).is_err());
    let mut bad = desc.clone();
    bad.springs[0].joints[0].drag_force = Some(f32::NAN);
    assert!(SpringBones::new(&bad, &nodes, SpringOptions::default()).is_err());
    let mut bad = desc.clone();
    bad.springs[0].collider_groups = vec![3];
    assert!(SpringBones::new(&bad, &nodes, SpringOptions::default()).is_err());
    // Zero-length bones, a sphere on the tail's path centred on the bone, dt of 0, 1 s and NaN.
    let mut squashed = nodes.clone();
    squashed[2].translation = [0.0; 3];
    let mut desc = desc;
    desc.colliders = vec![ColliderDesc {
        node: 1,
        shape: ColliderShape::Sphere {
            offset: Vec3::ZERO,
            radius: 0.3,
            inside: false,
        },
    }];
    desc.collider_groups = vec![vec![0]];
    desc.springs[0].collider_groups = vec![0];
    let springs = SpringBones::new(&desc, &squashed, SpringOptions::default()).unwrap();
    let mut state = springs.new_state();
    let mut pose = springs.rest_trs();
    for dt in [0.0, 1.0, f32::NAN, 1.0 / 60.0] {
        springs.step(&mut state, &mut pose, Affine3A::IDENTITY, dt);
        assert!(pose.iter().all(|x| x.is_finite()), "dt {dt}");
        assert!(
            (0..4).all(|i| state.world(i).unwrap().is_finite()),
            "dt {dt}"
        );
    }
}

/// The tip's direction from the first joint, after 30 steps of a root that stands still, jumps
/// 10 m along +x at step 10 (and stays), for `options`; the jump taken out.
fn after_jump(options: SpringOptions) -> Vec3A {
    let (nodes, desc) = tail(3, SWINGY);
    let springs = SpringBones::new(&desc, &nodes, options).unwrap();
    let mut state = springs.new_state();
    let rest = springs.rest_trs();
    let at =
        |k: u32| Affine3A::from_translation(Vec3::new(if k >= 10 { 10.0 } else { 0.0 }, 0.0, 0.0));
    springs.reset(&mut state, &rest, at(0));
    for k in 1..=30 {
        springs.step(&mut state, &mut rest.clone(), at(k), 1.0 / 60.0);
    }
    (state.world(4).unwrap().translation - state.world(1).unwrap().translation).normalize()
}

#[test]
fn a_teleport_moves_the_chains_with_the_root() {
    let still = {
        let (nodes, desc) = tail(3, SWINGY);
        let state = {
            let springs = SpringBones::new(&desc, &nodes, SpringOptions::default()).unwrap();
            let mut state = springs.new_state();
            let rest = springs.rest_trs();
            springs.reset(&mut state, &rest, Affine3A::IDENTITY);
            for _ in 1..=30 {
                springs.step(
                    &mut state,
                    &mut rest.clone(),
                    Affine3A::IDENTITY,
                    1.0 / 60.0,
                );
            }
            state
        };
        (state.world(4).unwrap().translation - state.world(1).unwrap().translation).normalize()
    };
    let degrees = |a: Vec3A, b: Vec3A| a.dot(b).clamp(-1.0, 1.0).acos().to_degrees();
    let carried = after_jump(SpringOptions::default());
    assert!(
        degrees(carried, still) < 1.0,
        "{}°",
        degrees(carried, still)
    );
    // Without the thresholds the jump swings the tail: the check can fail.
    let swung = after_jump(SpringOptions {
        teleport_distance: f32::INFINITY,
        ..SpringOptions::default()
    });
    assert!(degrees(swung, still) > 5.0, "{}°", degrees(swung, still));
}

#[test]
fn each_profile_fills_in_its_own_drag() {
    // A tail with no drag given: three-vrm's 0.4, UniVRM's 0.5.
    let (nodes, desc) = tail(3, SWINGY);
    let with_drag = |drag: Option<f32>, profile| {
        let mut d = desc.clone();
        for j in &mut d.springs[0].joints {
            j.drag_force = drag;
        }
        let options = SpringOptions {
            profile,
            ..SpringOptions::default()
        };
        run(&nodes, &d, options, 60).world(4).unwrap().translation
    };
    for (profile, default) in [(SpringProfile::ThreeVrm, 0.4), (SpringProfile::UniVrm, 0.5)] {
        assert_eq!(
            with_drag(None, profile),
            with_drag(Some(default), profile),
            "{profile:?}"
        );
        assert_ne!(
            with_drag(None, profile),
            with_drag(Some(0.45), profile),
            "{profile:?}"
        );
    }
}

#[test]
fn univrm_keeps_each_bone_at_its_rest_length() {
    // Under a root scaled 2, UniVRM's lengths are fixed at rest (scale included); three-vrm
    // measures them every step: both keep the chain's shape, and the bones' lengths agree.
    let (mut nodes, desc) = tail(3, SWINGY);
    nodes[0].scale = [2.0; 3];
    for profile in [SpringProfile::ThreeVrm, SpringProfile::UniVrm] {
        let options = SpringOptions {
            profile,
            ..SpringOptions::default()
        };
        let state = run(&nodes, &desc, options, 60);
        for node in 1..4 {
            let a = state.world(node).unwrap().translation;
            let b = state.world(node + 1).unwrap().translation;
            let length = (b - a).length();
            let want = 0.2;
            assert!(
                (length - want).abs() < 1e-4,
                "{profile:?} bone {node}: {length}"
            );
        }
    }
}
