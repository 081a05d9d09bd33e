//! A layer's pose operations resolved against the rig and the parameters: joint names become
//! node indices (and chains and bodies are checked against the hierarchy), parameter names
//! become indices of the right kind, constants are range-checked. The result is a player IK
//! job per operation plus where each of its goals' target, pole and weight come from every
//! tick.

use glam::Vec3;
use skel_anim::{
    AimIk, ChainIk, ChainJoints, ChainSolver, FootDesc, FootPlacement, FootPlacementDesc, IkJob,
    JointLimit, LookAtIk, LookAtJoints, TwoBoneIk,
};

use super::context::{Context, check_range};
use super::resolve::{invalid, node, nodes, shares, unit, weight};
use crate::GraphError;
use crate::file::{FootPlacementDef, IkKindDef, LimitDef, OperationDef, ParamKind, SolverDef};
use crate::graph::{Goal, Operation};

/// A layer's IK operations, and its foot placement with the ground's name (at most one).
pub(crate) type Compiled = (Vec<Operation>, Option<(FootPlacement, String)>);

pub(crate) fn compile_operations(
    path: &str,
    defs: &[OperationDef],
    cx: &Context<'_>,
) -> Result<Compiled, GraphError> {
    let mut ik = Vec::new();
    let mut foot = None;
    for (i, def) in defs.iter().enumerate() {
        let at = format!("{path}.operations[{i}]");
        match &def.foot_placement {
            Some(f) => {
                if def.ik.is_some() || def.look_at.is_some() {
                    return Err(invalid(
                        &at,
                        "an operation is one of \"ik\", \"look_at\" or \"foot_placement\"",
                    ));
                }
                stray(&at, def, "foot-placement", &[])?;
                if foot.is_some() {
                    return Err(invalid(&at, "a layer places its feet once"));
                }
                foot = Some(compile_foot(&format!("{at}.foot_placement"), f, cx)?);
            }
            None => ik.push(compile_operation(&at, def, cx)?),
        }
    }
    Ok((ik, foot))
}

fn compile_foot(
    path: &str,
    def: &FootPlacementDef,
    cx: &Context<'_>,
) -> Result<(FootPlacement, String), GraphError> {
    let pelvis = node(cx.rig, &format!("{path}.pelvis"), &def.pelvis)?;
    let mut feet = Vec::with_capacity(def.feet.len());
    for (i, leg) in def.feet.iter().enumerate() {
        let at = format!("{path}.feet[{i}]");
        let joints = nodes(cx.rig, &at, leg)?;
        feet.push(match joints[..] {
            [hip, knee, ankle] => FootDesc::new(hip, knee, ankle, None),
            [hip, knee, ankle, toe] => FootDesc::new(hip, knee, ankle, Some(toe)),
            _ => return Err(invalid(&at, "a leg is hip, knee, ankle and optionally toe")),
        });
    }
    if def.ground.is_empty() {
        return Err(invalid(
            &format!("{path}.ground"),
            "the ground needs a name",
        ));
    }
    let placement = FootPlacement::new(cx.rig.data(), &FootPlacementDesc::new(pelvis, feet))
        .map_err(|e| invalid(path, e.to_string()))?;
    Ok((placement, def.ground.clone()))
}

/// A field that does not belong to this kind of operation.
fn stray(path: &str, def: &OperationDef, kind: &str, allowed: &[&str]) -> Result<(), GraphError> {
    let present = [
        ("forward", def.forward.is_some()),
        ("up", def.up.is_some()),
        ("soften", def.soften.is_some()),
        ("solver", def.solver.is_some()),
        ("iterations", def.iterations.is_some()),
        ("limits", !def.limits.is_empty()),
        ("weights", !def.weights.is_empty()),
        ("max_angles", !def.max_angles.is_empty()),
        ("pelvis", def.pelvis.is_some()),
        ("spine", !def.spine.is_empty()),
        ("effectors", def.effectors.is_some()),
        ("max_pelvis_offset", def.max_pelvis_offset.is_some()),
        ("pole", def.pole.is_some()),
        ("target", def.target.is_some()),
        ("joints", !def.joints.is_empty()),
    ];
    match present.iter().find(|(f, on)| *on && !allowed.contains(f)) {
        Some((field, _)) => Err(invalid(
            &format!("{path}.{field}"),
            format!("{kind} operations take no \"{field}\""),
        )),
        None => Ok(()),
    }
}

