//! Morph weights through the controller: a weights channel drives every morph binding on its
//! node, with each interpolation, and the defaults come back when no clip drives them.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

mod common;

use std::sync::Arc;

use common::assert_close;
use skel_anim::{
    AnimationController, AnimationData, Channel, ChannelPath, Clip, Interpolation, MorphBinding,
    NodeRest, RecordingSink, Sampler,
};

fn weights_clip(sampler: Sampler, node: usize) -> Clip {
    Clip::new(
        "weights",
        vec![sampler],
        vec![Channel {
            sampler: 0,
            node,
            path: ChannelPath::Weights,
        }],
    )
}

/// Nodes 0 and 1 each carry a 2-target mesh; node 0 has two bindings (e.g. two primitives).
fn data(sampler: Sampler) -> AnimationData {
    AnimationData {
        nodes: vec![NodeRest::new("face", None), NodeRest::new("other", None)],
        clips: vec![weights_clip(sampler, 0)],
        morph_bindings: vec![
            MorphBinding {
                node: 0,
                default_weights: vec![0.1, 0.2],
            },
            MorphBinding {
                node: 1,
                default_weights: vec![0.3, 0.4],
            },
            MorphBinding {
                node: 0,
                default_weights: vec![0.5, 0.6],
            },
        ],
        ..AnimationData::default()
    }
}

fn weights_at(c: &mut AnimationController, clip: Option<usize>, t: f32) -> Vec<Vec<f32>> {
    let mut sink = RecordingSink::default();
    c.evaluate_at(clip, t, &mut sink).unwrap();
    sink.morph_weights
}

#[test]
fn a_weights_channel_drives_every_binding_on_its_node() {
    let s = Sampler::new(
        vec![0.0, 1.0],
        vec![0.0, 1.0, 1.0, 0.0],
        Interpolation::Linear,
    )
    .unwrap();
    let mut c = AnimationController::new(Arc::new(data(s))).unwrap();
    let w = weights_at(&mut c, Some(0), 0.25);
    assert_close(&w[0], &[0.25, 0.75], 1e-6, "binding 0 (node 0)");
    assert_eq!(w[1], [0.3, 0.4], "binding 1 (node 1, not animated)");
    assert_close(&w[2], &[0.25, 0.75], 1e-6, "binding 2 (node 0 again)");
    // Without a clip every binding is back at its defaults.
    let w = weights_at(&mut c, None, 0.25);
    assert_eq!(w[0], [0.1, 0.2], "default 0");
    assert_eq!(w[2], [0.5, 0.6], "default 2");
    assert_eq!(c.morph_weights(2).unwrap(), &[0.5, 0.6]);
}

#[test]
fn step_and_cubicspline_weights() {
    let step = Sampler::new(
        vec![0.0, 1.0, 2.0],
        vec![0.0, 0.0, 1.0, 0.5, 0.0, 1.0],
        Interpolation::Step,
    )
    .unwrap();
    let mut c = AnimationController::new(Arc::new(data(step))).unwrap();
    for (t, want) in [
        (-1.0, [0.0, 0.0]),
        (0.99, [0.0, 0.0]),
        (1.0, [1.0, 0.5]),
        (1.7, [1.0, 0.5]),
        (9.0, [0.0, 1.0]),
    ] {
        assert_close(
            &weights_at(&mut c, Some(0), t)[0],
            &want,
            0.0,
            &format!("STEP at {t}"),
        );
    }
    // CUBICSPLINE from 0 to 1 over 1 s with zero tangents: 3s² − 2s³ (smoothstep); at s = 0.25
    // that is 0.15625. The second weight has out-tangent 1 at key 0 and in-tangent 0 at key 1,
    // value 0 → 0: td · (s³ − 2s² + s) = 0.140625.
    let cubic = Sampler::new(
        vec![0.0, 1.0],
        vec![
            0.0, 0.0, /* value */ 0.0, 0.0, /* out */ 0.0, 1.0, //
            0.0, 0.0, /* value */ 1.0, 0.0, /* out */ 0.0, 0.0,
        ],
        Interpolation::CubicSpline,
    )
    .unwrap();
    let mut c = AnimationController::new(Arc::new(data(cubic))).unwrap();
    assert_close(
        &weights_at(&mut c, Some(0), 0.25)[0],
        &[0.15625, 0.140625],
        1e-6,
        "CUBICSPLINE",
    );
}
