//! Many characters' springs in one call: `step_all` equal to stepping each, and (feature
//! `rayon`) `par_step_all` bit for bit the same on 1, 2 and 4 threads.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use glam::{Affine3A, Quat, Vec3};
use skel_anim::NodeRest;
use skel_anim::spring::{
    ColliderDesc, ColliderShape, SpringBones, SpringBonesDesc, SpringCharacter, SpringDesc,
    SpringJointDesc, SpringOptions, SpringState,
};

/// A head with `chains` chains of 4 joints and a tip, a sphere on the head.
fn avatar(chains: usize) -> (Vec<NodeRest>, SpringBonesDesc) {
    let mut nodes = vec![NodeRest::new("root", None), NodeRest::new("head", Some(0))];
    nodes[1].translation = [0.0, 1.5, 0.0];
    let mut springs = Vec::new();
    for c in 0..chains {
        let a = c as f32 / chains as f32 * std::f32::consts::TAU;
        let out = Vec3::new(a.cos(), -0.6, a.sin()).normalize() * 0.05;
        let mut parent = 1;
        let mut joints = Vec::new();
        for i in 0..5 {
            let mut n = NodeRest::new(format!("hair{c}_{i}"), Some(parent));
            n.translation = out.to_array();
            nodes.push(n);
            parent = nodes.len() - 1;
            if i < 4 {
                joints.push(SpringJointDesc {
                    gravity_power: Some(0.5),
                    drag_force: Some(0.3),
                    ..SpringJointDesc::new(parent, Some(parent + 1))
                });
            }
        }
        springs.push(SpringDesc {
            joints,
            collider_groups: vec![0],
            ..SpringDesc::default()
        });
    }
    let desc = SpringBonesDesc {
        springs,
        colliders: vec![ColliderDesc {
            node: 1,
            shape: ColliderShape::Sphere {
                offset: Vec3::ZERO,
                radius: 0.08,
                inside: false,
            },
        }],
        collider_groups: vec![vec![0]],
    };
    (nodes, desc)
}

fn root(character: usize, step: u32) -> Affine3A {
    let t = step as f32 / 60.0 + character as f32 * 0.37;
    Affine3A::from_rotation_translation(
        Quat::from_rotation_y(1.3 * t.sin()),
        Vec3::new(0.4 * (2.0 * t).sin(), 0.0, 0.2 * t),
    )
}

/// `characters` characters stepped 120 times by `step` (given the springs, their batch and
/// dt); their poses at the end.
fn run(
    characters: usize,
    step: impl Fn(&SpringBones, &mut [SpringCharacter<'_>], f32),
) -> Vec<Vec<f32>> {
    let (nodes, desc) = avatar(7);
    let bones = SpringBones::new(&desc, &nodes, SpringOptions::default()).unwrap();
    let rest = bones.rest_trs();
    let mut states: Vec<SpringState> = (0..characters).map(|_| bones.new_state()).collect();
    let mut poses = vec![rest.clone(); characters];
    for k in 0..120 {
        for pose in &mut poses {
            pose.copy_from_slice(&rest);
        }
        let mut batch: Vec<SpringCharacter<'_>> = states
            .iter_mut()
            .zip(&mut poses)
            .enumerate()
            .map(|(c, (state, trs))| SpringCharacter {
                state,
                trs,
                root: root(c, k),
            })
            .collect();
        step(&bones, &mut batch, 1.0 / 60.0);
    }
    poses
}

#[test]
fn a_batch_steps_each_character_as_it_steps_alone() {
    let batch = run(40, |b, c, dt| b.step_all(c, dt));
    let alone = run(40, |b, c, dt| {
        for one in c.iter_mut() {
            b.step(one.state, one.trs, one.root, dt);
        }
    });
    assert_eq!(batch, alone);
    // The characters move differently, so the check compares 40 different poses.
    assert_ne!(batch[0], batch[1]);
}

#[cfg(feature = "rayon")]
#[test]
fn threads_do_not_change_a_bit() {
    let serial = run(40, |b, c, dt| b.step_all(c, dt));
    for threads in [1, 2, 4] {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        let parallel = pool.install(|| run(40, |b, c, dt| b.par_step_all(c, dt)));
        let bits =
            |p: &Vec<Vec<f32>>| -> Vec<u32> { p.concat().iter().map(|x| x.to_bits()).collect() };
        assert_eq!(bits(&parallel), bits(&serial), "{threads} threads");
    }
}
