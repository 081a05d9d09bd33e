//! Look-at: where the eyes sit relative to the head and how far they turn (VRMC_vrm-1.0
//! `lookAt.md`; VRM 0.x `firstPerson`), with three-vrm's defaults and clamps.

use glam::Vec3;

use super::context::LoadCtx;
use super::json::{Object, key_path, opt_number, opt_object, opt_string, opt_vec3, opt_xyz};
use crate::vrm_error::VrmError;

/// How the look direction is applied.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LookAtType {
    /// The eye bones turn (1.0 `bone`; 0.x `Bone`).
    Bone,
    /// The `lookUp`/`lookDown`/`lookLeft`/`lookRight` expressions are weighted (1.0
    /// `expression`; 0.x `BlendShape`).
    Expression,
}

/// One range map: a look angle up to `input_max_value` degrees maps linearly onto
/// `0..output_scale` (degrees of eye rotation, or an expression weight).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RangeMap {
    /// The input angle (degrees) that gives the full output; at least 0.01 (three-vrm clamps).
    pub input_max_value: f32,
    /// The output at that angle.
    pub output_scale: f32,
}

/// A look-at.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LookAt {
    /// Bone or expression.
    pub kind: LookAtType,
    /// The eyes' position in the head bone's space (0.x: z negated, as three-vrm reads it).
    pub offset_from_head_bone: Vec3,
    /// Looking inwards (towards the nose).
    pub horizontal_inner: RangeMap,
    /// Looking outwards.
    pub horizontal_outer: RangeMap,
    /// Looking down.
    pub vertical_down: RangeMap,
    /// Looking up.
    pub vertical_up: RangeMap,
}

/// three-vrm's smallest `inputMaxValue` (`INPUT_MAX_VALUE_MINIMUM`).
const INPUT_MAX_MIN: f32 = 0.01;

/// The default output scale: 10° for bones, weight 1 for expressions (three-vrm).
fn default_scale(kind: LookAtType) -> f32 {
    match kind {
        LookAtType::Bone => 10.0,
        LookAtType::Expression => 1.0,
    }
}

fn clamp_input(input: f32, path: &str, ctx: &mut LoadCtx<'_>) -> f32 {
    if input < INPUT_MAX_MIN {
        ctx.warn(
            path,
            format!("{input} is below {INPUT_MAX_MIN}: clamped (as three-vrm)"),
        );
        INPUT_MAX_MIN
    } else {
        input
    }
}

/// VRMC_vrm 1.0 `lookAt` at `path`. Defaults (three-vrm): type `bone`, offset `(0, 0.06, 0)`,
/// each range map `inputMaxValue` 90 and `outputScale` 10 (bone) or 1 (expression).
pub(crate) fn read_look_at_v1(
    l: &Object,
    path: &str,
    ctx: &mut LoadCtx<'_>,
) -> Result<LookAt, VrmError> {
    let kind = match opt_string(l, "type", path)?.as_deref() {
        None | Some("bone") => LookAtType::Bone,
        Some("expression") => LookAtType::Expression,
        Some(other) => {
            return Err(VrmError::UnknownValue {
                path: key_path(path, "type"),
                value: other.to_owned(),
                allowed: "bone, expression",
            });
        }
    };
    let mut map = |key: &str| -> Result<RangeMap, VrmError> {
        let Some(m) = opt_object(l, key, path)? else {
            return Ok(RangeMap {
                input_max_value: 90.0,
                output_scale: default_scale(kind),
            });
        };
        let at = key_path(path, key);
        let input = opt_number(m, "inputMaxValue", &at)?.unwrap_or(90.0);
        Ok(RangeMap {
            input_max_value: clamp_input(input, &key_path(&at, "inputMaxValue"), ctx),
            output_scale: opt_number(m, "outputScale", &at)?.unwrap_or(default_scale(kind)),
        })
    };
    Ok(LookAt {
        kind,
        horizontal_inner: map("rangeMapHorizontalInner")?,
        horizontal_outer: map("rangeMapHorizontalOuter")?,
        vertical_down: map("rangeMapVerticalDown")?,
        vertical_up: map("rangeMapVerticalUp")?,
        offset_from_head_bone: opt_vec3(l, "offsetFromHeadBone", path)?
            .unwrap_or(Vec3::new(0.0, 0.06, 0.0)),
    })
}

/// VRM 0.x `firstPerson` at `path`, converted as three-vrm converts it: `lookAtTypeName`
/// `BlendShape` is an expression look-at (anything else bones); each degree map's `xRange`
/// is the input and `yRange` the output (its `curve` is ignored, with a warning unless it is
/// the identity `[0,0,0,1,1,1,1,0]`); `firstPersonBoneOffset` is the offset with z negated
/// (a missing y is 0.06), `(0, 0.06, 0)` without one.
pub(crate) fn read_look_at_v0(
    f: &Object,
    path: &str,
    ctx: &mut LoadCtx<'_>,
) -> Result<LookAt, VrmError> {
    let kind = match opt_string(f, "lookAtTypeName", path)?.as_deref() {
        Some("BlendShape") => LookAtType::Expression,
        _ => LookAtType::Bone,
    };
    let mut map = |key: &str| -> Result<RangeMap, VrmError> {
        let at = key_path(path, key);
        let m = opt_object(f, key, path)?;
        let identity = serde_json::json!([0, 0, 0, 1, 1, 1, 1, 0]);
        let curve_is_identity = m
            .and_then(|m| m.get("curve"))
            .and_then(|c| c.as_array())
            .is_some_and(|c| {
                c.len() == 8
                    && c.iter()
                        .zip(identity.as_array().into_iter().flatten())
                        .all(|(a, b)| a.as_f64() == b.as_f64())
            });
        if !curve_is_identity {
            ctx.warn(
                &at,
                "a degree map's curve other than the identity is read as linear (as three-vrm)",
            );
        }
        let input = m
            .map(|m| opt_number(m, "xRange", &at))
            .transpose()?
            .flatten()
            .unwrap_or(90.0);
        let output = m
            .map(|m| opt_number(m, "yRange", &at))
            .transpose()?
            .flatten()
            .unwrap_or(default_scale(kind));
        Ok(RangeMap {
            input_max_value: clamp_input(input, &key_path(&at, "xRange"), ctx),
            output_scale: output,
        })
    };
    let horizontal_inner = map("lookAtHorizontalInner")?;
    let horizontal_outer = map("lookAtHorizontalOuter")?;
    let vertical_down = map("lookAtVerticalDown")?;
    let vertical_up = map("lookAtVerticalUp")?;
    let offset = match opt_xyz(f, "firstPersonBoneOffset", path)? {
        Some([x, y, z]) => Vec3::new(x.unwrap_or(0.0), y.unwrap_or(0.06), -z.unwrap_or(0.0)),
        None => Vec3::new(0.0, 0.06, 0.0),
    };
    Ok(LookAt {
        kind,
        offset_from_head_bone: offset,
        horizontal_inner,
        horizontal_outer,
        vertical_down,
        vertical_up,
    })
}
