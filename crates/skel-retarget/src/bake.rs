//! The public entry points: clips baked for the target, and a target asset carrying them.

use skel_anim::{AnimationData, Clip};

use crate::align::aligned_rest;
use crate::error::{RetargetError, Side};
use crate::humanoid::HumanoidMap;
use crate::map::NodeMap;
use crate::rest::RestPose;
use crate::retarget::{RetargetOptions, check_all, chosen_clips, plan, retarget_clip};

/// Rewrites the source's clips for the target, key by key (see the crate documentation for
/// the rule). Each result is an ordinary clip of the target's nodes: play, blend, compress it
/// like any other. Channels of unmapped source nodes are dropped; unmapped target nodes keep
/// their rest values. Weights channels map by mesh name (the mesh node's name) and target
/// name, target by target, when [`RetargetOptions::morph_names`] names both meshes' targets
/// (targets the source does not animate keep their default weight; a channel matching no
/// target is dropped); otherwise they follow the map to a target node whose mesh has as many
/// morph targets.
///
/// # Errors
/// [`RetargetError::InvalidRig`] for an invalid rig (a parent cycle included),
/// [`RetargetError::NoSkin`] for a target without skin, [`RetargetError::NodeOutOfRange`],
/// [`RetargetError::CrossedHierarchy`] for a map that pairs a node with its own ancestor,
/// [`RetargetError::UnknownClip`], [`RetargetError::MorphNameCount`] for morph names that do
/// not fit a rig, and with `fix_root_position`:
/// [`RetargetError::UnknownNode`], [`RetargetError::Unmapped`], [`RetargetError::NoRootNode`]
/// and [`RetargetError::ZeroHeight`].
#[doc(alias = "retargetAnimationGroup")]
pub fn retarget(
    source: &AnimationData,
    target: &AnimationData,
    map: &NodeMap,
    options: &RetargetOptions,
) -> Result<Vec<Clip>, RetargetError> {
    check_all(source, target, map, options)?;
    let mut target_rest = RestPose::new(target, Side::Target)?;
    if options.align_rest {
        let source_rest = RestPose::new(source, Side::Source)?;
        target_rest = aligned_rest(&source_rest, target, &target_rest, map)?;
    }
    retarget_with_rest(source, target, target_rest, map, options)
}

pub(crate) fn retarget_with_rest(
    source: &AnimationData,
    target: &AnimationData,
    target_rest: RestPose,
    map: &NodeMap,
    options: &RetargetOptions,
) -> Result<Vec<Clip>, RetargetError> {
    let clips = chosen_clips(source, options)?;
    let default_root = || {
        let human =
            HumanoidMap::detect(target).map_err(|_| RetargetError::NoRootNode { role: "root" })?;
        human
            .root_and_ground_mapped(target, map)
            .ok_or(RetargetError::NoRootNode {
                role: "ground reference",
            })
    };
    let plan = plan(source, target, target_rest, map, options, default_root)?;
    Ok(clips
        .into_iter()
        .map(|clip| {
            retarget_clip(
                &plan,
                source,
                target,
                map,
                clip,
                options.morph_names.as_ref(),
            )
        })
        .collect())
}

/// `target` with `clips` added: a clip replaces the target's clip of the same name, the
/// others are appended in order.
#[must_use]
pub fn with_clips(target: &AnimationData, clips: Vec<Clip>) -> AnimationData {
    let mut out = target.clone();
    for clip in clips {
        match out.clips.iter_mut().find(|c| c.name == clip.name) {
            Some(existing) => *existing = clip,
            None => out.clips.push(clip),
        }
    }
    out
}
