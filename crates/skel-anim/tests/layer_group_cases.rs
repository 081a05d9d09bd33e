//! Layer groups beyond the pose rule: a group's snapshot takes over its pose without a jump
//! (and again mid-fade), root motion follows the group weights (f64 arithmetic of the rule),
//! a follower layer fires no events, fades stay inside a group, refusals are typed errors that
//! add nothing, and ticking a player with groups allocates nothing.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

mod common;

use std::sync::Arc;

use glam::Mat4;
use skel_anim::{
    AnimError, AnimationData, Channel, ChannelPath, Clip, GroupDesc, Handedness, Interpolation,
    LayerDesc, Marker, Mask, NodeRest, NullSink, Player, Reference, Rig, RootMotion, Sampler,
};

/// A 24-joint generated rig with morph weights (one clip, played at several speeds).
fn generated() -> Arc<Rig> {
    Rig::new(Arc::new(common::generated_rig(24, 3, 0x6a0b))).unwrap()
}

/// A chain of 8 joints whose one clip turns each joint smoothly (LINEAR keys every half
/// second over two seconds) and moves a two-target mesh's weights: no key jumps, so any jump
/// in the pose is the player's.
fn smooth() -> Arc<Rig> {
    let mut rng = common::Rng::new(0x5eed);
    let times = vec![0.0, 0.5, 1.0, 1.5, 2.0];
    let mut nodes = vec![NodeRest::new("mesh", None)];
    let (mut samplers, mut channels) = (Vec::new(), Vec::new());
    for j in 1..=8 {
        let mut n = NodeRest::new(format!("j{j}"), (j > 1).then(|| j - 1));
        n.translation = [0.0, 0.5, 0.0];
        nodes.push(n);
        let mut keys: Vec<f32> = Vec::new();
        for _ in &times {
            let q = glam::Quat::from_array(rng.quat());
            let q = glam::Quat::IDENTITY.slerp(q, 0.3);
            keys.extend(q.to_array());
        }
        channels.push(Channel {
            sampler: samplers.len(),
            node: j,
            path: ChannelPath::Rotation,
        });
        samplers.push(Sampler::new(times.clone(), keys, Interpolation::Linear).unwrap());
    }
    let weights: Vec<f32> = (0..10).map(|_| rng.range(0.0, 1.0)).collect();
    channels.push(Channel {
        sampler: samplers.len(),
        node: 0,
        path: ChannelPath::Weights,
    });
    samplers.push(Sampler::new(times, weights, Interpolation::Linear).unwrap());
    Rig::new(Arc::new(AnimationData {
        nodes,
        clips: vec![Clip::new("sway", samplers, channels)],
        skeletons: vec![],
        morph_bindings: vec![skel_anim::MorphBinding {
            node: 0,
            default_weights: vec![0.0, 0.0],
        }],
        handedness: Handedness::RightHanded,
    }))
    .unwrap()
}

fn largest_change(a: &[Mat4], b: &[Mat4]) -> f32 {
    common::flat(a)
        .iter()
        .zip(common::flat(b))
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f32::max)
}

/// Base layer 0, override group 0 (weight 0.8, over every node but node 3's subtree) with
/// members 1 (w 0.6), 2 (w 0.4) and 3 (w 0, the next state), ticked 20 times; and the
/// largest motion of one tick seen meanwhile.
fn interrupted_player(rig: &Arc<Rig>) -> (Player, f32) {
    let mut p = Player::new(rig);
    let g = p
        .add_group(
            GroupDesc::new()
                .weight(0.8)
                .mask(Mask::default().exclude([3])),
        )
        .unwrap();
    p.add_layer(LayerDesc::new(0)).unwrap();
    p.add_layer(LayerDesc::new(0).group(g).weight(0.6).speed(1.7))
        .unwrap();
    p.add_layer(LayerDesc::new(0).group(g).weight(0.4).speed(0.4).start(0.3))
        .unwrap();
    p.add_layer(LayerDesc::new(0).group(g).weight(0.0).speed(2.3))
        .unwrap();
    let mut natural = 0.0_f32;
    for _ in 0..20 {
        p.tick(1.0 / 60.0, &mut NullSink);
        // The largest motion of a tick (member 3 at weight 1 is the fastest clip).
        let mut fast = p.clone();
        fast.set_weight(3, 1.0).unwrap();
        fast.tick(0.0, &mut NullSink);
        let now = fast.world_matrices().to_vec();
        fast.tick(1.0 / 60.0, &mut NullSink);
        natural = natural.max(largest_change(&now, fast.world_matrices()));
    }
    (p, natural)
}

