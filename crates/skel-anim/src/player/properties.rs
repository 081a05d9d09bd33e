//! The property pose: every property track of the player's clips, blended by the same layer
//! weights, fades, groups and masks as the joints (see [`Player`]'s rules), into caller-owned
//! storage.

use crate::{Clip, LayerMode, Player, PropertyKind, PropertyTrack, evaluate_sampler};

use super::GroupMode;

/// The values of an asset's animated properties after a tick: one slot per property (the
/// slots of [`PropertyTrack::slot`]), each up to four floats. Built once per character with
/// [`PropertyPose::new`] (it allocates); [`Player::sample_properties`] only writes into it.
#[derive(Debug, Clone, PartialEq)]
pub struct PropertyPose {
    values: Vec<[f32; 4]>,
    rest: Vec<[f32; 4]>,
    kinds: Vec<Option<PropertyKind>>,
    nodes: Vec<Option<usize>>,
    /// Per pass: the total blend weight (floats) or the heaviest weight seen (bools, ints).
    weight: Vec<f32>,
    /// Per pass: the weighted sum (floats) or the heaviest layer's value (bools, ints).
    sum: Vec<[f32; 4]>,
    animated: Vec<bool>,
}

impl PropertyPose {
    /// Storage for every property slot any of `clips` animates, at rest. Slots no clip names
    /// stay empty (`kind` is `None`).
    #[must_use]
    pub fn new(clips: &[Clip]) -> Self {
        let slots = clips
            .iter()
            .flat_map(|c| c.properties.iter().map(|p| p.slot + 1))
            .max()
            .unwrap_or(0);
        let mut pose = Self {
            values: vec![[0.0; 4]; slots],
            rest: vec![[0.0; 4]; slots],
            kinds: vec![None; slots],
            nodes: vec![None; slots],
            weight: vec![0.0; slots],
            sum: vec![[0.0; 4]; slots],
            animated: vec![false; slots],
        };
        for p in clips.iter().flat_map(|c| c.properties.iter()) {
            if pose.kinds[p.slot].is_none() {
                pose.kinds[p.slot] = Some(p.kind);
                pose.rest[p.slot] = p.rest;
                pose.nodes[p.slot] = p.node;
            }
        }
        pose.values.clone_from(&pose.rest);
        pose
    }

    /// Number of slots.
    #[must_use]
    pub fn len(&self) -> usize {
        self.values.len()
    }

    /// Whether there are no slots (the asset animates no property).
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// Slot `slot`'s value (first [`PropertyKind::components`] floats meaningful); `None` out
    /// of range.
    #[must_use]
    pub fn value(&self, slot: usize) -> Option<[f32; 4]> {
        self.values.get(slot).copied()
    }

    /// Slot `slot` as a boolean (`value ≥ 0.5`).
    #[must_use]
    pub fn bool(&self, slot: usize) -> Option<bool> {
        self.value(slot).map(|v| v[0] >= 0.5)
    }

    /// What slot `slot` holds (`None` for a slot no clip animates).
    #[must_use]
    pub fn kind(&self, slot: usize) -> Option<PropertyKind> {
        self.kinds.get(slot).copied().flatten()
    }

    /// Whether a layer with non-zero weight animated slot `slot` at the last sampling (else it
    /// holds its rest value).
    #[must_use]
    pub fn is_animated(&self, slot: usize) -> bool {
        self.animated.get(slot).copied().unwrap_or(false)
    }
}

/// Samples `track` of `clip` at `time` into four floats (rest past the sampler's width).
fn sample(clip: &Clip, track: &PropertyTrack, time: f32) -> [f32; 4] {
    let mut v = track.rest;
    if let Some(s) = clip.samplers.get(track.sampler) {
        let n = track.kind.components().min(s.components());
        evaluate_sampler(s, time, n, false, &mut v, 0);
    }
    v
}

