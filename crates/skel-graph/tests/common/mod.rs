//! A small rig built in code for the graph tests: a root, a spine and an arm, and clips with
//! distinct lengths and motions, footstep markers on the locomotion clips.

#![allow(dead_code, reason = "each test binary uses a different part")]

use std::sync::Arc;

use skel_anim::{
    AnimationData, Channel, ChannelPath, Clip, Handedness, Interpolation, Marker, NodeRest, Rig,
    Sampler, SkeletonBinding,
};

/// Clip names and lengths (seconds), in clip order.
pub const CLIPS: [(&str, f32); 7] = [
    ("Idle", 1.0),
    ("Walking", 1.2),
    ("Running", 0.8),
    ("Jump", 1.0),
    ("Wave", 2.0),
    ("Strafe", 1.6),
    ("Back", 0.9),
];

/// Node names: root (0), spine (1, child of root), arm (2, child of spine), hand (3, child of
/// arm), mesh (4).
pub const NODES: [&str; 5] = ["root", "spine", "arm", "hand", "mesh"];

fn keys(len: f32, f: impl Fn(f32) -> [f32; 3]) -> Sampler {
    let n = 16;
    let input: Vec<f32> = (0..=n).map(|k| len * k as f32 / n as f32).collect();
    let output: Vec<f32> = input.iter().flat_map(|&t| f(t)).collect();
    Sampler::new(input, output, Interpolation::Linear).unwrap()
}

fn rot_keys(len: f32, f: impl Fn(f32) -> f32) -> Sampler {
    let n = 16;
    let input: Vec<f32> = (0..=n).map(|k| len * k as f32 / n as f32).collect();
    let output: Vec<f32> = input
        .iter()
        .flat_map(|&t| {
            let (s, c) = (f(t) / 2.0).sin_cos();
            [0.0, 0.0, s, c]
        })
        .collect();
    Sampler::new(input, output, Interpolation::Linear).unwrap()
}

/// The clip `index` of [`CLIPS`]: root translation along x (distinct slope per clip), spine
/// and arm rotations; Walking and Running carry `foot_l`/`foot_r` markers (and Walking a
/// `sound` marker the others lack).
fn clip(index: usize) -> Clip {
    let (name, len) = CLIPS[index];
    let k = index as f32 + 1.0;
    let samplers = vec![
        keys(len, move |t| [k * t, 0.1 * k, 0.0]),
        rot_keys(len, move |t| 0.3 * (k * t).sin()),
        rot_keys(len, move |t| 0.2 * k * t / len),
    ];
    let channels = vec![
        Channel {
            sampler: 0,
            node: 0,
            path: ChannelPath::Translation,
        },
        Channel {
            sampler: 1,
            node: 1,
            path: ChannelPath::Rotation,
        },
        Channel {
            sampler: 2,
            node: 2,
            path: ChannelPath::Rotation,
        },
    ];
    let clip = Clip::new(name, samplers, channels);
    let m = |name: &str, time: f32| Marker {
        name: name.into(),
        time,
    };
    match name {
        "Walking" => clip.with_markers([m("foot_l", 0.1), m("sound", 0.4), m("foot_r", 0.7)]),
        "Running" => clip.with_markers([m("foot_l", 0.2), m("foot_r", 0.6)]),
        "Strafe" => clip.with_markers([m("foot_l", 0.5), m("foot_r", 1.3)]),
        _ => clip,
    }
}

/// The test rig.
pub fn rig() -> Arc<Rig> {
    let parents = [None, Some(0), Some(1), Some(2), None];
    let nodes = NODES
        .iter()
        .zip(parents)
        .map(|(n, p)| {
            let mut node = NodeRest::new(*n, p);
            if p.is_some() {
                node.translation = [0.0, 1.0, 0.0];
            }
            node
        })
        .collect();
    let data = AnimationData {
        nodes,
        clips: (0..CLIPS.len()).map(clip).collect(),
        skeletons: vec![SkeletonBinding::new(4, 4, vec![0, 1, 2, 3], vec![]).unwrap()],
        morph_bindings: vec![],
        handedness: Handedness::RightHanded,
    };
    Rig::new(Arc::new(data)).unwrap()
}

/// The clip index of `name`.
pub fn clip_index(name: &str) -> usize {
    CLIPS.iter().position(|(n, _)| *n == name).unwrap()
}

/// The length of clip `name`.
pub fn length(name: &str) -> f32 {
    CLIPS[clip_index(name)].1
}

/// Compiles `json` against the test rig.
pub fn graph(json: &str) -> Arc<skel_graph::Graph> {
    skel_graph::Graph::from_json(json, &rig()).unwrap()
}

/// `(name, weight, time)` of the clips layer `layer` plays.
pub fn clips(i: &skel_graph::GraphInstance, layer: usize) -> Vec<(String, f32, f32)> {
    i.clips(layer)
        .map(|c| (c.name.to_owned(), c.weight, c.time))
        .collect()
}

/// The weight of clip `name` in layer `layer` (0 when absent).
pub fn weight(i: &skel_graph::GraphInstance, layer: usize, name: &str) -> f32 {
    i.clips(layer)
        .filter(|c| c.name == name)
        .map(|c| c.weight)
        .sum()
}

/// Asserts the weights of layer `layer` sum to 1 (or that it plays nothing).
pub fn assert_sums_to_one(i: &skel_graph::GraphInstance, layer: usize) {
    let clips = clips(i, layer);
    if clips.is_empty() {
        return;
    }
    let sum: f32 = clips.iter().map(|c| c.1).sum();
    assert!((sum - 1.0).abs() < 1e-5, "weights sum to {sum}: {clips:?}");
}
