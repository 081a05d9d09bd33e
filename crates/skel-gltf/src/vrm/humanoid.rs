//! VRM's humanoid: which node is which human bone (VRMC_vrm-1.0 `humanoid.md`). Retargeting
//! and `.vrma` clips find bones by these names, never by node names.

use std::collections::BTreeMap;

use super::context::LoadCtx;
use super::json::{Object, item_path, key_path, object, req_node};
use crate::human_bone::{HumanBone, REQUIRED_HUMAN_BONES};
use crate::vrm_error::VrmError;

/// The humanoid bone map.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Humanoid {
    /// Human bone → node index.
    pub bones: BTreeMap<HumanBone, usize>,
}

impl Humanoid {
    /// The node of `bone`, if mapped.
    #[must_use]
    pub fn node(&self, bone: HumanBone) -> Option<usize> {
        self.bones.get(&bone).copied()
    }

    /// The human bone mapped to `node`, if any.
    #[must_use]
    pub fn bone_of(&self, node: usize) -> Option<HumanBone> {
        self.bones
            .iter()
            .find(|(_, n)| **n == node)
            .map(|(b, _)| *b)
    }

    fn check_required(&self, path: &str) -> Result<(), VrmError> {
        let missing: Vec<HumanBone> = REQUIRED_HUMAN_BONES
            .iter()
            .copied()
            .filter(|b| !self.bones.contains_key(b))
            .collect();
        if missing.is_empty() {
            Ok(())
        } else {
            Err(VrmError::MissingHumanBones {
                path: path.to_owned(),
                missing,
            })
        }
    }
}

/// VRMC_vrm 1.0 `humanoid` at `path`: `humanBones` is an object of `{name: {node}}`. When
/// the file uses 1.0-beta's thumb names (`leftThumbIntermediate` present) the thumbs are
/// renamed as in 0.x; an unknown name is skipped with a warning.
pub(crate) fn read_humanoid_v1(
    h: &Object,
    path: &str,
    ctx: &mut LoadCtx<'_>,
) -> Result<Humanoid, VrmError> {
    let at = key_path(path, "humanBones");
    let bones_json = match h.get("humanBones") {
        Some(v) => object(v, &at)?,
        None => return Err(VrmError::Missing { path: at }),
    };
    let beta_thumbs = bones_json.contains_key("leftThumbIntermediate")
        || bones_json.contains_key("rightThumbIntermediate");
    let mut humanoid = Humanoid::default();
    for (name, v) in bones_json {
        let bone_path = key_path(&at, name);
        let bone = if beta_thumbs {
            HumanBone::from_v0_name(name)
        } else {
            HumanBone::from_name(name)
        };
        let Some(bone) = bone else {
            ctx.warn(&bone_path, format!("unknown human bone {name:?}: skipped"));
            continue;
        };
        let node = req_node(object(v, &bone_path)?, "node", &bone_path, ctx.node_count)?;
        humanoid.bones.insert(bone, node);
    }
    humanoid.check_required(&at)?;
    Ok(humanoid)
}

/// VRM 0.x `humanoid` at `path`: `humanBones` is an array of `{bone, node}`. As three-vrm
/// reads it: an entry without `bone` or `node` is skipped, thumbs are renamed
/// ([`HumanBone::from_v0_name`]), a bone listed twice keeps its first entry (warned).
pub(crate) fn read_humanoid_v0(
    h: &Object,
    path: &str,
    ctx: &mut LoadCtx<'_>,
) -> Result<Humanoid, VrmError> {
    let at = key_path(path, "humanBones");
    let list = super::json::array(h, "humanBones", path)?;
    let mut humanoid = Humanoid::default();
    for (i, v) in list.iter().enumerate() {
        let entry_path = item_path(&at, i);
        let entry = object(v, &entry_path)?;
        let (Some(name), true) = (
            super::json::opt_string(entry, "bone", &entry_path)?,
            entry.contains_key("node"),
        ) else {
            continue;
        };
        let Some(bone) = HumanBone::from_v0_name(&name) else {
            ctx.warn(&entry_path, format!("unknown human bone {name:?}: skipped"));
            continue;
        };
        let node = req_node(entry, "node", &entry_path, ctx.node_count)?;
        if humanoid.bones.contains_key(&bone) {
            ctx.warn(
                &entry_path,
                format!("{name} listed twice: the first entry is kept"),
            );
            continue;
        }
        humanoid.bones.insert(bone, node);
    }
    humanoid.check_required(&at)?;
    Ok(humanoid)
}
