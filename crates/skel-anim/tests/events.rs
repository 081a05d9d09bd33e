//! Animation events: random tick sequences (steps from 1e-4 s to 3× the clip, speeds of both
//! signs, every loop mode) against a brute-force reference that unrolls the playhead's path and
//! lists every place a marker occupies along it. No event missed, none doubled; seeking fires
//! nothing; markers on layers of weight 0 fire and say their weight, a group member's weight
//! counting its group's.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use std::sync::Arc;

use proptest::prelude::*;
use skel_anim::{
    AnimationData, Channel, ChannelPath, Clip, GroupDesc, Handedness, Interpolation, LayerDesc,
    LoopMode, Marker, NodeRest, NullSink, Player, Reference, Rig, Sampler,
};

fn rig(duration: f32, markers: &[f32]) -> Arc<Rig> {
    let s = Sampler::new(
        vec![0.0, duration],
        vec![0.0, 0.0, 0.0, 1.0, 0.0, 0.0],
        Interpolation::Linear,
    )
    .unwrap();
    let clip = Clip::new(
        "walk",
        vec![s],
        vec![Channel {
            sampler: 0,
            node: 0,
            path: ChannelPath::Translation,
        }],
    )
    .with_markers(markers.iter().enumerate().map(|(i, &time)| Marker {
        name: format!("m{i}"),
        time,
    }));
    Rig::new(Arc::new(AnimationData {
        nodes: vec![NodeRest::new("root", None)],
        clips: vec![clip],
        skeletons: vec![],
        morph_bindings: vec![],
        handedness: Handedness::RightHanded,
    }))
    .unwrap()
}

/// Every place `m + k·period` in `(a, b]` (forward) or `[b, a)` (backward), by enumeration.
fn brute(a: f64, b: f64, m: f64, period: f64) -> u32 {
    let (lo, hi) = if b > a { (a, b) } else { (b, a) };
    let first = (lo / period).floor() as i64 - 2;
    let last = (hi / period).ceil() as i64 + 2;
    (first..=last)
        .map(|k| m + k as f64 * period)
        .filter(|&p| {
            if b > a {
                a < p && p <= b
            } else {
                b <= p && p < a
            }
        })
        .count() as u32
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn markers_fire_once_per_pass(
        duration in 0.2f32..2.0,
        marker_fracs in prop::collection::vec(0.0f32..1.0, 1..5),
        with_ends in any::<bool>(),
        speed in prop_oneof![0.25f32..2.0, -2.0f32..-0.25],
        mode in prop_oneof![Just(LoopMode::Repeat), Just(LoopMode::Once), Just(LoopMode::PingPong)],
        steps in prop::collection::vec(0.0001f32..1.0, 1..30),
        scale in prop_oneof![Just(0.01f32), Just(0.3f32), Just(3.0f32)],
    ) {
        let mut markers: Vec<f32> = marker_fracs.iter().map(|f| f * duration).collect();
        if with_ends {
            markers.extend([0.0, duration]);
        }
        let rig = rig(duration, &markers);
        let sorted = &rig.data().clips[0].markers;
        let mut player = Player::new(&rig);
        let start = if speed < 0.0 { duration } else { 0.0 };
        player
            .add_layer(LayerDesc::new(0).speed(speed).loop_mode(mode).start(start))
            .unwrap();
        let len = f64::from(duration);
        let mut got = vec![0u32; sorted.len()];
        let mut want = vec![0u32; sorted.len()];
        // The reference's unrolled position: offset along repeat loops, phase along ping-pong
        // periods, clamped offset for once.
        let mut u = f64::from(start);
        let mut stopped = false;
        for step in steps {
            let dt = step * scale * duration;
            player.tick_with_events(dt, &mut NullSink, &mut |e| {
                got[e.marker] += 1;
            });
            let d = f64::from(dt) * f64::from(speed);
            let (a, mut b) = (u, u + d);
            match mode {
                LoopMode::Once => {
                    if stopped {
                        continue;
                    }
                    b = b.clamp(0.0, len);
                    if b == 0.0 || b == len {
                        stopped = true;
                    }
                    for (i, m) in sorted.iter().enumerate() {
                        // One pass at most: no period.
                        let m = f64::from(m.time);
                        let passed = if b > a { a < m && m <= b } else { b <= m && m < a };
                        want[i] += u32::from(passed);
                    }
                }
                LoopMode::Repeat => {
                    for (i, m) in sorted.iter().enumerate() {
                        let m = f64::from(m.time);
                        let m = if m == len { 0.0 } else { m };
                        want[i] += brute(a, b, m, len);
                    }
                }
                LoopMode::PingPong => {
                    for (i, m) in sorted.iter().enumerate() {
                        let m = f64::from(m.time);
                        let there = brute(a, b, m, 2.0 * len);
                        let back = if m == 0.0 || m == len { 0 } else { brute(a, b, 2.0 * len - m, 2.0 * len) };
                        want[i] += there + back;
                    }
                }
            }
            u = b;
        }
        prop_assert_eq!(&got, &want, "markers {:?}", sorted.iter().map(|m| m.time).collect::<Vec<_>>());
    }
}

