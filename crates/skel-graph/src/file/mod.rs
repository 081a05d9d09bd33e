//! The graph file: what `serde` reads from JSON, before any name is resolved. Compile it with
//! [`Graph::compile`](crate::Graph::compile); `docs/graph.md` is the format's reference.

mod named;
mod operations;

use serde::{Deserialize, Serialize};

pub use named::Named;
pub use operations::{
    EffectorDef, EffectorsDef, FootPlacementDef, IkKindDef, LimitDef, NumberOrParam, OperationDef,
    SolverDef,
};

fn one() -> f32 {
    1.0
}

fn is_default<T: Default + PartialEq>(v: &T) -> bool {
    *v == T::default()
}

/// A whole graph file: parameters and layers, bottom to top.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GraphDef {
    /// The parameters, by name, in declared order.
    #[serde(default)]
    pub parameters: Named<ParameterDef>,
    /// The layers, bottom first.
    pub layers: Vec<LayerDef>,
}

/// The five kinds of parameter.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ParamKind {
    /// A number (`f32`).
    Float,
    /// A whole number (`i32`).
    Int,
    /// `true` or `false`.
    Bool,
    /// Set by the application, consumed by the first transition that uses it.
    Trigger,
    /// A point or direction of three numbers: an IK target, a pole, a point to look at, in
    /// the character's world space (the frame `skel pose` prints).
    Vec3,
}

/// A parameter's type and starting value (0, `false`, unset when left out).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ParameterDef {
    /// The type.
    #[serde(rename = "type")]
    pub kind: ParamKind,
    /// The starting value: a number for `float` and `int`, a bool for `bool`, an array of
    /// three numbers for `vec3`; none for `trigger`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<serde_json::Value>,
}

/// How a graph layer combines with what lies below it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LayerModeDef {
    /// `pose = lerp(below, this layer's pose, weight × mask)` (Unity's Override).
    #[default]
    Override,
    /// This layer's motion relative to its clips' first frames, added on top.
    Additive,
}

/// One graph layer: a state machine with a weight, a mode and an optional mask.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LayerDef {
    /// The layer's name (unique).
    pub name: String,
    /// Override (default) or additive.
    #[serde(default, skip_serializing_if = "is_default")]
    pub mode: LayerModeDef,
    /// The layer's weight, 0..=1 (default 1).
    #[serde(default = "one")]
    pub weight: f32,
    /// Which nodes the layer affects (default: all).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mask: Option<MaskDef>,
    /// The state the layer starts in.
    pub entry: String,
    /// The states, by name.
    pub states: Named<StateDef>,
    /// The transitions, in declared order (which breaks priority ties).
    #[serde(default)]
    pub transitions: Vec<TransitionDef>,
    /// Pose operations (IK) applied after the states, in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub operations: Vec<OperationDef>,
}

/// A layer mask by node names: subtrees to include (all nodes when empty), subtrees to
/// exclude, and single nodes with a weight of their own (see `skel_anim::Mask`).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MaskDef {
    /// Subtree roots to include.
    #[serde(default)]
    pub include: Vec<String>,
    /// Subtree roots to exclude.
    #[serde(default)]
    pub exclude: Vec<String>,
    /// Single nodes with their own weight in 0..=1.
    #[serde(default)]
    pub joint_weights: Named<f32>,
}

/// What a clock does at the ends of a clip.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LoopDef {
    /// Wrap around.
    #[default]
    Repeat,
    /// Hold the last frame (the state's normalised time still grows past 1).
    Once,
    /// Bounce between the ends.
    PingPong,
}

/// How the clips of a blend space (or the two sides of a transition) keep in step.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SyncDef {
    /// Each clip on its own clock.
    #[default]
    None,
    /// Every clip at the same normalised time, advancing at `1 / Σ wᵢ·Lᵢ` per second.
    Normalized,
    /// The highest-weighted clip leads; the others follow its phase between shared markers.
    Markers,
}

