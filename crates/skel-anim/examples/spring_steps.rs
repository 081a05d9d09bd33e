//! Spring-bone steps as a plain program for instruction counts (valgrind `--tool=cachegrind
//! --cache-sim=no`, the difference of two runs that differ only in STEPS) and times: a
//! synthetic avatar of CHAINS hair chains of LENGTH joints each hanging from a head that moves
//! in a circle, every joint tested against 4 colliders (two spheres and two capsules on the
//! head), at the fixed 1/60 s step.
//!
//! ```text
//! spring_steps STEPS [CHAINS] [LENGTH]
//! ```
//!
//! Prints `joints J steps S ns_per_joint_step T joint_steps_per_ms R checksum C`.

use std::hint::black_box;
use std::process::ExitCode;
use std::time::Instant;

use glam::{Affine3A, Quat, Vec3};
use skel_anim::NodeRest;
use skel_anim::spring::{
    ColliderDesc, ColliderShape, SpringBones, SpringBonesDesc, SpringDesc, SpringJointDesc,
    SpringOptions,
};

fn main() -> ExitCode {
    let args: Vec<u32> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let (Some(&steps), chains, length) = (
        args.first(),
        args.get(1).copied().unwrap_or(16),
        args.get(2).copied().unwrap_or(6),
    ) else {
        eprintln!("usage: spring_steps STEPS [CHAINS] [LENGTH]");
        return ExitCode::FAILURE;
    };
    let (nodes, desc) = avatar(chains as usize, length as usize);
    let springs = match SpringBones::new(&desc, &nodes, SpringOptions::default()) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("spring_steps: {e}");
            return ExitCode::FAILURE;
        }
    };
    let mut state = springs.new_state();
    let rest = springs.rest_trs();
    let mut pose = rest.clone();
    let joints = springs.joint_nodes().count();
    let start = Instant::now();
    for k in 0..steps {
        let t = k as f32 / 60.0;
        let root = Affine3A::from_rotation_translation(
            Quat::from_rotation_y(t),
            Vec3::new(0.5 * t.sin(), 0.0, 0.5 * t.cos()),
        );
        pose.copy_from_slice(&rest);
        springs.step(&mut state, black_box(&mut pose), root, 1.0 / 60.0);
    }
    let elapsed = start.elapsed().as_secs_f64();
    let ns = elapsed * 1e9 / (f64::from(steps.max(1)) * joints as f64);
    let checksum: f32 = (0..joints)
        .filter_map(|j| state.tail(j))
        .map(|t| t.x + t.y)
        .sum();
    println!(
        "joints {joints} steps {steps} ns_per_joint_step {ns:.1} joint_steps_per_ms {:.0} checksum {checksum:.6}",
        1e6 / ns
    );
    ExitCode::SUCCESS
}

/// A root, a head 1.5 above it, and `chains` chains of `length` joints (plus a tip) around the
/// head, each bone 5 cm pointing outwards and down; 4 colliders on the head for every joint.
fn avatar(chains: usize, length: usize) -> (Vec<NodeRest>, SpringBonesDesc) {
    let mut nodes = vec![NodeRest::new("root", None)];
    let mut head = NodeRest::new("head", Some(0));
    head.translation = [0.0, 1.5, 0.0];
    nodes.push(head);
    let mut springs = Vec::new();
    for c in 0..chains {
        let angle = c as f32 / chains as f32 * std::f32::consts::TAU;
        let out = Vec3::new(angle.cos(), -0.5, angle.sin()).normalize() * 0.05;
        let mut joints = Vec::new();
        let mut parent = 1;
        for i in 0..=length {
            let mut bone = NodeRest::new(format!("hair{c}_{i}"), Some(parent));
            bone.translation = if i == 0 {
                (out * 2.0).to_array()
            } else {
                out.to_array()
            };
            nodes.push(bone);
            let me = nodes.len() - 1;
            if i < length {
                joints.push(SpringJointDesc {
                    stiffness: Some(0.8),
                    gravity_power: Some(0.3),
                    drag_force: Some(0.4),
                    hit_radius: Some(0.02),
                    ..SpringJointDesc::new(me, Some(me + 1))
                });
            }
            parent = me;
        }
        springs.push(SpringDesc {
            name: format!("hair{c}"),
            joints,
            center: None,
            collider_groups: vec![0],
        });
    }
    let sphere = |offset: Vec3, radius| ColliderDesc {
        node: 1,
        shape: ColliderShape::Sphere {
            offset,
            radius,
            inside: false,
        },
    };
    let capsule = |offset: Vec3, tail: Vec3| ColliderDesc {
        node: 1,
        shape: ColliderShape::Capsule {
            offset,
            tail,
            radius: 0.05,
            inside: false,
        },
    };
    let desc = SpringBonesDesc {
        springs,
        colliders: vec![
            sphere(Vec3::new(0.0, 0.05, 0.0), 0.1),
            sphere(Vec3::new(0.0, -0.1, 0.05), 0.08),
            capsule(Vec3::new(-0.2, -0.3, 0.0), Vec3::new(-0.1, -0.1, 0.0)),
            capsule(Vec3::new(0.2, -0.3, 0.0), Vec3::new(0.1, -0.1, 0.0)),
        ],
        collider_groups: vec![vec![0, 1, 2, 3]],
    };
    (nodes, desc)
}
