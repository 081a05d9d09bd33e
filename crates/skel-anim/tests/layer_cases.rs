//! The layered player's fixed cases: bad layers are typed errors, an additive layer of a held
//! clip adds exactly nothing, a layered tick allocates nothing, and the stateless jobs over
//! caller-owned buffers pose what the player poses.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

mod common;

use std::sync::Arc;

use skel_anim::{AnimationData, Clip, FadeSync, LayerDesc, Mask, NullSink, Player, Reference, Rig};

#[test]
fn bad_layers_are_typed_errors_and_add_nothing() {
    let data = common::generated_rig(6, 2, 7);
    let rig = Rig::new(Arc::new(data)).unwrap();
    let mut player = Player::new(&rig);
    let bad = [
        LayerDesc::new(9),
        LayerDesc::new(0).weight(f32::NAN),
        LayerDesc::new(0).weight(f32::INFINITY),
        LayerDesc::new(0).speed(f32::NAN),
        LayerDesc::new(0).additive(Reference {
            clip: Some(5),
            time: 0.0,
        }),
        LayerDesc::new(0).additive(Reference {
            clip: None,
            time: f32::NAN,
        }),
        LayerDesc::new(0).mask(Mask::default().include([99])),
        LayerDesc::new(0).mask(Mask::default().joint_weight(1, f32::NAN)),
        LayerDesc::new(0).mask(Mask::default().include([1]).exclude([1])),
    ];
    for d in bad {
        assert!(player.add_layer(d.clone()).is_err(), "{d:?}");
        assert!(player.layers().is_empty(), "nothing added for {d:?}");
    }
    assert!(player.crossfade_to(0, f32::NAN, FadeSync::Restart).is_err());
    assert!(player.crossfade_to(9, 0.2, FadeSync::Restart).is_err());
    assert!(player.layers().is_empty());
    // A reference time outside the clip is clamped to it (documented), not an error.
    let far = Reference {
        clip: None,
        time: 1e6,
    };
    assert!(player.add_layer(LayerDesc::new(0).additive(far)).is_ok());
    // An empty stack is the rest pose.
    player.clear_layers();
    player.tick(0.1, &mut NullSink);
    assert!(player.scratch().trs.iter().all(|v| v.is_finite()));
}

/// `clip` on its first sampler's key times with every key holding the value at its first key
/// (as exporters write bones a clip does not move).
fn held_at_first_key(clip: &Clip) -> Clip {
    let mut held = common::clips::on_shared_times(clip);
    for s in &mut held.samplers {
        let keys = s.input().len();
        let components = s.output().len() / keys;
        let first = s.output()[..components].to_vec();
        let output = first.repeat(keys);
        *s = skel_anim::Sampler::new(s.input().to_vec(), output, s.interpolation()).unwrap();
    }
    held
}

#[test]
fn an_additive_layer_of_a_held_clip_adds_exactly_nothing() {
    let mut data = common::generated_rig(24, 0, 3);
    data.clips[0] = common::clips::on_shared_times(&data.clips[0]);
    let held = held_at_first_key(&data.clips[0]);
    data.clips.push(held);
    let rig = Rig::new(Arc::new(data)).unwrap();
    assert!(rig.layers_four_nodes_at_a_time(0) && rig.layers_four_nodes_at_a_time(1));
    let masked = Mask::default().include([3]).joint_weight(2, 0.3);
    let base = || LayerDesc::new(0).weight(0.8).mask(masked.clone());
    let mut alone = Player::new(&rig);
    alone.add_layer(base()).unwrap();
    let mut with_held = Player::new(&rig);
    with_held.add_layer(base()).unwrap();
    // Its differences from its own first key are zero everywhere: the four-node pass skips
    // every lane of it, so the pose is the base's bit for bit.
    with_held
        .add_layer(LayerDesc::new(1).weight(0.6).additive(Reference::default()))
        .unwrap();
    for step in 0..40 {
        alone.tick(0.037, &mut NullSink);
        with_held.tick(0.037, &mut NullSink);
        assert_eq!(alone.scratch().trs, with_held.scratch().trs, "step {step}");
    }
}

#[test]
fn a_layered_tick_allocates_nothing() {
    let data = common::generated_rig(40, 3, 11);
    let rig = Rig::new(Arc::new(data)).unwrap();
    let mut player = Player::new(&rig);
    player.add_layer(LayerDesc::new(0)).unwrap();
    player
        .add_layer(
            LayerDesc::new(0)
                .weight(0.5)
                .speed(-0.7)
                .mask(Mask::default().include([3]).joint_weight(2, 0.3)),
        )
        .unwrap();
    player
        .add_layer(LayerDesc::new(0).weight(0.4).additive(Reference {
            clip: None,
            time: 0.2,
        }))
        .unwrap();
    player.crossfade_to(0, 0.3, FadeSync::Phase).unwrap();
    player.tick(0.016, &mut NullSink);
    let counts = allocation_counter::measure(|| {
        for _ in 0..300 {
            player.tick(1.0 / 60.0, &mut NullSink);
        }
    });
    assert_eq!(
        counts.count_total, 0,
        "blend, masked, additive and fading layers tick without allocating"
    );
}

#[test]
fn the_jobs_over_caller_buffers_pose_what_the_player_poses() {
    let data = common::generated_rig(12, 2, 5);
    jobs_pose_what_the_player_poses(data.clone());
    // The same rig with its clips on one key-time array: both take the four-node pass.
    let mut shared = data;
    for clip in &mut shared.clips {
        *clip = common::clips::on_shared_times(clip);
    }
    assert!(
        Rig::new(Arc::new(shared.clone()))
            .unwrap()
            .layers_four_nodes_at_a_time(0)
    );
    jobs_pose_what_the_player_poses(shared);
}

fn jobs_pose_what_the_player_poses(data: AnimationData) {
    let rig = Rig::new(Arc::new(data.clone())).unwrap();
    let descs = [
        LayerDesc::new(0).weight(0.7),
        LayerDesc::new(0)
            .weight(0.6)
            .start(0.3)
            .mask(Mask::default().include([4])),
        LayerDesc::new(0).weight(0.5).additive(Reference {
            clip: None,
            time: 0.1,
        }),
    ];
    let mut player = Player::new(&rig);
    let mut layers: Vec<skel_anim::Layer> = Vec::new();
    for d in &descs {
        player.add_layer(d.clone()).unwrap();
        layers.push(skel_anim::Layer::new(&rig, d).unwrap());
    }
    player.tick(0.4, &mut NullSink);
    for layer in &mut layers {
        layer.advance(f64::from(0.4_f32));
    }
    let mut scratch = skel_anim::PoseScratch::for_rig(&rig);
    let mut mix = skel_anim::LayerMix::new(&rig);
    skel_anim::reset_to_rest(&data, &mut scratch);
    skel_anim::mix_layers(&rig, &mut layers, &mut scratch, &mut mix);
    assert_eq!(
        scratch.trs,
        player.scratch().trs,
        "the same layer step, bit for bit"
    );
    assert_eq!(scratch.morph_weights, player.scratch().morph_weights);
    skel_anim::compute_world_matrices(&data, &mut scratch);
    let world = player.world_matrices().to_vec();
    for (a, b) in common::flat(&scratch.world)
        .iter()
        .zip(common::flat(&world))
    {
        assert!((a - b).abs() <= 1e-5 * b.abs().max(1.0), "{a} vs {b}");
    }
}
