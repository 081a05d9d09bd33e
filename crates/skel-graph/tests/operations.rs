//! A layer's pose operations: a two-bone chain and an aim driven by vec3 parameters reach
//! their targets after the states; weights come from parameters; bad operations are typed
//! errors with their JSON path.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

mod common;

use common::rig;
use skel_anim::glam::Vec3;
use skel_anim::{NullSink, Player};
use skel_graph::{Graph, GraphPlayer};

fn graph_with(operations: &str) -> Result<std::sync::Arc<Graph>, String> {
    let json = format!(
        r#"{{ "parameters": {{ "reach": {{"type": "vec3", "default": [0.5, 1.5, 0.5]}},
                              "knee": {{"type": "vec3", "default": [0, 0, 1]}},
                              "w": {{"type": "float", "default": 1}}, "on": {{"type": "bool"}} }},
            "layers": [ {{ "name": "base", "entry": "idle",
              "states": {{ "idle": {{"clip": "Idle"}} }},
              "operations": [ {operations} ] }} ] }}"#
    );
    Graph::from_json(&json, &rig()).map_err(|e| e.to_string())
}

fn hand(gp: &mut GraphPlayer) -> Vec3 {
    gp.player_mut().world_matrices()[3].w_axis.truncate()
}

#[test]
fn a_two_bone_operation_reaches_its_target_every_tick() {
    let g = graph_with(
        r#"{"ik": "two_bone", "joints": ["spine", "arm", "hand"], "target": "reach",
            "pole": "knee", "weight": "w"}"#,
    )
    .unwrap();
    let mut gp = GraphPlayer::new(&g, Player::new(&rig())).unwrap();
    for k in 0..30 {
        // The target moves; the pose follows each tick.
        let target = Vec3::new(0.6, 1.4 + 0.01 * k as f32, 0.3);
        gp.instance_mut().set_vec3("reach", target).unwrap();
        gp.tick(1.0 / 60.0, &mut NullSink);
        let miss = (hand(&mut gp) - target).length();
        assert!(miss < 1e-4, "tick {k}: the hand is {miss} from the target");
    }
    // Weight 0 from its parameter: the clip's pose.
    gp.instance_mut().set_float("w", 0.0).unwrap();
    gp.tick(1.0 / 60.0, &mut NullSink);
    let mut plain = Player::new(&rig());
    plain.add_layer(skel_anim::LayerDesc::new(0)).unwrap();
    plain.seek(
        gp.player()
            .layers()
            .iter()
            .find(|l| l.weight() > 0.0)
            .unwrap()
            .clock()
            .time(),
    );
    plain.evaluate(&mut NullSink);
    let expected = plain.world_matrices()[3].w_axis.truncate();
    assert!((hand(&mut gp) - expected).length() < 1e-5);
}

