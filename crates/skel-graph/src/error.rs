//! The error types of skel-graph: what was wrong with a graph file, a blend-space layout or a
//! request, with the JSON path of the offending value.

use skel_anim::AnimError;

/// What kind of name a graph file refers to (in [`GraphError::Unknown`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum NameKind {
    /// A clip of the rig.
    Clip,
    /// A node of the rig (in a mask).
    Node,
    /// A state of the same graph layer.
    State,
    /// A parameter of the graph.
    Parameter,
    /// A layer of the graph.
    Layer,
}

impl std::fmt::Display for NameKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::Clip => "clip",
            Self::Node => "node",
            Self::State => "state",
            Self::Parameter => "parameter",
            Self::Layer => "layer",
        })
    }
}

/// Why a blend space's points cannot be blended between (a degenerate layout).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum BlendSpaceError {
    /// Fewer points than the mode needs (1 for 1D and gradient bands, 3 for triangles).
    #[error("{got} points, at least {need} needed")]
    TooFewPoints {
        /// Points given.
        got: usize,
        /// Points the mode needs.
        need: usize,
    },
    /// More points than a blend space takes (the triangulation is built by testing every
    /// triple of points, and each evaluation compares every pair).
    #[error("{got} points, at most {max} allowed")]
    TooManyPoints {
        /// Points given.
        got: usize,
        /// The limit.
        max: usize,
    },
    /// A coordinate is NaN or infinite.
    #[error("point {point} has a coordinate that is not finite")]
    NotFinite {
        /// Index of the point.
        point: usize,
    },
    /// Two points sit at the same place: the weight between them is undefined.
    #[error("points {first} and {second} are at the same position")]
    Duplicate {
        /// The earlier point.
        first: usize,
        /// The later point.
        second: usize,
    },
    /// Every point lies on one line: no triangle can be built.
    #[error("all points lie on one line: no triangle can be built")]
    Collinear,
}

/// What was wrong with a graph file, or with a request made of a graph instance.
///
/// Every error from [`Graph::compile`](crate::Graph::compile) names the JSON path of the bad
/// value (`layers[0].states.move.blend_1d.points[2].clip`), and an unknown name lists the names
/// that exist. Nothing is built when an error is returned.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum GraphError {
    /// The text is not JSON of the graph format (syntax, a wrong type, a missing or unknown
    /// field).
    #[error("{path}: {message}")]
    Format {
        /// Where the parser stopped (`.` when at the top).
        path: String,
        /// The parser's message, with line and column.
        message: String,
    },
    /// A name that does not exist.
    #[error("{path}: unknown {kind} {name:?} (known: {known})")]
    Unknown {
        /// Where the name is used.
        path: String,
        /// What it should name.
        kind: NameKind,
        /// The name.
        name: String,
        /// The names that exist, comma-separated (`(none)` when there are none).
        known: String,
    },
    /// A name given twice where names must be unique (layers; states and parameters are
    /// caught by the JSON reader).
    #[error("{path}: {kind} {name:?} is defined twice")]
    Duplicate {
        /// Where the second one is.
        path: String,
        /// What it names.
        kind: NameKind,
        /// The name.
        name: String,
    },
    /// A value of the wrong type for its parameter (`"value": 1` compared with a bool).
    #[error("{path}: {message}")]
    WrongType {
        /// Where the value is.
        path: String,
        /// What was expected and what was found.
        message: String,
    },
    /// A number that is NaN or infinite, or out of its range (a negative duration).
    #[error("{path}: {value} is out of range ({rule})")]
    OutOfRange {
        /// Where the number is.
        path: String,
        /// The number.
        value: f64,
        /// The range it must lie in.
        rule: &'static str,
    },
    /// A value that breaks a rule of the format: a state that plays nothing and is not marked
    /// empty (or is two things at once), a condition that is neither a trigger nor a
    /// comparison, a mask that selects no node.
    #[error("{path}: {message}")]
    Invalid {
        /// Where the value is.
        path: String,
        /// The rule it breaks.
        message: String,
    },
    /// A blend space whose points cannot be blended between.
    #[error("{path}: {source}")]
    BlendSpace {
        /// The blend space's `points`.
        path: String,
        /// What is degenerate.
        source: BlendSpaceError,
    },
    /// Transitions of zero duration without exit time that lead in a circle: they could switch
    /// state forever within one tick.
    #[error(
        "{path}: zero-duration transitions without exit time form a cycle ({cycle}); give one a duration or an exit time"
    )]
    ZeroDurationCycle {
        /// The layer.
        path: String,
        /// The states on the cycle, `a -> b -> a`.
        cycle: String,
    },
    /// A state whose clips share no marker name, under `"sync": "markers"`.
    #[error("{path}: marker sync needs a marker name every clip has ({clips} share none)")]
    NoSharedMarkers {
        /// The blend space.
        path: String,
        /// Its clips.
        clips: String,
    },
    /// A request named a parameter, layer or state that does not exist, or set a parameter
    /// with a value of another type.
    #[error("{0}")]
    Request(String),
    /// The player refused a layer or group the graph needs.
    #[error("player: {0}")]
    Player(#[from] AnimError),
}

/// `"a", "b", "c"` for [`GraphError::Unknown`]'s list of what exists.
pub(crate) fn known_list<'a>(names: impl IntoIterator<Item = &'a str>) -> String {
    let list: Vec<String> = names.into_iter().map(|n| format!("{n:?}")).collect();
    if list.is_empty() {
        "(none)".to_owned()
    } else {
        list.join(", ")
    }
}
