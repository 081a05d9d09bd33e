//! The `CLIP=WEIGHT,CLIP=WEIGHT` notation of `skel pose --blend` and `skel render --blend`.

use crate::{AnimError, AnimationData};

/// Parses `spec` into `(clip, weight)` pairs for [`WeightedBlend::with_weights`](crate::WeightedBlend::with_weights).
///
/// Items are separated by commas; in each, the text before the last `=` names the clip (its
/// exact name first, else its index) and the text after it is a finite weight ≥ 0. Spaces
/// around items, names and weights are ignored. The same clip may appear twice (two layers).
///
/// ```
/// # use skel_anim::*;
/// # let s = || Sampler::new(vec![0.0], vec![0.0; 3], Interpolation::Linear).unwrap();
/// # let clip = |n: &str| Clip::new(n, vec![s()], vec![Channel { sampler: 0, node: 0, path: ChannelPath::Translation }]);
/// # let data = AnimationData { nodes: vec![NodeRest::new("root", None)], clips: vec![clip("Walk"), clip("Run")], ..Default::default() };
/// assert_eq!(parse_blend_spec(&data, "Walk=0.25, 1=0.75")?, vec![(0, 0.25), (1, 0.75)]);
/// assert!(parse_blend_spec(&data, "Jump=1").is_err());
/// # Ok::<(), AnimError>(())
/// ```
///
/// # Errors
/// [`AnimError::BadBlendSpec`] naming the item: no `=`, an unknown clip, a weight that is not a
/// finite number ≥ 0, or an empty spec.
pub fn parse_blend_spec(data: &AnimationData, spec: &str) -> Result<Vec<(usize, f32)>, AnimError> {
    let bad = |item: &str, reason| AnimError::BadBlendSpec {
        item: item.to_owned(),
        reason,
    };
    if spec.trim().is_empty() {
        return Err(bad(spec, "the spec is empty (expected CLIP=WEIGHT,…)"));
    }
    spec.split(',')
        .map(|item| {
            let (clip, weight) = item
                .rsplit_once('=')
                .ok_or_else(|| bad(item, "expected CLIP=WEIGHT"))?;
            let clip = clip.trim();
            let clip = data
                .clip_index(clip)
                .or_else(|| clip.parse::<usize>().ok().filter(|&i| i < data.clips.len()))
                .ok_or_else(|| bad(item, "no clip has this name or index"))?;
            let weight = weight
                .trim()
                .parse::<f32>()
                .ok()
                .filter(|w| w.is_finite() && *w >= 0.0)
                .ok_or_else(|| bad(item, "the weight is not a finite number >= 0"))?;
            Ok((clip, weight))
        })
        .collect()
}
