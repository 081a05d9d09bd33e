//! Typed reads of VRM extension JSON, each carrying the JSON path it reads so that a bad value
//! becomes a [`VrmError`] that names it. The VRM extensions are read from the raw JSON (as
//! `texture_transform.rs` reads `KHR_texture_transform`): gltf-json does not type them.

use glam::{Vec2, Vec3, Vec4};
use serde_json::{Map, Value};

use crate::vrm_error::VrmError;

/// A JSON object.
pub(crate) type Object = Map<String, Value>;

/// `path.key`.
pub(crate) fn key_path(path: &str, key: &str) -> String {
    format!("{path}.{key}")
}

/// `path[i]`.
pub(crate) fn item_path(path: &str, i: usize) -> String {
    format!("{path}[{i}]")
}

fn wrong(path: &str, expected: &'static str) -> VrmError {
    VrmError::WrongType {
        path: path.to_owned(),
        expected,
    }
}

/// `v` as an object.
pub(crate) fn object<'a>(v: &'a Value, path: &str) -> Result<&'a Object, VrmError> {
    v.as_object().ok_or_else(|| wrong(path, "an object"))
}

/// `o[key]` as an object, if present.
pub(crate) fn opt_object<'a>(
    o: &'a Object,
    key: &str,
    path: &str,
) -> Result<Option<&'a Object>, VrmError> {
    o.get(key)
        .map(|v| object(v, &key_path(path, key)))
        .transpose()
}

/// `o[key]` as an array (empty when absent).
pub(crate) fn array<'a>(o: &'a Object, key: &str, path: &str) -> Result<&'a [Value], VrmError> {
    match o.get(key) {
        None => Ok(&[]),
        Some(v) => v
            .as_array()
            .map(Vec::as_slice)
            .ok_or_else(|| wrong(&key_path(path, key), "an array")),
    }
}

/// `o[key]` as an array, required.
pub(crate) fn req_array<'a>(o: &'a Object, key: &str, path: &str) -> Result<&'a [Value], VrmError> {
    if !o.contains_key(key) {
        return Err(VrmError::Missing {
            path: key_path(path, key),
        });
    }
    array(o, key, path)
}

/// `v` as a finite `f32`.
pub(crate) fn number(v: &Value, path: &str) -> Result<f32, VrmError> {
    v.as_f64()
        .map(|x| x as f32)
        .filter(|x| x.is_finite())
        .ok_or_else(|| wrong(path, "a finite number"))
}

/// `o[key]` as a finite `f32`, if present.
pub(crate) fn opt_number(o: &Object, key: &str, path: &str) -> Result<Option<f32>, VrmError> {
    o.get(key)
        .map(|v| number(v, &key_path(path, key)))
        .transpose()
}

/// `o[key]` as a radius: finite and not negative, if present.
pub(crate) fn opt_radius(o: &Object, key: &str, path: &str) -> Result<Option<f32>, VrmError> {
    let r = opt_number(o, key, path)?;
    match r {
        Some(radius) if radius < 0.0 => Err(VrmError::NegativeRadius {
            path: key_path(path, key),
            radius,
        }),
        _ => Ok(r),
    }
}

/// `o[key]` as a string, if present.
pub(crate) fn opt_string(o: &Object, key: &str, path: &str) -> Result<Option<String>, VrmError> {
    o.get(key)
        .map(|v| {
            v.as_str()
                .map(str::to_owned)
                .ok_or_else(|| wrong(&key_path(path, key), "a string"))
        })
        .transpose()
}

/// `o[key]` as a boolean, if present.
pub(crate) fn opt_bool(o: &Object, key: &str, path: &str) -> Result<Option<bool>, VrmError> {
    o.get(key)
        .map(|v| {
            v.as_bool()
                .ok_or_else(|| wrong(&key_path(path, key), "a boolean"))
        })
        .transpose()
}

/// `o[key]` as a list of strings (empty when absent).
pub(crate) fn strings(o: &Object, key: &str, path: &str) -> Result<Vec<String>, VrmError> {
    let at = key_path(path, key);
    array(o, key, path)?
        .iter()
        .enumerate()
        .map(|(i, v)| {
            v.as_str()
                .map(str::to_owned)
                .ok_or_else(|| wrong(&item_path(&at, i), "a string"))
        })
        .collect()
}

/// `v` as an integer.
pub(crate) fn integer(v: &Value, path: &str) -> Result<i64, VrmError> {
    v.as_i64().ok_or_else(|| wrong(path, "an integer"))
}

