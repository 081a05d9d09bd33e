//! `.vrma` clips (`VRMC_vrm_animation` 1.0): a GLB whose nodes form a humanoid rig, whose
//! glTF animations move it, and whose extension says which node is which human bone, which
//! node's `translation.x` is an expression's weight and which node's rotation is the look-at
//! direction. Read as three-vrm-animation 3.5 reads it (`VRMAnimationLoaderPlugin`); the
//! retargeting onto an avatar lives in skel-retarget.

use std::collections::BTreeMap;

use serde_json::Value;
use skel_anim::{ChannelPath, Clip, Sampler};

use super::context::LoadCtx;
use super::json::{Object, key_path, object, opt_object, opt_string, req_node};
use crate::human_bone::HumanBone;
use crate::vrm_error::VrmError;
use crate::{GltfDocument, LoadWarning};

/// The `VRMC_vrm_animation` extension of a `.vrma` file.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct VrmAnimation {
    /// `specVersion` as written (`1.0`; a `1.0-…` pre-release loads with a warning).
    pub spec_version: String,
    /// Human bone → node of the clip's rig (`humanoid.humanBones`).
    pub human_bones: BTreeMap<HumanBone, usize>,
    /// Expressions whose weight a node's `translation.x` carries: `(name, node, preset)`,
    /// presets first then custom ones, each by name.
    pub expressions: Vec<VrmaExpression>,
    /// The node whose rotation is the look-at direction (`lookAt.node`), if any.
    pub look_at: Option<usize>,
}

/// One expression track source of a `.vrma`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VrmaExpression {
    /// The expression's name: a preset's 1.0 name (`happy`, `blink`, `aa`…) or a custom name.
    pub name: String,
    /// Whether it was listed under `expressions.preset` (else `expressions.custom`).
    pub preset: bool,
    /// The node whose `translation.x` is the weight.
    pub node: usize,
}

impl VrmAnimation {
    /// The human bone mapped to `node`, if any.
    #[must_use]
    pub fn bone_of(&self, node: usize) -> Option<HumanBone> {
        self.human_bones
            .iter()
            .find(|(_, n)| **n == node)
            .map(|(b, _)| *b)
    }

    /// The weight tracks of `clip`: one `(name, sampler)` per expression whose node the clip
    /// translates, the sampler holding the translation's x only (one component per key, three
    /// for a cubic spline's tangents and value), as three-vrm-animation builds its
    /// `NumberKeyframeTrack`s.
    #[must_use]
    pub fn expression_tracks(&self, clip: &Clip) -> Vec<(String, Sampler)> {
        let mut out = Vec::new();
        for e in &self.expressions {
            let Some(ch) = clip
                .channels
                .iter()
                .find(|c| c.node == e.node && c.path == ChannelPath::Translation)
            else {
                continue;
            };
            let s = &clip.samplers[ch.sampler];
            let xs: Vec<f32> = s.output().chunks_exact(3).map(|v| v[0]).collect();
            if let Ok(sampler) = Sampler::new(s.input().to_vec(), xs, s.interpolation()) {
                out.push((e.name.clone(), sampler));
            }
        }
        out
    }

    /// The look-at node's rotation sampler in `clip`, if the file has a look-at node and the
    /// clip rotates it.
    #[must_use]
    pub fn look_at_track<'a>(&self, clip: &'a Clip) -> Option<&'a Sampler> {
        let node = self.look_at?;
        clip.channels
            .iter()
            .find(|c| c.node == node && c.path == ChannelPath::Rotation)
            .map(|c| &clip.samplers[c.sampler])
    }
}

/// The parent of `bone` in VRM's humanoid hierarchy (three-vrm's `VRMHumanBoneParentMap`):
/// what three-vrm-animation measures each bone's rotation against, whichever nodes lie
/// between them in the file.
#[must_use]
pub fn humanoid_parent(bone: HumanBone) -> Option<HumanBone> {
    let name = bone.name();
    let (side, part) = if let Some(p) = name.strip_prefix("left") {
        ("left", p)
    } else if let Some(p) = name.strip_prefix("right") {
        ("right", p)
    } else {
        ("", name)
    };
    let sided = |p: &str| HumanBone::from_name(&format!("{side}{p}"));
    match part {
        "hips" => None,
        "spine" | "UpperLeg" => HumanBone::from_name("hips"),
        "chest" => HumanBone::from_name("spine"),
        "upperChest" => HumanBone::from_name("chest"),
        "neck" | "Shoulder" => HumanBone::from_name("upperChest"),
        "head" => HumanBone::from_name("neck"),
        "jaw" | "Eye" => HumanBone::from_name("head"),
        "LowerLeg" => sided("UpperLeg"),
        "Foot" => sided("LowerLeg"),
        "Toes" => sided("Foot"),
        "UpperArm" => sided("Shoulder"),
        "LowerArm" => sided("UpperArm"),
        "Hand" => sided("LowerArm"),
        "ThumbMetacarpal" => sided("Hand"),
        "ThumbProximal" => sided("ThumbMetacarpal"),
        "ThumbDistal" => sided("ThumbProximal"),
        p => {
            if p.ends_with("Proximal") {
                sided("Hand")
            } else if let Some(finger) = p.strip_suffix("Intermediate") {
                sided(&format!("{finger}Proximal"))
            } else if let Some(finger) = p.strip_suffix("Distal") {
                sided(&format!("{finger}Intermediate"))
            } else {
                None
            }
        }
    }
}

