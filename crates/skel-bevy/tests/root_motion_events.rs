//! Root motion moves the character entity; markers arrive as Bevy events once per crossing.

#![allow(clippy::unwrap_used, reason = "tests")]

mod common;

use bevy::prelude::*;
use skel_bevy::{SkelEvent, SkelLayer, SkelPlayer, SkelRootMotion};

#[derive(Resource, Default)]
struct Seen(Vec<(Entity, String, f32)>);

#[test]
fn root_motion_moves_the_character_and_markers_fire_once_per_crossing() {
    let rig = common::rig(&common::fixture("root_motion_walk.gltf"));
    let walk = rig.clip_index("Walk").unwrap();
    let duration = rig.clip_duration(walk).unwrap();
    let markers = rig.data().clips[walk].markers.clone();
    assert!(!markers.is_empty());

    let mut app = common::app(&common::fixture(""));
    app.init_resource::<Seen>();
    app.add_observer(|e: On<SkelEvent>, mut seen: ResMut<Seen>| {
        seen.0.push((e.entity, e.name.to_string(), e.time));
    });
    let character = common::spawn(
        &mut app,
        "root_motion_walk.gltf",
        (
            Transform::default(),
            SkelPlayer::new().with_layer(SkelLayer::clip("Walk")),
            SkelRootMotion::ground("hips"),
        ),
    );
    common::run_until_bound(&mut app, character);
    // Where the bind frame left the playhead (its tick saw that frame's delta), then 2.5
    // loops more.
    let clock = |app: &App| common::layer_time(app, character);
    let start = clock(&app);
    let more = (2.5 * duration / common::STEP).round() as usize;
    common::step(&mut app, more);
    let swept = start + more as f32 * common::STEP;
    let player = app
        .world()
        .get::<SkelPlayer>(character)
        .unwrap()
        .player()
        .unwrap();
    let now = player.layers()[0].clock().time();
    assert!(
        (now - swept % duration).abs() < 1e-3,
        "clock {now}, swept {swept}"
    );
    let total = player.root_motion_total();

    // Root motion: the entity moved by what skel extracted, and moved at all.
    let moved = app.world().get::<Transform>(character).unwrap().translation;
    let want = Vec3::from_array(total.translation.to_array());
    assert!(want.length() > 0.1, "the clip extracts no motion: {want}");
    assert!(
        (moved - want).length() < 1e-4 * want.length().max(1.0),
        "{moved} vs {want}"
    );

    // Events: each marker once per time the playhead passed it, on this entity.
    let seen = &app.world().resource::<Seen>().0;
    for m in &markers {
        let expected = if swept >= m.time {
            ((swept - m.time) / duration).floor() as usize + 1
        } else {
            0
        };
        let got = seen
            .iter()
            .filter(|(e, n, _)| *e == character && *n == m.name)
            .count();
        assert_eq!(got, expected, "marker {} at {}", m.name, m.time);
    }
}
