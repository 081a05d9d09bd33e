//! The player binding: the pose is the blend the instance reports, an interrupted fade does
//! not jump (in an additive layer too, when the new destination replays a frozen clip), events (the leader's only under marker sync) and root motion pass through,
//! nothing is allocated per tick, and a player of another rig is refused.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

mod common;

use common::{clip_index, graph, rig};
use skel_anim::glam::Mat4;
use skel_anim::{LayerDesc, NullSink, Player, RecordingSink, RootMotion};
use skel_graph::{GraphError, GraphPlayer};

const DT: f32 = 1.0 / 60.0;

const LOCOMOTION: &str = r#"{
  "parameters": { "x": {"type": "float"}, "go": {"type": "bool"}, "back": {"type": "bool"} },
  "layers": [ { "name": "base", "entry": "move",
    "states": {
      "move": { "blend_1d": { "parameter": "x", "sync": "markers", "points": [
                {"clip": "Walking", "at": 0}, {"clip": "Running", "at": 1}, {"clip": "Strafe", "at": 2} ] } },
      "jump": { "clip": "Jump" },
      "wave": { "clip": "Wave" } },
    "transitions": [
      { "from": "move", "to": "jump", "when": [{"param": "go"}], "duration": 0.5, "interrupt": "destination" },
      { "from": "jump", "to": "wave", "when": [{"param": "back"}], "duration": 0.5 } ] } ] }"#;

fn world(p: &mut Player) -> Vec<Mat4> {
    p.world_matrices().to_vec()
}

/// The largest change of any node's world matrix (its translation and axes) between two poses.
fn change(a: &[Mat4], b: &[Mat4]) -> f32 {
    a.iter()
        .zip(b)
        .map(|(x, y)| {
            (*x - *y)
                .to_cols_array()
                .iter()
                .fold(0.0_f32, |m, v| m.max(v.abs()))
        })
        .fold(0.0, f32::max)
}

/// Asserts that no step of `poses` (world matrices tick by tick) in `checked` moves more than
/// 1.5 × the largest step of the ticks in `before` and `after`, away from the interruption.
fn assert_no_jump(
    poses: &[Vec<Mat4>],
    before: std::ops::Range<usize>,
    after: std::ops::Range<usize>,
    checked: std::ops::Range<usize>,
) {
    let steps: Vec<f32> = poses.windows(2).map(|w| change(&w[0], &w[1])).collect();
    let usual = steps[before]
        .iter()
        .chain(&steps[after])
        .fold(0.0_f32, |m, &s| m.max(s));
    for (n, &s) in steps
        .iter()
        .enumerate()
        .take(checked.end)
        .skip(checked.start)
    {
        assert!(
            s <= 1.5 * usual + 1e-4,
            "tick {n}: the pose moved {s}, a tick usually moves ≤ {usual}"
        );
    }
}

#[test]
fn the_pose_is_the_blend_the_instance_reports() {
    let rig = rig();
    let mut gp = GraphPlayer::new(&graph(LOCOMOTION), Player::new(&rig)).unwrap();
    gp.instance_mut().set_float("x", 0.4).unwrap();
    let mut reference = Player::new(&rig);
    for _ in 0..37 {
        gp.tick(DT, &mut NullSink);
    }
    // The same clips at the same weights and times as plain blend layers.
    for c in gp.instance().clips(0) {
        reference
            .add_layer(
                LayerDesc::new(c.clip)
                    .weight(c.weight)
                    .start(c.time)
                    .speed(0.0),
            )
            .unwrap();
    }
    assert_eq!(reference.layers().len(), 2);
    reference.evaluate(&mut NullSink);
    let (a, b) = (world(gp.player_mut()), world(&mut reference));
    assert!(
        change(&a, &b) < 1e-5,
        "graph pose differs by {}",
        change(&a, &b)
    );
}

#[test]
fn an_interrupted_fade_continues_without_a_jump() {
    let rig = rig();
    let mut gp = GraphPlayer::new(&graph(LOCOMOTION), Player::new(&rig)).unwrap();
    gp.instance_mut().set_float("x", 0.5).unwrap();
    let mut poses = vec![];
    for n in 0..120 {
        if n == 30 {
            gp.instance_mut().set_bool("go", true).unwrap();
        }
        if n == 50 {
            // Half way through move -> jump: jump -> wave interrupts it.
            gp.instance_mut().set_bool("back", true).unwrap();
        }
        gp.tick(DT, &mut NullSink);
        poses.push(world(gp.player_mut()));
        if n == 50 {
            assert_eq!(gp.instance().transition(0).unwrap().from, "jump");
            assert!(gp.instance().clips(0).any(|c| c.frozen));
        }
    }
    // The ticks around the interruption (tick 50 shows its first pose at index 50).
    assert_no_jump(&poses, 40..49, 52..60, 48..56);
}

