//! The compiled graph: every name resolved to an index, blend spaces built, transitions sorted
//! by priority. Immutable once built and shared by `Arc` between the characters that use it;
//! [`Graph::compile`] (in `compile`) builds it.

use skel_anim::{LoopMode, Mask};

use crate::file::{CompareOp, CurveDef, InterruptDef, ParamKind, SyncDef};
use crate::{BlendSpace1d, BlendSpace2d};

/// A parameter, by its index in the graph (resolve names once with [`Graph::param_id`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ParamId(pub(crate) u32);

impl ParamId {
    /// The parameter's index in declared order.
    #[must_use]
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// An animation graph compiled against one rig: parameters, then graph layers bottom to top,
/// each a state machine. Built by [`Graph::compile`] or [`Graph::from_json`]; per character
/// state lives in a [`GraphInstance`](crate::GraphInstance).
#[derive(Debug, Clone, PartialEq)]
pub struct Graph {
    pub(crate) params: Vec<Param>,
    pub(crate) layers: Vec<GraphLayer>,
    /// Every clip name of the rig, by clip index.
    pub(crate) clip_names: Vec<String>,
    /// Every marker name the graph's clips use, by marker id.
    pub(crate) marker_names: Vec<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Param {
    pub(crate) name: String,
    pub(crate) kind: ParamKind,
    /// Floats as themselves, ints exactly, bools and triggers as 0 or 1 (0 for a vec3).
    pub(crate) default: f64,
    /// A vec3's starting value (zero for the other kinds).
    pub(crate) vector: glam::Vec3,
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct GraphLayer {
    pub(crate) name: String,
    pub(crate) additive: bool,
    pub(crate) weight: f32,
    pub(crate) mask: Option<Mask>,
    pub(crate) entry: u32,
    pub(crate) states: Vec<State>,
    pub(crate) transitions: Vec<Transition>,
    /// Transitions from each state, sorted by (priority, declared index): `by_state[range]`.
    pub(crate) by_state: Vec<u32>,
    pub(crate) state_ranges: Vec<(u32, u32)>,
    /// Transitions from `any`, sorted the same way.
    pub(crate) from_any: Vec<u32>,
    /// The most members of any state.
    pub(crate) max_members: usize,
    /// Member layers in all: one per member of each state.
    pub(crate) slot_count: usize,
    /// Pose operations, in order.
    pub(crate) operations: Vec<Operation>,
    /// Foot placement, and the name of the ground it queries.
    pub(crate) foot: Option<(skel_anim::FootPlacement, String)>,
}

/// A pose operation: the player IK job it adds (joints and constant settings), and where each
/// of its goals' target, pole and weight are read from every tick.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Operation {
    pub(crate) job: skel_anim::IkJob,
    pub(crate) goals: Vec<Goal>,
}

/// One goal of an operation: the whole job's, or a full body's effector `slot`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Goal {
    /// The effector (`skel_anim::Effector as usize`) of a full body; 0 otherwise.
    pub(crate) slot: usize,
    /// A vec3 parameter.
    pub(crate) target: u32,
    /// A vec3 parameter (the job's default when none).
    pub(crate) pole: Option<u32>,
    pub(crate) weight: Weight,
}

/// A weight: a constant or a float / int parameter.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Weight {
    Constant(f32),
    Param(u32),
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct State {
    pub(crate) name: String,
    pub(crate) motion: Motion,
    pub(crate) members: Vec<Member>,
    pub(crate) speed: f32,
    pub(crate) speed_param: Option<u32>,
    pub(crate) loop_mode: LoopMode,
    pub(crate) sync: SyncDef,
    /// The member layer of member 0; member `i` plays on `first_slot + i`.
    pub(crate) first_slot: u32,
    /// Under marker sync: the marker names every member has.
    pub(crate) shared_markers: Vec<u32>,
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Member {
    pub(crate) clip: u32,
    /// Clip length in seconds.
    pub(crate) length: f32,
    /// The clip's markers as (time, marker id), in time order.
    pub(crate) markers: Vec<(f32, u32)>,
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Motion {
    Empty,
    Clip,
    Blend1d {
        param: u32,
        space: BlendSpace1d,
    },
    Blend2d {
        params: [u32; 2],
        space: BlendSpace2d,
    },
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Transition {
    /// `None`: from any state.
    pub(crate) from: Option<u32>,
    pub(crate) to: u32,
    pub(crate) conditions: Vec<Condition>,
    pub(crate) exit_time: Option<f32>,
    pub(crate) duration: f32,
    pub(crate) normalized_duration: bool,
    /// An inertialized switch instead of a cross-fade.
    pub(crate) inertialize: bool,
    pub(crate) offset: f32,
    pub(crate) curve: CurveDef,
    pub(crate) priority: i32,
    /// Declared index (ties of priority go to the lower).
    pub(crate) order: u32,
    pub(crate) interrupt: InterruptDef,
    pub(crate) ordered: bool,
    pub(crate) sync: SyncDef,
    pub(crate) cost: f32,
}

impl Transition {
    /// The order transitions are tried in: lower priority first, then first declared.
    pub(crate) fn key(&self) -> (i32, u32) {
        (self.priority, self.order)
    }
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Condition {
    pub(crate) param: u32,
    pub(crate) test: Test,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Test {
    /// A trigger that is set (consumed when the transition fires).
    Trigger,
    /// A bool that is true.
    True,
    Compare(CompareOp, f64),
}

impl Graph {
    /// Number of parameters.
    #[must_use]
    pub fn param_count(&self) -> usize {
        self.params.len()
    }

    /// The parameter named `name`.
    #[must_use]
    pub fn param_id(&self, name: &str) -> Option<ParamId> {
        #[expect(clippy::cast_possible_truncation, reason = "counts fit u32")]
        self.params
            .iter()
            .position(|p| p.name == name)
            .map(|i| ParamId(i as u32))
    }

    /// The parameters in declared order: id, name and kind.
    pub fn params(&self) -> impl Iterator<Item = (ParamId, &str, ParamKind)> {
        #[expect(clippy::cast_possible_truncation, reason = "counts fit u32")]
        self.params
            .iter()
            .enumerate()
            .map(|(i, p)| (ParamId(i as u32), p.name.as_str(), p.kind))
    }

    /// Number of graph layers.
    #[must_use]
    pub fn layer_count(&self) -> usize {
        self.layers.len()
    }

    /// The index of the layer named `name`.
    #[must_use]
    pub fn layer_index(&self, name: &str) -> Option<usize> {
        self.layers.iter().position(|l| l.name == name)
    }

    /// The name of layer `layer` (`None` past the end).
    #[must_use]
    pub fn layer_name(&self, layer: usize) -> Option<&str> {
        self.layers.get(layer).map(|l| l.name.as_str())
    }

    /// The state names of layer `layer`, in declared order (empty past the end).
    pub fn state_names(&self, layer: usize) -> impl Iterator<Item = &str> {
        self.layers
            .get(layer)
            .into_iter()
            .flat_map(|l| l.states.iter().map(|s| s.name.as_str()))
    }

    /// The index of state `name` in layer `layer`.
    #[must_use]
    pub fn state_index(&self, layer: usize, name: &str) -> Option<usize> {
        self.layers
            .get(layer)?
            .states
            .iter()
            .position(|s| s.name == name)
    }

    /// The name of clip `clip` of the rig the graph was compiled against.
    #[must_use]
    pub fn clip_name(&self, clip: usize) -> Option<&str> {
        self.clip_names.get(clip).map(String::as_str)
    }

    /// The vec3 parameters the pose operations reach for or look at (their goals' targets:
    /// points in the character's world space, what a viewer lets the user move), each once, in
    /// declared order. Poles, which are directions, are not among them.
    #[must_use]
    pub fn target_params(&self) -> Vec<ParamId> {
        let mut ids: Vec<u32> = self
            .layers
            .iter()
            .flat_map(|l| &l.operations)
            .flat_map(|o| &o.goals)
            .map(|g| g.target)
            .collect();
        ids.sort_unstable();
        ids.dedup();
        ids.into_iter().map(ParamId).collect()
    }

    /// The distinct clips the graph plays, in ascending order of clip index (the clips a
    /// viewer or a culling system may want to load or warm).
    #[must_use]
    pub fn clips_used(&self) -> Vec<usize> {
        let mut clips: Vec<usize> = self
            .layers
            .iter()
            .flat_map(|l| &l.states)
            .flat_map(|s| &s.members)
            .map(|m| m.clip as usize)
            .collect();
        clips.sort_unstable();
        clips.dedup();
        clips
    }
}