#[test]
fn a_captured_group_snapshot_takes_over_without_a_jump() {
    let rig = smooth();
    let (mut p, natural) = interrupted_player(&rig);
    let before = p.world_matrices().to_vec();
    let morph_before = p.morph_weights(0).unwrap().to_vec();
    // A control: dropping the members without the snapshot jumps.
    let mut control = p.clone();
    control.set_weight(1, 0.0).unwrap();
    control.set_weight(2, 0.0).unwrap();
    control.tick(0.0, &mut NullSink);
    let jump = largest_change(&before, control.world_matrices());
    assert!(jump > 1e-2, "the control must jump (it moved {jump})");

    p.capture_group_snapshot(0).unwrap();
    p.set_weight(1, 0.0).unwrap();
    p.set_weight(2, 0.0).unwrap();
    p.set_group_snapshot_weight(0, 1.0).unwrap();
    assert_eq!(p.group_snapshot_weight(0).unwrap(), 1.0);
    p.tick(0.0, &mut NullSink);
    let held = largest_change(&before, p.world_matrices());
    assert!(held < 1e-5, "the snapshot holds the pose ({held})");
    let morph_held = p.morph_weights(0).unwrap();
    for (a, b) in morph_before.iter().zip(morph_held) {
        assert!((a - b).abs() < 1e-6, "morph {a} vs {b}");
    }
    // Fading from the snapshot to member 3 over 12 ticks: a tick moves no more than the
    // clips' own motion in a tick plus a twelfth of the way from the snapshot to member 3's
    // pose (the ramp), and an interruption mid-fade (a second capture, the snapshot inside
    // it) does not jump either.
    let dt = 1.0 / 60.0;
    let mut target = p.clone();
    target.set_group_snapshot_weight(0, 0.0).unwrap();
    target.set_weight(3, 1.0).unwrap();
    target.tick(0.0, &mut NullSink);
    let way = largest_change(&before, target.world_matrices());
    let bound = 2.0 * natural + 1.5 * way / 12.0;
    let mut last = p.world_matrices().to_vec();
    let mut start = 0;
    for step in 1..=12 {
        let u = (step - start) as f32 / (12 - start) as f32;
        p.set_group_snapshot_weight(0, 1.0 - u).unwrap();
        p.set_weight(3, u).unwrap();
        p.tick(dt, &mut NullSink);
        let now = p.world_matrices().to_vec();
        let moved = largest_change(&last, &now);
        assert!(
            moved <= bound,
            "tick {step} moved {moved}, more than {bound} (a pop: {jump})"
        );
        if step == 6 {
            p.capture_group_snapshot(0).unwrap();
            p.set_weight(3, 0.0).unwrap();
            p.set_group_snapshot_weight(0, 1.0).unwrap();
            p.tick(0.0, &mut NullSink);
            let held = largest_change(&now, p.world_matrices());
            assert!(held < 1e-5, "the second capture holds the pose ({held})");
            // The rest of the fade runs from the new snapshot (half the way is left).
            start = step;
        }
        last = p.world_matrices().to_vec();
    }
    p.clear_group_snapshot(0).unwrap();
    assert!(!p.groups()[0].has_snapshot());
}

