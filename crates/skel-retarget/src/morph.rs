//! Morph-weight channels: which target mesh a source mesh's weights drive, and which of its
//! targets each weight lands on.
//!
//! Babylon.js keys every morph target by `meshName + "_" + targetName` on both sides and moves
//! each target's animation to the target avatar's target of the same key; a source target
//! without a match is dropped, a target target nobody animates keeps its influence. Its mesh
//! name is the name of the glTF node instancing the mesh, its target names glTF's
//! `mesh.extras.targetNames`. skel does the same per morph binding (one per mesh node), with
//! the node's name as the mesh name. Where a name is missing on either side the older rule
//! applies: the node map pairs the two mesh nodes and their meshes have as many targets, and
//! the weights are copied as they are.

use skel_anim::{AnimationData, Interpolation, Sampler};

use crate::error::{RetargetError, Side};
use crate::map::NodeMap;

/// The target names of every morph binding of both rigs (glTF's `mesh.extras.targetNames`,
/// which skel-gltf's loader hands over as `GltfAsset::morph_names`).
///
/// Each table has one entry per morph binding, in the order of
/// [`AnimationData::morph_bindings`]; an entry is `None` when that mesh's targets have no
/// names, else one name per target.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MorphTargetNames {
    /// One entry per morph binding of the source.
    pub source: Vec<Option<Vec<String>>>,
    /// One entry per morph binding of the target.
    pub target: Vec<Option<Vec<String>>>,
}

/// Refuses a table that does not fit its rig's morph bindings: names matched against the
/// wrong targets would move weights to the wrong shapes without a word.
pub(crate) fn check_names(
    names: &MorphTargetNames,
    source: &AnimationData,
    target: &AnimationData,
) -> Result<(), RetargetError> {
    for (side, table, data) in [
        (Side::Source, &names.source, source),
        (Side::Target, &names.target, target),
    ] {
        if table.len() != data.morph_bindings.len() {
            return Err(RetargetError::MorphNameCount {
                side,
                binding: None,
                expected: data.morph_bindings.len(),
                got: table.len(),
            });
        }
        for (b, (entry, binding)) in table.iter().zip(&data.morph_bindings).enumerate() {
            if let Some(list) = entry
                && list.len() != binding.target_count()
            {
                return Err(RetargetError::MorphNameCount {
                    side,
                    binding: Some(b),
                    expected: binding.target_count(),
                    got: list.len(),
                });
            }
        }
    }
    Ok(())
}

/// A mesh's name (its node's) and its target names, when both are known.
fn named<'a>(
    data: &'a AnimationData,
    table: Option<&'a [Option<Vec<String>>]>,
    binding: usize,
) -> Option<(&'a str, &'a [String])> {
    let node = &data.nodes[data.morph_bindings[binding].node].name;
    let targets = table?.get(binding)?.as_deref()?;
    (!node.is_empty()).then_some((node.as_str(), targets))
}

/// For each target morph target, the source target whose weight it takes (`None`: it keeps its
/// default weight). `None` when nothing matches: the channel is dropped.
fn by_name(source: &[String], target: &[String]) -> Option<Vec<Option<usize>>> {
    let picks: Vec<Option<usize>> = target
        .iter()
        .map(|t| source.iter().position(|s| s == t))
        .collect();
    picks.iter().any(Option::is_some).then_some(picks)
}

/// The weights sampler of target binding `defaults` built from `sampler` with `picks`: picked
/// targets take the source's values, the others hold their default weight (tangents 0).
fn remap(sampler: &Sampler, picks: &[Option<usize>], defaults: &[f32]) -> Option<Sampler> {
    let from = sampler.components();
    let cubic = sampler.interpolation() == Interpolation::CubicSpline;
    let mut out = Vec::with_capacity(sampler.output().len() / from * picks.len());
    for (e, element) in sampler.output().chunks_exact(from).enumerate() {
        let tangent = cubic && e % 3 != 1;
        out.extend(picks.iter().zip(defaults).map(|(pick, &d)| match pick {
            Some(i) => element[*i],
            None if tangent => 0.0,
            None => d,
        }));
    }
    Sampler::new(sampler.input().to_vec(), out, sampler.interpolation()).ok()
}

/// The weights channels a source weights channel on node `source_node` becomes: one
/// `(target node, sampler)` per target mesh it drives.
pub(crate) fn weights_channels(
    source: &AnimationData,
    target: &AnimationData,
    map: &NodeMap,
    names: Option<&MorphTargetNames>,
    source_node: usize,
    sampler: &Sampler,
) -> Vec<(usize, Sampler)> {
    let Some(sb) = source
        .morph_bindings
        .iter()
        .position(|m| m.node == source_node)
    else {
        return Vec::new();
    };
    let source_names = named(source, names.map(|n| n.source.as_slice()), sb);
    let mut out = Vec::new();
    for (tb, binding) in target.morph_bindings.iter().enumerate() {
        let t = binding.node;
        if out.iter().any(|(n, _)| *n == t) {
            continue;
        }
        let mapped = map.source_of(t) == Some(source_node);
        let target_names = named(target, names.map(|n| n.target.as_slice()), tb);
        let channel = match (source_names, target_names) {
            (Some((sm, sn)), Some((tm, tn))) if sm == tm || mapped => {
                by_name(sn, tn).and_then(|p| remap(sampler, &p, &binding.default_weights))
            }
            (Some(_), Some(_)) => None,
            _ if mapped && source.morph_bindings[sb].target_count() == binding.target_count() => {
                Some(sampler.clone())
            }
            _ => None,
        };
        if let Some(s) = channel {
            out.push((t, s));
        }
    }
    out
}
