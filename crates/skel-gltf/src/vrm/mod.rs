//! VRM avatars: the data of `VRMC_vrm` 1.0 (meta, humanoid, lookAt, expressions),
//! `VRMC_springBone` 1.0 with `VRMC_springBone_extended_collider`, `VRMC_node_constraint` 1.0,
//! and VRM 0.x's `VRM` extension converted to the same model as three-vrm (v3.5) converts it.
//!
//! Which one is read follows three-vrm's loader plugins: the 1.0 extensions first, VRM 0.x's
//! `VRM` when there is no usable `VRMC_vrm`. A `specVersion` of `1.0` loads; a pre-release of
//! 1.0 (`1.0-beta`, `1.0-draft`) loads with a [`LoadWarning`] (three-vrm accepts only
//! `1.0-beta`); any other version is skipped with a warning, as three-vrm skips it. Malformed
//! extensions are [`VrmError`]s naming the JSON path. Spring bones become skel-anim's
//! [`SpringBonesDesc`](skel_anim::spring::SpringBonesDesc), which the simulation
//! consumes.
//!
//! ```
//! use skel_gltf::vrm::HumanBone;
//! use skel_gltf::{LoadOptions, load_path};
//!
//! let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/vrm/v1_hair.vrm");
//! let asset = load_path(&path, &LoadOptions::default()).unwrap();
//! let vrm = asset.vrm().expect("a VRM");
//! assert_eq!(vrm.humanoid.node(HumanBone::Head), Some(5));
//! // Four hair springs of four listed nodes each: three joints apiece.
//! let springs = &vrm.spring_bones.as_ref().unwrap().desc.springs;
//! assert_eq!(springs.len(), 4);
//! assert_eq!(springs[0].joints.len(), 3);
//! ```

mod animation;
mod constraints;
mod context;
mod expressions;
mod humanoid;
mod json;
mod look_at;
mod meta;
mod spring_bones;
mod springs_v0;
mod springs_v1;

use serde_json::Value;

use crate::nodes::NodeInfo;
use crate::{LoadWarning, MeshInfo};
use context::LoadCtx;

pub use crate::human_bone::{HumanBone, REQUIRED_HUMAN_BONES};
pub use crate::vrm_error::VrmError;
pub use animation::{VrmAnimation, VrmaExpression, humanoid_parent};
pub use constraints::{AimAxis, ConstraintKind, NodeConstraintDesc, RollAxis};
pub use expressions::{
    Expression, ExpressionOverride, ExpressionPreset, MaterialColorBind, MorphTargetBind,
    TextureTransformBind,
};
pub use humanoid::Humanoid;
pub use look_at::{LookAt, LookAtType, RangeMap};
pub use meta::VrmMeta;
pub use spring_bones::SpringBones;

/// Which VRM specification the avatar was read from.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum VrmSource {
    /// `VRMC_vrm` 1.0, with its `specVersion` as written (`1.0`, `1.0-beta`).
    Vrm1 {
        /// `specVersion`.
        spec_version: String,
    },
    /// VRM 0.x's `VRM` extension, with its `specVersion` as written (usually `0.0`).
    Vrm0 {
        /// `specVersion`, if written.
        spec_version: Option<String>,
    },
}

/// Everything skel reads of a VRM avatar.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Vrm {
    /// The specification it came from (a 0.x file is converted to this same model).
    pub source: VrmSource,
    /// Title, authors, licence.
    pub meta: VrmMeta,
    /// Human bone → node.
    pub humanoid: Humanoid,
    /// How the eyes follow a target, if the file says.
    pub look_at: Option<LookAt>,
    /// Facial expressions: presets, then custom ones (each in the JSON object's key order);
    /// 0.x groups in file order.
    pub expressions: Vec<Expression>,
    /// Spring bones (`VRMC_springBone`, or 0.x `secondaryAnimation`), with the version read.
    pub spring_bones: Option<SpringBones>,
    /// `VRMC_node_constraint` constraints, by node order.
    pub constraints: Vec<NodeConstraintDesc>,
}

