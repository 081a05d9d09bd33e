//! Spring bones against an f64 rewrite of three-vrm's rule (`reference`), and the promises of
//! the module (`behaviour`): rate independence, center space, the two host loops, teleports,
//! the profiles, bad input. The chains both use are made here.

mod behaviour;
mod lanes;
mod reference;

use glam::{Affine3A, Quat, Vec3};

use super::*;
use crate::NodeRest;

/// A root (node 0) with a chain of `bones.len()` joints (nodes 1..=k) and a tip (node k + 1):
/// `bones[i]` = (translation, rotation) of node i + 1; the tip hangs `tip` below the last.
pub(super) fn chain_nodes(bones: &[(Vec3, Quat)], tip: Vec3) -> Vec<NodeRest> {
    let mut nodes = vec![NodeRest::new("root", None)];
    for (i, &(t, r)) in bones.iter().enumerate() {
        let mut n = NodeRest::new(format!("bone{i}"), Some(i));
        n.translation = t.to_array();
        n.rotation = r.to_array();
        nodes.push(n);
    }
    let mut end = NodeRest::new("tip", Some(bones.len()));
    end.translation = tip.to_array();
    nodes.push(end);
    nodes
}

#[derive(Debug, Clone, Copy)]
pub(super) struct Settings {
    pub(super) stiffness: f32,
    pub(super) drag: f32,
    pub(super) gravity: Vec3,
    pub(super) hit_radius: f32,
}

pub(super) fn chain_desc(k: usize, s: Settings, sphere: Option<(Vec3, f32)>) -> SpringBonesDesc {
    let joints = (1..=k)
        .map(|i| SpringJointDesc {
            stiffness: Some(s.stiffness),
            drag_force: Some(s.drag),
            gravity_power: Some(s.gravity.length()),
            gravity_dir: Some(s.gravity.normalize_or(Vec3::NEG_Y)),
            hit_radius: Some(s.hit_radius),
            ..SpringJointDesc::new(i, Some(i + 1))
        })
        .collect();
    let (colliders, groups) = match sphere {
        Some((offset, radius)) => (
            vec![ColliderDesc {
                node: 0,
                shape: ColliderShape::Sphere {
                    offset,
                    radius,
                    inside: false,
                },
            }],
            vec![vec![0]],
        ),
        None => (vec![], vec![]),
    };
    SpringBonesDesc {
        springs: vec![SpringDesc {
            joints,
            collider_groups: if sphere.is_some() { vec![0] } else { vec![] },
            ..SpringDesc::default()
        }],
        colliders,
        collider_groups: groups,
    }
}

/// The root's world transform at step `k` of 1/60 s: walking in a curve and turning.
pub(super) fn root_at(k: u32) -> Affine3A {
    let t = k as f32 / 60.0;
    Affine3A::from_rotation_translation(
        Quat::from_rotation_y(0.8 * (std::f32::consts::TAU * t / 3.0).sin()),
        Vec3::new(0.5 * (std::f32::consts::TAU * t / 2.0).sin(), 0.0, 0.3 * t),
    )
}

pub(super) fn run(
    nodes: &[NodeRest],
    desc: &SpringBonesDesc,
    options: SpringOptions,
    steps: u32,
) -> SpringState {
    run_along(nodes, desc, options, steps, root_at)
}

/// `steps` steps of 1/60 s of the rest pose, the root at `root(k)` at step `k` (from 0, the
/// start).
pub(super) fn run_along(
    nodes: &[NodeRest],
    desc: &SpringBonesDesc,
    options: SpringOptions,
    steps: u32,
    root: impl Fn(u32) -> Affine3A,
) -> SpringState {
    let springs = SpringBones::new(desc, nodes, options).unwrap();
    let mut state = springs.new_state();
    let rest = springs.rest_trs();
    springs.reset(&mut state, &rest, root(0));
    for step in 1..=steps {
        let mut pose = rest.clone();
        springs.step(&mut state, &mut pose, root(step), 1.0 / 60.0);
    }
    state
}

/// A straight tail along +x under a root, every joint with the same settings.
pub(super) fn tail(k: usize, s: Settings) -> (Vec<NodeRest>, SpringBonesDesc) {
    let bones: Vec<(Vec3, Quat)> = (0..k)
        .map(|i| {
            (
                Vec3::new(if i == 0 { 0.0 } else { 0.1 }, 0.0, 0.0),
                Quat::IDENTITY,
            )
        })
        .collect();
    let nodes = chain_nodes(&bones, Vec3::new(0.1, 0.0, 0.0));
    (nodes, chain_desc(k, s, None))
}

pub(super) const SWINGY: Settings = Settings {
    stiffness: 0.5,
    drag: 0.1,
    gravity: Vec3::new(0.0, -1.0, 0.0),
    hit_radius: 0.0,
};
