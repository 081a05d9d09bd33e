//! Full-body IK on a hand-made body (pelvis, two spine joints, arms, legs, neck and head),
//! checked in f64 from the f32 TRS buffer the solution is applied to: feet below the legs'
//! reach pull the pelvis down and land, hands out of reach bend the spine towards them, the
//! pelvis never moves past its limit nor a spine joint past its angle, bone lengths are kept,
//! effectors of weight 0 change nothing; random goals by proptest.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use glam::{Affine3A, DAffine3, Quat, Vec3};
use proptest::prelude::*;
use skel_anim::ik::{BodyJoints, Effector, FullBodyIk, JointShare};
use skel_anim::{NodeRest, R_OFF, S_OFF, T_OFF, TRS_STRIDE};

/// (parent, local translation) of 0 pelvis, 1-2 spine, 3-5 left arm, 6-8 right arm,
/// 9-11 left leg, 12-14 right leg, 15 neck, 16 head.
const BODY: [(Option<usize>, [f32; 3]); 17] = [
    (None, [0.0, 1.0, 0.0]),
    (Some(0), [0.0, 0.2, 0.0]),
    (Some(1), [0.0, 0.25, 0.0]),
    (Some(2), [0.2, 0.1, 0.0]),
    (Some(3), [0.0, -0.28, -0.02]),
    (Some(4), [0.0, -0.25, 0.02]),
    (Some(2), [-0.2, 0.1, 0.0]),
    (Some(6), [0.0, -0.28, -0.02]),
    (Some(7), [0.0, -0.25, 0.02]),
    (Some(0), [0.1, -0.05, 0.0]),
    (Some(9), [0.0, -0.45, 0.02]),
    (Some(10), [0.0, -0.45, -0.02]),
    (Some(0), [-0.1, -0.05, 0.0]),
    (Some(12), [0.0, -0.45, 0.02]),
    (Some(13), [0.0, -0.45, -0.02]),
    (Some(2), [0.0, 0.15, 0.0]),
    (Some(15), [0.0, 0.12, 0.0]),
];

const JOINTS: BodyJoints = BodyJoints {
    pelvis: 0,
    spine: [1, 2, 0, 0],
    spine_count: 2,
    limbs: [
        Some([3, 4, 5]),
        Some([6, 7, 8]),
        Some([9, 10, 11]),
        Some([12, 13, 14]),
    ],
    neck: Some([15, 16]),
};

fn rest() -> Vec<f32> {
    let mut trs = vec![0.0; BODY.len() * TRS_STRIDE];
    for (n, (_, t)) in BODY.iter().enumerate() {
        let rec = &mut trs[n * TRS_STRIDE..(n + 1) * TRS_STRIDE];
        rec[T_OFF..T_OFF + 3].copy_from_slice(t);
        rec[R_OFF + 3] = 1.0;
        rec[S_OFF..S_OFF + 3].fill(1.0);
    }
    trs
}

/// World matrices in f32 (what the solver reads) and in f64 (the reference).
fn world(trs: &[f32]) -> (Vec<Affine3A>, Vec<DAffine3>) {
    let (mut f, mut d): (Vec<Affine3A>, Vec<DAffine3>) = (Vec::new(), Vec::new());
    for (n, (parent, _)) in BODY.iter().enumerate() {
        let rec = &trs[n * TRS_STRIDE..(n + 1) * TRS_STRIDE];
        let (t, r) = (
            Vec3::from_slice(&rec[T_OFF..]),
            Quat::from_slice(&rec[R_OFF..]),
        );
        let lf = Affine3A::from_rotation_translation(r, t);
        let ld = DAffine3::from_rotation_translation(r.as_dquat().normalize(), t.as_dvec3());
        f.push(parent.map_or(lf, |p| f[p] * lf));
        d.push(parent.map_or(ld, |p| d[p] * ld));
    }
    (f, d)
}

fn solve(ik: &FullBodyIk) -> (Vec<f32>, Vec<DAffine3>, skel_anim::ik::BodySolution) {
    let mut trs = rest();
    let (models, _) = world(&trs);
    let pose = JOINTS.pose(|n| Ok(models[n])).unwrap();
    let s = ik.solve(&pose).unwrap();
    s.apply(&mut trs, &JOINTS).unwrap();
    let (_, after) = world(&trs);
    (trs, after, s)
}

fn lengths_kept(after: &[DAffine3]) {
    let (_, before) = world(&rest());
    for (n, (parent, _)) in BODY.iter().enumerate().skip(1) {
        let p = parent.unwrap();
        let was = (before[n].translation - before[p].translation).length();
        let now = (after[n].translation - after[p].translation).length();
        assert!(
            (now - was).abs() <= 1e-5 * was,
            "bone {p} → {n}: {now} for {was}"
        );
    }
}

