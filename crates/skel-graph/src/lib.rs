//! Animation graphs for skel: parameters drive state machines whose states play clips or
//! blend spaces, with synchronised blends and interruptible fades, from a JSON file; a graph
//! chooses clips, weights and times, and a `skel_anim::Player` poses.
//!
//! - A [`GraphDef`] is the file as read ([`GraphDef::from_json`]); `docs/graph.md` is the
//!   format's reference.
//! - [`Graph::compile`] resolves it against a [`Rig`](skel_anim::Rig) once into an immutable
//!   [`Graph`], shared by `Arc`: names become indices, blend spaces are triangulated, every
//!   error names its JSON path.
//! - Each character holds a [`GraphInstance`]: parameter values and per layer the current
//!   state, the fade in progress, the clips with weights and times. [`GraphInstance::tick`]
//!   allocates nothing.
//! - A [`GraphPlayer`] drives a `skel_anim::Player` with an instance: one layer group per
//!   graph layer, one member layer per clip of each state, weights, speeds and times set
//!   every tick; the player poses, fires events and extracts root motion.
//!
//! ```
//! use std::sync::Arc;
//! use skel_anim::*;
//! use skel_graph::{Graph, GraphInstance};
//!
//! // A one-joint rig with three clips of one second.
//! let clip = |name: &str| -> Result<Clip, AnimError> {
//!     let s = Sampler::new(vec![0.0, 1.0], vec![0.0; 6], Interpolation::Linear)?;
//!     Ok(Clip::new(name, vec![s], vec![Channel { sampler: 0, node: 0, path: ChannelPath::Translation }]))
//! };
//! let rig = Rig::new(Arc::new(AnimationData {
//!     nodes: vec![NodeRest::new("root", None)],
//!     clips: vec![clip("Idle")?, clip("Walking")?, clip("Jump")?],
//!     ..Default::default()
//! }))?;
//! let graph = Graph::from_json(r#"{
//!   "parameters": { "speed": {"type": "float"}, "jump": {"type": "trigger"} },
//!   "layers": [ { "name": "base", "entry": "move",
//!     "states": {
//!       "move": { "blend_1d": { "parameter": "speed", "sync": "normalized",
//!                 "points": [ {"clip": "Idle", "at": 0}, {"clip": "Walking", "at": 1.5} ] } },
//!       "jump": { "clip": "Jump", "loop": "once" } },
//!     "transitions": [
//!       { "from": "move", "to": "jump", "when": [{"trigger": "jump"}], "duration": 0.1 },
//!       { "from": "jump", "to": "move", "exit_time": 0.9, "duration": 0.2 } ] } ] }"#, &rig)?;
//!
//! let mut character = GraphInstance::new(&graph);
//! character.set_float("speed", 0.75)?; // half way from Idle to Walking
//! character.tick(0.1);
//! let weights: Vec<(&str, f32)> = character.clips(0).map(|c| (c.name, c.weight)).collect();
//! assert_eq!(weights, [("Idle", 0.5), ("Walking", 0.5)]);
//!
//! character.set_trigger("jump")?;
//! character.tick(0.05); // the trigger fires the transition: half way through its 0.1 s
//! character.tick(0.05);
//! assert_eq!(character.state(0), Some("jump"));
//! assert!((character.transition(0).unwrap().progress - 0.5).abs() < 1e-6);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # One frame as JSON
//!
//! What `skel play --graph --json` prints per frame comes from read-only views of the
//! instance: per layer its state, the transition in progress and every clip with a non-zero
//! weight (the weights of a layer sum to 1; times in seconds). Events and the root delta come
//! from the player ([`GraphPlayer::tick_with_events`], `Player::root_motion_delta`).
//!
//! ```
//! # use std::sync::Arc;
//! # use skel_anim::*;
//! # use skel_graph::{Graph, GraphInstance};
//! # let s = Sampler::new(vec![0.0, 1.0], vec![0.0; 6], Interpolation::Linear)?;
//! # let clip = Clip::new("Idle", vec![s], vec![Channel { sampler: 0, node: 0, path: ChannelPath::Translation }]);
//! # let rig = Rig::new(Arc::new(AnimationData { nodes: vec![NodeRest::new("root", None)], clips: vec![clip], ..Default::default() }))?;
//! # let graph = Graph::from_json(r#"{"layers": [{"name": "base", "entry": "idle", "states": {"idle": {"clip": "Idle"}}}]}"#, &rig)?;
//! # let mut character = GraphInstance::new(&graph);
//! character.tick(0.25);
//! let graph = character.graph();
//! let layers: Vec<serde_json::Value> = (0..graph.layer_count())
//!     .map(|l| {
//!         serde_json::json!({
//!             "layer": graph.layer_name(l),
//!             "state": character.state(l),
//!             "transition": character.transition(l).map(|t| serde_json::json!({
//!                 "from": t.from, "to": t.to, "progress": t.progress })),
//!             "clips": character.clips(l).map(|c| serde_json::json!({
//!                 "clip": c.name, "weight": c.weight, "time": c.time }))
//!                 .collect::<Vec<_>>(),
//!         })
//!     })
//!     .collect();
//! assert_eq!(layers[0]["clips"][0]["time"], 0.25);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Errors and allocation
//!
//! Building (reading, compiling, [`GraphInstance::new`], [`GraphPlayer::new`]) allocates and
//! returns typed errors ([`GraphError`], [`BlendSpaceError`]); ticking allocates nothing and
//! cannot fail: NaN or negative steps count as 0, parameters are checked when set.

mod blend_space_1d;
mod blend_space_2d;
mod compile;
mod error;
pub mod file;
mod graph;
mod instance;
mod player;
mod sync;

pub use blend_space_1d::{BlendSpace1d, MAX_POINTS};
pub use blend_space_2d::{
    BlendSpace2d, Mode2d, Triangulation, cartesian_weights, directional_weights,
};
pub use error::{BlendSpaceError, GraphError, NameKind};
pub use file::{GraphDef, ParamKind};
pub use graph::{Graph, ParamId};
pub use instance::{ClipWeight, GraphInstance, ParamValue, TransitionView};
pub use player::GraphPlayer;
