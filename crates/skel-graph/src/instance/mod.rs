//! Per character: the parameters, each layer's current state and fade, and the clips each
//! layer plays this tick. Made once per character ([`GraphInstance::new`] allocates every
//! buffer); [`GraphInstance::tick`] allocates nothing.

mod layer_run;
mod machine;
mod params;
mod state_run;
mod travel;
mod view;

use std::sync::Arc;

use crate::Graph;
pub(crate) use layer_run::{FROZEN, Item, LayerRun};
pub use params::ParamValue;
pub use view::{ClipWeight, TransitionView};

/// One character's run of a [`Graph`]: parameter values, and per graph layer the current
/// state, the fade in progress and this tick's clips with their weights and times.
///
/// On its own it is the graph's logic without a pose (for tools, servers and tests).
///
/// Each [`tick`](Self::tick), layer by layer: the current state (and a fade's source and
/// destination) advance by `dt` under their speed and sync; a fade that has run its duration
/// ends; then transitions are taken: when no fade runs, the first transition from the current
/// state or from `any` (lower `priority` first, ties to the first declared) whose conditions
/// all hold and whose exit time (if any) was crossed by this tick's advance; during a fade,
/// the transitions its `interrupt` setting allows. Triggers are consumed by the transition
/// that fires. Zero-duration transitions cut and chain within the tick.
#[derive(Debug, Clone)]
pub struct GraphInstance {
    graph: Arc<Graph>,
    /// Floats, ints exactly, bools and triggers as 0 or 1.
    params: Vec<f64>,
    /// Vec3 parameters' values, by parameter index (zero for the other kinds).
    vectors: Vec<glam::Vec3>,
    layers: Vec<LayerRun>,
    search: travel::Search,
}

impl GraphInstance {
    /// A character at every layer's entry state with the parameters at their defaults.
    #[must_use]
    pub fn new(graph: &Arc<Graph>) -> Self {
        let params: Vec<f64> = graph.params.iter().map(|p| p.default).collect();
        let vectors = graph.params.iter().map(|p| p.vector).collect();
        let layers = graph
            .layers
            .iter()
            .map(|gl| LayerRun::new(gl, &params))
            .collect();
        let max_states = graph
            .layers
            .iter()
            .map(|l| l.states.len())
            .max()
            .unwrap_or(0);
        Self {
            graph: Arc::clone(graph),
            params,
            vectors,
            layers,
            search: travel::Search::new(max_states),
        }
    }

    /// Parameter `index`'s number (floats, ints; bools and triggers as 0 or 1).
    pub(crate) fn number(&self, index: u32) -> f64 {
        self.params.get(index as usize).copied().unwrap_or(0.0)
    }

    /// Parameter `index`'s vector (zero for the other kinds).
    pub(crate) fn vector(&self, index: u32) -> glam::Vec3 {
        self.vectors
            .get(index as usize)
            .copied()
            .unwrap_or(glam::Vec3::ZERO)
    }

    /// The compiled graph.
    #[must_use]
    pub fn graph(&self) -> &Arc<Graph> {
        &self.graph
    }

    /// Advances every layer by `dt` seconds (NaN, infinite and negative steps count as 0)
    /// and takes the transitions that are due. Allocates nothing.
    pub fn tick(&mut self, dt: f32) {
        let dt = if dt.is_finite() && dt > 0.0 {
            f64::from(dt)
        } else {
            0.0
        };
        for (run, gl) in self.layers.iter_mut().zip(&self.graph.layers) {
            run.tick(gl, &mut self.params, dt);
        }
    }

    /// Heads layer `layer` for state `state` along the cheapest chain of transitions (the sum
    /// of their `cost`, Dijkstra), taken one after the other at their own durations whatever
    /// their conditions, each once the fade before it has ended; while travelling, no other
    /// transition is taken. Without such a chain the layer cuts to `state` at once
    /// (a teleport). Travelling to the state the layer is in does nothing.
    ///
    /// # Errors
    /// [`GraphError::Request`](crate::GraphError::Request) for an unknown layer or state.
    pub fn travel(&mut self, layer: &str, state: &str) -> Result<(), crate::GraphError> {
        let l = self.layer_id(layer)?;
        let s = self.graph.state_index(l, state).ok_or_else(|| {
            crate::GraphError::Request(format!(
                "layer {layer:?} has no state {state:?} (states: {})",
                crate::error::known_list(self.graph.state_names(l))
            ))
        })?;
        self.travel_to(l, s);
        Ok(())
    }

    /// [`travel`](Self::travel) by indices; an index past the end does nothing.
    pub fn travel_to(&mut self, layer: usize, state: usize) {
        let (Some(gl), Some(run)) = (self.graph.layers.get(layer), self.layers.get_mut(layer))
        else {
            return;
        };
        if state >= gl.states.len() {
            return;
        }
        #[expect(clippy::cast_possible_truncation, reason = "state counts fit u32")]
        let to = state as u32;
        let from = run.state();
        if !self.search.path(gl, from, to, &mut run.travel) && from != to {
            run.travel.clear();
            run.cut(gl, &self.params, to, 0.0);
            run.build_out(gl);
        }
    }

    /// The index of layer `name`.
    pub(crate) fn layer_id(&self, name: &str) -> Result<usize, crate::GraphError> {
        self.graph.layer_index(name).ok_or_else(|| {
            crate::GraphError::Request(format!(
                "no layer {name:?} (layers: {})",
                crate::error::known_list(self.graph.layers.iter().map(|l| l.name.as_str()))
            ))
        })
    }

    /// Each layer's run (the player binding reads the clip lists).
    pub(crate) fn runs(&self) -> &[LayerRun] {
        &self.layers
    }

    /// Sets the weight of layer `layer` (clamped to 0..=1; NaN counts as 0); out of range
    /// indices are ignored.
    pub fn set_layer_weight(&mut self, layer: usize, weight: f32) {
        if let Some(run) = self.layers.get_mut(layer) {
            run.weight = if weight.is_nan() {
                0.0
            } else {
                weight.clamp(0.0, 1.0)
            };
        }
    }
}