#[test]
fn feet_below_reach_pull_the_pelvis_down_and_land() {
    let mut ik = FullBodyIk::default();
    for (e, x) in [(Effector::LeftFoot, 0.1), (Effector::RightFoot, -0.1)] {
        let goal = ik.goal_mut(e);
        goal.target = Vec3::new(x, -0.15, 0.05);
        goal.weight = 1.0;
    }
    let (_, after, s) = solve(&ik);
    assert!(s.reached[Effector::LeftFoot as usize] && s.reached[Effector::RightFoot as usize]);
    for (e, ankle) in [(Effector::LeftFoot, 11), (Effector::RightFoot, 14)] {
        let miss = (after[ankle].translation - ik.goals[e as usize].target.as_dvec3()).length();
        assert!(miss <= 1e-4, "{e:?} misses by {miss}");
    }
    assert!(after[0].translation.y < 1.0 - 0.1, "the pelvis came down");
    lengths_kept(&after);
}

#[test]
fn a_hand_out_of_reach_bends_the_spine_towards_it() {
    let mut ik = FullBodyIk {
        max_pelvis_offset: 0.0,
        ..FullBodyIk::default()
    };
    let goal = ik.goal_mut(Effector::RightHand);
    goal.target = Vec3::new(-1.0, 1.2, 0.6);
    goal.weight = 1.0;
    let target = goal.target.as_dvec3();
    let stiff = FullBodyIk {
        spine: [JointShare {
            weight: 1.0,
            max_angle: 0.0,
        }; 4],
        ..ik
    };
    let (_, bent, s) = solve(&ik);
    let (_, straight, _) = solve(&stiff);
    let miss_bent = (bent[8].translation - target).length();
    let miss_straight = (straight[8].translation - target).length();
    assert!(
        miss_bent < miss_straight - 0.05,
        "{miss_bent} vs {miss_straight}"
    );
    for q in &s.spine[..2] {
        let angle = 2.0 * q.w.abs().min(1.0).acos();
        assert!(angle > 0.01 && angle <= 0.5 + 1e-5, "spine turned {angle}");
    }
    assert!((bent[0].translation - straight[0].translation).length() < 1e-9);
    lengths_kept(&bent);
}

#[test]
fn effectors_of_weight_zero_change_nothing() {
    let mut ik = FullBodyIk::default();
    ik.goal_mut(Effector::Head).target = Vec3::new(3.0, 0.0, 0.0);
    let (trs, _, s) = solve(&ik);
    assert_eq!(trs, rest());
    assert_eq!(s.reached, [false; 5]);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    /// Random goals for any subset of effectors: the pelvis moves at most its limit, no spine
    /// joint turns past its angle, bone lengths are kept, and every effector reported reached
    /// is on its target (1e-4; the head within its bone's sphere, on the line to the target).
    #[test]
    fn random_goals_keep_the_rules(targets in prop::collection::vec(prop::array::uniform3(-1.5..1.5f32), 5),
                                   weights in prop::collection::vec(prop::option::of(0.0..1.0f32), 5),
                                   max_offset in 0.0..0.6f32, max_angle in 0.0..1.0f32) {
        let mut ik = FullBodyIk { max_pelvis_offset: max_offset, ..FullBodyIk::default() };
        ik.spine = [JointShare { weight: 1.0, max_angle }; 4];
        for e in Effector::ALL {
            let goal = ik.goal_mut(e);
            goal.target = Vec3::from_array(targets[e as usize]) + Vec3::Y;
            goal.weight = weights[e as usize].map_or(0.0, |w| if w > 0.5 { 1.0 } else { w });
        }
        let (_, after, s) = solve(&ik);
        let moved = (after[0].translation - glam::DVec3::new(0.0, 1.0, 0.0)).length();
        prop_assert!(moved <= f64::from(max_offset) + 1e-5, "pelvis moved {moved}");
        for q in &s.spine[..2] {
            let angle = 2.0 * q.as_dquat().normalize().w.abs().min(1.0).acos();
            prop_assert!(angle <= f64::from(max_angle) + 1e-4, "spine turned {angle}");
        }
        lengths_kept(&after);
        for (e, end) in [(0, 5), (1, 8), (2, 11), (3, 14)] {
            if s.reached[e] {
                let miss = (after[end].translation - ik.goals[e].target.as_dvec3()).length();
                prop_assert!(miss <= 1e-4, "effector {e} reached but misses by {miss}");
            }
        }
        if s.reached[4] {
            let (neck, head) = (after[15].translation, after[16].translation);
            let to = ik.goals[4].target.as_dvec3() - neck;
            prop_assert!((head - neck).normalize().angle_between(to) <= 1e-4);
        }
    }
}

#[test]
fn the_layout_is_checked() {
    let nodes: Vec<NodeRest> = BODY
        .iter()
        .enumerate()
        .map(|(n, (parent, _))| NodeRest::new(format!("n{n}"), *parent))
        .collect();
    let data = skel_anim::AnimationData {
        nodes,
        ..Default::default()
    };
    JOINTS.check(&data).unwrap();
    let mut swapped = JOINTS;
    swapped.neck = Some([16, 15]);
    assert!(matches!(
        swapped.check(&data),
        Err(skel_anim::AnimError::IkBodyLayout {
            node: 16,
            expected: 2,
            found: Some(2)
        }) | Err(skel_anim::AnimError::IkBodyLayout { .. })
    ));
}
