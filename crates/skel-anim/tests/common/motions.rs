//! Smooth generated motion for the compression tests: nodes that shift, turn and grow along
//! sine waves, sampled at 30 Hz.

use proptest::prelude::*;
use skel_anim::{AnimationData, Channel, ChannelPath, Clip, Interpolation, NodeRest, Sampler};

/// One node's motion: parent pick, rest offset, and how far its tracks move (translation in
/// units, rotation in radians about `axis`, scale as a fraction), at `speed` radians per second.
#[derive(Debug, Clone)]
pub struct Motion {
    pub parent: usize,
    pub offset: [f32; 3],
    pub axis: [f32; 3],
    pub shift: f32,
    pub turn: f32,
    pub grow: f32,
    pub speed: f32,
}

pub fn motion() -> impl Strategy<Value = Motion> {
    (
        0usize..64,
        prop::array::uniform3(-0.4f32..0.4),
        prop::array::uniform3(-1.0f32..1.0),
        prop_oneof![Just(0.0f32), Just(1e-7), 0.001f32..0.2],
        prop_oneof![Just(0.0f32), Just(1e-7), 0.01f32..1.5],
        prop_oneof![Just(0.0f32), 0.001f32..0.1],
        0.5f32..6.0,
    )
        .prop_map(|(parent, offset, axis, shift, turn, grow, speed)| Motion {
            parent,
            offset,
            axis,
            shift,
            turn,
            grow,
            speed,
        })
}

/// A rig of one node per motion (node `i`'s parent an earlier node, or none for node 0) and
/// one clip of `keys` keys at 30 Hz moving every node as its motion says (nodes that do not
/// move get no track).
pub fn smooth_rig(motions: &[Motion], keys: usize) -> AnimationData {
    let times: Vec<f32> = (0..keys).map(|k| k as f32 / 30.0).collect();
    let mut nodes = Vec::new();
    let (mut samplers, mut channels) = (Vec::new(), Vec::new());
    let mut track = |node: usize, path: ChannelPath, values: Vec<f32>| {
        channels.push(Channel {
            sampler: samplers.len(),
            node,
            path,
        });
        samplers.push(Sampler::new(times.clone(), values, Interpolation::Linear).unwrap());
    };
    for (i, m) in motions.iter().enumerate() {
        let parent = (i > 0).then(|| m.parent % i);
        nodes.push(NodeRest {
            translation: m.offset,
            ..NodeRest::new(format!("n{i}"), parent)
        });
        let wave = |t: f32| (m.speed * t + i as f32).sin();
        if m.shift > 0.0 {
            let v = times
                .iter()
                .flat_map(|&t| m.offset.map(|o| o + m.shift * wave(t)));
            track(i, ChannelPath::Translation, v.collect());
        }
        if m.turn > 0.0 {
            let len = m.axis.iter().map(|a| a * a).sum::<f32>().sqrt().max(1e-3);
            let axis = m.axis.map(|a| a / len);
            let v = times.iter().flat_map(|&t| {
                let (s, c) = (0.5 * m.turn * wave(t)).sin_cos();
                [axis[0] * s, axis[1] * s, axis[2] * s, c]
            });
            track(i, ChannelPath::Rotation, v.collect());
        }
        if m.grow > 0.0 {
            let v = times.iter().flat_map(|&t| [1.0 + m.grow * wave(t); 3]);
            track(i, ChannelPath::Scale, v.collect());
        }
    }
    AnimationData {
        nodes,
        clips: vec![Clip::new("smooth", samplers, channels)],
        ..AnimationData::default()
    }
}

pub fn fixed_motions() -> Vec<Motion> {
    let m = |parent, shift, turn, grow| Motion {
        parent,
        offset: [0.0, 0.3, 0.05],
        axis: [0.3, 0.2, 1.0],
        shift,
        turn,
        grow,
        speed: 2.0,
    };
    // A root that barely moves (holdable), a spine that turns, limbs that shift and turn.
    vec![
        m(0, 1e-7, 1e-7, 0.0),
        m(0, 0.0, 0.6, 0.0),
        m(1, 1e-7, 0.4, 0.0),
        m(2, 0.0, 0.9, 0.02),
        m(1, 0.05, 0.2, 0.0),
        m(4, 0.0, 0.05, 0.0),
    ]
}
