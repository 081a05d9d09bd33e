//! Clips rewritten for tests.

use skel_anim::{Channel, ChannelPath, Clip};

/// `clip` with every sampler evaluated at the first sampler's key times (CUBICSPLINE becomes
/// LINEAR), so that all its tracks share one key-time array.
pub fn on_shared_times(clip: &Clip) -> Clip {
    let times = clip.samplers[0].input().to_vec();
    let samplers = clip
        .channels
        .iter()
        .map(|ch| {
            let s = &clip.samplers[ch.sampler];
            let rotation = ch.path == ChannelPath::Rotation;
            let per_key = s.interpolation().outputs_per_key();
            let components = s.output().len() / (s.input().len() * per_key);
            let mut output = vec![0.0; times.len() * components];
            for (k, &t) in times.iter().enumerate() {
                skel_anim::evaluate_sampler(
                    s,
                    t,
                    components,
                    rotation,
                    &mut output,
                    k * components,
                );
            }
            let interpolation = match s.interpolation() {
                skel_anim::Interpolation::Step => skel_anim::Interpolation::Step,
                _ => skel_anim::Interpolation::Linear,
            };
            skel_anim::Sampler::new(times.clone(), output, interpolation).unwrap()
        })
        .collect();
    let channels = clip
        .channels
        .iter()
        .enumerate()
        .map(|(i, ch)| Channel {
            sampler: i,
            node: ch.node,
            path: ch.path,
        })
        .collect();
    Clip::new(clip.name.clone(), samplers, channels)
}
