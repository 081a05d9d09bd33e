//! The whole retargeting of a set of clips: checks, constant matrices, keys rewritten.

use skel_anim::{AnimationData, Channel, ChannelPath, Clip, Sampler};

use crate::error::{RetargetError, Side};
use crate::map::NodeMap;
use crate::morph::{MorphTargetNames, check_names, weights_channels};
use crate::rest::RestPose;
use crate::root::{RootNodes, RootOffset, RootRule, VerticalAxis};
use crate::rule::KeyRule;

/// How to retarget (Babylon.js's `IRetargetOptions`, where it has an equivalent).
#[derive(Debug, Clone, PartialEq)]
pub struct RetargetOptions {
    /// Rewrite the root's translation keys from the source root's world motion scaled by the
    /// rigs' height ratio (Babylon.js's `fixRootPosition`, on by default).
    pub fix_root_position: bool,
    /// The target's root node (Babylon.js's `rootNodeName`, there a source name); `None`:
    /// the hips of the target's humanoid map.
    pub root: Option<String>,
    /// The target's ground-reference node (`groundReferenceNodeName`); `None`: the lower foot
    /// of the target's humanoid map.
    pub ground: Option<String>,
    /// The vertical axis (`groundReferenceVerticalAxis`); `None`: detected from the source's
    /// root-minus-ground difference as Babylon.js does.
    pub vertical_axis: Option<VerticalAxis>,
    /// How the root's offset is brought into its parent's frame.
    pub root_offset: RootOffset,
    /// Turn each mapped target joint's reference rotation so that its bone (towards its one
    /// mapped child) points where the source's does at rest, in world space, before the rule
    /// runs (beyond Babylon.js: Godot's "fix silhouette", Unreal's auto-align). Off by
    /// default: with it off the result matches Babylon.js.
    pub align_rest: bool,
    /// Only these source clips (by name); `None`: every clip.
    pub clips: Option<Vec<String>>,
    /// The morph target names of both rigs: weights channels then map by mesh name (the mesh
    /// node's name) and target name, target by target, as Babylon.js maps them. `None`, or a
    /// mesh whose targets have no names: a weights channel follows the node map to a mesh with
    /// as many targets, unchanged.
    pub morph_names: Option<MorphTargetNames>,
}

impl Default for RetargetOptions {
    fn default() -> Self {
        Self {
            fix_root_position: true,
            root: None,
            ground: None,
            vertical_axis: None,
            root_offset: RootOffset::Point,
            align_rest: false,
            clips: None,
            morph_names: None,
        }
    }
}

fn node_named(data: &AnimationData, name: &str) -> Result<usize, RetargetError> {
    data.nodes
        .iter()
        .position(|n| n.name == name)
        .ok_or_else(|| RetargetError::UnknownNode {
            side: Side::Target,
            name: name.to_owned(),
        })
}

/// Refuses a map in which a target node's source is an ancestor-or-self of the source of one
/// of its target ancestors: the parent's motion would be applied twice.
fn check_order(map: &NodeMap, source: &RestPose, target: &RestPose) -> Result<(), RetargetError> {
    for (ta, sa) in map.iter() {
        for (td, sd) in map.iter() {
            if ta != td && target.is_ancestor_or_self(ta, td) && source.is_ancestor_or_self(sd, sa)
            {
                return Err(RetargetError::CrossedHierarchy {
                    target_ancestor: target.names[ta].clone(),
                    target_descendant: target.names[td].clone(),
                    source_of_ancestor: source.names[sa].clone(),
                    source_of_descendant: source.names[sd].clone(),
                });
            }
        }
    }
    Ok(())
}

/// The checked inputs of a retargeting: both rest poses, the map, one rule per pair.
pub(crate) struct Plan {
    pub source: RestPose,
    pub rules: Vec<(usize, usize, KeyRule)>,
    pub root: Option<RootRule>,
    /// Whether the target's reference was aligned: then mapped joints the clip does not rotate
    /// still need their aligned rotation, as a one-key channel.
    pub aligned: bool,
}