#[test]
fn an_aim_operation_points_its_axis_at_the_target() {
    let g = graph_with(r#"{"ik": "aim", "joints": ["arm"], "target": "reach", "forward": [0, 1, 0], "up": [0, 0, 1]}"#)
        .unwrap();
    let mut gp = GraphPlayer::new(&g, Player::new(&rig())).unwrap();
    let target = Vec3::new(3.0, 2.0, -1.0);
    gp.instance_mut().set_vec3("reach", target).unwrap();
    gp.tick(1.0 / 60.0, &mut NullSink);
    let arm = gp.player_mut().world_matrices()[2];
    let axis = arm.transform_vector3(Vec3::Y).normalize();
    let to = (target - arm.w_axis.truncate()).normalize();
    assert!(axis.dot(to) > 1.0 - 1e-5, "{axis} against {to}");
}

#[test]
fn bad_operations_are_errors_with_their_path() {
    for (op, path) in [
        (
            r#"{"ik": "two_bone", "joints": ["spine", "arm", "nose"], "target": "reach"}"#,
            "operations[0].joints[2]",
        ),
        (
            r#"{"ik": "two_bone", "joints": ["root", "arm", "hand"], "target": "reach"}"#,
            "operations[0].joints",
        ),
        (
            r#"{"ik": "two_bone", "joints": ["spine", "arm"], "target": "reach"}"#,
            "operations[0].joints",
        ),
        (
            r#"{"ik": "two_bone", "joints": ["spine", "arm", "hand"]}"#,
            "operations[0].target",
        ),
        (
            r#"{"ik": "two_bone", "joints": ["spine", "arm", "hand"], "target": "w"}"#,
            "operations[0].target",
        ),
        (
            r#"{"ik": "two_bone", "joints": ["spine", "arm", "hand"], "target": "reach", "weight": 2}"#,
            "operations[0].weight",
        ),
        (
            r#"{"ik": "two_bone", "joints": ["spine", "arm", "hand"], "target": "reach", "weight": "on"}"#,
            "operations[0].weight",
        ),
        (
            r#"{"ik": "aim", "joints": ["arm"], "target": "reach", "forward": [0, 0, 0]}"#,
            "operations[0].forward",
        ),
        (
            r#"{"ik": "bend", "joints": ["arm"], "target": "reach"}"#,
            "operations[0].ik",
        ),
        (
            r#"{"ik": "aim", "joints": ["arm"], "target": "reach", "colour": 1}"#,
            "operations[0]",
        ),
        (r#"{"joints": ["arm"], "target": "reach"}"#, "operations[0]"),
    ] {
        let err = graph_with(op).unwrap_err();
        assert!(err.contains(&format!("layers[0].{path}")), "{op}: {err}");
    }
    // A NaN target is refused when set; the pose never sees it.
    let g =
        graph_with(r#"{"ik": "two_bone", "joints": ["spine", "arm", "hand"], "target": "reach"}"#)
            .unwrap();
    let mut gp = GraphPlayer::new(&g, Player::new(&rig())).unwrap();
    assert!(gp.instance_mut().set_vec3("reach", Vec3::NAN).is_err());
    gp.tick(1.0 / 60.0, &mut NullSink);
    assert!(
        gp.player_mut()
            .world_matrices()
            .iter()
            .all(|m| m.is_finite())
    );
}

#[test]
fn a_chain_operation_reaches_by_fabrik_and_by_ccd() {
    for solver in ["fabrik", "ccd"] {
        let g = graph_with(&format!(
            r#"{{"ik": "chain", "joints": ["spine", "arm", "hand"], "target": "reach",
                "solver": "{solver}", "iterations": 40,
                "limits": ["free", {{"hinge": {{"axis": [0, 0, 1], "min": -3, "max": 3}}}}, "free"]}}"#
        ))
        .unwrap();
        let mut gp = GraphPlayer::new(&g, Player::new(&rig())).unwrap();
        let target = Vec3::new(0.9, 1.8, 0.0);
        gp.instance_mut().set_vec3("reach", target).unwrap();
        gp.tick(1.0 / 60.0, &mut NullSink);
        let miss = (hand(&mut gp) - target).length();
        assert!(miss < 1e-3, "{solver}: the hand is {miss} from the target");
    }
}

#[test]
fn a_look_at_turns_the_last_joint_to_face_the_point() {
    let g = graph_with(
        r#"{"look_at": "reach", "joints": ["spine", "arm"], "forward": [0, 1, 0],
            "weights": [1, 1], "max_angles": [1.5, 1.5]}"#,
    )
    .unwrap();
    let mut gp = GraphPlayer::new(&g, Player::new(&rig())).unwrap();
    let target = Vec3::new(2.0, 3.5, 1.0);
    gp.instance_mut().set_vec3("reach", target).unwrap();
    gp.tick(1.0 / 60.0, &mut NullSink);
    let arm = gp.player_mut().world_matrices()[2];
    let facing = arm.transform_vector3(Vec3::Y).normalize();
    let to = (target - arm.w_axis.truncate()).normalize();
    assert!(facing.dot(to) > 1.0 - 1e-4, "{facing} against {to}");
}

#[test]
fn bad_chain_look_at_and_body_operations_name_their_path() {
    for (op, path) in [
        (
            r#"{"ik": "chain", "joints": ["spine"], "target": "reach"}"#,
            "operations[0].joints",
        ),
        (
            r#"{"ik": "chain", "joints": ["spine", "arm"], "target": "reach", "limits": ["free"]}"#,
            "operations[0].limits",
        ),
        (
            r#"{"ik": "chain", "joints": ["hand", "spine"], "target": "reach"}"#,
            "operations[0].joints",
        ),
        (
            r#"{"ik": "chain", "joints": ["spine", "arm"], "target": "reach", "solver": "magic"}"#,
            "operations[0].solver",
        ),
        (
            r#"{"ik": "chain", "joints": ["spine", "arm"], "target": "reach", "soften": 1}"#,
            "operations[0].soften",
        ),
        (
            r#"{"look_at": "w", "joints": ["spine", "arm"]}"#,
            "operations[0].look_at",
        ),
        (
            r#"{"look_at": "reach", "joints": ["spine", "arm"], "weights": [1]}"#,
            "operations[0].weights",
        ),
        (
            r#"{"look_at": "reach", "ik": "aim", "joints": ["arm"]}"#,
            "operations[0]",
        ),
        (
            r#"{"ik": "full_body", "effectors": {}}"#,
            "operations[0].pelvis",
        ),
        (
            r#"{"ik": "full_body", "pelvis": "root", "effectors": {}}"#,
            "operations[0].effectors",
        ),
        (
            r#"{"ik": "full_body", "pelvis": "root", "effectors": {"head": {"joints": ["arm"], "target": "reach"}}}"#,
            "operations[0].effectors.head.joints",
        ),
    ] {
        let err = graph_with(op).unwrap_err();
        assert!(err.contains(&format!("layers[0].{path}")), "{op}: {err}");
    }
}

#[test]
fn target_params_are_the_operations_targets_not_their_poles() {
    // Two operations share one target; the pole and the unused parameters are not targets.
    let g = graph_with(
        r#"{"ik": "two_bone", "joints": ["spine", "arm", "hand"], "target": "reach",
            "pole": "knee"},
           {"ik": "aim", "joints": ["arm"], "target": "reach", "forward": [0, 1, 0], "up": [0, 0, 1]}"#,
    )
    .unwrap();
    assert_eq!(g.target_params(), vec![g.param_id("reach").unwrap()]);
    assert!(graph_with("").unwrap().target_params().is_empty());
}
