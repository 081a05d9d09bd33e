//! `VRMC_node_constraint` 1.0: a node that turns with another (twist bones, eyes aimed at a
//! target), read from each node's extensions as three-vrm's `VRMNodeConstraintLoaderPlugin`
//! reads them. The constraint runs after the source is posed; see the spec's evaluation order.

use serde_json::Value;

use super::context::LoadCtx;
use super::json::{Object, key_path, object, opt_number, opt_object, opt_string, req_node};
use crate::vrm_error::VrmError;
pub use skel_anim::constraint::{AimAxis, ConstraintKind, NodeConstraintDesc, RollAxis};

const EXT: &str = "VRMC_node_constraint";

fn weight(o: &Object, path: &str) -> Result<f32, VrmError> {
    Ok(opt_number(o, "weight", path)?.unwrap_or(1.0))
}

fn required_name(o: &Object, key: &str, path: &str) -> Result<String, VrmError> {
    opt_string(o, key, path)?.ok_or_else(|| VrmError::Missing {
        path: key_path(path, key),
    })
}

fn read_constraint(c: &Object, path: &str, node_count: usize) -> Result<ConstraintKind, VrmError> {
    if let Some(r) = opt_object(c, "roll", path)? {
        let at = key_path(path, "roll");
        let axis = match required_name(r, "rollAxis", &at)?.as_str() {
            "X" => RollAxis::X,
            "Y" => RollAxis::Y,
            "Z" => RollAxis::Z,
            other => {
                return Err(VrmError::UnknownValue {
                    path: key_path(&at, "rollAxis"),
                    value: other.to_owned(),
                    allowed: "X, Y, Z",
                });
            }
        };
        return Ok(ConstraintKind::Roll {
            source: req_node(r, "source", &at, node_count)?,
            axis,
            weight: weight(r, &at)?,
        });
    }
    if let Some(a) = opt_object(c, "aim", path)? {
        let at = key_path(path, "aim");
        let axis = match required_name(a, "aimAxis", &at)?.as_str() {
            "PositiveX" => AimAxis::PositiveX,
            "NegativeX" => AimAxis::NegativeX,
            "PositiveY" => AimAxis::PositiveY,
            "NegativeY" => AimAxis::NegativeY,
            "PositiveZ" => AimAxis::PositiveZ,
            "NegativeZ" => AimAxis::NegativeZ,
            other => {
                return Err(VrmError::UnknownValue {
                    path: key_path(&at, "aimAxis"),
                    value: other.to_owned(),
                    allowed: "PositiveX, NegativeX, PositiveY, NegativeY, PositiveZ, NegativeZ",
                });
            }
        };
        return Ok(ConstraintKind::Aim {
            source: req_node(a, "source", &at, node_count)?,
            axis,
            weight: weight(a, &at)?,
        });
    }
    if let Some(r) = opt_object(c, "rotation", path)? {
        let at = key_path(path, "rotation");
        return Ok(ConstraintKind::Rotation {
            source: req_node(r, "source", &at, node_count)?,
            weight: weight(r, &at)?,
        });
    }
    Err(VrmError::NoConstraint {
        path: path.to_owned(),
    })
}

/// Every node's `VRMC_node_constraint` in `raw`, by node order; an extension of a version
/// skel does not read is skipped with a warning.
pub(crate) fn read_constraints(
    raw: &Value,
    ctx: &mut LoadCtx<'_>,
) -> Result<Vec<NodeConstraintDesc>, VrmError> {
    let mut out = Vec::new();
    let Some(nodes) = raw.get("nodes").and_then(Value::as_array) else {
        return Ok(out);
    };
    for (n, v) in nodes.iter().enumerate() {
        let Some(ext) = v.get("extensions").and_then(|e| e.get(EXT)) else {
            continue;
        };
        let path = format!("nodes[{n}].extensions.{EXT}");
        let ext = object(ext, &path)?;
        let version = required_name(ext, "specVersion", &path)?;
        if !ctx.accept_version(EXT, &key_path(&path, "specVersion"), &version) {
            continue;
        }
        let cp = key_path(&path, "constraint");
        let c =
            opt_object(ext, "constraint", &path)?.ok_or(VrmError::Missing { path: cp.clone() })?;
        out.push(NodeConstraintDesc {
            node: n,
            kind: read_constraint(c, &cp, ctx.node_count)?,
        });
    }
    Ok(out)
}
