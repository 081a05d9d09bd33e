//! The layer-stack file of `skel pose --layers` and `skel render --layers`: an ordered list of
//! layers (clip by index or name, weight, blend or additive with a reference, a mask by node
//! names, playback settings), resolved against an asset into [`LayerDesc`]s.
//!
//! ```json
//! { "layers": [
//!     { "clip": "Survey", "weight": 1.0 },
//!     { "clip": 2, "weight": 0.5, "mode": "additive", "reference": { "clip": "Walk", "time": 0.0 } },
//!     { "clip": "Run", "mask": { "include": ["b_Spine01_02"], "exclude": ["b_Neck_04"],
//!                                "joint_weights": { "b_Neck_04": 0.25 } } } ] }
//! ```

use std::collections::BTreeMap;
use std::path::Path;

use serde::Deserialize;
use skel::anim::glam::Vec3;
use skel::anim::{
    AimIk, AnimationData, IkJob, LayerDesc, LoopMode, Mask, Reference, RootMotion, TwoBoneIk,
};

/// The file as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StackFile {
    /// Layers, bottom first.
    pub layers: Vec<LayerEntry>,
    /// Root motion: which node's motion is extracted, on which axes.
    pub root_motion: Option<RootMotionEntry>,
    /// Inverse-kinematics jobs, run in order after the layers.
    #[serde(default)]
    pub ik: Vec<IkEntry>,
}

/// One IK job: `{"kind": "two_bone", "start", "mid", "end", "target", "pole", "weight",
/// "soften", "twist"}` or `{"kind": "aim", "node", "target", "forward", "up", "pole", "offset",
/// "weight", "twist"}`; positions and directions in the asset's world frame.
#[derive(Debug, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum IkEntry {
    /// A start → mid → end chain reaching for `target`.
    TwoBone {
        /// The chain's first joint.
        start: NameOrIndex,
        /// Its child.
        mid: NameOrIndex,
        /// The mid joint's child.
        end: NameOrIndex,
        /// Where the end joint goes.
        target: [f32; 3],
        /// Which way the mid joint bends.
        #[serde(default = "up")]
        pole: [f32; 3],
        /// 0..=1.
        #[serde(default = "one")]
        weight: f32,
        /// 0..=1 (1: no softening).
        #[serde(default = "one")]
        soften: f32,
        /// Radians about the start → target axis.
        #[serde(default)]
        twist: f32,
    },
    /// One node turned to aim at `target`.
    Aim {
        /// The node turned.
        node: NameOrIndex,
        /// What it aims at.
        target: [f32; 3],
        /// The node's local axis that points at the target.
        #[serde(default = "forward")]
        forward: [f32; 3],
        /// The node's local axis kept as close as possible to `pole`.
        #[serde(default = "up")]
        up: [f32; 3],
        /// World direction for `up`.
        #[serde(default = "up")]
        pole: [f32; 3],
        /// A point in the node's local space on the aiming line.
        #[serde(default)]
        offset: [f32; 3],
        /// 0..=1.
        #[serde(default = "one")]
        weight: f32,
        /// Radians about the aiming line.
        #[serde(default)]
        twist: f32,
    },
}

fn up() -> [f32; 3] {
    [0.0, 1.0, 0.0]
}

fn forward() -> [f32; 3] {
    [0.0, 0.0, 1.0]
}

/// `"root_motion": {"node": "Hips", "translation": "xz", "rotation": "yaw"}`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RootMotionEntry {
    node: NameOrIndex,
    #[serde(default = "ground")]
    translation: String,
    #[serde(default = "yaw")]
    rotation: String,
}

fn ground() -> String {
    "xz".into()
}

fn yaw() -> String {
    "yaw".into()
}

/// A clip or node named by index or by name.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub enum NameOrIndex {
    /// By index.
    Index(usize),
    /// By name (`#<index>` also names an index, for nodes without names).
    Name(String),
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LayerEntry {
    clip: NameOrIndex,
    #[serde(default = "one")]
    weight: f32,
    #[serde(default)]
    mode: ModeName,
    reference: Option<ReferenceEntry>,
    mask: Option<MaskEntry>,
    speed: Option<f32>,
    #[serde(rename = "loop")]
    loop_mode: Option<LoopName>,
    start: Option<f32>,
}

fn one() -> f32 {
    1.0
}

#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
enum ModeName {
    #[default]
    Blend,
    Additive,
}

