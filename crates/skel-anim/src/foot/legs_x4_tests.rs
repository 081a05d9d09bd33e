//! The four-lane leg solve against the scalar one (`leg::solve_leg`, the f32 two-bone path and
//! the ankle's turn): random legs (bent hips, knees and ankles with scale, targets near and out
//! of reach, turned soles, with and without a rest hinge), four at a time and fewer. Every leg
//! the lanes take gets the scalar path's corrections within f32 rounding of the chain; a lane
//! may refuse only what the scalar f32 path would not take either.

#![allow(clippy::unwrap_used, reason = "tests")]

use glam::{Affine3A, Quat, Vec3, Vec3A};
use proptest::prelude::*;

use super::leg::solve_leg;
use super::legs_x4::{LegLane, solve_legs};
use super::placement::Leg;
use super::state::LegWork;

/// A leg from its hip's frame, the two bones' lengths and bends, the ankle's frame, the
/// target's offset from the ankle and the sole's turn.
#[derive(Debug, Clone)]
struct RandomLeg {
    hip: Affine3A,
    thigh: f32,
    shin: f32,
    knee_bend: f32,
    knee_twist: f32,
    ankle_turn: Quat,
    target_offset: Vec3,
    align: Quat,
    hinge: bool,
}

fn turn() -> impl Strategy<Value = Quat> {
    (
        prop::array::uniform3(-1.0_f32..1.0),
        -std::f32::consts::PI..std::f32::consts::PI,
    )
        .prop_filter_map("an axis", |(axis, angle)| {
            Vec3::from(axis)
                .try_normalize()
                .map(|a| Quat::from_axis_angle(a, angle))
        })
}

fn random_leg() -> impl Strategy<Value = RandomLeg> {
    (
        (turn(), 0.5_f32..2.0, prop::array::uniform3(-3.0_f32..3.0)),
        (0.2_f32..0.6, 0.2_f32..0.6, 0.1_f32..2.6, -0.5_f32..0.5),
        turn(),
        prop::array::uniform3(-0.4_f32..0.4),
        (turn(), any::<bool>()),
    )
        .prop_map(
            |((r, s, t), (thigh, shin, knee_bend, knee_twist), ankle_turn, off, (align, hinge))| {
                RandomLeg {
                    hip: Affine3A::from_scale_rotation_translation(Vec3::splat(s), r, t.into()),
                    thigh,
                    shin,
                    knee_bend,
                    knee_twist,
                    ankle_turn,
                    target_offset: off.into(),
                    align: Quat::IDENTITY.slerp(align, 0.2),
                    hinge,
                }
            },
        )
}

/// The leg's joints and work (its knee bent about its local x).
fn build(leg: &RandomLeg) -> (Leg, LegWork) {
    let knee_local = Affine3A::from_rotation_translation(
        Quat::from_rotation_x(leg.knee_bend) * Quat::from_rotation_y(leg.knee_twist),
        Vec3::new(0.0, -leg.thigh, 0.0),
    );
    let ankle_local =
        Affine3A::from_rotation_translation(leg.ankle_turn, Vec3::new(0.0, -leg.shin, 0.0));
    let knee = leg.hip * knee_local;
    let ankle = knee * ankle_local;
    let work = LegWork {
        hip: leg.hip,
        knee,
        ankle,
        knee_local,
        ankle_local,
        target: ankle.translation + Vec3A::from(leg.target_offset),
        align: leg.align,
        hip_fix: Quat::IDENTITY,
        knee_fix: Quat::IDENTITY,
        ankle_fix: Quat::IDENTITY,
    };
    let joints = Leg {
        hip: 0,
        knee: 1,
        ankle: 2,
        toe: None,
        ankle_height: 0.0,
        toe_height: 0.0,
        bend_axis: leg.hinge.then_some(Vec3::X),
        under_pelvis: true,
    };
    (joints, work)
}

/// The same rotation (either sign) within `tolerance`.
fn same(a: Quat, b: Quat, tolerance: f32) -> bool {
    a.dot(b).abs() > 1.0 - tolerance
}