#[test]
fn ticking_with_groups_allocates_nothing() {
    let rig = generated();
    let (mut p, _) = interrupted_player(&rig);
    let additive = p
        .add_group(GroupDesc::new().additive().weight(0.5))
        .unwrap();
    p.add_layer(
        LayerDesc::new(0)
            .group(additive)
            .speed(0.7)
            .additive(Reference::default()),
    )
    .unwrap();
    p.add_layer(LayerDesc::new(0).weight(0.3).additive(Reference::default()))
        .unwrap();
    p.set_root_motion(Some(RootMotion {
        node: 1,
        translation: [true, false, true],
        yaw: true,
    }))
    .unwrap();
    p.layer_mut(2).unwrap().set_fires_events(false);
    let mut sink = skel_anim::RecordingSink::default();
    p.tick(0.0, &mut sink);
    let mut events = 0;
    let n = allocation_counter::measure(|| {
        for frame in 0..600 {
            let dt = 1.0 / 60.0;
            if frame % 50 == 10 {
                p.capture_group_snapshot(0).unwrap();
                p.set_group_snapshot_weight(0, 0.5).unwrap();
            }
            if frame % 50 == 30 {
                p.capture_group_snapshot(additive).unwrap();
                p.set_group_snapshot_weight(additive, 0.5).unwrap();
            }
            p.set_group_weight(0, (frame % 100) as f32 / 100.0).unwrap();
            p.tick_with_events(dt, &mut sink, &mut |_| events += 1);
            let _ = p.root_motion_delta();
        }
    })
    .count_total;
    assert_eq!(n, 0, "ticking with groups allocated {n} times");
    assert!(sink.bone_matrices[0].iter().all(|m| m.is_finite()));
}

/// A root walking +z at 1 unit per second of clip time (one-second loop, linear keys).
fn walk_rig() -> Arc<Rig> {
    let t = Sampler::new(
        vec![0.0, 1.0],
        vec![0.0, 0.0, 0.0, 0.0, 0.0, 1.0],
        Interpolation::Linear,
    )
    .unwrap();
    let clip = Clip::new(
        "walk",
        vec![t],
        vec![Channel {
            sampler: 0,
            node: 0,
            path: ChannelPath::Translation,
        }],
    )
    .with_markers(vec![Marker {
        name: "step".into(),
        time: 0.5,
    }]);
    Rig::new(Arc::new(AnimationData {
        nodes: vec![NodeRest::new("hips", None), NodeRest::new("leg", Some(0))],
        clips: vec![clip],
        skeletons: vec![],
        morph_bindings: vec![],
        handedness: Handedness::RightHanded,
    }))
    .unwrap()
}

/// The distance the root moves in `seconds` with: a base layer at speed 1, an override group
/// of weight `g` (mask `g_mask`) with members at speeds 2 and 3 weighing `a` and `b`, an
/// additive group of weight `h` with a member at speed 4 weighing `c`.
fn travelled(g: f32, g_mask: Option<Mask>, a: f32, b: f32, h: f32, c: f32) -> f32 {
    let rig = walk_rig();
    let mut p = Player::new(&rig);
    let mut over = GroupDesc::new().weight(g);
    if let Some(m) = g_mask {
        over = over.mask(m);
    }
    let over = p.add_group(over).unwrap();
    let add = p.add_group(GroupDesc::new().additive().weight(h)).unwrap();
    p.add_layer(LayerDesc::new(0)).unwrap();
    for (speed, w) in [(2.0, a), (3.0, b)] {
        p.add_layer(LayerDesc::new(0).group(over).speed(speed).weight(w))
            .unwrap();
    }
    let reference = Reference {
        clip: None,
        time: 0.0,
    };
    p.add_layer(
        LayerDesc::new(0)
            .group(add)
            .speed(4.0)
            .weight(c)
            .additive(reference),
    )
    .unwrap();
    p.set_root_motion(Some(RootMotion {
        node: 0,
        translation: [true, true, true],
        yaw: false,
    }))
    .unwrap();
    for _ in 0..30 {
        p.tick(0.01, &mut NullSink);
    }
    p.root_motion_total().translation.z
}