fn compile_operation(
    path: &str,
    def: &OperationDef,
    cx: &Context<'_>,
) -> Result<Operation, GraphError> {
    let kind = match (def.ik, &def.look_at) {
        (Some(kind), None) => Some(kind),
        (None, Some(_)) => None,
        _ => {
            return Err(invalid(
                path,
                "an operation is exactly one of \"ik\" (\"two_bone\", \"aim\", \"chain\", \
                 \"full_body\"), \"look_at\" or \"foot_placement\"",
            ));
        }
    };
    let joints = nodes(cx.rig, &format!("{path}.joints"), &def.joints)?;
    let rig_error =
        |at: &str, e: skel_anim::AnimError| invalid(&format!("{path}{at}"), e.to_string());
    let single = |target: Option<&String>, at: &str| -> Result<Goal, GraphError> {
        let name =
            target.ok_or_else(|| invalid(&format!("{path}{at}"), "a vec3 target is needed"))?;
        Ok(Goal {
            slot: 0,
            target: cx.param(&format!("{path}{at}"), name, &[ParamKind::Vec3])?,
            pole: pole(cx, path, def.pole.as_ref())?,
            weight: weight(cx, &format!("{path}.weight"), def.weight.as_ref())?,
        })
    };
    let (job, goals) = match kind {
        Some(IkKindDef::TwoBone) => {
            stray(
                path,
                def,
                "two-bone",
                &["soften", "pole", "target", "joints"],
            )?;
            let [start, mid, end] = joints[..] else {
                return Err(invalid(
                    &format!("{path}.joints"),
                    format!(
                        "two-bone IK takes 3 joints (start, mid, end), not {}",
                        joints.len()
                    ),
                ));
            };
            skel_anim::check_chain(cx.rig.data(), start, mid, end)
                .map_err(|e| rig_error(".joints", e))?;
            let soften = match def.soften {
                Some(s) => check_range(&format!("{path}.soften"), s, unit, "soften lies in 0..=1")?,
                None => 1.0,
            };
            let ik = TwoBoneIk {
                soften,
                ..TwoBoneIk::default()
            };
            (
                IkJob::TwoBone {
                    start,
                    mid,
                    end,
                    ik,
                },
                vec![single(def.target.as_ref(), ".target")?],
            )
        }
        Some(IkKindDef::Aim) => {
            stray(
                path,
                def,
                "aim",
                &["forward", "up", "pole", "target", "joints"],
            )?;
            let [node] = joints[..] else {
                return Err(invalid(
                    &format!("{path}.joints"),
                    format!("aim IK takes 1 joint, not {}", joints.len()),
                ));
            };
            let ik = AimIk {
                forward: axis(path, ".forward", def.forward, Vec3::Z)?,
                up: axis(path, ".up", def.up, Vec3::Y)?,
                ..AimIk::default()
            };
            (
                IkJob::Aim { node, ik },
                vec![single(def.target.as_ref(), ".target")?],
            )
        }
        Some(IkKindDef::Chain) => {
            let allowed = ["solver", "iterations", "limits", "pole", "target", "joints"];
            stray(path, def, "chain", &allowed)?;
            let mut list = ChainJoints::new(&joints).map_err(|e| rig_error(".joints", e))?;
            if !def.limits.is_empty() && def.limits.len() != joints.len() {
                return Err(invalid(
                    &format!("{path}.limits"),
                    format!(
                        "one limit per joint: {} joints, {} limits",
                        joints.len(),
                        def.limits.len()
                    ),
                ));
            }
            for (i, limit) in def.limits.iter().enumerate() {
                list = list
                    .with_limit(i, joint_limit(limit))
                    .map_err(|e| rig_error(&format!(".limits[{i}]"), e))?;
            }
            list.check(cx.rig.data())
                .map_err(|e| rig_error(".joints", e))?;
            let ik = ChainIk {
                solver: match def.solver.unwrap_or_default() {
                    SolverDef::Fabrik => ChainSolver::Fabrik,
                    SolverDef::Ccd => ChainSolver::Ccd,
                    SolverDef::CcdThreeJs => ChainSolver::CcdThreeJs,
                },
                iterations: def.iterations.unwrap_or(ChainIk::default().iterations),
                ..ChainIk::default()
            };
            let job = IkJob::Chain { joints: list, ik };
            (job, vec![single(def.target.as_ref(), ".target")?])
        }
        Some(IkKindDef::FullBody) => {
            let allowed = [
                "iterations",
                "pelvis",
                "spine",
                "effectors",
                "max_pelvis_offset",
                "weights",
                "max_angles",
            ];
            stray(path, def, "full-body", &allowed)?;
            super::full_body::full_body(path, def, cx)?
        }
        None => {
            stray(
                path,
                def,
                "look-at",
                &["weights", "max_angles", "forward", "joints"],
            )?;
            let n = joints.len();
            let shares = shares(path, def, n)?;
            let list = LookAtJoints::new(&joints, &shares).map_err(|e| rig_error(".joints", e))?;
            list.check(cx.rig.data())
                .map_err(|e| rig_error(".joints", e))?;
            let ik = LookAtIk {
                forward: axis(path, ".forward", def.forward, Vec3::Z)?,
                ..LookAtIk::default()
            };
            let goal = Goal {
                slot: 0,
                target: cx.param(
                    &format!("{path}.look_at"),
                    def.look_at.as_deref().unwrap_or(""),
                    &[ParamKind::Vec3],
                )?,
                pole: None,
                weight: weight(cx, &format!("{path}.weight"), def.weight.as_ref())?,
            };
            (IkJob::LookAt { joints: list, ik }, vec![goal])
        }
    };
    Ok(Operation { job, goals })
}

fn joint_limit(def: &LimitDef) -> JointLimit {
    match *def {
        LimitDef::Free => JointLimit::Free,
        LimitDef::Cone {
            axis,
            max_swing,
            twist,
        } => JointLimit::Cone {
            axis: Vec3::from(axis),
            max_swing,
            min_twist: twist[0],
            max_twist: twist[1],
        },
        LimitDef::Hinge { axis, min, max } => JointLimit::Hinge {
            axis: Vec3::from(axis),
            min,
            max,
        },
    }
}

fn pole(cx: &Context<'_>, path: &str, name: Option<&String>) -> Result<Option<u32>, GraphError> {
    match name {
        Some(p) => Ok(Some(cx.param(
            &format!("{path}.pole"),
            p,
            &[ParamKind::Vec3],
        )?)),
        None => Ok(None),
    }
}

fn axis(path: &str, at: &str, v: Option<[f32; 3]>, default: Vec3) -> Result<Vec3, GraphError> {
    let Some(v) = v else { return Ok(default) };
    let v = Vec3::from(v);
    if v.is_finite() && v.length() > 0.0 {
        Ok(v)
    } else {
        Err(invalid(
            &format!("{path}{at}"),
            format!("{v} is not a direction"),
        ))
    }
}
