//! The chain, look-at and full-body jobs on a `Player` (targets in the asset's world frame,
//! moved every frame through `ik_target_mut`, joints checked by `add_ik` with nothing added on
//! error, chain limits measured from the rig's rest), and the same jobs batched over 1 000
//! characters with caller-owned buffers: no allocation, in the player's tick nor in the batch.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use std::sync::Arc;

use glam::{Affine3A, Quat, Vec3};
use skel_anim::ik::{
    BodyJoints, BodyPose, ChainIk, ChainJoints, Effector, FullBodyIk, JointLimit, JointShare,
    LookAtIk, LookAtJoints,
};
use skel_anim::{
    AnimError, AnimationData, Handedness, IkJob, NodeRest, NullSink, Player, Rig, model_matrix,
};

fn node(name: &str, parent: Option<usize>, t: [f32; 3]) -> NodeRest {
    NodeRest {
        translation: t,
        ..NodeRest::new(name, parent)
    }
}

/// 0 pelvis, 1-2 spine, 3-5 left arm, 6-8 right arm, 9-11 left leg, 12-14 right leg, 15 neck,
/// 16 head, 17-21 a five-joint tail below the pelvis.
fn body(handedness: Handedness) -> Arc<Rig> {
    let mut nodes = vec![
        node("pelvis", None, [0.0, 1.0, 0.0]),
        node("spine", Some(0), [0.0, 0.2, 0.0]),
        node("chest", Some(1), [0.0, 0.25, 0.0]),
    ];
    for (side, x) in [("l", 0.2), ("r", -0.2)] {
        let at = nodes.len();
        nodes.push(node(&format!("shoulder_{side}"), Some(2), [x, 0.1, 0.0]));
        nodes.push(node(&format!("elbow_{side}"), Some(at), [x, -0.28, -0.02]));
        nodes.push(node(
            &format!("wrist_{side}"),
            Some(at + 1),
            [0.0, -0.25, 0.02],
        ));
    }
    for (side, x) in [("l", 0.1), ("r", -0.1)] {
        let at = nodes.len();
        nodes.push(node(&format!("hip_{side}"), Some(0), [x, -0.05, 0.0]));
        nodes.push(node(&format!("knee_{side}"), Some(at), [0.0, -0.45, 0.02]));
        nodes.push(node(
            &format!("ankle_{side}"),
            Some(at + 1),
            [0.0, -0.45, -0.02],
        ));
    }
    nodes.push(node("neck", Some(2), [0.0, 0.15, 0.0]));
    nodes.push(node("head", Some(15), [0.0, 0.12, 0.0]));
    for i in 0..5 {
        let parent = if i == 0 { 0 } else { 16 + i };
        nodes.push(node(&format!("tail{i}"), Some(parent), [0.0, 0.0, -0.15]));
    }
    Rig::new(Arc::new(AnimationData {
        nodes,
        handedness,
        ..Default::default()
    }))
    .unwrap()
}

fn joints() -> BodyJoints {
    BodyJoints {
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
    }
}

fn tail() -> ChainJoints {
    ChainJoints::new(&[17, 18, 19, 20, 21]).unwrap()
}

/// A new player, ticked once so that its world matrices hold the rest pose.
fn player(rig: &Arc<Rig>) -> Player {
    let mut player = Player::new(rig);
    player.tick(0.0, &mut NullSink);
    player
}

fn world(player: &mut Player, node: usize) -> Vec3 {
    model_matrix(player.world_matrices(), node)
        .unwrap()
        .translation
        .into()
}

