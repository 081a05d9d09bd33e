//! The name pairs of a JSON node map, `{"target node": "source node", …}`, read once for
//! [`NodeMap::from_json`](crate::NodeMap::from_json) and
//! [`Mapping::pairs_from_json`](crate::Mapping::pairs_from_json), below both.

use crate::error::RetargetError;

/// The `(target node, source node)` pairs of a JSON object, one per entry, not yet resolved
/// against any rig.
///
/// # Errors
/// [`RetargetError::MapJson`] when the text is not such an object.
pub(crate) fn name_pairs(json: &str) -> Result<Vec<(String, String)>, RetargetError> {
    let value: serde_json::Value =
        serde_json::from_str(json).map_err(|e| RetargetError::MapJson {
            reason: e.to_string(),
        })?;
    let object = value.as_object().ok_or_else(|| RetargetError::MapJson {
        reason: "expected an object {\"target node\": \"source node\", …}".into(),
    })?;
    object
        .iter()
        .map(|(t, s)| {
            let s = s.as_str().ok_or_else(|| RetargetError::MapJson {
                reason: format!("the value of {t:?} is not a string"),
            })?;
            Ok((t.clone(), s.to_owned()))
        })
        .collect()
}
