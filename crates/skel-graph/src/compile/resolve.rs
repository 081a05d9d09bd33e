//! What the operations' compilation shares: joint names to nodes, weights, joint shares,
//! errors at a path.

use skel_anim::{JointShare, Rig};

use super::context::{Context, check_range};
use crate::error::known_list;
use crate::file::{NumberOrParam, OperationDef, ParamKind};
use crate::graph::Weight;
use crate::{GraphError, NameKind};

const NUMBERS: &[ParamKind] = &[ParamKind::Float, ParamKind::Int];

/// In 0..=1.
pub(super) fn unit(x: f32) -> bool {
    (0.0..=1.0).contains(&x)
}

pub(super) fn invalid(path: &str, message: impl Into<String>) -> GraphError {
    GraphError::Invalid {
        path: path.to_owned(),
        message: message.into(),
    }
}

/// Each joint's share of a look-at or spine bend (weights and largest turns).
pub(super) fn shares(
    path: &str,
    def: &OperationDef,
    n: usize,
) -> Result<Vec<JointShare>, GraphError> {
    for (field, list) in [("weights", &def.weights), ("max_angles", &def.max_angles)] {
        if !list.is_empty() && list.len() != n {
            return Err(invalid(
                &format!("{path}.{field}"),
                format!("one per joint: {n} joints, {} given", list.len()),
            ));
        }
    }
    (0..n)
        .map(|i| {
            let weight = match def.weights.get(i) {
                Some(&w) => check_range(
                    &format!("{path}.weights[{i}]"),
                    w,
                    |w| w >= 0.0,
                    "not negative",
                )?,
                None => 1.0,
            };
            let max_angle = match def.max_angles.get(i) {
                Some(&a) => check_range(
                    &format!("{path}.max_angles[{i}]"),
                    a,
                    |a| (0.0..=std::f32::consts::PI).contains(&a),
                    "an angle in 0..=π",
                )?,
                None => JointShare::default().max_angle,
            };
            Ok(JointShare { weight, max_angle })
        })
        .collect()
}

pub(super) fn weight(
    cx: &Context<'_>,
    path: &str,
    def: Option<&NumberOrParam>,
) -> Result<Weight, GraphError> {
    Ok(match def {
        None => Weight::Constant(1.0),
        Some(NumberOrParam::Number(w)) => {
            Weight::Constant(check_range(path, *w, unit, "a weight lies in 0..=1")?)
        }
        Some(NumberOrParam::Param(p)) => Weight::Param(cx.param(path, p, NUMBERS)?),
    })
}

pub(super) fn nodes(rig: &Rig, path: &str, names: &[String]) -> Result<Vec<usize>, GraphError> {
    names
        .iter()
        .enumerate()
        .map(|(i, name)| node(rig, &format!("{path}[{i}]"), name))
        .collect()
}

pub(super) fn node(rig: &Rig, path: &str, name: &str) -> Result<usize, GraphError> {
    rig.node_index(name).ok_or_else(|| GraphError::Unknown {
        path: path.to_owned(),
        kind: NameKind::Node,
        name: name.to_owned(),
        known: known_list(rig.data().nodes.iter().map(|n| n.name.as_str())),
    })
}
