//! A `.vrma`'s expression weights as the avatar's morph target weights: each expression the
//! avatar defines under the same name adds `weight × bind weight` to its morph targets, as
//! three-vrm's `VRMExpressionMorphTargetBind` adds them. One weights channel per mesh node,
//! keyed at every key time of the expressions that reach it; between keys the weights are
//! linear, exact for linear and step tracks (a cubic track is sampled at those times).

use std::collections::BTreeMap;

use skel_anim::{AnimationData, Interpolation, Sampler, evaluate_sampler};
use skel_gltf::vrm::Vrm;

/// `(mesh node, weights sampler)` for every mesh node that `tracks` (expression name, weight
/// sampler) reach through `avatar`'s expressions.
pub(crate) fn weight_channels(
    tracks: &[(String, Sampler)],
    avatar: &Vrm,
    data: &AnimationData,
) -> Vec<(usize, Sampler)> {
    // mesh node → (track, morph index, bind weight)
    let mut reach: BTreeMap<usize, Vec<(usize, usize, f32)>> = BTreeMap::new();
    for (k, (name, _)) in tracks.iter().enumerate() {
        for e in avatar.expressions.iter().filter(|e| &e.name == name) {
            for b in &e.morph_target_binds {
                reach
                    .entry(b.node)
                    .or_default()
                    .push((k, b.index, b.weight));
            }
        }
    }
    let mut out = Vec::new();
    for (node, binds) in reach {
        let Some(count) = data
            .morph_bindings
            .iter()
            .find(|m| m.node == node)
            .map(skel_anim::MorphBinding::target_count)
        else {
            continue;
        };
        let mut times: Vec<f32> = binds
            .iter()
            .flat_map(|&(k, _, _)| tracks[k].1.input().iter().copied())
            .collect();
        times.sort_by(f32::total_cmp);
        times.dedup();
        let mut values = vec![0.0f32; times.len() * count];
        for (i, &t) in times.iter().enumerate() {
            for &(k, index, weight) in &binds {
                if index < count {
                    let mut v = [0.0f32; 1];
                    evaluate_sampler(&tracks[k].1, t, 1, false, &mut v, 0);
                    values[i * count + index] += v[0] * weight;
                }
            }
        }
        let step = binds
            .iter()
            .all(|&(k, _, _)| tracks[k].1.interpolation() == Interpolation::Step);
        let interpolation = if step {
            Interpolation::Step
        } else {
            Interpolation::Linear
        };
        if let Ok(s) = Sampler::new(times, values, interpolation) {
            out.push((node, s));
        }
    }
    out
}