impl VrmAnimation {
    /// Reads the `VRMC_vrm_animation` extension of a parsed `.vrma` (load its rig and clips
    /// with [`load_document`](crate::load_document) from the same document). Warnings (a
    /// pre-release `specVersion`, unknown bone or preset names, skipped) are appended to
    /// `warnings`.
    ///
    /// # Errors
    /// A [`VrmError`] naming the JSON path: the extension or its `specVersion` is missing, the
    /// version is neither `1.0` nor a `1.0-…` pre-release (`UnknownValue`), `humanBones` is
    /// missing, a `node` is missing, out of range or not an index, a field has the wrong type.
    pub fn read(doc: &GltfDocument, warnings: &mut Vec<LoadWarning>) -> Result<Self, VrmError> {
        let mut ctx = LoadCtx {
            node_count: doc.json().nodes.len(),
            nodes: &[],
            meshes: &[],
            warnings: Vec::new(),
        };
        let read = read_vrm_animation(doc.raw_json(), &mut ctx);
        warnings.append(&mut ctx.warnings);
        read
    }
}

const EXT: &str = "extensions.VRMC_vrm_animation";

fn read_vrm_animation(raw: &Value, ctx: &mut LoadCtx<'_>) -> Result<VrmAnimation, VrmError> {
    let ext = raw
        .get("extensions")
        .and_then(|e| e.get("VRMC_vrm_animation"))
        .ok_or_else(|| VrmError::Missing {
            path: EXT.to_owned(),
        })?;
    let ext = object(ext, EXT)?;
    let version_path = key_path(EXT, "specVersion");
    let spec_version = opt_string(ext, "specVersion", EXT)?.ok_or(VrmError::Missing {
        path: version_path.clone(),
    })?;
    if !ctx.accept_version("VRMC_vrm_animation", &version_path, &spec_version) {
        return Err(VrmError::UnknownValue {
            path: version_path,
            value: spec_version,
            allowed: "1.0",
        });
    }
    let mut human_bones = BTreeMap::new();
    if let Some(h) = opt_object(ext, "humanoid", EXT)? {
        let h_path = key_path(EXT, "humanoid");
        let at = key_path(&h_path, "humanBones");
        let bones =
            opt_object(h, "humanBones", &h_path)?.ok_or(VrmError::Missing { path: at.clone() })?;
        for (name, v) in bones {
            let bone_path = key_path(&at, name);
            let Some(bone) = HumanBone::from_name(name) else {
                ctx.warn(&bone_path, format!("unknown human bone {name:?}: skipped"));
                continue;
            };
            let node = req_node(object(v, &bone_path)?, "node", &bone_path, ctx.node_count)?;
            human_bones.insert(bone, node);
        }
    }
    let mut expressions = Vec::new();
    if let Some(e) = opt_object(ext, "expressions", EXT)? {
        let e_path = key_path(EXT, "expressions");
        for (group, preset) in [("preset", true), ("custom", false)] {
            let Some(list) = opt_object(e, group, &e_path)? else {
                continue;
            };
            let g_path = key_path(&e_path, group);
            read_expressions(list, &g_path, preset, ctx, &mut expressions)?;
        }
    }
    let look_at = match opt_object(ext, "lookAt", EXT)? {
        Some(l) => Some(req_node(
            l,
            "node",
            &key_path(EXT, "lookAt"),
            ctx.node_count,
        )?),
        None => None,
    };
    Ok(VrmAnimation {
        spec_version,
        human_bones,
        expressions,
        look_at,
    })
}

fn read_expressions(
    list: &Object,
    path: &str,
    preset: bool,
    ctx: &mut LoadCtx<'_>,
    out: &mut Vec<VrmaExpression>,
) -> Result<(), VrmError> {
    for (name, v) in list {
        let e_path = key_path(path, name);
        if preset && super::ExpressionPreset::from_name(name).is_none() {
            ctx.warn(
                &e_path,
                format!("unknown expression preset {name:?}: skipped"),
            );
            continue;
        }
        let node = req_node(object(v, &e_path)?, "node", &e_path, ctx.node_count)?;
        out.push(VrmaExpression {
            name: name.clone(),
            preset,
            node,
        });
    }
    Ok(())
}
