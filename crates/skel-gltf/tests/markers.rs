//! Clip markers from an animation's `extras` (`{"markers": [{"name", "time"}]}`): read in time
//! order, other extras left alone, malformed markers an error naming the field; and events fire
//! from them on a player.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

mod common;

use std::sync::Arc;

use common::builder::two_bone_strip;
use serde_json::{Value, json};
use skel_anim::{Handedness, LayerDesc, NullSink, Player, Rig};
use skel_gltf::{GltfAsset, GltfError, LoadOptions, load_slice};

fn strip_with_extras(extras: Value) -> Result<GltfAsset, GltfError> {
    let (b, mut doc) = two_bone_strip();
    doc["animations"][0]["extras"] = extras;
    load_slice(
        &b.gltf(doc),
        None,
        &LoadOptions::with_handedness(Handedness::RightHanded),
    )
}

#[test]
fn markers_come_from_extras_in_time_order_and_fire() {
    let asset = strip_with_extras(json!({
        "markers": [{"name": "step_r", "time": 0.5}, {"name": "step_l", "time": 0.25}],
        "author": "someone"
    }))
    .unwrap();
    let clip = &asset.animation.clips[0];
    let names: Vec<(&str, f32)> = clip
        .markers
        .iter()
        .map(|m| (m.name.as_str(), m.time))
        .collect();
    assert_eq!(names, [("step_l", 0.25), ("step_r", 0.5)]);
    let rig = Rig::new(Arc::new(asset.animation.clone())).unwrap();
    let mut player = Player::new(&rig);
    player.add_layer(LayerDesc::new(0)).unwrap();
    let mut fired = Vec::new();
    player.tick_with_events(0.3, &mut NullSink, &mut |e| fired.push(e.name.to_owned()));
    assert_eq!(fired, ["step_l"]);
}

#[test]
fn other_extras_are_left_alone_and_bad_markers_are_errors() {
    let plain = strip_with_extras(json!({"author": "someone"})).unwrap();
    assert!(plain.animation.clips[0].markers.is_empty());
    let not_an_object = strip_with_extras(json!("a note")).unwrap();
    assert!(not_an_object.animation.clips[0].markers.is_empty());
    for bad in [
        json!({"markers": [{"name": "x"}]}),
        json!({"markers": [{"name": "x", "time": "soon"}]}),
        json!({"markers": {"name": "x", "time": 1}}),
    ] {
        let err = strip_with_extras(bad.clone()).unwrap_err();
        assert!(
            err.to_string().contains("animations[0].extras.markers"),
            "{bad}: {err}"
        );
    }
}