/// A state: exactly one of `clip`, `blend_1d`, `blend_2d` or `"empty": true`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StateDef {
    /// Plays one clip.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clip: Option<String>,
    /// Blends clips along one parameter.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blend_1d: Option<Blend1dDef>,
    /// Blends clips over two parameters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blend_2d: Option<Blend2dDef>,
    /// Contributes nothing: the layer shows what lies below.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub empty: Option<bool>,
    /// Plays `clip` mirrored left for right: the rig's clip `"<clip>.mirror"`
    /// (`skel_anim::AnimationData::append_mirrored_clips` bakes it; see
    /// [`GraphDef::mirrored_clips`]).
    #[serde(default, skip_serializing_if = "is_default")]
    pub mirror: bool,
    /// Playback speed (negative plays backwards; default 1).
    #[serde(default = "one")]
    pub speed: f32,
    /// A float or int parameter the speed is multiplied by.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub speed_parameter: Option<String>,
    /// Loop mode of the state's clips.
    #[serde(rename = "loop", default, skip_serializing_if = "is_default")]
    pub loop_mode: LoopDef,
}

/// One clip of a 1D blend space.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Point1dDef {
    /// The clip's name.
    pub clip: String,
    /// Where on the parameter's axis it plays alone.
    pub at: f32,
    /// Plays the clip mirrored (as a state's `mirror`).
    #[serde(default, skip_serializing_if = "is_default")]
    pub mirror: bool,
}

/// A 1D blend space (Godot's rule: the two points around the value share it linearly).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Blend1dDef {
    /// The float or int parameter it reads.
    pub parameter: String,
    /// How its clips keep in step.
    #[serde(default, skip_serializing_if = "is_default")]
    pub sync: SyncDef,
    /// The clips and their positions (distinct).
    pub points: Vec<Point1dDef>,
}

/// How a 2D blend space turns a position into weights.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Mode2dDef {
    /// Delaunay triangles, barycentric inside, the closest hull edge outside (Godot).
    #[default]
    Triangles,
    /// Gradient band interpolation (Unity's Freeform Cartesian).
    Cartesian,
    /// Gradient band interpolation in polar space (Unity's Freeform Directional).
    Directional,
}

/// One clip of a 2D blend space.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Point2dDef {
    /// The clip's name.
    pub clip: String,
    /// Where in the plane of the two parameters it plays alone.
    pub at: [f32; 2],
    /// Plays the clip mirrored (as a state's `mirror`).
    #[serde(default, skip_serializing_if = "is_default")]
    pub mirror: bool,
}

/// A 2D blend space.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Blend2dDef {
    /// The two float or int parameters it reads (x, y).
    pub parameters: [String; 2],
    /// How positions become weights (default `triangles`).
    #[serde(default, skip_serializing_if = "is_default")]
    pub mode: Mode2dDef,
    /// How its clips keep in step.
    #[serde(default, skip_serializing_if = "is_default")]
    pub sync: SyncDef,
    /// The clips and their positions (distinct).
    pub points: Vec<Point2dDef>,
}

/// How a transition's duration is measured.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DurationModeDef {
    /// In seconds.
    #[default]
    Seconds,
    /// In the source state's normalised time (a fraction of its length when it starts).
    Normalized,
}

/// The shape of a transition's weight ramp.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CurveDef {
    /// `c = t`.
    #[default]
    Linear,
    /// `c = 3t² − 2t³`.
    Smoothstep,
}

/// How a transition moves the pose from its source to its destination.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BlendDef {
    /// Both states play while their weights ramp over the duration.
    #[default]
    Crossfade,
    /// The destination plays at once; the difference from the pose on screen, and its
    /// velocity, decay to zero over the duration (`skel_anim::inertial`). Nothing of the
    /// source is sampled after the switch.
    Inertialize,
}

/// Which transitions may interrupt a running one (Unity's interruption source).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum InterruptDef {
    /// None: the fade runs to its end.
    #[default]
    None,
    /// Transitions from the source state (and from `any`).
    Source,
    /// Transitions from the destination state.
    Destination,
    /// The source's, then the destination's.
    SourceThenDestination,
    /// The destination's, then the source's.
    DestinationThenSource,
}

