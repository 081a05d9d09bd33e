//! The committed JSON behind the plots: reading a `.json`/`.jsonl` file, the fields the
//! charts take out of it (each failing with the key and the start of the object, so a
//! renamed field in a result file is found at once), and the median of a series. Apart from
//! `plots.rs`, which lists the plots and calls the charts, so that the charts depend on this
//! and nothing depends back on `plots.rs`.

use std::path::PathBuf;

use serde_json::Value;

/// Every JSON value in `path`: one for a `.json` file, each object of a `.jsonl` file.
pub(crate) fn read_json(path: &PathBuf) -> Result<Vec<Value>, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let values = serde_json::Deserializer::from_str(&text)
        .into_iter::<Value>()
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| format!("{}: {e}", path.display()))?;
    if values.is_empty() {
        return Err(format!("{}: no JSON value", path.display()));
    }
    Ok(values)
}

/// The number at `key` of a JSON object.
pub(crate) fn num(value: &Value, key: &str) -> Result<f64, String> {
    value
        .get(key)
        .and_then(Value::as_f64)
        .ok_or_else(|| format!("no number `{key}` in {}", short(value)))
}

/// The string at `key` of a JSON object.
pub(crate) fn text<'a>(value: &'a Value, key: &str) -> Result<&'a str, String> {
    value
        .get(key)
        .and_then(Value::as_str)
        .ok_or_else(|| format!("no string `{key}` in {}", short(value)))
}

/// The array at `key` of a JSON object.
pub(crate) fn array<'a>(value: &'a Value, key: &str) -> Result<&'a [Value], String> {
    value
        .get(key)
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .ok_or_else(|| format!("no array `{key}` in {}", short(value)))
}

/// The first input's single object (a `docs/results/` file).
pub(crate) fn only(inputs: &[Vec<Value>], index: usize) -> Result<&Value, String> {
    inputs
        .get(index)
        .and_then(|values| values.first())
        .ok_or_else(|| format!("input {index} missing"))
}

/// The start of a JSON value, for error messages.
fn short(value: &Value) -> String {
    value.to_string().chars().take(80).collect()
}

/// The median of `values` (the upper one of the middle two for an even count, as
/// `skel bench gpu` takes it), sorting them.
pub(crate) fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    values.get(values.len() / 2).copied().unwrap_or(f64::NAN)
}