proptest! {
    #[test]
    fn lanes_solve_legs_as_the_scalar_path(
        legs in prop::collection::vec(random_leg(), 1..=4),
        shift in prop::array::uniform3(-0.3_f32..0.3),
    ) {
        let built: Vec<(Leg, LegWork)> = legs.iter().map(build).collect();
        let joints: Vec<Leg> = built.iter().map(|b| b.0).collect();
        let work: Vec<LegWork> = built.iter().map(|b| b.1).collect();
        let shift = Vec3::from(shift);
        // Legs in the first lanes, or spread with gaps (as a batch fills them).
        let spread = legs.len() < 4 && legs.len() % 2 == 0;
        let slot = |i: usize| if spread { 2 * i + 1 } else { i };
        let mut input: [Option<LegLane<'_>>; 4] = [None; 4];
        for i in 0..legs.len() {
            input[slot(i)] = Some(LegLane { leg: &joints[i], work: &work[i], shift: shift.into() });
        }
        let answers = solve_legs(&input);
        let mut lanes = [None; 4];
        for i in 0..legs.len() {
            lanes[i] = answers[slot(i)];
        }
        for (k, answer) in answers.iter().enumerate() {
            prop_assert!(input[k].is_some() || answer.is_none(), "empty lane {k} answered");
        }
        for (i, lane) in lanes.iter().enumerate() {
            if i >= legs.len() {
                continue;
            }
            let Some((hip_fix, knee_fix, ankle_fix, reached)) = *lane else {
                continue;
            };
            let mut scalar = work[i];
            let scalar_reached = solve_leg(&joints[i], &mut scalar, shift).unwrap();
            // 1 - cos(θ/2) for θ of about 2e-3 rad: f32 rounding over a chain bent by the
            // lanes' least sine (1e-2), as the two-bone f32 path's own tests allow.
            let tolerance = 1e-6;
            prop_assert!(same(hip_fix, scalar.hip_fix, tolerance), "leg {i} hip {hip_fix} vs {}", scalar.hip_fix);
            prop_assert!(same(knee_fix, scalar.knee_fix, tolerance), "leg {i} knee {knee_fix} vs {}", scalar.knee_fix);
            prop_assert!(same(ankle_fix, scalar.ankle_fix, tolerance), "leg {i} ankle {ankle_fix} vs {}", scalar.ankle_fix);
            // Reach is decided on the same distance, rounded differently: only a target on
            // the reach's edge may be judged otherwise.
            if reached != scalar_reached {
                let hip = work[i].hip.translation + Vec3A::from(shift);
                let d = (work[i].target - hip).length() / work[i].hip.matrix3.x_axis.length();
                let edge = (d - (legs[i].thigh + legs[i].shin)).abs().min((d - (legs[i].thigh - legs[i].shin).abs()).abs());
                prop_assert!(edge < 1e-4, "leg {i}: reached {reached} vs {scalar_reached}, {edge} from the edge");
            }
        }
    }
}

#[test]
fn well_bent_legs_take_every_lane() {
    let leg = |k: usize| RandomLeg {
        hip: Affine3A::from_translation(Vec3::new(0.2 * k as f32, 1.0, 0.0)),
        thigh: 0.45,
        shin: 0.42,
        knee_bend: 0.6 + 0.1 * k as f32,
        knee_twist: 0.0,
        ankle_turn: Quat::from_rotation_x(-0.3),
        target_offset: Vec3::new(0.0, 0.05, 0.02),
        align: Quat::from_rotation_z(0.1),
        hinge: k.is_multiple_of(2),
    };
    let built: Vec<(Leg, LegWork)> = (0..4).map(|k| build(&leg(k))).collect();
    let joints: Vec<Leg> = built.iter().map(|b| b.0).collect();
    let work: Vec<LegWork> = built.iter().map(|b| b.1).collect();
    let lane = |k: usize, shift: Vec3A| {
        Some(LegLane {
            leg: &joints[k],
            work: &work[k],
            shift,
        })
    };
    let down = Vec3A::new(0.0, -0.02, 0.0);
    let lanes = solve_legs(&[
        lane(0, down),
        lane(1, down),
        lane(2, Vec3A::ZERO),
        lane(3, down),
    ]);
    assert!(lanes.iter().all(Option::is_some), "{lanes:?}");
    let two = solve_legs(&[None, lane(1, down), None, lane(3, Vec3A::ZERO)]);
    assert!(two[0].is_none() && two[1].is_some() && two[2].is_none() && two[3].is_some());
    assert!(solve_legs(&[None; 4]).iter().all(Option::is_none));
}