#[test]
fn chain_job_reaches_a_moving_world_target_in_either_handedness() {
    for handedness in [Handedness::RightHanded, Handedness::LeftHanded] {
        let rig = body(handedness);
        let mut player = player(&rig);
        let root = world(&mut player, 17);
        let job = player
            .add_ik(IkJob::Chain {
                joints: tail(),
                ik: ChainIk {
                    target: root,
                    iterations: 64,
                    ..ChainIk::default()
                },
            })
            .unwrap();
        for frame in 0..4 {
            let target = root + Vec3::new(0.1 * frame as f32, 0.3, -0.35);
            if let IkJob::Chain { ik, .. } = player.ik_target_mut(job).unwrap() {
                ik.target = target;
            }
            player.tick(1.0 / 60.0, &mut NullSink);
            let tip = world(&mut player, 21);
            assert!(
                (tip - target).length() < 1e-4,
                "{handedness:?} frame {frame}: tip {tip} for {target}"
            );
        }
    }
}

#[test]
fn chain_limits_are_measured_from_the_rest_pose() {
    let rig = body(Handedness::RightHanded);
    let mut player = player(&rig);
    // Every tail joint may only swing 0.1 rad off its rest: the tail cannot curl up.
    let mut joints = tail();
    for j in 0..5 {
        joints = joints
            .with_limit(j, JointLimit::cone(Vec3::NEG_Z, 0.1, 0.0))
            .unwrap();
    }
    let root = world(&mut player, 17);
    player
        .add_ik(IkJob::Chain {
            joints,
            ik: ChainIk {
                target: root + Vec3::new(0.0, 0.6, 0.0),
                ..ChainIk::default()
            },
        })
        .unwrap();
    player.tick(1.0 / 60.0, &mut NullSink);
    let p: Vec<Vec3> = (17..22).map(|n| world(&mut player, n)).collect();
    for i in 0..4 {
        let bone = (p[i + 1] - p[i]).normalize();
        let from_rest = bone.angle_between(Vec3::NEG_Z);
        assert!(
            from_rest <= 0.1 * (i + 1) as f32 + 1e-4,
            "bone {i}: {from_rest} rad off rest"
        );
    }
}

#[test]
fn look_at_and_full_body_jobs_run_on_the_player() {
    let rig = body(Handedness::LeftHanded);
    let mut player = player(&rig);
    let look = LookAtJoints::new(&[1, 2, 15, 16], &[JointShare::default(); 4]).unwrap();
    let eye = world(&mut player, 16);
    let target = eye + Vec3::new(1.0, 0.2, 1.0);
    player
        .add_ik(IkJob::LookAt {
            joints: look,
            ik: LookAtIk {
                target,
                ..LookAtIk::default()
            },
        })
        .unwrap();
    player.tick(1.0 / 60.0, &mut NullSink);
    let head = model_matrix(player.world_matrices(), 16).unwrap();
    let forward = head.transform_vector3(Vec3::Z);
    let to = target - Vec3::from(head.translation);
    assert!(forward.angle_between(to) < 1e-3, "{forward} vs {to}");

    player.clear_ik();
    let mut ik = FullBodyIk::default();
    let foot = world(&mut player, 11);
    let target = foot - Vec3::new(0.0, 0.15, 0.0);
    let goal = ik.goal_mut(Effector::LeftFoot);
    goal.target = target;
    goal.weight = 1.0;
    player
        .add_ik(IkJob::FullBody {
            joints: joints(),
            ik,
        })
        .unwrap();
    let pelvis = world(&mut player, 0);
    player.tick(1.0 / 60.0, &mut NullSink);
    assert!((world(&mut player, 11) - target).length() < 1e-4);
    assert!(
        world(&mut player, 0).y < pelvis.y - 0.1,
        "the pelvis came down"
    );
}

