//! The f64 rewrite of three-vrm's rule, against which random chains are held.

use glam::{Affine3A, DAffine3, DQuat, DVec3, Quat, Vec3};
use proptest::prelude::*;

use super::{Settings, chain_desc, chain_nodes, root_at, run};
use crate::NodeRest;
use crate::spring::SpringOptions;

/// three-vrm's step for one chain under a root, in f64, written from its source
/// (`VRMSpringBoneJoint.update`, world space, world matrices current first): the world
/// position of every node after `steps` steps.
fn reference(
    nodes: &[NodeRest],
    s: Settings,
    sphere: Option<(Vec3, f32)>,
    steps: u32,
) -> Vec<DVec3> {
    let k = nodes.len() - 2;
    let t: Vec<DVec3> = nodes
        .iter()
        .map(|n| Vec3::from(n.translation).as_dvec3())
        .collect();
    let r0: Vec<DQuat> = nodes
        .iter()
        .map(|n| Quat::from_array(n.rotation).as_dquat())
        .collect();
    let local = |i: usize, q: DQuat| DAffine3::from_rotation_translation(q, t[i]);
    let chain = |root: DAffine3, rot: &[DQuat]| {
        let mut w = vec![root * local(0, rot[0])];
        for i in 1..nodes.len() {
            let next = w[i - 1] * local(i, rot[i]);
            w.push(next);
        }
        w
    };
    let gravity = s.gravity.as_dvec3();
    let (stiffness, drag, hit) = (
        f64::from(s.stiffness),
        f64::from(s.drag),
        f64::from(s.hit_radius),
    );
    let dt = 1.0 / 60.0_f64;
    let mut rot = r0.clone();
    let start = chain(to64(root_at(0)), &rot);
    let mut cur: Vec<DVec3> = (0..nodes.len())
        .map(|i| start[(i + 1).min(nodes.len() - 1)].translation)
        .collect();
    let mut prev = cur.clone();
    let mut world = start;
    for step in 1..=steps {
        let root = to64(root_at(step));
        let before = chain(root, &rot);
        let mut w = before.clone();
        for j in 1..=k {
            let parent = w[j - 1];
            let bone = parent * local(j, rot[j]);
            let pos = bone.translation;
            let length = (pos - before[j + 1].translation).length();
            let axis_local = (r0[j] * t[j + 1].normalize()).normalize();
            let axis = parent.transform_vector3(axis_local).normalize();
            let mut next =
                cur[j] + (cur[j] - prev[j]) * (1.0 - drag) + axis * (stiffness * dt) + gravity * dt;
            next = pos + (next - pos).normalize() * length;
            if let Some((offset, radius)) = sphere {
                let c = w[0].transform_point3(offset.as_dvec3());
                let d = next - c;
                let dist = d.length() - hit - f64::from(radius);
                if dist < 0.0 {
                    next += d / d.length() * -dist;
                    next = pos + (next - pos) * (length / (next - pos).length());
                }
            }
            prev[j] = cur[j];
            cur[j] = next;
            let to = (parent * local(j, r0[j]))
                .inverse()
                .transform_point3(next)
                .normalize();
            let from = t[j + 1].normalize();
            rot[j] = r0[j] * DQuat::from_rotation_arc(from, to);
            w[j] = parent * local(j, rot[j]);
            w[j + 1] = w[j] * local(j + 1, rot[j + 1]);
        }
        world = chain(root, &rot);
    }
    world.iter().map(|m| m.translation).collect()
}

fn to64(m: Affine3A) -> DAffine3 {
    DAffine3::from_mat4(glam::Mat4::from(m).as_dmat4())
}

fn bone() -> impl Strategy<Value = (Vec3, Quat)> {
    (
        (-1.0_f32..1.0, 0.3_f32..1.0, -1.0_f32..1.0),
        0.05_f32..0.25,
        (-1.0_f32..1.0, -1.0_f32..1.0, -1.0_f32..1.0),
        0.0_f32..0.6,
    )
        .prop_map(|((x, y, z), len, (ax, ay, az), angle)| {
            let axis = Vec3::new(ax, ay, az).normalize_or(Vec3::X);
            (
                Vec3::new(x, y, z).normalize() * len,
                Quat::from_axis_angle(axis, angle),
            )
        })
}

proptest! {
    /// Chains of 1 to 4 joints with random rest frames, stiffness, drag, gravity and a sphere
    /// in the way, 90 steps of a moving root: every node within 1e-4 m of the f64 rule.
    #[test]
    fn a_chain_follows_the_f64_rule(
        bones in proptest::collection::vec(bone(), 1..5),
        (tip, stiffness, drag) in (bone(), 0.0_f32..4.0, 0.3_f32..1.0),
        (gx, gy, gz, hit) in (-1.0_f32..1.0, -2.0_f32..0.5, -1.0_f32..1.0, 0.0_f32..0.05),
        sphere in proptest::option::of(((-0.2_f32..0.2, 0.0_f32..0.5, -0.2_f32..0.2), 0.05_f32..0.2)),
    ) {
        let nodes = chain_nodes(&bones, tip.0);
        let settings = Settings { stiffness, drag, gravity: Vec3::new(gx, gy, gz), hit_radius: hit };
        let sphere = sphere.map(|((x, y, z), r)| (Vec3::new(x, y, z), r));
        let desc = chain_desc(bones.len(), settings, sphere);
        let state = run(&nodes, &desc, SpringOptions::default(), 90);
        let want = reference(&nodes, settings, sphere, 90);
        for (i, w) in want.iter().enumerate() {
            let got = state.world(i).unwrap().translation.as_dvec3();
            prop_assert!((got - *w).length() < 1e-4, "node {i}: {got} vs {w}");
        }
    }
}