#[test]
fn events_come_from_the_leader_and_root_motion_passes_through() {
    let rig = rig();
    let mut player = Player::new(&rig);
    player
        .set_root_motion(Some(RootMotion {
            node: 0,
            translation: [true, false, false],
            yaw: false,
        }))
        .unwrap();
    let mut gp = GraphPlayer::new(&graph(LOCOMOTION), player).unwrap();
    gp.instance_mut().set_float("x", 0.7).unwrap(); // Running leads, Walking follows.
    let mut events: Vec<(usize, String)> = vec![];
    let mut travelled = 0.0;
    for _ in 0..240 {
        gp.tick_with_events(DT, &mut NullSink, &mut |e| {
            events.push((e.clip, e.name.to_owned()))
        });
        travelled += gp.player().root_motion_delta().translation.x;
    }
    assert!(!events.is_empty());
    assert!(
        events.iter().all(|(c, _)| *c == clip_index("Running")),
        "{events:?}"
    );
    // Running lasts 0.8 s: 4 s of it fire each foot 5 times.
    let left = events.iter().filter(|e| e.1 == "foot_l").count();
    assert!((4..=6).contains(&left), "{left}");
    // Root motion: the blend of the two clips' root speeds (x = k·t for clip k: Walking 2,
    // Running 3 per second of clip time), under the synced clocks; positive and bounded.
    assert!(
        travelled > 4.0 * 2.0 && travelled < 4.0 * 4.0 * 1.5,
        "{travelled}"
    );
}

#[test]
fn an_interrupted_additive_fade_continues_without_a_jump() {
    let rig = rig();
    let g = graph(
        r#"{ "parameters": { "a": {"type": "bool"}, "b": {"type": "bool"} },
          "layers": [ { "name": "base", "entry": "idle", "states": { "idle": { "clip": "Idle" } } },
            { "name": "add", "mode": "additive", "entry": "s",
              "states": { "s": { "clip": "Walking" }, "t": { "clip": "Running" }, "u": { "clip": "Strafe" } },
              "transitions": [
                { "from": "s", "to": "t", "when": [{"param": "a"}], "duration": 0.5, "interrupt": "destination" },
                { "from": "t", "to": "u", "when": [{"param": "b"}], "duration": 0.5 } ] } ] }"#,
    );
    let mut gp = GraphPlayer::new(&g, Player::new(&rig)).unwrap();
    let mut poses = vec![];
    for n in 0..80 {
        if n == 20 {
            gp.instance_mut().set_bool("a", true).unwrap();
        }
        if n == 35 {
            gp.instance_mut().set_bool("b", true).unwrap();
        }
        gp.tick(DT, &mut NullSink);
        poses.push(world(gp.player_mut()));
    }
    assert_eq!(gp.instance().state(1), Some("u"));
    assert_no_jump(&poses, 25..34, 38..45, 33..40);
}

#[test]
fn an_additive_fade_interrupted_by_a_state_replaying_a_frozen_clip_does_not_jump() {
    let rig = rig();
    let g = graph(
        r#"{ "parameters": { "a": {"type": "bool"}, "b": {"type": "bool"} },
          "layers": [ { "name": "base", "entry": "idle", "states": { "idle": { "clip": "Idle" } } },
            { "name": "add", "mode": "additive", "entry": "s",
              "states": { "s": { "clip": "Walking" }, "t": { "clip": "Running" } },
              "transitions": [
                { "from": "s", "to": "t", "when": [{"param": "a"}], "duration": 0.5, "interrupt": "destination" },
                { "from": "t", "to": "s", "when": [{"param": "b"}], "duration": 0.5 } ] } ] }"#,
    );
    let mut gp = GraphPlayer::new(&g, Player::new(&rig)).unwrap();
    let mut poses = vec![];
    for n in 0..80 {
        if n == 20 {
            gp.instance_mut().set_bool("a", true).unwrap();
        }
        if n == 35 {
            // Half way through s -> t: t -> s interrupts it, and s replays Walking, which is
            // part of the frozen pose.
            gp.instance_mut().set_bool("a", false).unwrap();
            gp.instance_mut().set_bool("b", true).unwrap();
        }
        gp.tick(DT, &mut NullSink);
        poses.push(world(gp.player_mut()));
        if n == 36 {
            // The fade runs: Walking frozen and Walking live, at two times.
            let walking = clip_index("Walking");
            let clips: Vec<_> = gp.instance().clips(1).collect();
            assert!(
                clips.iter().any(|c| c.frozen && c.clip == walking),
                "{clips:?}"
            );
            assert!(
                clips.iter().any(|c| !c.frozen && c.clip == walking),
                "{clips:?}"
            );
        }
    }
    assert_eq!(gp.instance().state(1), Some("s"));
    // One tick's usual motion, away from the interruption (tick 35 shows its first pose at
    // index 35, so steps[34] spans it).
    assert_no_jump(&poses, 25..33, 38..45, 32..38);
}

#[test]
fn ticking_the_player_allocates_nothing() {
    let rig = rig();
    let mut gp = GraphPlayer::new(&graph(LOCOMOTION), Player::new(&rig)).unwrap();
    let mut sink = RecordingSink::default();
    gp.tick(DT, &mut sink);
    let count = allocation_counter::measure(|| {
        for n in 0..600 {
            let i = gp.instance_mut();
            i.set_float("x", (n as f32 * 0.01).sin() + 1.0).unwrap();
            i.set_bool("go", (n / 40) % 2 == 0).unwrap();
            i.set_bool("back", (n / 55) % 2 == 0).unwrap();
            gp.tick_with_events(DT, &mut sink, &mut |_| {});
        }
    })
    .count_total;
    assert_eq!(count, 0);
}

#[test]
fn a_player_of_other_clips_is_refused() {
    let g = graph(LOCOMOTION);
    let other = skel_anim::Rig::new(std::sync::Arc::new(skel_anim::AnimationData {
        nodes: vec![skel_anim::NodeRest::new("root", None)],
        ..Default::default()
    }))
    .unwrap();
    assert!(matches!(
        GraphPlayer::new(&g, Player::new(&other)),
        Err(GraphError::Request(_))
    ));
}