/// `v` as a non-negative integer (an index checked elsewhere, or kept as data).
pub(crate) fn unsigned(v: &Value, path: &str) -> Result<usize, VrmError> {
    v.as_u64()
        .and_then(|n| usize::try_from(n).ok())
        .ok_or_else(|| wrong(path, "a non-negative integer"))
}

/// `v` as a node index below `node_count`.
pub(crate) fn node(v: &Value, path: &str, node_count: usize) -> Result<usize, VrmError> {
    let n = integer(v, path)?;
    usize::try_from(n)
        .ok()
        .filter(|&i| i < node_count)
        .ok_or_else(|| VrmError::NodeOutOfRange {
            path: path.to_owned(),
            node: n,
            node_count,
        })
}

/// `o[key]` as a node index, required.
pub(crate) fn req_node(
    o: &Object,
    key: &str,
    path: &str,
    node_count: usize,
) -> Result<usize, VrmError> {
    let at = key_path(path, key);
    let v = o
        .get(key)
        .ok_or_else(|| VrmError::Missing { path: at.clone() })?;
    node(v, &at, node_count)
}

/// `o[key]` as a node index, if present.
pub(crate) fn opt_node(
    o: &Object,
    key: &str,
    path: &str,
    node_count: usize,
) -> Result<Option<usize>, VrmError> {
    o.get(key)
        .map(|v| node(v, &key_path(path, key), node_count))
        .transpose()
}

/// `v` as an index below `len` into the VRM array `what`.
pub(crate) fn index(
    v: &Value,
    path: &str,
    len: usize,
    what: &'static str,
) -> Result<usize, VrmError> {
    let i = integer(v, path)?;
    usize::try_from(i)
        .ok()
        .filter(|&k| k < len)
        .ok_or_else(|| VrmError::IndexOutOfRange {
            path: path.to_owned(),
            what,
            index: i,
            len,
        })
}

/// `o[key]` as a list of indices below `len` (empty when absent).
pub(crate) fn indices(
    o: &Object,
    key: &str,
    path: &str,
    len: usize,
    what: &'static str,
) -> Result<Vec<usize>, VrmError> {
    let at = key_path(path, key);
    array(o, key, path)?
        .iter()
        .enumerate()
        .map(|(i, v)| index(v, &item_path(&at, i), len, what))
        .collect()
}

/// `v` as an array of `N` finite numbers.
fn fixed<const N: usize>(
    v: &Value,
    path: &str,
    expected: &'static str,
) -> Result<[f32; N], VrmError> {
    let a = v
        .as_array()
        .filter(|a| a.len() == N)
        .ok_or_else(|| wrong(path, expected))?;
    let mut out = [0.0; N];
    for (o, x) in out.iter_mut().zip(a) {
        *o = number(x, path).map_err(|_| wrong(path, expected))?;
    }
    Ok(out)
}

/// `o[key]` as `[x, y, z]`, if present.
pub(crate) fn opt_vec3(o: &Object, key: &str, path: &str) -> Result<Option<Vec3>, VrmError> {
    o.get(key)
        .map(|v| {
            fixed::<3>(v, &key_path(path, key), "an array of 3 finite numbers").map(Vec3::from)
        })
        .transpose()
}

/// `o[key]` as `[x, y]`, if present.
pub(crate) fn opt_vec2(o: &Object, key: &str, path: &str) -> Result<Option<Vec2>, VrmError> {
    o.get(key)
        .map(|v| {
            fixed::<2>(v, &key_path(path, key), "an array of 2 finite numbers").map(Vec2::from)
        })
        .transpose()
}

/// `o[key]` as `[r, g, b, a]`, if present.
pub(crate) fn opt_vec4(o: &Object, key: &str, path: &str) -> Result<Option<Vec4>, VrmError> {
    o.get(key)
        .map(|v| {
            fixed::<4>(v, &key_path(path, key), "an array of 4 finite numbers").map(Vec4::from)
        })
        .transpose()
}

/// VRM 0.x's `{x, y, z}` object at `o[key]`, if present; a missing component is `None`.
pub(crate) fn opt_xyz(
    o: &Object,
    key: &str,
    path: &str,
) -> Result<Option<[Option<f32>; 3]>, VrmError> {
    let Some(v) = opt_object(o, key, path)? else {
        return Ok(None);
    };
    let at = key_path(path, key);
    Ok(Some([
        opt_number(v, "x", &at)?,
        opt_number(v, "y", &at)?,
        opt_number(v, "z", &at)?,
    ]))
}
