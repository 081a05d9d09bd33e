//! Hostile graph files: each gives a typed error naming the JSON path (and, for an unknown
//! name, what exists), never a panic.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

mod common;

use proptest::prelude::*;
use skel_graph::{BlendSpaceError, Graph, GraphDef, GraphError, NameKind};

/// The graph of the format's reference, over the test rig.
const VALID: &str = r#"{
  "parameters": { "speed": {"type": "float", "default": 0}, "jump": {"type": "trigger"},
                  "waving": {"type": "bool"}, "mode": {"type": "int", "default": 2} },
  "layers": [
    { "name": "base", "entry": "move",
      "states": {
        "move": { "blend_1d": { "parameter": "speed", "sync": "normalized",
                  "points": [ {"clip": "Idle", "at": 0}, {"clip": "Walking", "at": 1.5},
                              {"clip": "Running", "at": 4} ] } },
        "jump": { "clip": "Jump", "loop": "once" } },
      "transitions": [
        { "from": "move", "to": "jump", "when": [{"trigger": "jump"}], "duration": 0.1 },
        { "from": "jump", "to": "move", "exit_time": 0.9, "duration": 0.2 } ] },
    { "name": "wave", "mode": "override", "weight": 1, "mask": { "include": ["arm"] },
      "entry": "off",
      "states": { "off": { "empty": true }, "on": { "clip": "Wave" } },
      "transitions": [
        { "from": "off", "to": "on", "when": [{"param": "waving", "op": "==", "value": true}],
          "duration": 0.25, "interrupt": "source" },
        { "from": "on", "to": "off", "when": [{"param": "waving", "op": "==", "value": false}],
          "duration": 0.25, "interrupt": "source" } ] } ] }"#;

fn compile(json: &str) -> Result<std::sync::Arc<Graph>, GraphError> {
    Graph::from_json(json, &common::rig())
}

/// `VALID` with `from` replaced by `to` (which must occur).
fn edit(from: &str, to: &str) -> String {
    assert!(VALID.contains(from), "{from}");
    VALID.replacen(from, to, 1)
}

#[test]
fn the_reference_graph_compiles() {
    let g = compile(VALID).unwrap();
    assert_eq!(g.layer_count(), 2);
    assert_eq!(g.state_names(0).collect::<Vec<_>>(), ["move", "jump"]);
    let names: Vec<&str> = g.params().map(|p| p.1).collect();
    assert_eq!(names, ["speed", "jump", "waving", "mode"], "declared order");
    // The file round-trips through serde.
    let def = GraphDef::from_json(VALID).unwrap();
    let again = GraphDef::from_json(&serde_json::to_string(&def).unwrap()).unwrap();
    assert_eq!(def, again);
}

fn unknown(json: &str) -> (String, NameKind, String, String) {
    match compile(json).unwrap_err() {
        GraphError::Unknown {
            path,
            kind,
            name,
            known,
        } => (path, kind, name, known),
        e => panic!("expected Unknown, got {e}"),
    }
}

