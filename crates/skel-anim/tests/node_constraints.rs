//! Node constraints: each kind's rule on random rests and source turns (roll keeps only the
//! twist, aim points, rotation copies), three-vrm's run order, and bad input.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use glam::{Affine3A, Quat, Vec3};
use proptest::prelude::*;
use skel_anim::constraint::{
    AimAxis, ConstraintKind, NodeConstraintDesc, NodeConstraints, RollAxis,
};
use skel_anim::{AnimError, NodeRest, R_OFF, S_OFF, T_OFF, TRS_STRIDE};

fn trs_of(nodes: &[NodeRest]) -> Vec<f32> {
    let mut trs = vec![0.0; nodes.len() * TRS_STRIDE];
    for (record, node) in trs.chunks_exact_mut(TRS_STRIDE).zip(nodes) {
        record[T_OFF..T_OFF + 3].copy_from_slice(&node.translation);
        record[R_OFF..R_OFF + 4].copy_from_slice(&node.rotation);
        record[S_OFF..S_OFF + 3].copy_from_slice(&node.scale);
    }
    trs
}

fn rotation(trs: &[f32], node: usize) -> Quat {
    Quat::from_slice(&trs[node * TRS_STRIDE + R_OFF..node * TRS_STRIDE + R_OFF + 4])
}

fn set_rotation(trs: &mut [f32], node: usize, q: Quat) {
    trs[node * TRS_STRIDE + R_OFF..node * TRS_STRIDE + R_OFF + 4].copy_from_slice(&q.to_array());
}

fn quat() -> impl Strategy<Value = Quat> {
    ((-1.0_f32..1.0, -1.0_f32..1.0, -1.0_f32..1.0), 0.0_f32..3.0).prop_map(|((x, y, z), angle)| {
        Quat::from_axis_angle(Vec3::new(x, y, z).normalize_or(Vec3::X), angle)
    })
}

/// A root, a source and a destination beside it (both children of the root), with rests.
fn rig(src_rest: Quat, dst_rest: Quat) -> Vec<NodeRest> {
    let mut root = NodeRest::new("root", None);
    root.rotation = Quat::from_rotation_z(0.3).to_array();
    let mut src = NodeRest::new("source", Some(0));
    src.translation = [0.5, 1.0, -0.2];
    src.rotation = src_rest.to_array();
    let mut dst = NodeRest::new("destination", Some(0));
    dst.translation = [-0.3, 0.2, 0.1];
    dst.rotation = dst_rest.to_array();
    vec![root, src, dst]
}

fn close(a: Quat, b: Quat, tolerance: f32) -> bool {
    (a - b).length() < tolerance || (a + b).length() < tolerance
}