#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(rename_all = "lowercase")]
enum LoopName {
    Repeat,
    Once,
    Pingpong,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ReferenceEntry {
    clip: Option<NameOrIndex>,
    #[serde(default)]
    time: f32,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct MaskEntry {
    #[serde(default)]
    include: Vec<NameOrIndex>,
    #[serde(default)]
    exclude: Vec<NameOrIndex>,
    #[serde(default)]
    joint_weights: BTreeMap<String, f32>,
}

/// What is wrong with a layer-stack file: one line naming the file and the field.
#[derive(Debug, thiserror::Error)]
#[error("{file}: {field}: {reason}")]
pub struct LayerFileError {
    /// The file.
    pub file: String,
    /// Where in it (`layers[1].mask.include[0]`).
    pub field: String,
    /// What is wrong, with what exists when a name is unknown.
    pub reason: String,
}

/// A stack resolved against an asset: the layers and, per layer, its clip's name.
#[derive(Debug, Clone)]
pub struct ResolvedStack {
    /// One descriptor per layer, bottom first.
    pub layers: Vec<LayerDesc>,
    /// Root motion to extract, if the file asks for it.
    pub root_motion: Option<RootMotion>,
    /// IK jobs, in order.
    pub ik: Vec<IkJob>,
}

/// Reads and resolves `path` against `data`.
///
/// # Errors
/// A [`LayerFileError`] for an unreadable file, bad JSON, an unknown field, an empty stack, an
/// unknown clip or node (listing what exists), a reference on a blend layer, or a non-finite
/// number.
pub fn load(path: &Path, data: &AnimationData) -> Result<ResolvedStack, LayerFileError> {
    let file = path.display().to_string();
    let err = |field: &str, reason: String| LayerFileError {
        file: file.clone(),
        field: field.to_owned(),
        reason,
    };
    let text = std::fs::read_to_string(path).map_err(|e| err("(file)", e.to_string()))?;
    let stack: StackFile = serde_json::from_str(&text).map_err(|e| err("(json)", e.to_string()))?;
    resolve(&stack, data).map_err(|(field, reason)| err(&field, reason))
}

/// Resolves names and checks values; errors are `(field, reason)`.
pub fn resolve(stack: &StackFile, data: &AnimationData) -> Result<ResolvedStack, (String, String)> {
    if stack.layers.is_empty() {
        return Err((
            "layers".into(),
            "the stack is empty: give at least one layer".into(),
        ));
    }
    let mut layers = Vec::with_capacity(stack.layers.len());
    for (i, entry) in stack.layers.iter().enumerate() {
        let at = |field: &str| format!("layers[{i}].{field}");
        let clip = clip_index(data, &entry.clip).map_err(|r| (at("clip"), r))?;
        let finite = |field: &str, v: f32| {
            if v.is_finite() {
                Ok(v)
            } else {
                Err((at(field), format!("{v} is not a finite number")))
            }
        };
        let mut desc = LayerDesc::new(clip).weight(finite("weight", entry.weight)?);
        match (entry.mode, &entry.reference) {
            (ModeName::Blend, Some(_)) => {
                return Err((
                    at("reference"),
                    "only additive layers have a reference (add \"mode\": \"additive\")".into(),
                ));
            }
            (ModeName::Blend, None) => {}
            (ModeName::Additive, reference) => {
                let reference = match reference {
                    None => Reference::default(),
                    Some(r) => Reference {
                        clip: match &r.clip {
                            Some(c) => {
                                Some(clip_index(data, c).map_err(|e| (at("reference.clip"), e))?)
                            }
                            None => None,
                        },
                        time: finite("reference.time", r.time)?,
                    },
                };
                desc = desc.additive(reference);
            }
        }
        if let Some(m) = &entry.mask {
            let mut mask = Mask::default();
            for (j, n) in m.include.iter().enumerate() {
                let node =
                    node_index(data, n).map_err(|r| (at(&format!("mask.include[{j}]")), r))?;
                mask.include.push(node);
            }
            for (j, n) in m.exclude.iter().enumerate() {
                let node =
                    node_index(data, n).map_err(|r| (at(&format!("mask.exclude[{j}]")), r))?;
                mask.exclude.push(node);
            }
            for (name, &w) in &m.joint_weights {
                let field = at(&format!("mask.joint_weights.{name}"));
                let node = node_index(data, &NameOrIndex::Name(name.clone()))
                    .map_err(|r| (field.clone(), r))?;
                if !(w.is_finite() && (0.0..=1.0).contains(&w)) {
                    return Err((field, format!("{w} is not a weight in 0..=1")));
                }
                mask.joint_weights.push((node, w));
            }
            desc = desc.mask(mask);
        }
        if let Some(s) = entry.speed {
            desc = desc.speed(finite("speed", s)?);
        }
        if let Some(l) = entry.loop_mode {
            desc = desc.loop_mode(match l {
                LoopName::Repeat => LoopMode::Repeat,
                LoopName::Once => LoopMode::Once,
                LoopName::Pingpong => LoopMode::PingPong,
            });
        }
        if let Some(s) = entry.start {
            desc = desc.start(finite("start", s)?);
        }
        layers.push(desc);
    }
    let root_motion = match &stack.root_motion {
        None => None,
        Some(r) => Some(root_motion(data, r)?),
    };
    let ik = stack
        .ik
        .iter()
        .enumerate()
        .map(|(i, e)| ik_job(data, i, e))
        .collect::<Result<_, _>>()?;
    Ok(ResolvedStack {
        layers,
        root_motion,
        ik,
    })
}

fn ik_job(data: &AnimationData, i: usize, entry: &IkEntry) -> Result<IkJob, (String, String)> {
    let at = |field: &str| format!("ik[{i}].{field}");
    let node = |field: &str, n: &NameOrIndex| node_index(data, n).map_err(|e| (at(field), e));
    let finite = |field: &str, v: &[f32]| {
        if v.iter().all(|x| x.is_finite()) {
            Ok(())
        } else {
            Err((at(field), format!("{v:?} is not finite")))
        }
    };
    let unit = |field: &str, w: f32| {
        if w.is_finite() && (0.0..=1.0).contains(&w) {
            Ok(w)
        } else {
            Err((at(field), format!("{w} is not in 0..=1")))
        }
    };
    Ok(match entry {
        IkEntry::TwoBone {
            start,
            mid,
            end,
            target,
            pole,
            weight,
            soften,
            twist,
        } => {
            finite("target", target)?;
            finite("pole", pole)?;
            finite("twist", &[*twist])?;
            let (start, mid, end) = (node("start", start)?, node("mid", mid)?, node("end", end)?);
            skel::anim::check_chain(data, start, mid, end)
                .map_err(|e| (at("start"), e.to_string()))?;
            IkJob::TwoBone {
                start,
                mid,
                end,
                ik: TwoBoneIk {
                    target: Vec3::from_array(*target),
                    pole: Vec3::from_array(*pole),
                    weight: unit("weight", *weight)?,
                    soften: unit("soften", *soften)?,
                    twist: *twist,
                    ..TwoBoneIk::default()
                },
            }
        }
        IkEntry::Aim {
            node: n,
            target,
            forward,
            up,
            pole,
            offset,
            weight,
            twist,
        } => {
            for (field, v) in [
                ("target", target),
                ("forward", forward),
                ("up", up),
                ("pole", pole),
                ("offset", offset),
            ] {
                finite(field, v)?;
            }
            finite("twist", &[*twist])?;
            IkJob::Aim {
                node: node("node", n)?,
                ik: AimIk {
                    target: Vec3::from_array(*target),
                    forward: Vec3::from_array(*forward),
                    up: Vec3::from_array(*up),
                    pole: Vec3::from_array(*pole),
                    offset: Vec3::from_array(*offset),
                    weight: unit("weight", *weight)?,
                    twist: *twist,
                },
            }
        }
    })
}

fn root_motion(data: &AnimationData, r: &RootMotionEntry) -> Result<RootMotion, (String, String)> {
    let node = node_index(data, &r.node).map_err(|e| ("root_motion.node".into(), e))?;
    let translation = match r.translation.as_str() {
        "xz" => [true, false, true],
        "xyz" => [true, true, true],
        "y" => [false, true, false],
        "none" => [false, false, false],
        other => {
            return Err((
                "root_motion.translation".into(),
                format!("{other:?} is not one of \"xz\", \"xyz\", \"y\", \"none\""),
            ));
        }
    };
    let yaw = match r.rotation.as_str() {
        "yaw" => true,
        "none" => false,
        other => {
            return Err((
                "root_motion.rotation".into(),
                format!("{other:?} is not one of \"yaw\", \"none\""),
            ));
        }
    };
    Ok(RootMotion {
        node,
        translation,
        yaw,
    })
}

fn clip_index(data: &AnimationData, clip: &NameOrIndex) -> Result<usize, String> {
    let list = || {
        data.clips
            .iter()
            .enumerate()
            .map(|(i, c)| format!("{i}: {:?}", c.name))
            .collect::<Vec<_>>()
            .join(", ")
    };
    match clip {
        NameOrIndex::Index(i) if *i < data.clips.len() => Ok(*i),
        NameOrIndex::Index(i) => Err(format!("no clip {i}; clips: {}", list())),
        NameOrIndex::Name(name) => data
            .clip_index(name)
            .ok_or_else(|| format!("no clip named {name:?}; clips: {}", list())),
    }
}

pub(crate) fn node_index(data: &AnimationData, node: &NameOrIndex) -> Result<usize, String> {
    let list = || {
        data.nodes
            .iter()
            .enumerate()
            .map(|(i, n)| {
                if n.name.is_empty() {
                    format!("#{i}")
                } else {
                    format!("{:?}", n.name)
                }
            })
            .collect::<Vec<_>>()
            .join(", ")
    };
    let by_index = |i: usize| {
        if i < data.nodes.len() {
            Ok(i)
        } else {
            Err(format!("no node #{i}; nodes: {}", list()))
        }
    };
    match node {
        NameOrIndex::Index(i) => by_index(*i),
        NameOrIndex::Name(name) => {
            if let Some(i) = data.nodes.iter().position(|n| n.name == *name) {
                return Ok(i);
            }
            match name.strip_prefix('#').map(str::parse::<usize>) {
                Some(Ok(i)) => by_index(i),
                _ => Err(format!("no node named {name:?}; nodes: {}", list())),
            }
        }
    }
}
