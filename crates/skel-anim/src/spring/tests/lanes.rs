//! Chains stepped four at a time against every joint stepped alone: the same state bit for bit
//! (on x86-64, where both run glam's SSE2 operations, and the step's AVX2 build the same
//! operations in VEX form), on an avatar that mixes chains that can run in lanes with chains
//! that cannot.

use glam::{Affine3A, Quat, Vec3};

use super::super::*;
use crate::NodeRest;
use crate::data::{R_OFF, S_OFF, T_OFF, TRS_STRIDE};

/// A head (node 1) under a root (node 0) with chains of 1 to 7 joints hanging from it, some
/// ending in a tip node and some without (VRM 0.x's leaves), springs with and without a
/// center (the root), colliders on the head and the root of every kind; then a chain that
/// branches, one with a collider on its own bone and one that meets a plane, which cannot
/// run in lanes.
fn avatar() -> (Vec<NodeRest>, SpringBonesDesc) {
    let mut nodes = vec![NodeRest::new("root", None), NodeRest::new("head", Some(0))];
    nodes[1].translation = [0.0, 1.6, 0.0];
    let mut springs = Vec::new();
    let add_chain = |nodes: &mut Vec<NodeRest>, c: usize, length: usize, tip: bool| {
        let mut parent = 1;
        let mut joints = Vec::new();
        let angle = c as f32 * 0.7;
        for k in 0..length {
            let i = nodes.len();
            let mut node = NodeRest::new(format!("hair{c}_{k}"), Some(parent));
            let step = if k == 0 {
                0.08
            } else {
                0.05 + 0.01 * (c % 3) as f32
            };
            node.translation = [step * angle.cos(), -step, step * angle.sin()];
            node.rotation = Quat::from_rotation_z(0.05 * k as f32).to_array();
            if c % 4 == 1 {
                node.scale = [1.1, 0.9, 1.0];
            }
            nodes.push(node);
            joints.push(i);
            parent = i;
        }
        if tip {
            let mut node = NodeRest::new(format!("hair{c}_tip"), Some(parent));
            node.translation = [0.0, -0.05, 0.01];
            nodes.push(node);
            joints.push(nodes.len() - 1);
        }
        joints
    };
    for c in 0..11 {
        let tip = c % 3 != 2;
        let chain = add_chain(&mut nodes, c, 1 + c % 7, tip);
        let count = if tip { chain.len() - 1 } else { chain.len() };
        let joints = (0..count)
            .map(|k| SpringJointDesc {
                stiffness: Some(0.3 + 0.1 * (c % 5) as f32),
                drag_force: Some(0.2 + 0.05 * k as f32),
                gravity_power: Some(if c % 2 == 0 { 0.5 } else { 0.0 }),
                hit_radius: Some(0.01 * (k % 3) as f32),
                ..SpringJointDesc::new(chain[k], chain.get(k + 1).copied())
            })
            .collect();
        springs.push(SpringDesc {
            joints,
            center: (c % 4 == 3).then_some(0),
            collider_groups: match c % 3 {
                0 => vec![0],
                1 => vec![0, 1],
                _ => vec![],
            },
            ..SpringDesc::default()
        });
    }
    // A branch: the second bone has two bones below it.
    let first = add_chain(&mut nodes, 20, 3, true);
    let side = nodes.len();
    let mut node = NodeRest::new("branch", Some(first[1]));
    node.translation = [0.04, -0.03, 0.0];
    nodes.push(node);
    let mut node = NodeRest::new("branch_tip", Some(side));
    node.translation = [0.0, -0.04, 0.0];
    nodes.push(node);
    springs.push(SpringDesc {
        joints: vec![
            SpringJointDesc::new(first[0], Some(first[1])),
            SpringJointDesc::new(first[1], Some(first[2])),
            SpringJointDesc::new(first[2], Some(first[3])),
            SpringJointDesc::new(side, Some(side + 1)),
        ],
        collider_groups: vec![0],
        ..SpringDesc::default()
    });
    // A chain carrying a collider on its own first bone, and one meeting a plane.
    let carrier = add_chain(&mut nodes, 21, 4, true);
    let planed = add_chain(&mut nodes, 22, 3, true);
    for (chain, groups) in [(&carrier, vec![1, 3]), (&planed, vec![2])] {
        springs.push(SpringDesc {
            joints: (0..chain.len() - 1)
                .map(|k| SpringJointDesc {
                    gravity_power: Some(1.0),
                    ..SpringJointDesc::new(chain[k], Some(chain[k + 1]))
                })
                .collect(),
            collider_groups: groups,
            ..SpringDesc::default()
        });
    }
    let sphere = |node, offset: Vec3, radius, inside| ColliderDesc {
        node,
        shape: ColliderShape::Sphere {
            offset,
            radius,
            inside,
        },
    };
    let colliders = vec![
        sphere(1, Vec3::new(0.0, 0.0, 0.05), 0.09, false),
        ColliderDesc {
            node: 1,
            shape: ColliderShape::Capsule {
                offset: Vec3::new(-0.1, -0.05, 0.0),
                tail: Vec3::new(0.1, -0.1, 0.02),
                radius: 0.05,
                inside: false,
            },
        },
        sphere(0, Vec3::new(0.0, 1.5, 0.0), 0.6, true),
        sphere(carrier[0], Vec3::ZERO, 0.03, false),
        ColliderDesc {
            node: 0,
            shape: ColliderShape::Plane {
                offset: Vec3::new(0.0, 1.3, 0.0),
                normal: Vec3::Y,
            },
        },
    ];
    // A leg: no spring, collider or center at or below it.
    nodes.push(NodeRest::new("leg", Some(0)));
    let desc = SpringBonesDesc {
        springs,
        colliders,
        collider_groups: vec![vec![0, 1], vec![2], vec![4, 0], vec![3]],
    };
    (nodes, desc)
}

