//! A layer's pose operations as the file spells them: IK chains, aims and look-ats, applied to
//! the pose after the states, in order (`docs/graph.md`, "Pose operations").

use serde::{Deserialize, Serialize};

/// Which IK solver an `"ik"` operation runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum IkKindDef {
    /// Three joints (start, mid, end): the analytic two-bone solve, the mid joint bending
    /// towards the pole.
    TwoBone,
    /// One joint turned so that its forward axis points at the target.
    Aim,
}

/// A number, or the name of a float parameter read every tick.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum NumberOrParam {
    /// A constant.
    Number(f32),
    /// A float or int parameter.
    Param(String),
}

/// One pose operation: exactly one of `ik` (with its fields) or `look_at`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OperationDef {
    /// An IK solve: `"two_bone"` or `"aim"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ik: Option<IkKindDef>,
    /// The joints, by node name, root first (two-bone: start, mid, end; aim: the one joint).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub joints: Vec<String>,
    /// The vec3 parameter holding the target, in the character's world space.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<String>,
    /// The vec3 parameter holding the pole (two-bone: where the mid joint points; aim: the
    /// up direction), a direction in the character's world space. Default: +y.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pole: Option<String>,
    /// How much of the solve applies, 0..=1: a number or a float parameter (default 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub weight: Option<NumberOrParam>,
    /// Aim: the joint's local axis that points at the target (default +z).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub forward: Option<[f32; 3]>,
    /// Aim: the joint's local axis turned towards the pole (default +y).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub up: Option<[f32; 3]>,
    /// Two-bone: ozz's soften ratio, 0..=1 (default 1, no softening).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub soften: Option<f32>,
}