#[test]
fn add_ik_checks_the_joints_and_adds_nothing_on_error() {
    let rig = body(Handedness::RightHanded);
    let mut player = player(&rig);
    let broken_chain = IkJob::Chain {
        joints: ChainJoints::new(&[17, 3]).unwrap(),
        ik: ChainIk::default(),
    };
    assert!(matches!(
        player.add_ik(broken_chain),
        Err(AnimError::IkNotAChain {
            node: 3,
            expected: 17,
            ..
        })
    ));
    let past_end = IkJob::LookAt {
        joints: LookAtJoints::new(&[1, 99], &[JointShare::default(); 2]).unwrap(),
        ik: LookAtIk::default(),
    };
    assert!(matches!(
        player.add_ik(past_end),
        Err(AnimError::BadNode { node: 99, .. })
    ));
    let mut arm_on_pelvis = joints();
    arm_on_pelvis.limbs[0] = Some([9, 10, 11]); // a leg where the left arm should be
    let body_job = IkJob::FullBody {
        joints: arm_on_pelvis,
        ik: FullBodyIk::default(),
    };
    assert!(matches!(
        player.add_ik(body_job),
        Err(AnimError::IkBodyLayout {
            node: 9,
            expected: 2,
            found: Some(0)
        })
    ));
    assert!(player.ik_jobs().is_empty());
}

/// Heap allocations made by this thread while `f` runs.
fn allocations_during(f: impl FnOnce()) -> u64 {
    allocation_counter::measure(f).count_total
}

#[test]
fn player_ticks_and_batches_allocate_nothing() {
    let rig = body(Handedness::RightHanded);
    let mut player = player(&rig);
    let root = world(&mut player, 17);
    let chain = player
        .add_ik(IkJob::Chain {
            joints: tail(),
            ik: ChainIk {
                target: root + Vec3::Y * 0.3,
                ..ChainIk::default()
            },
        })
        .unwrap();
    let mut body_ik = FullBodyIk::default();
    body_ik.goal_mut(Effector::RightHand).weight = 1.0;
    body_ik.goal_mut(Effector::RightHand).target = Vec3::new(-0.6, 1.2, 0.5);
    player
        .add_ik(IkJob::FullBody {
            joints: joints(),
            ik: body_ik,
        })
        .unwrap();
    player.tick(1.0 / 60.0, &mut NullSink);
    let n = allocations_during(|| {
        for frame in 0..100 {
            if let Ok(IkJob::Chain { ik, .. }) = player.ik_target_mut(chain) {
                ik.target = root + Vec3::new(0.002 * frame as f32, 0.3, -0.2);
            }
            player.tick(1.0 / 60.0, &mut NullSink);
        }
    });
    assert_eq!(n, 0, "the player's IK pass allocated");

    // A batch: one job value, per-character model matrices and corrections owned by the caller.
    let characters: Vec<[Affine3A; 6]> = (0..1000)
        .map(|c| {
            let mut m = [Affine3A::from_translation(Vec3::X * c as f32); 6];
            for i in 1..6 {
                m[i] = m[i - 1] * Affine3A::from_translation(Vec3::new(0.0, 0.3, 0.01));
            }
            m
        })
        .collect();
    let mut out = vec![[Quat::IDENTITY; 6]; 1000];
    let look = LookAtIk::default();
    let shares = [JointShare::default(); 3];
    let mut pose = BodyPose::new(Affine3A::IDENTITY);
    let mut body = FullBodyIk::default();
    body.goal_mut(Effector::LeftHand).weight = 1.0;
    let n = allocations_during(|| {
        for (c, (models, out)) in characters.iter().zip(&mut out).enumerate() {
            let base = Vec3::from(models[0].translation);
            let ik = ChainIk {
                target: base + Vec3::new(0.5, 0.8, 0.0),
                ..ChainIk::default()
            };
            ik.solve(models, &[], out).unwrap();
            let look = LookAtIk {
                target: base + Vec3::new(1.0, 2.0, 1.0),
                ..look
            };
            look.solve(&models[3..], &shares, &mut out[3..]).unwrap();
            pose.pelvis = models[0];
            pose.limbs[0] = Some([models[2], models[3], models[4]]);
            body.goal_mut(Effector::LeftHand).target = base + Vec3::new(0.3, 0.2, c as f32 * 1e-4);
            std::hint::black_box(body.solve(&pose).unwrap());
        }
    });
    assert_eq!(n, 0, "the batch allocated");
}
