//! An avatar's meta: title, authors and licence (VRMC_vrm-1.0 `meta.md`; VRM 0.x `meta`). skel
//! shows it (`skel info`) and keeps it; it changes nothing skel computes.

use serde_json::Value;

use super::json::{Object, opt_bool, opt_number, opt_string, strings};
use crate::vrm_error::VrmError;

/// The avatar's meta. 1.0 and 0.x spell it differently; the common fields are typed, the
/// whole object is kept in [`raw`](Self::raw) for the rest (usage permissions).
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct VrmMeta {
    /// 1.0 `name` (required there); 0.x `title`.
    pub name: String,
    /// `version` of the avatar (not of the specification).
    pub version: Option<String>,
    /// 1.0 `authors` (at least one there); 0.x `author`, as one entry.
    pub authors: Vec<String>,
    /// 1.0 `licenseUrl` (required there); 0.x `otherLicenseUrl` when given.
    pub license_url: Option<String>,
    /// 0.x `licenseName` (`CC0`, `Redistribution_Prohibited`, …); `None` in 1.0.
    pub license_name: Option<String>,
    /// `contactInformation`.
    pub contact_information: Option<String>,
    /// 1.0 `references`; 0.x `reference`, as one entry.
    pub references: Vec<String>,
    /// 1.0 `thumbnailImage` (an image index); 0.x `texture` (a texture index, −1 for none).
    pub thumbnail: Option<usize>,
    /// 1.0 `allowRedistribution`.
    pub allow_redistribution: Option<bool>,
    /// The meta object as written.
    pub raw: Value,
}

fn required_string(o: &Object, key: &str, path: &str) -> Result<String, VrmError> {
    opt_string(o, key, path)?.ok_or_else(|| VrmError::Missing {
        path: format!("{path}.{key}"),
    })
}

fn image_index(o: &Object, key: &str, path: &str) -> Result<Option<usize>, VrmError> {
    Ok(opt_number(o, key, path)?.and_then(|n| (n >= 0.0).then_some(n as usize)))
}

/// VRMC_vrm 1.0 `meta` at `path`: `name`, `authors` and `licenseUrl` are required.
pub(crate) fn read_meta_v1(m: &Object, path: &str) -> Result<VrmMeta, VrmError> {
    if !m.contains_key("authors") {
        return Err(VrmError::Missing {
            path: format!("{path}.authors"),
        });
    }
    Ok(VrmMeta {
        name: required_string(m, "name", path)?,
        version: opt_string(m, "version", path)?,
        authors: strings(m, "authors", path)?,
        license_url: Some(required_string(m, "licenseUrl", path)?),
        license_name: None,
        contact_information: opt_string(m, "contactInformation", path)?,
        references: strings(m, "references", path)?,
        thumbnail: image_index(m, "thumbnailImage", path)?,
        allow_redistribution: opt_bool(m, "allowRedistribution", path)?,
        raw: Value::Object(m.clone()),
    })
}

/// VRM 0.x `meta` at `path`: every field optional.
pub(crate) fn read_meta_v0(m: &Object, path: &str) -> Result<VrmMeta, VrmError> {
    let one = |s: Option<String>| s.into_iter().filter(|s| !s.is_empty()).collect();
    Ok(VrmMeta {
        name: opt_string(m, "title", path)?.unwrap_or_default(),
        version: opt_string(m, "version", path)?,
        authors: one(opt_string(m, "author", path)?),
        license_url: opt_string(m, "otherLicenseUrl", path)?.filter(|s| !s.is_empty()),
        license_name: opt_string(m, "licenseName", path)?,
        contact_information: opt_string(m, "contactInformation", path)?,
        references: one(opt_string(m, "reference", path)?),
        thumbnail: image_index(m, "texture", path)?,
        allow_redistribution: None,
        raw: Value::Object(m.clone()),
    })
}