impl Player {
    /// Blends every property track of the layers' clips at their current times into `pose`,
    /// by the rules joints follow: blend layers average (floats) with the rest value filling
    /// a total weight below 1, override groups lerp over what lies below by their weight,
    /// additive layers and groups add `w · (v − reference)`; bools and ints take the value of
    /// the heaviest layer that animates them. A property on a node is weighed by layer and
    /// group masks as the node is. Snapshots carry joints only. Allocates nothing.
    ///
    /// Call it after [`tick`](Player::tick) (or any change of times and weights); `pose` must
    /// come from [`PropertyPose::new`] over this player's clips (slots beyond its length are
    /// skipped).
    pub fn sample_properties(&self, pose: &mut PropertyPose) {
        let clips = &self.data().clips;
        pose.values.clone_from_slice(&pose.rest);
        pose.animated.fill(false);
        // Ungrouped blend layers, then each group in order, then ungrouped additive layers.
        self.blend_pass(clips, pose, None, 1.0);
        for (g, group) in self.groups().iter().enumerate() {
            match group.mode() {
                GroupMode::Override => self.blend_pass(clips, pose, Some(g), group.weight()),
                GroupMode::Additive => self.additive_pass(clips, pose, Some(g), group.weight()),
            }
        }
        self.additive_pass(clips, pose, None, 1.0);
    }

    /// Rule 1 over the blend layers of `group` (`None`: ungrouped), laid over the pose below
    /// by `group_weight` (1 for the ungrouped base).
    fn blend_pass(
        &self,
        clips: &[Clip],
        pose: &mut PropertyPose,
        group: Option<usize>,
        group_weight: f32,
    ) {
        if group_weight == 0.0 {
            return;
        }
        pose.weight.fill(0.0);
        for layer in self.layers() {
            if layer.group() != group || !matches!(layer.mode(), LayerMode::Blend) {
                continue;
            }
            let Some(clip) = clips.get(layer.clip()) else {
                continue;
            };
            let lw = layer.effective_weight();
            for track in &clip.properties {
                let s = track.slot;
                if s >= pose.len() {
                    continue;
                }
                let w = lw * track.node.map_or(1.0, |n| layer.mask_weight(n));
                if w <= 0.0 {
                    continue;
                }
                let v = sample(clip, track, layer.clock().time());
                if track.kind.blends() {
                    if pose.weight[s] == 0.0 {
                        pose.sum[s] = [0.0; 4];
                    }
                    for (acc, x) in pose.sum[s].iter_mut().zip(v) {
                        *acc += w * x;
                    }
                    pose.weight[s] += w;
                } else if w > pose.weight[s] {
                    pose.weight[s] = w;
                    pose.sum[s] = v;
                }
            }
        }
        for s in 0..pose.len() {
            let total = pose.weight[s];
            let Some(kind) = pose.kinds[s] else { continue };
            if total <= 0.0 {
                continue;
            }
            let group_mask = match (group, pose.nodes[s]) {
                (Some(g), Some(n)) => self.groups()[g].mask_weight(n),
                _ => 1.0,
            };
            let lay = group_weight * group_mask;
            let below = pose.values[s];
            if kind.blends() {
                let mut own = [0.0; 4];
                for k in 0..4 {
                    own[k] = if total >= 1.0 {
                        pose.sum[s][k] / total
                    } else {
                        pose.sum[s][k] + (1.0 - total) * below[k]
                    };
                    pose.values[s][k] = below[k] + lay * (own[k] - below[k]);
                }
            } else if lay >= 0.5 {
                // The group's pick outweighs what lies below it.
                pose.values[s] = pose.sum[s];
            }
            pose.animated[s] = true;
        }
    }

    fn additive_pass(
        &self,
        clips: &[Clip],
        pose: &mut PropertyPose,
        group: Option<usize>,
        group_weight: f32,
    ) {
        for layer in self.layers() {
            let LayerMode::Additive(reference) = layer.mode() else {
                continue;
            };
            if layer.group() != group {
                continue;
            }
            let Some(clip) = clips.get(layer.clip()) else {
                continue;
            };
            let ref_clip = clips.get(reference.clip.unwrap_or(layer.clip()));
            let lw = layer.effective_weight() * group_weight;
            for track in &clip.properties {
                let s = track.slot;
                if s >= pose.len() || !track.kind.blends() {
                    continue;
                }
                let w = lw
                    * track.node.map_or(1.0, |n| {
                        layer.mask_weight(n)
                            * group.map_or(1.0, |g| self.groups()[g].mask_weight(n))
                    });
                if w == 0.0 {
                    continue;
                }
                let v = sample(clip, track, layer.clock().time());
                let r = ref_clip
                    .and_then(|c| {
                        c.properties
                            .iter()
                            .find(|p| p.slot == s)
                            .map(|p| sample(c, p, reference.time))
                    })
                    .unwrap_or(track.rest);
                for k in 0..track.kind.components() {
                    pose.values[s][k] += w * (v[k] - r[k]);
                }
                pose.animated[s] = true;
            }
        }
    }
}
