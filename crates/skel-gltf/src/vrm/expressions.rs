//! Facial expressions: named sets of morph-target weights (and material changes) that an
//! application blends (VRMC_vrm-1.0 `expressions.md`; VRM 0.x `blendShapeMaster`).

use glam::{Vec2, Vec4};

use super::context::LoadCtx;
use super::json::{
    Object, array, index, item_path, key_path, object, opt_bool, opt_number, opt_string, opt_vec2,
    opt_vec4, unsigned,
};
use crate::vrm_error::VrmError;

/// The 18 preset expressions of VRM 1.0.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ExpressionPreset {
    /// `happy` (0.x `joy`).
    Happy,
    /// `angry`.
    Angry,
    /// `sad` (0.x `sorrow`).
    Sad,
    /// `relaxed` (0.x `fun`).
    Relaxed,
    /// `surprised`.
    Surprised,
    /// `aa` (0.x `a`).
    Aa,
    /// `ih` (0.x `i`).
    Ih,
    /// `ou` (0.x `u`).
    Ou,
    /// `ee` (0.x `e`).
    Ee,
    /// `oh` (0.x `o`).
    Oh,
    /// `blink`.
    Blink,
    /// `blinkLeft` (0.x `blink_l`).
    BlinkLeft,
    /// `blinkRight` (0.x `blink_r`).
    BlinkRight,
    /// `lookUp` (0.x `lookup`).
    LookUp,
    /// `lookDown` (0.x `lookdown`).
    LookDown,
    /// `lookLeft` (0.x `lookleft`).
    LookLeft,
    /// `lookRight` (0.x `lookright`).
    LookRight,
    /// `neutral`.
    Neutral,
}

/// Preset, 1.0 name, 0.x preset name (three-vrm's `v0v1PresetNameMap`).
const PRESETS: [(ExpressionPreset, &str, &str); 18] = [
    (ExpressionPreset::Happy, "happy", "joy"),
    (ExpressionPreset::Angry, "angry", "angry"),
    (ExpressionPreset::Sad, "sad", "sorrow"),
    (ExpressionPreset::Relaxed, "relaxed", "fun"),
    (ExpressionPreset::Surprised, "surprised", ""),
    (ExpressionPreset::Aa, "aa", "a"),
    (ExpressionPreset::Ih, "ih", "i"),
    (ExpressionPreset::Ou, "ou", "u"),
    (ExpressionPreset::Ee, "ee", "e"),
    (ExpressionPreset::Oh, "oh", "o"),
    (ExpressionPreset::Blink, "blink", "blink"),
    (ExpressionPreset::BlinkLeft, "blinkLeft", "blink_l"),
    (ExpressionPreset::BlinkRight, "blinkRight", "blink_r"),
    (ExpressionPreset::LookUp, "lookUp", "lookup"),
    (ExpressionPreset::LookDown, "lookDown", "lookdown"),
    (ExpressionPreset::LookLeft, "lookLeft", "lookleft"),
    (ExpressionPreset::LookRight, "lookRight", "lookright"),
    (ExpressionPreset::Neutral, "neutral", "neutral"),
];

impl ExpressionPreset {
    /// The VRM 1.0 name (`happy`).
    #[must_use]
    pub fn name(self) -> &'static str {
        PRESETS.iter().find(|p| p.0 == self).map_or("", |p| p.1)
    }

    /// The preset a VRM 1.0 name stands for.
    #[must_use]
    pub fn from_name(name: &str) -> Option<Self> {
        PRESETS.iter().find(|p| p.1 == name).map(|p| p.0)
    }

    /// The preset a VRM 0.x `presetName` stands for (`joy` → happy; `unknown` → none).
    #[must_use]
    pub fn from_v0_name(name: &str) -> Option<Self> {
        PRESETS
            .iter()
            .find(|p| !p.2.is_empty() && p.2 == name)
            .map(|p| p.0)
    }
}

/// What an expression does to blink, look-at or mouth expressions while it is active.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ExpressionOverride {
    /// `none`: nothing (the default).
    #[default]
    None,
    /// `block`: they are set to 0 while this one has any weight.
    Block,
    /// `blend`: they are scaled by `1 − weight`.
    Blend,
}

/// One morph target weight an expression sets.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MorphTargetBind {
    /// The mesh node whose morph target moves.
    pub node: usize,
    /// The morph target.
    pub index: usize,
    /// Its weight at expression weight 1 (1.0's 0–1; 0.x's 0–100 divided by 100).
    pub weight: f32,
}

/// A material colour an expression sets (kept as data; skel's renderer does not apply it).
#[derive(Debug, Clone, PartialEq)]
pub struct MaterialColorBind {
    /// The material.
    pub material: usize,
    /// `color`, `emissionColor`, `shadeColor`, `matcapColor`, `rimColor`, `outlineColor`.
    pub kind: String,
    /// The colour at expression weight 1.
    pub target_value: Vec4,
}

