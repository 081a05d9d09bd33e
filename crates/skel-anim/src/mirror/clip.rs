//! Baking mirrored clips: every key of every channel through the target node's constant
//! terms, so that a mirrored clip costs nothing per frame and plays on every path a clip
//! plays on (the player, compression, GPU posing).

use glam::{Quat, Vec3};

use super::map::{MirrorMap, NodeTerms};
use crate::{AnimError, AnimationData, Channel, ChannelPath, Clip, Interpolation, Sampler};

/// What [`AnimationData::append_mirrored_clips`] adds to a clip's name: `Walk` → `Walk.mirror`.
pub const MIRROR_SUFFIX: &str = ".mirror";

/// Relative difference below which a node's mirrored rest counts as its own rest (no track
/// is added for it; see [`mirror_clip`]).
const REST_TOLERANCE: f32 = 1e-5;

/// Clip `clip` of `data` mirrored: each channel moves to the partner of its node with every
/// key (and CUBICSPLINE tangent) mapped through the partner's constant terms, at the same
/// key times and with the same interpolation. The maps are linear in each channel's
/// components (affine for a root's translation values, whose tangents take the linear part),
/// and slerp commutes with them, so the mirrored clip sampled at any time is
/// [`MirrorMap::mirror_pose`] of the clip sampled at that time: exact for STEP, LINEAR and
/// CUBICSPLINE, root motion included (the root's keys are mirrored with the rest).
///
/// A node whose partner the clip does not animate shows its own rest, while the mirror of
/// the pose shows the mirror of the partner's rest: where the two differ by more than 1e-5
/// (relative; an asymmetric rest), the clip gets a one-key track holding the mirrored rest,
/// so that the baked clip still matches [`MirrorMap::mirror_pose`]. A symmetric rig gets no
/// extra track.
///
/// Morph weights follow their node to its partner, swapped between sided targets when the map
/// knows the targets' names ([`MirrorMap::with_morph_target_names`]; a centre mesh keeps its
/// weights otherwise);
/// property tracks are kept, a node's property moved to the partner. Markers are kept; the
/// name is the source's ([`AnimationData::append_mirrored_clips`] adds [`MIRROR_SUFFIX`]);
/// compressed keys are not carried over (the mirrored keys are new keys).
///
/// # Errors
/// [`AnimError::MirrorMapMismatch`] for a map built for another asset,
/// [`AnimError::NoSuchClip`], what [`AnimationData::validate`] finds,
/// [`AnimError::MirrorMorphTargets`] when a weights channel would move to a mesh with
/// another number of morph targets.
pub fn mirror_clip(data: &AnimationData, map: &MirrorMap, clip: usize) -> Result<Clip, AnimError> {
    map.check_asset(data)?;
    data.validate()?;
    mirror_valid_clip(data, map, clip)
}

impl AnimationData {
    /// Appends the mirror of each clip in `clips` ([`mirror_clip`]), named
    /// `<name>.mirror` ([`MIRROR_SUFFIX`]), and returns their indices. Nothing is appended
    /// when one of them fails.
    ///
    /// # Errors
    /// Those of [`mirror_clip`].
    pub fn append_mirrored_clips(
        &mut self,
        map: &MirrorMap,
        clips: &[usize],
    ) -> Result<Vec<usize>, AnimError> {
        map.check_asset(self)?;
        self.validate()?;
        let mirrored = clips
            .iter()
            .map(|&c| {
                let mut m = mirror_valid_clip(self, map, c)?;
                m.name.push_str(MIRROR_SUFFIX);
                Ok(m)
            })
            .collect::<Result<Vec<Clip>, AnimError>>()?;
        let first = self.clips.len();
        self.clips.extend(mirrored);
        Ok((first..self.clips.len()).collect())
    }
}

fn mirror_valid_clip(
    data: &AnimationData,
    map: &MirrorMap,
    clip: usize,
) -> Result<Clip, AnimError> {
    let source = data.clips.get(clip).ok_or(AnimError::NoSuchClip {
        clip,
        clip_count: data.clips.len(),
    })?;
    let terms = map.terms();
    let mut samplers: Vec<Sampler> = Vec::new();
    // Samplers kept as they are (weights, properties), each copied once.
    let mut kept: Vec<Option<usize>> = vec![None; source.samplers.len()];
    let mut keep = |s: usize, samplers: &mut Vec<Sampler>| -> usize {
        *kept[s].get_or_insert_with(|| {
            samplers.push(source.samplers[s].clone());
            samplers.len() - 1
        })
    };
    let mut channels = Vec::with_capacity(source.channels.len());
    // Whether the mirrored clip animates translation, rotation, scale of each node.
    let mut animated = vec![[false; 3]; terms.len()];
    for ch in &source.channels {
        let to = terms[ch.node].source;
        let sampler = match ch.path {
            ChannelPath::Weights => {
                check_morph_targets(data, ch.node, to)?;
                let sampler = &source.samplers[ch.sampler];
                match map.morph_order(ch.node, to, sampler.components()) {
                    Some(order) => {
                        samplers.push(swapped_targets(sampler, &order)?);
                        samplers.len() - 1
                    }
                    None => keep(ch.sampler, &mut samplers),
                }
            }
            path => {
                let s = mirrored_sampler(&source.samplers[ch.sampler], path, &terms[to])?;
                samplers.push(s);
                animated[to][slot(path)] = true;
                samplers.len() - 1
            }
        };
        channels.push(Channel {
            sampler,
            node: to,
            path: ch.path,
        });
    }
    for (j, done) in animated.iter().enumerate() {
        for path in [
            ChannelPath::Translation,
            ChannelPath::Rotation,
            ChannelPath::Scale,
        ] {
            if done[slot(path)] {
                continue;
            }
            if let Some(value) = mirrored_rest(data, map, j, path) {
                samplers.push(Sampler::new(vec![0.0], value, Interpolation::Linear)?);
                channels.push(Channel {
                    sampler: samplers.len() - 1,
                    node: j,
                    path,
                });
            }
        }
    }
    let properties: Vec<_> = source
        .properties
        .iter()
        .map(|p| {
            let mut p = *p;
            p.sampler = keep(p.sampler, &mut samplers);
            p.node = p.node.map(|n| terms[n].source);
            p
        })
        .collect();
    let mut out = Clip::new(source.name.clone(), samplers, channels).with_properties(properties);
    out.markers.clone_from(&source.markers);
    Ok(out)
}

