//! IK jobs on a `Player`: the Fox's left leg reaches a world-space target while its clip plays,
//! in both handednesses (the player poses in the mesh's rest frame, the target is given in the
//! world), with bone control's overrides installed, and an aim job turns the head; nothing
//! allocates per tick.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use std::sync::Arc;

use glam::Vec3;
use skel_anim::{
    AimIk, Handedness, IkJob, LayerDesc, NullSink, Player, Rig, TwoBoneIk, model_matrix,
};
use skel_gltf::{LoadOptions, load_path};

fn fox(handedness: Handedness) -> Option<Arc<Rig>> {
    let path = skel_test_support::shared_asset("ik_player", "Fox/Fox.glb")?;
    let asset = load_path(&path, &LoadOptions::with_handedness(handedness)).unwrap();
    Some(Rig::new(Arc::new(asset.animation)).unwrap())
}

fn node(rig: &Rig, name: &str) -> usize {
    rig.node_index(name).unwrap()
}

fn at(player: &mut Player, n: usize) -> Vec3 {
    model_matrix(player.world_matrices(), n)
        .unwrap()
        .translation
        .into()
}

#[test]
fn the_leg_reaches_a_world_target_in_both_handednesses_with_bone_control() {
    for handedness in [Handedness::LeftHanded, Handedness::RightHanded] {
        let Some(rig) = fox(handedness) else { return };
        let (start, mid, end) = (
            node(&rig, "b_LeftLeg01_015"),
            node(&rig, "b_LeftLeg02_016"),
            node(&rig, "b_LeftFoot01_017"),
        );
        let walk = rig.clip_index("Walk").unwrap();
        let mut player = Player::new(&rig);
        player.add_layer(LayerDesc::new(walk)).unwrap();
        // Bone control's hook on the same player (no overrides set: the pose must not change).
        let control = skel_bone_control_free_hook();
        player.set_pose_hook(control);
        player.tick(0.2, &mut NullSink);
        let (s, m, e) = (
            at(&mut player, start),
            at(&mut player, mid),
            at(&mut player, end),
        );
        let chain = (m - s).length() + (e - m).length();
        // A target inside reach: three quarters of the way from hip to foot, pushed sideways.
        let target = s + (e - s) * 0.75 + Vec3::new(0.0, 0.0, 0.1 * chain);
        let job = player
            .add_ik(IkJob::TwoBone {
                start,
                mid,
                end,
                ik: TwoBoneIk {
                    target,
                    pole: Vec3::Z,
                    ..TwoBoneIk::default()
                },
            })
            .unwrap();
        player.tick(0.0, &mut NullSink);
        let miss = (at(&mut player, end) - target).length();
        assert!(
            miss <= 1e-4 * chain,
            "{handedness:?}: missed by {miss} (chain {chain})"
        );
        let (s2, m2, e2) = (
            at(&mut player, start),
            at(&mut player, mid),
            at(&mut player, end),
        );
        let lengths = (
            (m2 - s2).length() - (m - s).length(),
            (e2 - m2).length() - (e - m).length(),
        );
        assert!(
            lengths.0.abs() <= 1e-4 * chain && lengths.1.abs() <= 1e-4 * chain,
            "{lengths:?}"
        );
        // Out of reach: the chain straightens towards the target.
        if let IkJob::TwoBone { ik, .. } = player.ik_target_mut(job).unwrap() {
            ik.target = s + (target - s).normalize() * chain * 3.0;
        }
        player.tick(0.0, &mut NullSink);
        let (s3, e3) = (at(&mut player, start), at(&mut player, end));
        assert!(
            (e3 - s3).length() > 0.99 * chain,
            "straightened: {}",
            (e3 - s3).length() / chain
        );
        // Ticking with IK allocates nothing.
        let info = allocation_counter::measure(|| {
            for _ in 0..100 {
                player.tick(1.0 / 60.0, &mut NullSink);
            }
        });
        assert_eq!(info.count_total, 0);
    }
}

#[test]
fn the_head_aims_at_a_world_target() {
    for handedness in [Handedness::LeftHanded, Handedness::RightHanded] {
        let Some(rig) = fox(handedness) else { return };
        let head = node(&rig, "b_Head_05");
        let mut player = Player::new(&rig);
        player
            .add_layer(LayerDesc::new(rig.clip_index("Survey").unwrap()))
            .unwrap();
        player.tick(0.5, &mut NullSink);
        let here = at(&mut player, head);
        let target = here + Vec3::new(30.0, 20.0, 40.0);
        // The head's local +y axis (Fox's bones point along y) aims.
        player
            .add_ik(IkJob::Aim {
                node: head,
                ik: AimIk {
                    target,
                    forward: Vec3::Y,
                    up: Vec3::Z,
                    pole: Vec3::Y,
                    ..AimIk::default()
                },
            })
            .unwrap();
        player.tick(0.0, &mut NullSink);
        let m = model_matrix(player.world_matrices(), head).unwrap();
        let forward = m.transform_vector3(Vec3::Y).normalize();
        let to_target = (target - Vec3::from(m.translation)).normalize();
        // In f64: an f32 acos cannot resolve angles below about 5e-4 rad.
        let angle = forward.as_dvec3().angle_between(to_target.as_dvec3());
        assert!(angle <= 1e-4, "{handedness:?}: off by {angle} rad");
    }
}

#[test]
fn chains_that_are_not_parent_child_are_errors() {
    let Some(rig) = fox(Handedness::RightHanded) else {
        return;
    };
    let mut player = Player::new(&rig);
    let bad = IkJob::TwoBone {
        start: node(&rig, "b_LeftLeg01_015"),
        mid: node(&rig, "b_LeftFoot01_017"),
        end: node(&rig, "b_LeftLeg02_016"),
        ik: TwoBoneIk::default(),
    };
    assert!(player.add_ik(bad).is_err());
    assert!(player.ik_jobs().is_empty());
    let far = IkJob::Aim {
        node: 999,
        ik: AimIk::default(),
    };
    assert!(player.add_ik(far).is_err());
}

/// A pose hook that changes nothing (bone control with no overrides behaves so): the IK step
/// runs between its two calls.
fn skel_bone_control_free_hook() -> Option<Arc<dyn skel_anim::PoseHook>> {
    #[derive(Debug)]
    struct Nothing;
    impl skel_anim::PoseHook for Nothing {
        fn before_channels(&self, _: &mut [f32]) {}
        fn after_channels(&self, _: &mut [f32]) {}
    }
    Some(Arc::new(Nothing))
}