#[test]
fn root_motion_follows_the_group_weights() {
    let f = |x: f64| {
        #[expect(clippy::cast_possible_truncation, reason = "test values")]
        let y = x as f32;
        y
    };
    // The rule in f64, velocities in units per second: the group's own velocity is its
    // members' normalised mean (the base's velocity filling a total below 1), lerped in by g.
    let want = |g: f64, a: f64, b: f64, h: f64, c: f64| {
        let (base, total) = (1.0, a + b);
        let own = if total >= 1.0 {
            (2.0 * a + 3.0 * b) / total
        } else {
            2.0 * a + 3.0 * b + (1.0 - total) * base
        };
        0.3 * ((1.0 - g) * base + g * own + h * c * 4.0)
    };
    for (g, a, b, h, c) in [
        (0.5, 0.5, 0.5, 0.0, 0.0),
        (0.7, 0.2, 0.3, 0.0, 0.0),
        (1.0, 1.5, 0.5, 0.0, 0.0),
        (0.0, 0.5, 0.5, 0.5, 1.0),
        (0.4, 0.6, 0.2, -0.5, 0.8),
    ] {
        let got = travelled(f(g), None, f(a), f(b), f(h), f(c));
        let want = want(g, a, b, h, c);
        assert!(
            (f64::from(got) - want).abs() < 1e-5,
            "g {g} a {a} b {b} h {h} c {c}: {got} vs {want}"
        );
    }
    // A group whose mask leaves out the root moves it not at all.
    let masked = travelled(1.0, Some(Mask::default().include([1])), 1.0, 0.0, 0.0, 0.0);
    assert!((masked - 0.3).abs() < 1e-5, "{masked}");
}

#[test]
fn a_follower_fires_no_events_and_fades_stay_in_their_group() {
    let rig = walk_rig();
    let mut p = Player::new(&rig);
    let g = p.add_group(GroupDesc::new()).unwrap();
    p.add_layer(LayerDesc::new(0)).unwrap();
    let leader = p.add_layer(LayerDesc::new(0).group(g)).unwrap();
    let follower = p.add_layer(LayerDesc::new(0).group(g).weight(0.0)).unwrap();
    p.layer_mut(follower).unwrap().set_fires_events(false);
    assert!(!p.layers()[follower].fires_events() && p.layers()[leader].fires_events());
    let mut fired = Vec::new();
    p.tick_with_events(0.75, &mut NullSink, &mut |e| fired.push(e.layer));
    assert_eq!(
        fired,
        vec![0, leader],
        "each firing layer once, the follower never"
    );
    // Fading to the follower ramps only its group: the ungrouped base keeps its weight.
    p.fade_layer_to(follower, 0.5).unwrap();
    p.tick(0.5, &mut NullSink);
    assert_eq!(p.layers()[0].effective_weight(), 1.0);
    assert_eq!(p.layers()[leader].effective_weight(), 0.0);
    assert_eq!(p.layers()[follower].fade_factor(), 1.0);
    // And a cross-fade of the ungrouped stack leaves the group's members alone.
    let new = p
        .crossfade_to(0, 0.0, skel_anim::FadeSync::Restart)
        .unwrap();
    let factors: Vec<(Option<usize>, f32)> = p
        .layers()
        .iter()
        .map(|l| (l.group(), l.fade_factor()))
        .collect();
    // The old base faded out at once and was removed; the members kept their factors.
    assert_eq!(factors, vec![(Some(g), 0.0), (Some(g), 1.0), (None, 1.0)]);
    assert_eq!(new, 2);
}