/// A texture transform an expression sets (kept as data).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TextureTransformBind {
    /// The material.
    pub material: usize,
    /// UV scale at weight 1 (default 1, 1).
    pub scale: Vec2,
    /// UV offset at weight 1 (default 0, 0).
    pub offset: Vec2,
}

/// One expression.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Expression {
    /// The preset's 1.0 name, or the custom name (0.x: the preset's 1.0 name, else `name`).
    pub name: String,
    /// The preset, if it is one.
    pub preset: Option<ExpressionPreset>,
    /// Weights snap to 0 or 1 (`isBinary`).
    pub is_binary: bool,
    /// `overrideBlink`.
    pub override_blink: ExpressionOverride,
    /// `overrideLookAt`.
    pub override_look_at: ExpressionOverride,
    /// `overrideMouth`.
    pub override_mouth: ExpressionOverride,
    /// Morph target weights.
    pub morph_target_binds: Vec<MorphTargetBind>,
    /// Material colours (1.0).
    pub material_color_binds: Vec<MaterialColorBind>,
    /// Texture transforms (1.0).
    pub texture_transform_binds: Vec<TextureTransformBind>,
    /// 0.x `materialValues`, as written (not converted).
    pub material_values_v0: Vec<serde_json::Value>,
}

fn read_override(e: &Object, key: &str, path: &str) -> Result<ExpressionOverride, VrmError> {
    match opt_string(e, key, path)?.as_deref() {
        None | Some("none") => Ok(ExpressionOverride::None),
        Some("block") => Ok(ExpressionOverride::Block),
        Some("blend") => Ok(ExpressionOverride::Blend),
        Some(other) => Err(VrmError::UnknownValue {
            path: key_path(path, key),
            value: other.to_owned(),
            allowed: "none, block, blend",
        }),
    }
}

/// Whether `node` has a mesh with more than `index` morph targets; otherwise warns (three-vrm
/// skips such a bind with a warning).
fn has_target(ctx: &mut LoadCtx<'_>, node: usize, index: usize, path: &str) -> bool {
    let count = ctx.nodes[node]
        .mesh
        .and_then(|m| ctx.meshes.get(m))
        .map_or(0, |m| m.target_count);
    if index < count {
        return true;
    }
    ctx.warn(
        path,
        format!(
            "node {node} has {count} morph targets, not {}: bind skipped",
            index + 1
        ),
    );
    false
}

fn read_expression_v1(
    name: &str,
    preset: Option<ExpressionPreset>,
    e: &Object,
    path: &str,
    ctx: &mut LoadCtx<'_>,
) -> Result<Expression, VrmError> {
    let mut x = Expression {
        name: name.to_owned(),
        preset,
        is_binary: opt_bool(e, "isBinary", path)?.unwrap_or(false),
        override_blink: read_override(e, "overrideBlink", path)?,
        override_look_at: read_override(e, "overrideLookAt", path)?,
        override_mouth: read_override(e, "overrideMouth", path)?,
        morph_target_binds: Vec::new(),
        material_color_binds: Vec::new(),
        texture_transform_binds: Vec::new(),
        material_values_v0: Vec::new(),
    };
    let at = key_path(path, "morphTargetBinds");
    for (i, b) in array(e, "morphTargetBinds", path)?.iter().enumerate() {
        let bp = item_path(&at, i);
        let b = object(b, &bp)?;
        let n = super::json::req_node(b, "node", &bp, ctx.node_count)?;
        let k = b.get("index").ok_or_else(|| VrmError::Missing {
            path: key_path(&bp, "index"),
        })?;
        let k = unsigned(k, &key_path(&bp, "index"))?;
        let weight = opt_number(b, "weight", &bp)?.unwrap_or(1.0);
        if has_target(ctx, n, k, &bp) {
            x.morph_target_binds.push(MorphTargetBind {
                node: n,
                index: k,
                weight,
            });
        }
    }
    let at = key_path(path, "materialColorBinds");
    for (i, b) in array(e, "materialColorBinds", path)?.iter().enumerate() {
        let bp = item_path(&at, i);
        let b = object(b, &bp)?;
        let m = b.get("material").ok_or_else(|| VrmError::Missing {
            path: key_path(&bp, "material"),
        })?;
        x.material_color_binds.push(MaterialColorBind {
            material: unsigned(m, &key_path(&bp, "material"))?,
            kind: opt_string(b, "type", &bp)?.unwrap_or_default(),
            target_value: opt_vec4(b, "targetValue", &bp)?.unwrap_or(Vec4::ZERO),
        });
    }
    let at = key_path(path, "textureTransformBinds");
    for (i, b) in array(e, "textureTransformBinds", path)?.iter().enumerate() {
        let bp = item_path(&at, i);
        let b = object(b, &bp)?;
        let m = b.get("material").ok_or_else(|| VrmError::Missing {
            path: key_path(&bp, "material"),
        })?;
        x.texture_transform_binds.push(TextureTransformBind {
            material: unsigned(m, &key_path(&bp, "material"))?,
            scale: opt_vec2(b, "scale", &bp)?.unwrap_or(Vec2::ONE),
            offset: opt_vec2(b, "offset", &bp)?.unwrap_or(Vec2::ZERO),
        });
    }
    Ok(x)
}