/// A comparison of a parameter with a constant.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum CompareOp {
    /// Greater than.
    #[serde(rename = ">")]
    Greater,
    /// Greater than or equal.
    #[serde(rename = ">=")]
    GreaterEqual,
    /// Less than.
    #[serde(rename = "<")]
    Less,
    /// Less than or equal.
    #[serde(rename = "<=")]
    LessEqual,
    /// Equal.
    #[serde(rename = "==")]
    Equal,
    /// Not equal.
    #[serde(rename = "!=")]
    NotEqual,
}

/// One condition: `{"trigger": "jump"}`, a bare bool `{"param": "waving"}`, or a comparison
/// `{"param": "speed", "op": ">", "value": 0.1}`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConditionDef {
    /// A trigger parameter: true while set, consumed when the transition fires.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trigger: Option<String>,
    /// A float, int or bool parameter.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub param: Option<String>,
    /// The comparison (a bare bool when left out).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub op: Option<CompareOp>,
    /// The constant compared with.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<serde_json::Value>,
}

/// A transition between two states of one layer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TransitionDef {
    /// The source state, or `"any"` for every state but the destination.
    pub from: String,
    /// The destination state.
    pub to: String,
    /// Conditions, all ANDed (none: always true).
    #[serde(default)]
    pub when: Vec<ConditionDef>,
    /// Normalised time of the source that must be crossed (below 1: every loop).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit_time: Option<f32>,
    /// Length of the fade, or the blend time of an inertialized switch (0: a cut).
    #[serde(default)]
    pub duration: f32,
    /// A cross-fade (default) or an inertialized switch.
    #[serde(default, skip_serializing_if = "is_default")]
    pub blend: BlendDef,
    /// Seconds (default) or the source's normalised time.
    #[serde(default, skip_serializing_if = "is_default")]
    pub duration_mode: DurationModeDef,
    /// Normalised start time in the destination.
    #[serde(default)]
    pub offset: f32,
    /// Shape of the ramp.
    #[serde(default, skip_serializing_if = "is_default")]
    pub curve: CurveDef,
    /// Lower first; ties go to the first declared.
    #[serde(default)]
    pub priority: i32,
    /// Which transitions may interrupt this one.
    #[serde(default, skip_serializing_if = "is_default")]
    pub interrupt: InterruptDef,
    /// Only source transitions ordered before this one may interrupt it (Unity's "ordered
    /// interruption").
    #[serde(default, skip_serializing_if = "is_default")]
    pub ordered: bool,
    /// Where the destination starts: at `offset` (`none`), at the source's normalised time, or
    /// at the source's marker phase.
    #[serde(default, skip_serializing_if = "is_default")]
    pub sync: SyncDef,
    /// Cost of the transition for `travel` (default 1).
    #[serde(default = "one")]
    pub cost: f32,
}

impl GraphDef {
    /// The clips the graph plays mirrored (`"mirror": true` on a state or a blend-space
    /// point), each once, in the order they appear: append their mirror images to the
    /// asset's data (`AnimationData::append_mirrored_clips`) before building the rig the
    /// graph compiles against.
    #[must_use]
    pub fn mirrored_clips(&self) -> Vec<&str> {
        let mut out: Vec<&str> = Vec::new();
        for layer in &self.layers {
            for (_, state) in layer.states.iter() {
                let single = state.clip.as_deref().filter(|_| state.mirror);
                let points_1d = state.blend_1d.iter().flat_map(|b| &b.points);
                let points_2d = state.blend_2d.iter().flat_map(|b| &b.points);
                let mirrored = single
                    .into_iter()
                    .chain(points_1d.filter(|p| p.mirror).map(|p| p.clip.as_str()))
                    .chain(points_2d.filter(|p| p.mirror).map(|p| p.clip.as_str()));
                for name in mirrored {
                    if !out.contains(&name) {
                        out.push(name);
                    }
                }
            }
        }
        out
    }

    /// Reads a graph file.
    ///
    /// # Errors
    /// [`GraphError::Format`](crate::GraphError::Format) with the JSON path, line and column of
    /// the first thing that is not of the format.
    pub fn from_json(text: &str) -> Result<Self, crate::GraphError> {
        let de = &mut serde_json::Deserializer::from_str(text);
        serde_path_to_error::deserialize(de).map_err(|e| {
            let path = e.path().to_string();
            crate::GraphError::Format {
                path,
                message: e.into_inner().to_string(),
            }
        })
    }
}