/// Where a transform path sits in a node's `[translation, rotation, scale]` flags (weights
/// channels never ask: they are kept, not mapped).
fn slot(path: ChannelPath) -> usize {
    match path {
        ChannelPath::Translation => 0,
        ChannelPath::Rotation => 1,
        ChannelPath::Scale | ChannelPath::Weights => 2,
    }
}

/// `sampler`'s keys mapped by `term` (values and tangents; only translation values take the
/// root's offset).
fn mirrored_sampler(
    sampler: &Sampler,
    path: ChannelPath,
    term: &NodeTerms,
) -> Result<Sampler, AnimError> {
    let components = sampler.components();
    let cubic = sampler.interpolation() == Interpolation::CubicSpline;
    let mut output = sampler.output().to_vec();
    for (i, v) in output.chunks_exact_mut(components).enumerate() {
        let value = !cubic || i % 3 == 1;
        map_value(term, path, v, value);
    }
    Sampler::new(sampler.input().to_vec(), output, sampler.interpolation())
}

/// A weights sampler with each key's (and tangent's) weights reordered: weight `i` of the
/// result is weight `order[i]` of `sampler`.
fn swapped_targets(sampler: &Sampler, order: &[usize]) -> Result<Sampler, AnimError> {
    let mut output = sampler.output().to_vec();
    for (out, src) in output
        .chunks_exact_mut(order.len())
        .zip(sampler.output().chunks_exact(order.len()))
    {
        for (o, &from) in out.iter_mut().zip(order) {
            *o = src[from];
        }
    }
    Sampler::new(sampler.input().to_vec(), output, sampler.interpolation())
}

/// One value (or tangent) of `path` mapped in place; other widths are left alone (validated
/// data has none).
fn map_value(term: &NodeTerms, path: ChannelPath, v: &mut [f32], value: bool) {
    match (path, v.len()) {
        (ChannelPath::Translation, 3) => {
            term.translation(Vec3::from_slice(v), value)
                .write_to_slice(v);
        }
        (ChannelPath::Rotation, 4) => term.rotation(Quat::from_slice(v)).write_to_slice(v),
        (ChannelPath::Scale, 3) => term.scale(Vec3::from_slice(v)).write_to_slice(v),
        _ => {}
    }
}

/// The mirror of node `j`'s partner's rest `path` value, when it is not `j`'s own rest.
fn mirrored_rest(
    data: &AnimationData,
    map: &MirrorMap,
    j: usize,
    path: ChannelPath,
) -> Option<Vec<f32>> {
    let term = &map.terms()[j];
    let rest = |n: usize| -> Vec<f32> {
        let r = &data.nodes[n];
        match path {
            ChannelPath::Translation => r.translation.to_vec(),
            ChannelPath::Rotation => r.rotation.to_vec(),
            _ => r.scale.to_vec(),
        }
    };
    let own = rest(j);
    let mut mirrored = rest(term.source);
    map_value(term, path, &mut mirrored, true);
    let norm = |v: &[f32]| v.iter().map(|x| x * x).sum::<f32>().sqrt();
    let diff = |sign: f32| {
        let d: Vec<f32> = own
            .iter()
            .zip(&mirrored)
            .map(|(a, b)| a - sign * b)
            .collect();
        norm(&d)
    };
    let close = match path {
        // Unit quaternions: q and -q are one rotation.
        ChannelPath::Rotation => diff(1.0).min(diff(-1.0)) <= REST_TOLERANCE,
        // A root's translation is in the asset's units: measure it against the rig's size.
        ChannelPath::Translation if data.nodes[j].parent.is_none() => {
            diff(1.0) <= REST_TOLERANCE * norm(&own).max(norm(&mirrored)).max(map.extent())
        }
        _ => diff(1.0) <= REST_TOLERANCE * norm(&own).max(norm(&mirrored)),
    };
    (!close).then_some(mirrored)
}

/// A weights channel may move from `node` to `to` only onto as many morph targets.
fn check_morph_targets(data: &AnimationData, node: usize, to: usize) -> Result<(), AnimError> {
    let targets = |n: usize| {
        data.morph_bindings
            .iter()
            .find(|m| m.node == n)
            .map(crate::MorphBinding::target_count)
    };
    match (targets(node), targets(to)) {
        (Some(targets), Some(partner_targets)) if targets != partner_targets => {
            Err(AnimError::MirrorMorphTargets {
                node,
                partner: to,
                targets,
                partner_targets,
            })
        }
        _ => Ok(()),
    }
}