/// VRMC_vrm 1.0 `expressions` at `path`: `preset` (unknown preset names are skipped with a
/// warning, as three-vrm does) then `custom` (a custom one with a preset's name is skipped).
pub(crate) fn read_expressions_v1(
    e: &Object,
    path: &str,
    ctx: &mut LoadCtx<'_>,
) -> Result<Vec<Expression>, VrmError> {
    let mut out = Vec::new();
    if let Some(p) = super::json::opt_object(e, "preset", path)? {
        let at = key_path(path, "preset");
        for (name, v) in p {
            let ep = key_path(&at, name);
            let Some(preset) = ExpressionPreset::from_name(name) else {
                ctx.warn(&ep, format!("unknown preset {name:?}: skipped"));
                continue;
            };
            out.push(read_expression_v1(
                name,
                Some(preset),
                object(v, &ep)?,
                &ep,
                ctx,
            )?);
        }
    }
    if let Some(c) = super::json::opt_object(e, "custom", path)? {
        let at = key_path(path, "custom");
        for (name, v) in c {
            let ep = key_path(&at, name);
            if ExpressionPreset::from_name(name).is_some() {
                ctx.warn(
                    &ep,
                    format!("a custom expression cannot be named {name:?}: skipped"),
                );
                continue;
            }
            out.push(read_expression_v1(name, None, object(v, &ep)?, &ep, ctx)?);
        }
    }
    Ok(out)
}

/// VRM 0.x `blendShapeMaster` at `path`, converted as three-vrm converts it: the name is the
/// preset's 1.0 name (`joy` → `happy`) or else the group's `name` (a group with neither is
/// skipped, and so is a second group of the same name); a bind names a *mesh*, and becomes one
/// bind per node using that mesh with weight `0.01 × weight` (default 100); no override flags.
pub(crate) fn read_expressions_v0(
    b: &Object,
    path: &str,
    ctx: &mut LoadCtx<'_>,
) -> Result<Vec<Expression>, VrmError> {
    let mut out: Vec<Expression> = Vec::new();
    let at = key_path(path, "blendShapeGroups");
    for (i, g) in array(b, "blendShapeGroups", path)?.iter().enumerate() {
        let gp = item_path(&at, i);
        let g = object(g, &gp)?;
        let preset = opt_string(g, "presetName", &gp)?
            .as_deref()
            .and_then(ExpressionPreset::from_v0_name);
        let Some(name) = preset
            .map(|p| p.name().to_owned())
            .or(opt_string(g, "name", &gp)?)
        else {
            ctx.warn(&gp, "a blend shape group without a name: skipped");
            continue;
        };
        if out.iter().any(|x| x.name == name) {
            ctx.warn(&gp, format!("{name} is defined twice: the first is kept"));
            continue;
        }
        let mut binds = Vec::new();
        let bat = key_path(&gp, "binds");
        for (k, bind) in array(g, "binds", &gp)?.iter().enumerate() {
            let bp = item_path(&bat, k);
            let bind = object(bind, &bp)?;
            let (Some(mesh), Some(target)) = (bind.get("mesh"), bind.get("index")) else {
                continue;
            };
            let mesh = index(mesh, &key_path(&bp, "mesh"), ctx.meshes.len(), "mesh")?;
            let target = unsigned(target, &key_path(&bp, "index"))?;
            // In f64, as three-vrm computes `0.01 * weight`: 80 gives 0.8, not 0.79999995.
            let weight =
                (0.01 * f64::from(opt_number(bind, "weight", &bp)?.unwrap_or(100.0))) as f32;
            let users: Vec<usize> = (0..ctx.node_count)
                .filter(|&n| ctx.nodes[n].mesh == Some(mesh))
                .collect();
            for n in users {
                if has_target(ctx, n, target, &bp) {
                    binds.push(MorphTargetBind {
                        node: n,
                        index: target,
                        weight,
                    });
                }
            }
        }
        out.push(Expression {
            name,
            preset,
            is_binary: opt_bool(g, "isBinary", &gp)?.unwrap_or(false),
            override_blink: ExpressionOverride::None,
            override_look_at: ExpressionOverride::None,
            override_mouth: ExpressionOverride::None,
            morph_target_binds: binds,
            material_color_binds: Vec::new(),
            texture_transform_binds: Vec::new(),
            material_values_v0: array(g, "materialValues", &gp)?.to_vec(),
        });
    }
    Ok(out)
}