/// Reads the VRM data of a file (`raw`: its whole JSON); `None` when it has neither a usable
/// `VRMC_vrm` nor a `VRM` extension. Warnings are appended to `warnings`.
///
/// # Errors
/// A [`VrmError`] naming the JSON path of the first malformed field.
pub(crate) fn read_vrm(
    raw: &Value,
    nodes: &[NodeInfo],
    meshes: &[MeshInfo],
    warnings: &mut Vec<LoadWarning>,
) -> Result<Option<Vrm>, VrmError> {
    let mut ctx = LoadCtx {
        node_count: nodes.len(),
        nodes,
        meshes,
        warnings: Vec::new(),
    };
    let vrm = read_with(raw, &mut ctx);
    warnings.append(&mut ctx.warnings);
    vrm
}

fn read_with(raw: &Value, ctx: &mut LoadCtx<'_>) -> Result<Option<Vrm>, VrmError> {
    let exts = raw.get("extensions");
    let path = "extensions.VRMC_vrm";
    if let Some(v) = exts.and_then(|e| e.get("VRMC_vrm")) {
        let ext = json::object(v, path)?;
        let version = json::opt_string(ext, "specVersion", path)?.ok_or(VrmError::Missing {
            path: format!("{path}.specVersion"),
        })?;
        if ctx.accept_version("VRMC_vrm", &format!("{path}.specVersion"), &version) {
            let meta = json::opt_object(ext, "meta", path)?
                .ok_or(VrmError::Missing {
                    path: format!("{path}.meta"),
                })
                .and_then(|m| meta::read_meta_v1(m, &format!("{path}.meta")))?;
            let humanoid = json::opt_object(ext, "humanoid", path)?.ok_or(VrmError::Missing {
                path: format!("{path}.humanoid"),
            })?;
            let humanoid = humanoid::read_humanoid_v1(humanoid, &format!("{path}.humanoid"), ctx)?;
            let look_at = json::opt_object(ext, "lookAt", path)?
                .map(|l| look_at::read_look_at_v1(l, &format!("{path}.lookAt"), ctx))
                .transpose()?;
            let expressions = match json::opt_object(ext, "expressions", path)? {
                Some(e) => {
                    expressions::read_expressions_v1(e, &format!("{path}.expressions"), ctx)?
                }
                None => Vec::new(),
            };
            let spring_bones = springs_v1::read_spring_bones(raw, ctx)?;
            let constraints = constraints::read_constraints(raw, ctx)?;
            return Ok(Some(Vrm {
                source: VrmSource::Vrm1 {
                    spec_version: version,
                },
                meta,
                humanoid,
                look_at,
                expressions,
                spring_bones,
                constraints,
            }));
        }
    }
    let path = "extensions.VRM";
    let Some(v) = exts.and_then(|e| e.get("VRM")) else {
        return Ok(None);
    };
    let ext = json::object(v, path)?;
    let spec_version = json::opt_string(ext, "specVersion", path)?;
    let meta = match json::opt_object(ext, "meta", path)? {
        Some(m) => meta::read_meta_v0(m, &format!("{path}.meta"))?,
        None => VrmMeta::default(),
    };
    let humanoid = json::opt_object(ext, "humanoid", path)?.ok_or(VrmError::Missing {
        path: format!("{path}.humanoid"),
    })?;
    let humanoid = humanoid::read_humanoid_v0(humanoid, &format!("{path}.humanoid"), ctx)?;
    let look_at = json::opt_object(ext, "firstPerson", path)?
        .map(|f| look_at::read_look_at_v0(f, &format!("{path}.firstPerson"), ctx))
        .transpose()?;
    let expressions = match json::opt_object(ext, "blendShapeMaster", path)? {
        Some(b) => expressions::read_expressions_v0(b, &format!("{path}.blendShapeMaster"), ctx)?,
        None => Vec::new(),
    };
    let spring_bones = json::opt_object(ext, "secondaryAnimation", path)?
        .map(|s| springs_v0::read_secondary(s, &format!("{path}.secondaryAnimation"), ctx))
        .transpose()?
        .flatten();
    Ok(Some(Vrm {
        source: VrmSource::Vrm0 { spec_version },
        meta,
        humanoid,
        look_at,
        expressions,
        spring_bones,
        constraints: Vec::new(),
    }))
}