#[test]
fn unknown_names_give_their_path_and_what_exists() {
    let (path, kind, name, known) = unknown(&edit(r#""clip": "Jump""#, r#""clip": "Jupm""#));
    assert_eq!(
        (path.as_str(), kind, name.as_str()),
        ("layers[0].states.jump.clip", NameKind::Clip, "Jupm")
    );
    assert!(
        known.contains("\"Jump\"") && known.contains("\"Idle\""),
        "{known}"
    );

    let (path, kind, _, known) = unknown(&edit(r#""to": "jump""#, r#""to": "jumping""#));
    assert_eq!(
        (path.as_str(), kind),
        ("layers[0].transitions[0].to", NameKind::State)
    );
    assert_eq!(known, r#""move", "jump""#);

    let (path, kind, _, known) = unknown(&edit(r#""trigger": "jump""#, r#""trigger": "hop""#));
    assert_eq!(
        (path.as_str(), kind),
        (
            "layers[0].transitions[0].when[0].trigger",
            NameKind::Parameter
        )
    );
    assert!(known.contains("\"speed\""));

    let (path, kind, _, known) = unknown(&edit(r#""include": ["arm"]"#, r#""include": ["leg"]"#));
    assert_eq!(
        (path.as_str(), kind),
        ("layers[1].mask.include[0]", NameKind::Node)
    );
    assert!(known.contains("\"spine\""));

    let (path, kind, ..) = unknown(&edit(r#""parameter": "speed""#, r#""parameter": "sped""#));
    assert_eq!(
        (path.as_str(), kind),
        (
            "layers[0].states.move.blend_1d.parameter",
            NameKind::Parameter
        )
    );

    let (path, kind, ..) = unknown(&edit(r#""entry": "off""#, r#""entry": "of""#));
    assert_eq!((path.as_str(), kind), ("layers[1].entry", NameKind::State));
}

fn path_of(e: &GraphError) -> &str {
    match e {
        GraphError::Format { path, .. }
        | GraphError::Unknown { path, .. }
        | GraphError::Duplicate { path, .. }
        | GraphError::WrongType { path, .. }
        | GraphError::OutOfRange { path, .. }
        | GraphError::Invalid { path, .. }
        | GraphError::BlendSpace { path, .. }
        | GraphError::ZeroDurationCycle { path, .. }
        | GraphError::NoSharedMarkers { path, .. } => path,
        e => panic!("no path in {e}"),
    }
}

#[test]
fn wrong_types_and_shapes_name_their_path() {
    let cases: [(&str, &str, &str); 12] = [
        (
            r#""duration": 0.1"#,
            r#""duration": "fast""#,
            "layers[0].transitions[0].duration",
        ),
        (
            r#""op": "==", "value": true"#,
            r#""op": "==", "value": 1"#,
            "layers[1].transitions[0].when[0].value",
        ),
        (
            r#""op": "==", "value": true"#,
            r#""op": ">", "value": true"#,
            "layers[1].transitions[0].when[0].value",
        ),
        (
            r#""default": 2"#,
            r#""default": 2.5"#,
            "parameters.mode.default",
        ),
        (
            r#""type": "trigger""#,
            r#""type": "signal""#,
            "parameters.jump.type",
        ),
        (
            r#""loop": "once""#,
            r#""loop": "twice""#,
            "layers[0].states.jump.loop",
        ),
        (
            r#""jump": { "clip": "Jump", "loop": "once" }"#,
            r#""jump": {}"#,
            "layers[0].states.jump",
        ),
        (
            r#""off": { "empty": true }"#,
            r#""off": { "empty": true, "clip": "Idle" }"#,
            "layers[1].states.off",
        ),
        (
            r#""off": { "empty": true }"#,
            r#""off": { "empty": false }"#,
            "layers[1].states.off.empty",
        ),
        (r#""weight": 1,"#, r#""weight": 2,"#, "layers[1].weight"),
        (
            r#""duration": 0.1"#,
            r#""duration": -0.1"#,
            "layers[0].transitions[0].duration",
        ),
        (
            r#""trigger": "jump""#,
            r#""trigger": "speed""#,
            "layers[0].transitions[0].when[0].trigger",
        ),
    ];
    for (from, to, path) in cases {
        let e = compile(&edit(from, to)).unwrap_err();
        assert_eq!(path_of(&e), path, "{e}");
    }
    // Unknown fields, duplicate keys, no layers, a layer named twice.
    let e = compile(&edit(r#""duration": 0.1"#, r#""duraton": 0.1"#)).unwrap_err();
    assert!(
        matches!(e, GraphError::Format { .. }) && e.to_string().contains("duraton"),
        "{e}"
    );
    let e = compile(&edit(
        r#""off": { "empty": true },"#,
        r#""off": { "empty": true }, "off": { "empty": true },"#,
    ))
    .unwrap_err();
    assert!(e.to_string().contains("defined twice"), "{e}");
    assert!(matches!(
        compile(r#"{"layers": []}"#),
        Err(GraphError::Invalid { .. })
    ));
    let e = compile(&edit(r#""name": "wave""#, r#""name": "base""#)).unwrap_err();
    assert!(
        matches!(
            e,
            GraphError::Duplicate {
                kind: NameKind::Layer,
                ..
            }
        ),
        "{e}"
    );
    assert!(matches!(
        compile("not json"),
        Err(GraphError::Format { .. })
    ));
    assert!(matches!(compile(""), Err(GraphError::Format { .. })));
}

#[test]
fn degenerate_blend_spaces_and_numbers_are_refused() {
    let e = compile(&edit(r#""at": 1.5"#, r#""at": 0"#)).unwrap_err();
    assert_eq!(
        e,
        GraphError::BlendSpace {
            path: "layers[0].states.move.blend_1d.points".into(),
            source: BlendSpaceError::Duplicate {
                first: 0,
                second: 1
            }
        }
    );
    // Past f32: infinite, refused like NaN.
    let e = compile(&edit(r#""at": 1.5"#, r#""at": 1e39"#)).unwrap_err();
    assert!(
        matches!(
            e,
            GraphError::BlendSpace {
                source: BlendSpaceError::NotFinite { point: 1 },
                ..
            }
        ),
        "{e}"
    );
    // Past f64: the parser refuses it.
    assert!(matches!(
        compile(&edit(r#""at": 1.5"#, r#""at": 1e999"#)),
        Err(GraphError::Format { .. })
    ));
    let two_d = edit(
        r#""jump": { "clip": "Jump", "loop": "once" }"#,
        r#""jump": { "blend_2d": { "parameters": ["speed", "speed"], "points": [
            {"clip": "Idle", "at": [0, 0]}, {"clip": "Walking", "at": [1, 1]}, {"clip": "Running", "at": [2, 2]} ] } }"#,
    );
    let e = compile(&two_d).unwrap_err();
    assert!(
        matches!(
            e,
            GraphError::BlendSpace {
                source: BlendSpaceError::Collinear,
                ..
            }
        ),
        "{e}"
    );
    assert_eq!(path_of(&e), "layers[0].states.jump.blend_2d.points");
    let markers = edit(r#""sync": "normalized""#, r#""sync": "markers""#);
    let e = compile(&markers).unwrap_err();
    assert!(
        matches!(e, GraphError::NoSharedMarkers { .. }),
        "Idle has no markers: {e}"
    );
}

#[test]
fn cycles_of_zero_duration_transitions_are_refused() {
    let cycle = edit(
        r#"{ "from": "jump", "to": "move", "exit_time": 0.9, "duration": 0.2 }"#,
        r#"{ "from": "jump", "to": "move" }, { "from": "move", "to": "jump", "when": [{"param": "speed", "op": ">", "value": 1}] }"#,
    );
    let e = compile(&cycle).unwrap_err();
    assert_eq!(
        e,
        GraphError::ZeroDurationCycle {
            path: "layers[0].transitions".into(),
            cycle: "move -> jump -> move".into()
        }
    );
    // Through `any`, and to itself.
    let any = edit(
        r#"{ "from": "jump", "to": "move", "exit_time": 0.9, "duration": 0.2 }"#,
        r#"{ "from": "any", "to": "move" }, { "from": "move", "to": "jump" }"#,
    );
    assert!(matches!(
        compile(&any),
        Err(GraphError::ZeroDurationCycle { .. })
    ));
    let own = edit(
        r#"{ "from": "jump", "to": "move", "exit_time": 0.9, "duration": 0.2 }"#,
        r#"{ "from": "jump", "to": "jump" }"#,
    );
    assert!(matches!(
        compile(&own),
        Err(GraphError::ZeroDurationCycle { .. })
    ));
    // An exit time breaks the cycle: the state must advance first.
    let fine = edit(
        r#"{ "from": "jump", "to": "move", "exit_time": 0.9, "duration": 0.2 }"#,
        r#"{ "from": "jump", "to": "move", "exit_time": 0.9 }, { "from": "move", "to": "jump" }"#,
    );
    compile(&fine).unwrap();
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// Any edit of the file (a byte replaced, a piece cut out) gives a graph or an error,
    /// never a panic.
    #[test]
    fn edited_files_never_panic(at in 0..VALID.len(), len in 0_usize..40, byte in 32_u8..127) {
        let mut bytes = VALID.as_bytes().to_vec();
        let end = (at + len).min(bytes.len());
        if len % 2 == 0 {
            bytes.drain(at..end);
        } else {
            bytes[at] = byte;
        }
        if let Ok(text) = String::from_utf8(bytes) {
            // What compiles plays: attached to a player, ticked with its parameters moving.
            if let Ok(g) = compile(&text) {
                let rig = common::rig();
                let mut gp = skel_graph::GraphPlayer::new(&g, skel_anim::Player::new(&rig)).unwrap();
                let ids: Vec<_> = g.params().map(|(id, _, kind)| (id, kind)).collect();
                for n in 0..20 {
                    for &(id, kind) in &ids {
                        let v = match kind {
                            skel_graph::ParamKind::Float => skel_graph::ParamValue::Float(n as f32 * 0.3),
                            skel_graph::ParamKind::Int => skel_graph::ParamValue::Int(n % 3),
                            skel_graph::ParamKind::Bool => skel_graph::ParamValue::Bool(n % 4 < 2),
                            skel_graph::ParamKind::Trigger => skel_graph::ParamValue::Trigger(n % 5 == 0),
                            skel_graph::ParamKind::Vec3 => skel_graph::ParamValue::Vec3(skel_anim::glam::Vec3::splat(n as f32)),
                        };
                        gp.instance_mut().set(id, v).unwrap();
                    }
                    gp.tick(0.05, &mut skel_anim::NullSink);
                    for layer in 0..g.layer_count() {
                        common::assert_sums_to_one(gp.instance(), layer);
                    }
                }
            }
        }
    }
}
