//! A layer's pose operations resolved against the rig and the parameters: joint names become
//! node indices (and chains are checked), parameter names become indices of the right kind,
//! constants are range-checked. The result is a player IK job per operation plus where its
//! target, pole and weight come from every tick.

use glam::Vec3;
use skel_anim::{AimIk, IkJob, Rig, TwoBoneIk};

use super::context::{Context, check_range};
use crate::error::known_list;
use crate::file::{IkKindDef, NumberOrParam, OperationDef, ParamKind};
use crate::graph::{Operation, Weight};
use crate::{GraphError, NameKind};

const NUMBERS: &[ParamKind] = &[ParamKind::Float, ParamKind::Int];

pub(crate) fn compile_operations(
    path: &str,
    defs: &[OperationDef],
    cx: &Context<'_>,
) -> Result<Vec<Operation>, GraphError> {
    defs.iter()
        .enumerate()
        .map(|(i, def)| compile_operation(&format!("{path}.operations[{i}]"), def, cx))
        .collect()
}

fn compile_operation(
    path: &str,
    def: &OperationDef,
    cx: &Context<'_>,
) -> Result<Operation, GraphError> {
    let invalid = |at: &str, message: String| GraphError::Invalid {
        path: format!("{path}{at}"),
        message,
    };
    let Some(kind) = def.ik else {
        return Err(invalid(
            "",
            "an operation needs \"ik\" (\"two_bone\" or \"aim\")".into(),
        ));
    };
    let joints = def
        .joints
        .iter()
        .enumerate()
        .map(|(i, name)| node(cx.rig, &format!("{path}.joints[{i}]"), name))
        .collect::<Result<Vec<_>, _>>()?;
    let target_name = def
        .target
        .as_deref()
        .ok_or_else(|| invalid(".target", "an IK operation needs a vec3 target".into()))?;
    let target = cx.param(&format!("{path}.target"), target_name, &[ParamKind::Vec3])?;
    let pole = match &def.pole {
        Some(p) => Some(cx.param(&format!("{path}.pole"), p, &[ParamKind::Vec3])?),
        None => None,
    };
    let weight = match &def.weight {
        None => Weight::Constant(1.0),
        Some(NumberOrParam::Number(w)) => Weight::Constant(check_range(
            &format!("{path}.weight"),
            *w,
            |w| (0.0..=1.0).contains(&w),
            "a weight lies in 0..=1",
        )?),
        Some(NumberOrParam::Param(p)) => {
            Weight::Param(cx.param(&format!("{path}.weight"), p, NUMBERS)?)
        }
    };
    let unit = |at: &str, v: Option<[f32; 3]>, default: Vec3| -> Result<Vec3, GraphError> {
        let Some(v) = v else { return Ok(default) };
        let v = Vec3::from(v);
        if v.is_finite() && v.length() > 0.0 {
            Ok(v)
        } else {
            Err(invalid(at, format!("{v} is not a direction")))
        }
    };
    let job = match kind {
        IkKindDef::TwoBone => {
            let [start, mid, end] = joints[..] else {
                return Err(invalid(
                    ".joints",
                    format!(
                        "two-bone IK takes 3 joints (start, mid, end), not {}",
                        joints.len()
                    ),
                ));
            };
            skel_anim::check_chain(cx.rig.data(), start, mid, end)
                .map_err(|e| invalid(".joints", e.to_string()))?;
            let soften = match def.soften {
                Some(s) => check_range(
                    &format!("{path}.soften"),
                    s,
                    |s| (0.0..=1.0).contains(&s),
                    "soften lies in 0..=1",
                )?,
                None => 1.0,
            };
            if def.forward.is_some() || def.up.is_some() {
                return Err(invalid("", "forward and up are for aim operations".into()));
            }
            IkJob::TwoBone {
                start,
                mid,
                end,
                ik: TwoBoneIk {
                    soften,
                    ..TwoBoneIk::default()
                },
            }
        }
        IkKindDef::Aim => {
            let [node] = joints[..] else {
                return Err(invalid(
                    ".joints",
                    format!("aim IK takes 1 joint, not {}", joints.len()),
                ));
            };
            if def.soften.is_some() {
                return Err(invalid("", "soften is for two-bone operations".into()));
            }
            IkJob::Aim {
                node,
                ik: AimIk {
                    forward: unit(".forward", def.forward, Vec3::Z)?,
                    up: unit(".up", def.up, Vec3::Y)?,
                    ..AimIk::default()
                },
            }
        }
    };
    Ok(Operation {
        job,
        target,
        pole,
        weight,
    })
}

fn node(rig: &Rig, path: &str, name: &str) -> Result<usize, GraphError> {
    rig.node_index(name).ok_or_else(|| GraphError::Unknown {
        path: path.to_owned(),
        kind: NameKind::Node,
        name: name.to_owned(),
        known: known_list(rig.data().nodes.iter().map(|n| n.name.as_str())),
    })
}