#[test]
fn refusals_are_typed_and_add_nothing() {
    let rig = walk_rig();
    let mut p = Player::new(&rig);
    let over = p.add_group(GroupDesc::new()).unwrap();
    let add = p.add_group(GroupDesc::new().additive()).unwrap();
    let additive = LayerDesc::new(0).additive(Reference::default());
    assert!(matches!(
        p.add_layer(additive.clone().group(over)),
        Err(AnimError::GroupModeMismatch { group: 0, .. })
    ));
    assert!(matches!(
        p.add_layer(LayerDesc::new(0).group(add)),
        Err(AnimError::GroupModeMismatch { group: 1, .. })
    ));
    assert!(matches!(
        p.add_layer(LayerDesc::new(0).group(7)),
        Err(AnimError::NoSuchGroup {
            group: 7,
            group_count: 2
        })
    ));
    assert!(p.layers().is_empty());
    assert!(matches!(
        p.add_group(GroupDesc::new().weight(f32::NAN)),
        Err(AnimError::NotFiniteValue { .. })
    ));
    assert!(matches!(
        p.add_group(GroupDesc::new().mask(Mask::default().joint_weight(0, 0.0).exclude([0]))),
        Err(AnimError::GroupMaskSelectsNothing { group: 2 })
    ));
    assert!(matches!(
        p.add_group(GroupDesc::new().mask(Mask::default().include([9]))),
        Err(AnimError::BadNode { node: 9, .. })
    ));
    assert_eq!(p.groups().len(), 2);
    assert!(matches!(
        p.capture_group_snapshot(5),
        Err(AnimError::NoSuchGroup { group: 5, .. })
    ));
    assert!(matches!(
        p.set_group_weight(5, 1.0),
        Err(AnimError::NoSuchGroup { group: 5, .. })
    ));
    // Override weights are lerp factors in 0..=1; additive ones scale like a layer's.
    p.set_group_weight(over, 3.0).unwrap();
    p.set_group_weight(add, -2.0).unwrap();
    p.group_mut(over).unwrap().set_weight(f32::NAN);
    assert_eq!(p.groups()[over].weight(), 0.0);
    assert_eq!(p.groups()[add].weight(), -2.0);
    p.set_group_weight(over, 3.0).unwrap();
    assert_eq!(p.groups()[over].weight(), 1.0);
    p.add_layer(additive.group(add)).unwrap();
    assert_eq!(p.layers()[0].group(), Some(add));
}

#[test]
fn a_lone_full_group_poses_as_the_plain_stack_it_equals() {
    for rig in [smooth(), generated()] {
        let stack = |grouped: Option<f32>, idle_member: Option<f32>| {
            let mut p = Player::new(&rig);
            let g = grouped.map(|w| p.add_group(GroupDesc::new().weight(w)).unwrap());
            if let Some(w) = idle_member {
                // A group at weight 0 (its member at weight `w`): it must not show.
                let idle = p.add_group(GroupDesc::new().weight(0.0)).unwrap();
                p.add_layer(LayerDesc::new(0).group(idle).weight(w).speed(3.0))
                    .unwrap();
            }
            let member = |d: LayerDesc| match g {
                Some(g) => d.group(g),
                None => d,
            };
            p.add_layer(member(LayerDesc::new(0).weight(0.6))).unwrap();
            p.add_layer(member(LayerDesc::new(0).weight(0.4).speed(1.9)))
                .unwrap();
            p.add_layer(LayerDesc::new(0).weight(0.3).additive(Reference::default()))
                .unwrap();
            for _ in 0..7 {
                p.tick(0.05, &mut NullSink);
            }
            // World matrices: a rotation and its negation are one pose.
            (
                common::flat(p.world_matrices()).to_vec(),
                p.morph_weights(0).unwrap().to_vec(),
            )
        };
        let plain = stack(None, None);
        // One override group at weight 1 over nothing: the same pose, bit for bit (the same
        // path), with or without a silent group beside it.
        assert_eq!(stack(Some(1.0), None), plain);
        assert_eq!(stack(Some(1.0), Some(0.0)), plain);
        let apart = |(world, morph): (Vec<f32>, Vec<f32>)| {
            world
                .iter()
                .chain(&morph)
                .zip(plain.0.iter().chain(&plain.1))
                .map(|(a, b)| (a - b).abs())
                .fold(0.0, f32::max)
        };
        // A group at weight 0 whose member has weight takes the group rule: the same pose
        // within rounding; so does the group just below weight 1, within its 0.1 % lerp.
        let silent = apart(stack(Some(1.0), Some(1.0)));
        assert!(silent < 1e-5, "{silent}");
        let near = apart(stack(Some(0.999), None));
        assert!(near < 0.01, "{near}");
    }
}
