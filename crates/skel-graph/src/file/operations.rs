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
    /// A chain of 2 to 16 joints (root first, the tip last) whose tip reaches the target,
    /// by FABRIK or CCD, with per-joint limits.
    Chain,
    /// Hands, feet and head reaching at once; the pelvis moves and the spine bends when a
    /// limb alone cannot reach.
    FullBody,
}

/// The algorithm of a chain operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SolverDef {
    /// Forward and backward reaching on positions (default).
    #[default]
    Fabrik,
    /// Cyclic coordinate descent, tip first.
    Ccd,
    /// CCD as three.js's `CCDIKSolver` runs it.
    CcdThreeJs,
}

/// A joint limit of a chain operation (radians; axes in the joint's local space).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum LimitDef {
    /// No limit.
    Free,
    /// A ball joint: the bone axis within `max_swing` of its rest direction, the twist about
    /// it within `twist` (min, max).
    Cone {
        /// The bone axis.
        axis: [f32; 3],
        /// The cone's half-angle.
        max_swing: f32,
        /// The twist range, default ±π.
        #[serde(default = "full_twist")]
        twist: [f32; 2],
    },
    /// A hinge about `axis`, between `min` and `max`.
    Hinge {
        /// The hinge axis.
        axis: [f32; 3],
        /// The least angle.
        min: f32,
        /// The most angle.
        max: f32,
    },
}

fn full_twist() -> [f32; 2] {
    [-std::f32::consts::PI, std::f32::consts::PI]
}

/// Foot placement as an operation: the legs, the pelvis and the ground it queries.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FootPlacementDef {
    /// Each leg, root first: hip, knee, ankle and, optionally, toe.
    pub feet: Vec<Vec<String>>,
    /// The pelvis (hips) joint, lowered when a foot cannot reach.
    pub pelvis: String,
    /// The name of the ground the application binds (`GraphPlayer::set_ground`; `skel
    /// --terrain plane:…` binds `"plane"`, `--terrain mesh:…` binds `"mesh"`).
    pub ground: String,
}

/// One effector of a full-body operation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EffectorDef {
    /// The limb, root first: shoulder, elbow, wrist (or hip, knee, ankle); neck and head for
    /// the head.
    pub joints: Vec<String>,
    /// The vec3 parameter holding the target.
    pub target: String,
    /// The vec3 parameter holding the pole (where the elbow or knee points).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pole: Option<String>,
    /// How much it counts, 0..=1 (default 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub weight: Option<NumberOrParam>,
}

/// The effectors of a full-body operation, each optional.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EffectorsDef {
    /// The left hand.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub left_hand: Option<EffectorDef>,
    /// The right hand.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub right_hand: Option<EffectorDef>,
    /// The left foot.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub left_foot: Option<EffectorDef>,
    /// The right foot.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub right_foot: Option<EffectorDef>,
    /// The head.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub head: Option<EffectorDef>,
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

/// One pose operation: exactly one of `ik` (with its fields) or `look_at` (a vec3 parameter:
/// the point the joints turn to face).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OperationDef {
    /// An IK solve: `"two_bone"`, `"aim"`, `"chain"` or `"full_body"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ik: Option<IkKindDef>,
    /// A look-at spread over `joints` (spine, neck, head): the vec3 parameter looked at.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub look_at: Option<String>,
    /// Foot placement on a ground the application supplies.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub foot_placement: Option<FootPlacementDef>,
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
    /// Chain: the algorithm (default FABRIK).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub solver: Option<SolverDef>,
    /// Chain: the most iterations (default 16); full body: rounds of pelvis and spine (3).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub iterations: Option<u32>,
    /// Chain: one limit per joint (root first), measured from the rest pose.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub limits: Vec<LimitDef>,
    /// Look-at: each joint's share of the turn (default 1 each).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub weights: Vec<f32>,
    /// Look-at: each joint's largest turn, radians (default a quarter turn).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub max_angles: Vec<f32>,
    /// Full body: the pelvis joint.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pelvis: Option<String>,
    /// Full body: the spine joints, base first (up to 4).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub spine: Vec<String>,
    /// Full body: the effectors.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub effectors: Option<EffectorsDef>,
    /// Full body: the most the pelvis moves (default 0.5 units).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_pelvis_offset: Option<f32>,
}