#[test]
fn seeking_fires_nothing_and_weightless_layers_fire() {
    let rig = rig(1.0, &[0.25, 0.75]);
    let mut player = Player::new(&rig);
    player.add_layer(LayerDesc::new(0).weight(0.0)).unwrap();
    let mut fired = Vec::new();
    player.tick_with_events(0.5, &mut NullSink, &mut |e| {
        fired.push((e.name.to_owned(), e.weight));
    });
    assert_eq!(fired, vec![("m0".to_owned(), 0.0)]);
    player.layer_mut(0).unwrap().clock_mut().seek(0.9);
    fired.clear();
    player.tick_with_events(0.0, &mut NullSink, &mut |e| {
        fired.push((e.name.to_owned(), e.weight))
    });
    assert!(
        fired.is_empty(),
        "a seek moves no playhead over anything: {fired:?}"
    );
    // From 0.9 over the loop's end to 0.3: 0.25 fires, 0.75 does not.
    player.tick_with_events(0.4, &mut NullSink, &mut |e| {
        fired.push((e.name.to_owned(), e.weight))
    });
    assert_eq!(fired, vec![("m0".to_owned(), 0.0)]);
}

#[test]
fn a_tick_spanning_loops_fires_every_crossing_and_allocates_nothing() {
    let rig = rig(1.0, &[0.5]);
    let mut player = Player::new(&rig);
    player.add_layer(LayerDesc::new(0)).unwrap();
    let mut count = 0;
    player.tick_with_events(3.75, &mut NullSink, &mut |_| count += 1);
    assert_eq!(count, 4, "0.5, 1.5, 2.5 and 3.5");
    let info = allocation_counter::measure(|| {
        for _ in 0..500 {
            player.tick_with_events(1.0 / 60.0, &mut NullSink, &mut |_| count += 1);
        }
    });
    assert_eq!(info.count_total, 0);
}

#[test]
fn a_group_members_event_weight_counts_its_groups_weight() {
    let rig = rig(1.0, &[0.25]);
    let mut player = Player::new(&rig);
    let over = player.add_group(GroupDesc::new().weight(0.5)).unwrap();
    let add = player
        .add_group(GroupDesc::new().additive().weight(-0.5))
        .unwrap();
    player
        .add_layer(LayerDesc::new(0).weight(0.8).group(over))
        .unwrap();
    player.add_layer(LayerDesc::new(0).weight(0.6)).unwrap();
    let additive = LayerDesc::new(0).additive(Reference::default());
    player.add_layer(additive.weight(0.5).group(add)).unwrap();
    let mut fired = Vec::new();
    player.tick_with_events(0.5, &mut NullSink, &mut |e| fired.push((e.layer, e.weight)));
    assert_eq!(fired, vec![(0, 0.8 * 0.5), (1, 0.6), (2, 0.5 * -0.5)]);
    // A group at weight 0 shows nothing of its members: their events say so.
    player.set_group_weight(over, 0.0).unwrap();
    fired.clear();
    player.tick_with_events(1.0, &mut NullSink, &mut |e| fired.push((e.layer, e.weight)));
    assert_eq!(fired, vec![(0, 0.0), (1, 0.6), (2, 0.5 * -0.5)]);
}
