//! A small clip the compile tests share: five nodes in a chain, each turning and shifting.

use crate::{AnimationData, Channel, ChannelPath, Clip, Interpolation, NodeRest, Sampler};

/// Five nodes in a chain, each turning and shifting smoothly over 9 keys.
pub(crate) fn chain() -> AnimationData {
    let times: Vec<f32> = (0..9).map(|k| k as f32 * 0.1).collect();
    let (mut samplers, mut channels) = (Vec::new(), Vec::new());
    for node in 0..5 {
        let wave = |t: f32| (3.0 * t + node as f32).sin();
        let rot = times.iter().flat_map(|&t| {
            let (s, c) = (0.4 * wave(t)).sin_cos();
            [0.6 * s, 0.0, 0.8 * s, c]
        });
        let pos = times.iter().flat_map(|&t| [0.1 * wave(t), 0.3, 0.0]);
        for (path, values) in [
            (ChannelPath::Rotation, rot.collect::<Vec<_>>()),
            (ChannelPath::Translation, pos.collect()),
        ] {
            channels.push(Channel {
                sampler: samplers.len(),
                node,
                path,
            });
            samplers.push(Sampler::new(times.clone(), values, Interpolation::Linear).unwrap());
        }
    }
    AnimationData {
        nodes: (0..5_usize)
            .map(|i| NodeRest::new(format!("n{i}"), i.checked_sub(1)))
            .collect(),
        clips: vec![Clip::new("c", samplers, channels)],
        ..AnimationData::default()
    }
}