proptest! {
    /// Rotation: the source's turn from its rest, after the destination's rest; half weight
    /// is half the angle.
    #[test]
    fn rotation_copies_the_turn(src_rest in quat(), dst_rest in quat(), turn in quat()) {
        let nodes = rig(src_rest, dst_rest);
        for weight in [1.0, 0.5] {
            let c = NodeConstraintDesc { node: 2, kind: ConstraintKind::Rotation { source: 1, weight } };
            let constraints = NodeConstraints::new(&[c], &nodes).unwrap();
            let mut trs = trs_of(&nodes);
            set_rotation(&mut trs, 1, src_rest * turn);
            constraints.apply(&mut trs, Affine3A::IDENTITY);
            let want = dst_rest * Quat::from_axis_angle(turn.to_axis_angle().0, turn.to_axis_angle().1 * weight);
            prop_assert!(close(rotation(&trs, 2), want, 1e-4), "{weight}: {} vs {want}", rotation(&trs, 2));
        }
    }

    /// Roll: the destination turns from its rest only about the roll axis, and a source turn
    /// about the same axis (seen from the destination's rest) is copied whole.
    #[test]
    fn roll_keeps_only_the_twist(dst_rest in quat(), turn in quat(), twist in -3.0_f32..3.0) {
        let nodes = rig(dst_rest, dst_rest);
        for (axis, a) in [(RollAxis::X, Vec3::X), (RollAxis::Y, Vec3::Y), (RollAxis::Z, Vec3::Z)] {
            let c = NodeConstraintDesc { node: 2, kind: ConstraintKind::Roll { source: 1, axis, weight: 1.0 } };
            let constraints = NodeConstraints::new(&[c], &nodes).unwrap();
            let mut trs = trs_of(&nodes);
            set_rotation(&mut trs, 1, dst_rest * turn);
            constraints.apply(&mut trs, Affine3A::IDENTITY);
            let from_rest = dst_rest.inverse() * rotation(&trs, 2);
            prop_assert!((from_rest * a - a).length() < 1e-4, "{axis:?}: {from_rest} moves the axis");
            // A pure twist comes through whole.
            let mut trs = trs_of(&nodes);
            let pure = Quat::from_axis_angle(a, twist);
            set_rotation(&mut trs, 1, dst_rest * pure);
            constraints.apply(&mut trs, Affine3A::IDENTITY);
            prop_assert!(close(rotation(&trs, 2), dst_rest * pure, 1e-4), "{axis:?}: twist {twist}");
        }
    }

    /// Aim: the destination's aim axis points at the source in world space, under a moved root
    /// and a turned parent.
    #[test]
    fn aim_points_at_the_source(dst_rest in quat(), root_turn in quat(), (x, y, z) in (-1.0_f32..1.0, -1.0_f32..1.0, -1.0_f32..1.0)) {
        let mut nodes = rig(Quat::IDENTITY, dst_rest);
        nodes[1].translation = [x, y, z + 2.0];
        let root = Affine3A::from_rotation_translation(root_turn, Vec3::new(3.0, -1.0, 2.0));
        for (axis, a) in [(AimAxis::PositiveZ, Vec3::Z), (AimAxis::NegativeX, Vec3::NEG_X), (AimAxis::PositiveY, Vec3::Y)] {
            let c = NodeConstraintDesc { node: 2, kind: ConstraintKind::Aim { source: 1, axis, weight: 1.0 } };
            let constraints = NodeConstraints::new(&[c], &nodes).unwrap();
            let mut trs = trs_of(&nodes);
            constraints.apply(&mut trs, root);
            let world = |node: usize| {
                let local = |n: usize| Affine3A::from_scale_rotation_translation(
                    Vec3::from(nodes[n].scale),
                    rotation(&trs, n),
                    Vec3::from(nodes[n].translation),
                );
                root * local(0) * local(node)
            };
            let (dst, src) = (world(2), world(1));
            let pointing = dst.transform_vector3(a).normalize();
            let toward = Vec3::from(src.translation - dst.translation).normalize();
            prop_assert!((pointing - toward).length() < 1e-4, "{axis:?}: {pointing} vs {toward}");
        }
    }
}

#[test]
fn a_constraint_runs_after_the_constraints_on_its_source() {
    // The destination (2) aims at node 3, whose parent (1) copies the root's child 4's turn;
    // listed first, the aim must still see node 1 turned.
    let mut nodes = rig(Quat::IDENTITY, Quat::IDENTITY);
    let mut tip = NodeRest::new("tip", Some(1));
    tip.translation = [0.0, 1.0, 0.0];
    nodes.push(tip);
    nodes.push(NodeRest::new("driver", Some(0)));
    let aim = NodeConstraintDesc {
        node: 2,
        kind: ConstraintKind::Aim {
            source: 3,
            axis: AimAxis::PositiveY,
            weight: 1.0,
        },
    };
    let copy = NodeConstraintDesc {
        node: 1,
        kind: ConstraintKind::Rotation {
            source: 4,
            weight: 1.0,
        },
    };
    let mut results = Vec::new();
    for order in [[aim, copy], [copy, aim]] {
        let constraints = NodeConstraints::new(&order, &nodes).unwrap();
        let mut trs = trs_of(&nodes);
        set_rotation(&mut trs, 4, Quat::from_rotation_z(1.2));
        constraints.apply(&mut trs, Affine3A::IDENTITY);
        results.push(rotation(&trs, 2));
    }
    assert!(
        close(results[0], results[1], 1e-6),
        "{} vs {}",
        results[0],
        results[1]
    );
    // Not the aim at the unturned tip: the order mattered.
    let alone = NodeConstraints::new(&[aim], &nodes).unwrap();
    let mut trs = trs_of(&nodes);
    alone.apply(&mut trs, Affine3A::IDENTITY);
    assert!(!close(rotation(&trs, 2), results[0], 1e-3));
}