/// The pose at step `k`: the head nods and the first bones stretch a little.
fn pose_at(bones: &SpringBones, nodes: &[NodeRest], k: u32) -> Vec<f32> {
    let mut trs = bones.rest_trs();
    let t = k as f32 / 60.0;
    let head = Quat::from_rotation_x(0.6 * (3.0 * t).sin()) * Quat::from_rotation_y(t);
    trs[TRS_STRIDE + R_OFF..TRS_STRIDE + R_OFF + 4].copy_from_slice(&head.to_array());
    for (i, node) in nodes.iter().enumerate() {
        if node.name.ends_with("_0") {
            let at = i * TRS_STRIDE;
            trs[at + T_OFF + 1] *= 1.0 + 0.2 * (5.0 * t).sin();
            trs[at + S_OFF] = 1.0 + 0.1 * (2.0 * t).cos();
        }
    }
    trs
}

/// The avatar stepped 240 times, its chains in lanes or not, by the step's AVX2 build where
/// `wide` and the CPU has it, else by the baseline build.
fn run(
    options: SpringOptions,
    lanes: bool,
    wide: bool,
) -> (SpringBones, SpringState, Vec<Vec<f32>>) {
    let (nodes, desc) = avatar();
    let mut bones = SpringBones::new(&desc, &nodes, options).unwrap();
    bones.set_lanes(lanes);
    bones.wide &= wide;
    let mut state = bones.new_state();
    let mut poses = Vec::new();
    for k in 0..240 {
        let mut trs = pose_at(&bones, &nodes, k);
        let root = Affine3A::from_rotation_translation(
            Quat::from_rotation_y(0.02 * k as f32),
            // A teleport at step 150.
            Vec3::new(
                0.01 * k as f32 + if k >= 150 { 12.0 } else { 0.0 },
                0.0,
                0.0,
            ),
        );
        bones.step(&mut state, &mut trs, root, 1.0 / 60.0);
        poses.push(trs);
    }
    (bones, state, poses)
}

#[test]
fn the_avatar_has_chains_in_lanes_and_chains_that_cannot_be() {
    let (nodes, desc) = avatar();
    let bones = SpringBones::new(&desc, &nodes, SpringOptions::default()).unwrap();
    let grouped = bones.grouped_joint.iter().filter(|&&g| g).count();
    // The 11 hanging chains (1 + 2 + … joints, tips or none) run in three groups; the branch,
    // the collider carrier and the planed chain do not.
    let hanging: usize = (0..11).map(|c| 1 + c % 7).sum();
    assert_eq!(grouped, hanging, "{grouped} joints in lanes");
    assert_eq!(bones.groups.len(), 3);
    // A step places the head and the chains, not the leg.
    let mut state = bones.new_state();
    let mut trs = bones.rest_trs();
    bones.step(&mut state, &mut trs, Affine3A::IDENTITY, 1.0 / 60.0);
    assert!(state.world(1).is_some());
    assert!(
        state.world(nodes.len() - 1).is_none(),
        "the leg is not placed"
    );
    let uni = SpringOptions {
        profile: SpringProfile::UniVrm,
        ..SpringOptions::default()
    };
    let bones = SpringBones::new(&desc, &nodes, uni).unwrap();
    assert!(bones.groups.is_empty(), "UniVRM's rule runs joint by joint");
}

#[test]
fn lanes_step_every_joint_as_the_scalar_step_does() {
    for host_loop in [HostLoop::WorldCurrent, HostLoop::PreviousChild] {
        let options = SpringOptions {
            host_loop,
            ..SpringOptions::default()
        };
        // The joints alone in the baseline build against the lanes in both builds.
        let (_, alone, alone_poses) = run(options, false, false);
        for wide in [false, true] {
            let (bones, lanes, lane_poses) = run(options, true, wide);
            let exact = cfg!(target_arch = "x86_64");
            let same = |a: f32, b: f32| {
                if exact {
                    a == b
                } else {
                    (a - b).abs() <= 1e-5 * (1.0 + a.abs())
                }
            };
            for j in 0..bones.joints.len() {
                let (a, b) = (lanes.tail(j).unwrap(), alone.tail(j).unwrap());
                assert!(
                    a.to_array()
                        .iter()
                        .zip(b.to_array())
                        .all(|(&x, y)| same(x, y)),
                    "{host_loop:?} wide {wide} joint {j}: {a} against {b}"
                );
            }
            for node in 0..bones.node_count() - 1 {
                let (a, b) = (lanes.world(node).unwrap(), alone.world(node).unwrap());
                let (a, b) = (a.to_cols_array(), b.to_cols_array());
                assert!(
                    a.iter().zip(b).all(|(&x, y)| same(x, y)),
                    "{host_loop:?} wide {wide} node {node}"
                );
            }
            for (k, (a, b)) in lane_poses.iter().zip(&alone_poses).enumerate() {
                assert!(
                    a.iter().zip(b).all(|(&x, &y)| same(x, y)),
                    "{host_loop:?} wide {wide} pose of step {k}"
                );
            }
            // The springs moved: the check compares motion, not rest.
            let rest = bones.rest_trs();
            let moved = lane_poses[200]
                .chunks_exact(TRS_STRIDE)
                .zip(rest.chunks_exact(TRS_STRIDE))
                .filter(|(a, b)| {
                    let (qa, qb) = (
                        Quat::from_slice(&a[R_OFF..R_OFF + 4]),
                        Quat::from_slice(&b[R_OFF..R_OFF + 4]),
                    );
                    qa.angle_between(qb) > 0.05
                })
                .count();
            assert!(moved > 30, "{host_loop:?}: only {moved} bones turned");
        }
    }
}
