//! Two-bone IK on real assets (`../shared/assets`): the Fox's left leg, CesiumMan's left leg
//! and RiggedFigure's left arm, posed by their first clip at a few times, in both
//! handednesses (left-handed mirrors the roots, so the joints' model matrices are mirrored).
//! Targets inside reach are met and the knee/elbow turns to the pole's side; targets outside
//! straighten the chain towards them. Model matrices come from the public pose functions, the
//! corrections go back into the TRS buffer, and the check reads the recomputed world matrices
//! (an f32 pipeline end to end, as the player runs it).

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use glam::{Affine3A, Vec3};
use skel_anim::{
    Handedness, PoseScratch, TwoBoneIk, apply_clip, check_chain, compute_world_matrices,
    model_matrix, model_matrix_from_trs, reset_to_rest,
};
use skel_gltf::{LoadOptions, load_path};

fn position(world: &[glam::Mat4], node: usize) -> Vec3 {
    model_matrix(world, node).unwrap().translation.into()
}

/// Worst end-to-target miss and worst knee side/plane error, each relative to the chain.
#[derive(Debug, Default)]
struct Worst {
    reach: f32,
    straight: f32,
    plane: f32,
    solves: usize,
}

fn check_asset(file: &str, names: [&str; 3], worst: &mut Worst) -> bool {
    let Some(path) = skel_test_support::shared_asset("ik_assets", file) else {
        return false;
    };
    for handedness in [Handedness::LeftHanded, Handedness::RightHanded] {
        let opts = LoadOptions {
            decode_images: false,
            ..LoadOptions::with_handedness(handedness)
        };
        let data = load_path(&path, &opts).unwrap().animation;
        let find = |name: &str| {
            data.nodes
                .iter()
                .position(|n| n.name == name)
                .unwrap_or_else(|| panic!("{file}: no node {name}"))
        };
        let [start, mid, end] = names.map(find);
        check_chain(&data, start, mid, end).unwrap();
        let mut scratch = PoseScratch::new(&data).unwrap();
        let root = match handedness {
            Handedness::LeftHanded => Affine3A::from_scale(Vec3::new(-1.0, 1.0, 1.0)),
            _ => Affine3A::IDENTITY,
        };
        let duration = data.clips[0].duration();
        for time in [0.0, 0.3 * duration, 0.7 * duration] {
            for (dir, pole) in [
                (Vec3::new(0.0, -1.0, 0.3), Vec3::Z),
                (Vec3::new(0.5, -1.0, -0.2), Vec3::new(0.0, 0.2, 1.0)),
                (Vec3::new(-0.3, -0.2, 1.0), Vec3::Y),
                (Vec3::new(1.0, 0.4, 0.0), Vec3::new(0.0, -0.5, -1.0)),
            ] {
                for fraction in [0.2, 0.6, 0.95, 1.5, 3.0] {
                    reset_to_rest(&data, &mut scratch);
                    apply_clip(&data, 0, time, &mut scratch);
                    compute_world_matrices(&data, &mut scratch);
                    let w = &scratch.world;
                    let (s, m, e) = (position(w, start), position(w, mid), position(w, end));
                    let (a, b) = ((m - s).length(), (e - m).length());
                    let len = a + b;
                    let dir = dir.normalize();
                    let dist = if fraction <= 1.0 {
                        (a - b).abs() + fraction * (len - (a - b).abs())
                    } else {
                        fraction * len
                    };
                    let target = s + dir * dist;
                    let ik = TwoBoneIk {
                        target,
                        pole,
                        ..TwoBoneIk::default()
                    };
                    let sol = ik
                        .solve(
                            &model_matrix(w, start).unwrap(),
                            &model_matrix(w, mid).unwrap(),
                            &model_matrix(w, end).unwrap(),
                        )
                        .unwrap();
                    assert_eq!(sol.reached, fraction <= 1.0, "{file} {fraction}");
                    sol.apply(&mut scratch.trs, start, mid).unwrap();
                    compute_world_matrices(&data, &mut scratch);
                    let w = &scratch.world;
                    let (s2, m2, e2) = (position(w, start), position(w, mid), position(w, end));
                    // The parent walk agrees with the hierarchy pass.
                    let walked = model_matrix_from_trs(&data, &scratch.trs, end, &root).unwrap();
                    let walk_err = (Vec3::from(walked.translation) - e2).length();
                    assert!(
                        walk_err <= 1e-5 * len.max(e2.length()),
                        "{file}: walk {walk_err}"
                    );
                    assert!((s2 - s).length() <= 1e-6 * len.max(s.length()));
                    let lengths =
                        ((m2 - s2).length() - a).abs() / a + ((e2 - m2).length() - b).abs() / b;
                    assert!(lengths <= 2e-5, "{file}: bone lengths changed by {lengths}");
                    worst.solves += 1;
                    if fraction <= 1.0 {
                        let miss = (e2 - target).length() / len;
                        worst.reach = worst.reach.max(miss);
                        let t = dir;
                        let p = pole.reject_from(t).normalize();
                        let off = t.cross(p).dot(m2 - s2) / len;
                        let side = p.dot(m2 - s2) / len;
                        worst.plane = worst.plane.max(off.abs()).max(-side);
                        assert!(
                            miss <= 1e-5,
                            "{file} t={time} {fraction}: end misses by {miss}"
                        );
                        assert!(
                            off.abs() <= 1e-5 && side >= -1e-5,
                            "{file}: knee {off} {side}"
                        );
                    } else {
                        let miss = (e2 - (s2 + dir * len)).length() / len;
                        let mid_miss = (m2 - (s2 + dir * a)).length() / len;
                        worst.straight = worst.straight.max(miss).max(mid_miss);
                        assert!(
                            miss <= 1e-5 && mid_miss <= 1e-5,
                            "{file}: not straight {miss}"
                        );
                    }
                }
            }
        }
    }
    true
}

