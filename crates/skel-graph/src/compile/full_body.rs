//! A full-body operation resolved: the pelvis, spine and limbs checked against the rig as the
//! solver's layout needs them, one goal per effector given.

use skel_anim::{BodyJoints, Effector, FullBodyIk, IkJob};

use super::context::{Context, check_range};
use super::resolve::{invalid, node, nodes, shares, weight};
use crate::GraphError;
use crate::file::{EffectorDef, OperationDef, ParamKind};
use crate::graph::Goal;

/// A full-body operation: the layout checked against the rig, one goal per effector given.
pub(super) fn full_body(
    path: &str,
    def: &OperationDef,
    cx: &Context<'_>,
) -> Result<(IkJob, Vec<Goal>), GraphError> {
    let pelvis_name = def.pelvis.as_ref().ok_or_else(|| {
        invalid(
            &format!("{path}.pelvis"),
            "a full-body operation needs its pelvis",
        )
    })?;
    let pelvis = node(cx.rig, &format!("{path}.pelvis"), pelvis_name)?;
    let spine = nodes(cx.rig, &format!("{path}.spine"), &def.spine)?;
    if spine.len() > skel_anim::ik::MAX_SPINE_JOINTS {
        return Err(invalid(
            &format!("{path}.spine"),
            format!(
                "at most {} spine joints, not {}",
                skel_anim::ik::MAX_SPINE_JOINTS,
                spine.len()
            ),
        ));
    }
    let mut joints = BodyJoints {
        pelvis,
        spine: [0; skel_anim::ik::MAX_SPINE_JOINTS],
        spine_count: spine.len(),
        limbs: [None; 4],
        neck: None,
    };
    joints.spine[..spine.len()].copy_from_slice(&spine);
    let mut ik = FullBodyIk {
        iterations: def.iterations.unwrap_or(FullBodyIk::default().iterations),
        ..FullBodyIk::default()
    };
    if let Some(m) = def.max_pelvis_offset {
        ik.max_pelvis_offset = check_range(
            &format!("{path}.max_pelvis_offset"),
            m,
            |m| m >= 0.0,
            "not negative",
        )?;
    }
    for (i, share) in shares(path, def, spine.len())?.into_iter().enumerate() {
        ik.spine[i] = share;
    }
    let effectors = def.effectors.clone().unwrap_or_default();
    let mut goals = Vec::new();
    for (name, effector, given) in [
        ("left_hand", Effector::LeftHand, &effectors.left_hand),
        ("right_hand", Effector::RightHand, &effectors.right_hand),
        ("left_foot", Effector::LeftFoot, &effectors.left_foot),
        ("right_foot", Effector::RightFoot, &effectors.right_foot),
        ("head", Effector::Head, &effectors.head),
    ] {
        let Some(e) = given else { continue };
        let at = format!("{path}.effectors.{name}");
        let limb = nodes(cx.rig, &format!("{at}.joints"), &e.joints)?;
        match (effector, limb.as_slice()) {
            (Effector::Head, &[neck, head]) => joints.neck = Some([neck, head]),
            (Effector::Head, _) => {
                return Err(invalid(
                    &format!("{at}.joints"),
                    "the head takes 2 joints: neck, head",
                ));
            }
            (limb_effector, &[a, b, c]) => joints.limbs[limb_effector as usize] = Some([a, b, c]),
            _ => {
                return Err(invalid(
                    &format!("{at}.joints"),
                    "a limb takes 3 joints: root, middle, end",
                ));
            }
        }
        goals.push(effector_goal(cx, &at, effector as usize, e)?);
    }
    if goals.is_empty() {
        return Err(invalid(
            &format!("{path}.effectors"),
            "a full-body operation needs at least one effector",
        ));
    }
    joints
        .check(cx.rig.data())
        .map_err(|e| invalid(&format!("{path}.effectors"), e.to_string()))?;
    Ok((IkJob::FullBody { joints, ik }, goals))
}

fn effector_goal(
    cx: &Context<'_>,
    at: &str,
    slot: usize,
    e: &EffectorDef,
) -> Result<Goal, GraphError> {
    Ok(Goal {
        slot,
        target: cx.param(&format!("{at}.target"), &e.target, &[ParamKind::Vec3])?,
        pole: match &e.pole {
            Some(p) => Some(cx.param(&format!("{at}.pole"), p, &[ParamKind::Vec3])?),
            None => None,
        },
        weight: weight(cx, &format!("{at}.weight"), e.weight.as_ref())?,
    })
}