pub(crate) fn plan(
    source: &AnimationData,
    target: &AnimationData,
    target_rest: RestPose,
    map: &NodeMap,
    options: &RetargetOptions,
    default_root: impl FnOnce() -> Result<(usize, usize), RetargetError>,
) -> Result<Plan, RetargetError> {
    let source_rest = RestPose::new(source, Side::Source)?;
    check_order(map, &source_rest, &target_rest)?;
    let rules = map
        .iter()
        .map(|(t, s)| Ok((t, s, KeyRule::new(&source_rest, &target_rest, s, t)?)))
        .collect::<Result<Vec<_>, RetargetError>>()?;
    let root = if options.fix_root_position {
        let (root, ground) = match (&options.root, &options.ground) {
            (Some(r), Some(g)) => (node_named(target, r)?, node_named(target, g)?),
            (r, g) => {
                let (dr, dg) = default_root()?;
                let r = r.as_deref().map_or(Ok(dr), |r| node_named(target, r))?;
                let g = g.as_deref().map_or(Ok(dg), |g| node_named(target, g))?;
                (r, g)
            }
        };
        let nodes = RootNodes {
            root,
            ground,
            axis: options.vertical_axis,
            offset: options.root_offset,
        };
        Some(RootRule::new(&source_rest, &target_rest, map, &nodes)?)
    } else {
        None
    };
    Ok(Plan {
        source: source_rest,
        rules,
        root,
        aligned: options.align_rest,
    })
}

/// Checks both rigs and the map's indices.
pub(crate) fn check_inputs(
    source: &AnimationData,
    target: &AnimationData,
    map: &NodeMap,
) -> Result<(), RetargetError> {
    source.validate().map_err(|e| RetargetError::InvalidRig {
        side: Side::Source,
        source: e,
    })?;
    target.validate().map_err(|e| RetargetError::InvalidRig {
        side: Side::Target,
        source: e,
    })?;
    if target.skeletons.is_empty() {
        return Err(RetargetError::NoSkin);
    }
    map.check_ranges(source, target)
}

/// [`check_inputs`], and the morph names against both rigs.
pub(crate) fn check_all(
    source: &AnimationData,
    target: &AnimationData,
    map: &NodeMap,
    options: &RetargetOptions,
) -> Result<(), RetargetError> {
    check_inputs(source, target, map)?;
    match &options.morph_names {
        Some(names) => check_names(names, source, target),
        None => Ok(()),
    }
}

/// The source clips chosen by `options`, in the source's order (or the order asked).
pub(crate) fn chosen_clips<'a>(
    source: &'a AnimationData,
    options: &RetargetOptions,
) -> Result<Vec<&'a Clip>, RetargetError> {
    match &options.clips {
        None => Ok(source.clips.iter().collect()),
        Some(names) => names
            .iter()
            .map(|n| {
                source
                    .clips
                    .iter()
                    .find(|c| &c.name == n)
                    .ok_or_else(|| RetargetError::UnknownClip { name: n.clone() })
            })
            .collect(),
    }
}

/// One source clip retargeted.
pub(crate) fn retarget_clip(
    plan: &Plan,
    source: &AnimationData,
    target: &AnimationData,
    map: &NodeMap,
    clip: &Clip,
    names: Option<&MorphTargetNames>,
) -> Clip {
    let mut samplers: Vec<Sampler> = Vec::new();
    let mut channels = Vec::new();
    for ch in &clip.channels {
        let sampler = &clip.samplers[ch.sampler];
        if ch.path == ChannelPath::Weights {
            for (t, s) in weights_channels(source, target, map, names, ch.node, sampler) {
                samplers.push(s);
                channels.push(Channel {
                    sampler: samplers.len() - 1,
                    node: t,
                    path: ch.path,
                });
            }
            continue;
        }
        for (t, s, rule) in &plan.rules {
            if *s != ch.node {
                continue;
            }
            let rewritten = match &plan.root {
                Some(root) if root.target == *t && ch.path == ChannelPath::Translation => {
                    root.rewrite(&plan.source, clip, sampler)
                }
                _ => rule.rewrite(sampler, ch.path),
            };
            samplers.push(rewritten);
            channels.push(Channel {
                sampler: samplers.len() - 1,
                node: *t,
                path: ch.path,
            });
        }
    }
    if plan.aligned {
        for (t, s, rule) in &plan.rules {
            let rotated = clip
                .channels
                .iter()
                .any(|c| c.node == *s && c.path == ChannelPath::Rotation);
            if !rotated {
                let rest = rule.rest_rotation();
                let q = rule.rotation(rest).as_quat().to_array().to_vec();
                let start = clip.samplers.first().map_or(0.0, Sampler::start_time);
                if let Ok(sampler) = Sampler::new(vec![start], q, skel_anim::Interpolation::Step) {
                    samplers.push(sampler);
                    channels.push(Channel {
                        sampler: samplers.len() - 1,
                        node: *t,
                        path: ChannelPath::Rotation,
                    });
                }
            }
        }
    }
    let mut out = Clip::new(clip.name.clone(), samplers, channels);
    out.markers = clip.markers.clone();
    out
}