#[test]
fn bad_constraints_are_errors() {
    let nodes = rig(Quat::IDENTITY, Quat::IDENTITY);
    let bad = |kind, node| NodeConstraints::new(&[NodeConstraintDesc { node, kind }], &nodes);
    let copy = |source| ConstraintKind::Rotation {
        source,
        weight: 1.0,
    };
    assert!(matches!(
        bad(copy(9), 2),
        Err(AnimError::BadConstraint { .. })
    ));
    assert!(matches!(
        bad(copy(1), 9),
        Err(AnimError::BadConstraint { .. })
    ));
    assert!(matches!(
        bad(copy(2), 2),
        Err(AnimError::BadConstraint { .. })
    ));
    assert!(
        bad(
            ConstraintKind::Rotation {
                source: 1,
                weight: f32::NAN
            },
            2
        )
        .is_err()
    );
    // Two nodes driving each other.
    let circle = [
        NodeConstraintDesc {
            node: 1,
            kind: copy(2),
        },
        NodeConstraintDesc {
            node: 2,
            kind: copy(1),
        },
    ];
    assert!(matches!(
        NodeConstraints::new(&circle, &nodes),
        Err(AnimError::BadConstraint { .. })
    ));
}

#[test]
fn a_player_runs_its_constraints_on_every_pose() {
    // The built-in character walking, its right upper arm copying the left one's turn.
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/default_character.glb");
    let data = std::sync::Arc::new(
        skel_gltf::load_path(&path, &skel_gltf::LoadOptions::default())
            .unwrap()
            .animation,
    );
    let node = |name: &str| data.nodes.iter().position(|n| n.name == name).unwrap();
    let (left, right) = (node("LeftUpperArm"), node("RightUpperArm"));
    let copy = NodeConstraintDesc {
        node: right,
        kind: ConstraintKind::Rotation {
            source: left,
            weight: 1.0,
        },
    };
    let constraints = std::sync::Arc::new(NodeConstraints::new(&[copy], &data.nodes).unwrap());
    let rig = skel_anim::Rig::new(std::sync::Arc::clone(&data)).unwrap();
    let mut player = skel_anim::Player::new(&rig);
    player.add_layer(skel_anim::LayerDesc::new(0)).unwrap();
    player.set_constraints(Some(constraints)).unwrap();
    let mut sink = skel_anim::RecordingSink::default();
    let rest = |n: usize| Quat::from_array(data.nodes[n].rotation);
    for _ in 0..20 {
        player.tick(1.0 / 30.0, &mut sink);
        let trs = &player.scratch().trs;
        let want = rest(right) * rest(left).inverse() * rotation(trs, left);
        assert!(
            close(rotation(trs, right), want, 1e-5),
            "{} vs {want}",
            rotation(trs, right)
        );
    }
    // The walk turns the left arm away from its rest, so the copy is not the rest.
    assert!(!close(
        rotation(&player.scratch().trs, right),
        rest(right),
        1e-3
    ));
    // Constraints made for another rig are refused.
    let other = NodeConstraints::new(&[], &data.nodes[..3]).unwrap();
    assert!(
        player
            .set_constraints(Some(std::sync::Arc::new(other)))
            .is_err()
    );
}

#[test]
fn a_loaded_vrm_runs_its_constraints() {
    // fixtures/vrm/v1_constraints.vrm: forearmTwist rolls with the left hand about x at weight
    // 0.5, aimer aims +z at the right hand, rotationCopy copies the left lower arm at 0.7.
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/vrm/v1_constraints.vrm");
    let asset = skel_gltf::load_path(&path, &skel_gltf::LoadOptions::default()).unwrap();
    let vrm = asset.vrm().unwrap();
    assert_eq!(vrm.constraints.len(), 3);
    let nodes = &asset.animation.nodes;
    let constraints = NodeConstraints::new(&vrm.constraints, nodes).unwrap();
    let roll = vrm
        .constraints
        .iter()
        .find(|c| matches!(c.kind, ConstraintKind::Roll { .. }))
        .unwrap();
    let ConstraintKind::Roll { source, .. } = roll.kind else {
        unreachable!()
    };
    let mut trs = trs_of(nodes);
    let rest = |n: usize| Quat::from_array(nodes[n].rotation);
    // The source twisted 0.8 rad about x from its rest (seen from the destination's rest).
    let twist = Quat::from_rotation_x(0.8);
    let dst_rest = rest(roll.node);
    set_rotation(
        &mut trs,
        source,
        dst_rest * twist * dst_rest.inverse() * rest(source),
    );
    constraints.apply(&mut trs, Affine3A::IDENTITY);
    let want = dst_rest * Quat::from_rotation_x(0.4);
    assert!(
        close(rotation(&trs, roll.node), want, 1e-5),
        "{} vs {want}",
        rotation(&trs, roll.node)
    );
}
