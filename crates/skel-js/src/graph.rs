//! Animation graphs from JavaScript: a graph file compiled once against an asset
//! ([`CompiledGraph`]), animators it drives, and their parameters.
//!
//! The file is skel-graph's JSON (`docs/graph.md`: parameters, state machines, blend spaces,
//! inertialized transitions, pose operations). Its parameters are set by name on the animator;
//! the next [`Animator::tick`] takes the transitions they allow and poses.

use std::sync::Arc;

use skel_anim::Player;
use skel_anim::glam::Vec3;
use skel_graph::{Graph, GraphInstance, GraphPlayer, ParamKind};

use crate::{Animator, Asset, JsApiError};

/// A graph file compiled against an [`Asset`]'s clips and joints, shared by every animator it
/// drives (compile once, make one animator per character).
///
/// ```
/// use skel_js::{Asset, Handedness};
///
/// # fn main() -> Result<(), skel_js::JsApiError> {
/// # let glb = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures/default_character.glb"))
/// #     .map_err(|e| skel_js::JsApiError::Read(e.to_string()))?;
/// let asset = Asset::from_bytes(&glb, Handedness::RightHanded)?;
/// let graph = asset.compile_graph(r#"{
///   "parameters": { "speed": {"type": "float"} },
///   "layers": [ { "name": "base", "entry": "move", "states": {
///     "move": { "blend_1d": { "parameter": "speed", "sync": "normalized",
///               "points": [ {"clip": "Walk", "at": 1}, {"clip": "Run", "at": 3} ] } } } } ] }"#)?;
/// let mut character = graph.animator()?;
/// character.set_float("speed", 2.0)?;
/// character.tick(1.0 / 60.0);
/// assert_eq!(character.state(0), Some("move"));
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone)]
pub struct CompiledGraph {
    asset: Asset,
    graph: Arc<Graph>,
}

impl Asset {
    /// Compiles the graph file `json` against this asset (clip and joint names become
    /// indices once).
    ///
    /// # Errors
    /// [`JsApiError::Graph`] for JSON that is not a graph file or names what the asset does
    /// not have; the message gives the JSON path.
    pub fn compile_graph(&self, json: &str) -> Result<CompiledGraph, JsApiError> {
        let graph = Graph::from_json(json, self.rig())?;
        Ok(CompiledGraph {
            asset: self.clone(),
            graph,
        })
    }
}

impl CompiledGraph {
    /// A new character driven by this graph, at its entry states, posed once.
    ///
    /// # Errors
    /// [`JsApiError::Graph`] when the player refuses one of the graph's layers or operations.
    pub fn animator(&self) -> Result<Animator, JsApiError> {
        let player = GraphPlayer::new(&self.graph, Player::new(self.asset.rig()))?;
        Ok(Animator::with_graph(player))
    }

    /// The compiled graph (its parameters, layers and states).
    #[must_use]
    pub fn graph(&self) -> &Arc<Graph> {
        &self.graph
    }

    /// Every parameter's name and kind (`"float"`, `"int"`, `"bool"`, `"trigger"`, `"vec3"`),
    /// in the file's order.
    #[must_use]
    pub fn parameters(&self) -> Vec<(String, String)> {
        self.graph
            .params()
            .map(|(_, name, kind)| (name.to_owned(), kind_name(kind).to_owned()))
            .collect()
    }
}

/// A parameter kind as the graph file writes it.
fn kind_name(kind: ParamKind) -> &'static str {
    match kind {
        ParamKind::Float => "float",
        ParamKind::Int => "int",
        ParamKind::Bool => "bool",
        ParamKind::Trigger => "trigger",
        ParamKind::Vec3 => "vec3",
    }
}

/// A graph's parameters, set on the animator it drives. Each is an error on an animator that
/// plays clips ([`JsApiError::NotAGraph`]), and for a name the graph does not have or a value
/// of another kind ([`JsApiError::Graph`]); nothing changes then.
impl Animator {
    fn instance(&mut self, name: &str) -> Result<&mut GraphInstance, JsApiError> {
        match self.graph_mut() {
            Some(graph) => Ok(graph.instance_mut()),
            None => Err(JsApiError::NotAGraph {
                name: name.to_owned(),
            }),
        }
    }

    /// Sets float parameter `name`.
    ///
    /// # Errors
    /// See the block's docs.
    pub fn set_float(&mut self, name: &str, value: f32) -> Result<(), JsApiError> {
        Ok(self.instance(name)?.set_float(name, value)?)
    }

    /// Sets integer parameter `name`.
    ///
    /// # Errors
    /// See the block's docs.
    pub fn set_int(&mut self, name: &str, value: i32) -> Result<(), JsApiError> {
        Ok(self.instance(name)?.set_int(name, value)?)
    }

    /// Sets boolean parameter `name`.
    ///
    /// # Errors
    /// See the block's docs.
    pub fn set_bool(&mut self, name: &str, value: bool) -> Result<(), JsApiError> {
        Ok(self.instance(name)?.set_bool(name, value)?)
    }

    /// Sets trigger `name` (consumed by the transition it fires).
    ///
    /// # Errors
    /// See the block's docs.
    pub fn set_trigger(&mut self, name: &str) -> Result<(), JsApiError> {
        Ok(self.instance(name)?.set_trigger(name)?)
    }

    /// Sets vec3 parameter `name` (an IK or look-at target: a point in the character's
    /// space).
    ///
    /// # Errors
    /// See the block's docs.
    pub fn set_vec3(&mut self, name: &str, value: Vec3) -> Result<(), JsApiError> {
        Ok(self.instance(name)?.set_vec3(name, value)?)
    }

    /// The current state of graph layer `layer`; `None` for an animator that plays clips or a
    /// layer past the graph's.
    #[must_use]
    pub fn state(&self, layer: usize) -> Option<&str> {
        self.graph()?.instance().state(layer)
    }
}
