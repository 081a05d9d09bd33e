//! Vec3 parameters: a default of three numbers, set from code or from `X,Y,Z` text, refused
//! when not finite, and typed errors with the JSON path for a bad default or a vec3 used where
//! a number is compared.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

mod common;

use common::rig;
use skel_anim::glam::Vec3;
use skel_graph::{Graph, GraphInstance, ParamKind, ParamValue};

fn graph(parameters: &str, transitions: &str) -> Result<std::sync::Arc<Graph>, String> {
    let json = format!(
        r#"{{ "parameters": {{ {parameters} }},
            "layers": [ {{ "name": "base", "entry": "a",
              "states": {{ "a": {{"clip": "Idle"}}, "b": {{"clip": "Walking"}} }},
              "transitions": [ {transitions} ] }} ] }}"#
    );
    Graph::from_json(&json, &rig()).map_err(|e| e.to_string())
}

#[test]
fn a_vec3_has_a_default_and_takes_text_and_vectors() {
    let g = graph(
        r#""target": {"type": "vec3", "default": [0.5, 1, -2]}, "look": {"type": "vec3"}"#,
        "",
    )
    .unwrap();
    let mut i = GraphInstance::new(&g);
    let target = i.param_id("target").unwrap();
    let look = i.param_id("look").unwrap();
    assert_eq!(
        i.get(target),
        Some(ParamValue::Vec3(Vec3::new(0.5, 1.0, -2.0)))
    );
    assert_eq!(i.get(look), Some(ParamValue::Vec3(Vec3::ZERO)));
    i.set_from_text("look", Some(" 1, 2.5 ,3")).unwrap();
    assert_eq!(
        i.get(look),
        Some(ParamValue::Vec3(Vec3::new(1.0, 2.5, 3.0)))
    );
    i.set_vec3("target", Vec3::X).unwrap();
    assert_eq!(i.get(target), Some(ParamValue::Vec3(Vec3::X)));
    assert_eq!(g.params().next().map(|p| p.2), Some(ParamKind::Vec3));
    // Bad values change nothing.
    for text in ["1,2", "1,2,3,4", "a,b,c", ""] {
        assert!(i.set_from_text("look", Some(text)).is_err(), "{text}");
    }
    assert!(i.set_vec3("look", Vec3::new(f32::NAN, 0.0, 0.0)).is_err());
    assert!(i.set_float("look", 1.0).is_err());
    assert_eq!(
        i.get(look),
        Some(ParamValue::Vec3(Vec3::new(1.0, 2.5, 3.0)))
    );
}

#[test]
fn bad_vec3_defaults_and_uses_are_errors_with_their_path() {
    for (default, what) in [
        ("[1, 2]", "2 numbers"),
        ("3", "a number"),
        (r#"[1, "x", 3]"#, "a string"),
    ] {
        let err = graph(
            &format!(r#""p": {{"type": "vec3", "default": {default}}}"#),
            "",
        )
        .unwrap_err();
        assert!(err.contains("parameters.p.default"), "{what}: {err}");
    }
    let err = graph(
        r#""p": {"type": "vec3"}"#,
        r#"{"from": "a", "to": "b", "when": [{"param": "p", "op": ">", "value": 1}]}"#,
    )
    .unwrap_err();
    assert!(err.contains("layers[0].transitions[0].when[0]"), "{err}");
}