#[test]
fn two_bone_on_real_legs_and_arms() {
    let mut worst = Worst::default();
    let assets = [
        (
            "Fox/Fox.glb",
            ["b_LeftLeg01_015", "b_LeftLeg02_016", "b_LeftFoot01_017"],
        ),
        (
            "CesiumMan/CesiumMan.glb",
            ["leg_joint_L_1", "leg_joint_L_2", "leg_joint_L_3"],
        ),
        (
            "RiggedFigure/RiggedFigure.glb",
            ["arm_joint_L_1", "arm_joint_L_2", "arm_joint_L_3"],
        ),
    ];
    for (file, names) in assets {
        if !check_asset(file, names, &mut worst) {
            return;
        }
    }
    eprintln!("ik_assets: {worst:?}");
    assert_eq!(worst.solves, 3 * 2 * 3 * 4 * 5);
}

/// Aim IK on the Fox's head (`b_Head_05`): its local +y (the bone's direction) turned at
/// targets around it, in both handednesses; the angle is read from the recomputed world
/// matrices.
#[test]
fn aim_on_the_fox_head() {
    let Some(path) = skel_test_support::shared_asset("aim_on_the_fox_head", "Fox/Fox.glb") else {
        return;
    };
    let mut worst = 0.0_f64;
    for handedness in [Handedness::LeftHanded, Handedness::RightHanded] {
        let opts = LoadOptions {
            decode_images: false,
            ..LoadOptions::with_handedness(handedness)
        };
        let data = load_path(&path, &opts).unwrap().animation;
        let head = data
            .nodes
            .iter()
            .position(|n| n.name == "b_Head_05")
            .unwrap();
        let mut scratch = PoseScratch::new(&data).unwrap();
        for offset in [
            Vec3::new(0.0, 0.0, 100.0),
            Vec3::new(50.0, 30.0, 40.0),
            Vec3::new(-80.0, -10.0, -60.0),
        ] {
            reset_to_rest(&data, &mut scratch);
            apply_clip(&data, 0, 0.5, &mut scratch);
            compute_world_matrices(&data, &mut scratch);
            let node = model_matrix(&scratch.world, head).unwrap();
            let target = Vec3::from(node.translation) + offset;
            let aim = skel_anim::AimIk {
                target,
                forward: Vec3::Y,
                up: Vec3::Z,
                pole: Vec3::Y,
                ..skel_anim::AimIk::default()
            };
            aim.solve(&node)
                .unwrap()
                .apply(&mut scratch.trs, head)
                .unwrap();
            compute_world_matrices(&data, &mut scratch);
            let turned = model_matrix(&scratch.world, head).unwrap();
            // In f64: an f32 acos cannot tell angles below ~5e-4 rad from 0.
            let forward = turned.transform_vector3(Vec3::Y).as_dvec3();
            let to_target = (target - Vec3::from(turned.translation)).as_dvec3();
            let angle = forward.angle_between(to_target);
            worst = worst.max(angle);
            assert!(angle <= 1e-4, "{handedness:?} {offset}: {angle} rad");
        }
    }
    eprintln!("aim_on_the_fox_head: worst angle {worst:e} rad");
}
