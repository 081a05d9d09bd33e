//! Read-only views of an instance: per layer the state, the transition in progress and the
//! clips with their weights and times (what `skel play --graph --json` prints).

use super::{FROZEN, GraphInstance};

/// A transition in progress.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TransitionView<'a> {
    /// The state the layer was in when the fade began.
    pub from: &'a str,
    /// The state it fades to (the layer's [`state`](GraphInstance::state) already).
    pub to: &'a str,
    /// Elapsed time over duration, 0..=1 (before the curve).
    pub progress: f32,
}

/// One clip a layer plays this tick.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ClipWeight<'a> {
    /// The clip's index in the rig.
    pub clip: usize,
    /// The clip's name.
    pub name: &'a str,
    /// Its weight within the layer: the weights of a layer's clips sum to 1.
    pub weight: f32,
    /// Its time in seconds.
    pub time: f32,
    /// Whether it is part of the pose frozen when a fade was interrupted (it does not move).
    pub frozen: bool,
}

impl GraphInstance {
    /// The name of the state layer `layer` is in (the destination while a fade runs); `None`
    /// past the last layer.
    #[must_use]
    pub fn state(&self, layer: usize) -> Option<&str> {
        let run = self.layers.get(layer)?;
        Some(&self.graph.layers[layer].states[run.state() as usize].name)
    }

    /// The index of the state layer `layer` is in (see [`state`](Self::state)).
    #[must_use]
    pub fn state_index(&self, layer: usize) -> Option<usize> {
        self.layers.get(layer).map(|r| r.state() as usize)
    }

    /// The transition layer `layer` is fading through, if any.
    #[must_use]
    pub fn transition(&self, layer: usize) -> Option<TransitionView<'_>> {
        let run = self.layers.get(layer)?;
        let f = run.fade?;
        let states = &self.graph.layers[layer].states;
        #[expect(clippy::cast_possible_truncation, reason = "a fraction")]
        Some(TransitionView {
            from: &states[f.shown_from as usize].name,
            to: &states[run.dest.state as usize].name,
            progress: f.progress() as f32,
        })
    }

    /// The clips layer `layer` plays this tick, each with a non-zero weight (they sum to 1)
    /// and its time in seconds. Empty when the layer shows only empty states (or past the
    /// last layer).
    pub fn clips(&self, layer: usize) -> impl Iterator<Item = ClipWeight<'_>> {
        let items = self.layers.get(layer).map_or(&[][..], |r| &r.out[..]);
        items.iter().filter(|i| i.weight > 0.0).map(|i| ClipWeight {
            clip: i.clip as usize,
            name: &self.graph.clip_names[i.clip as usize],
            weight: i.weight,
            time: i.time,
            frozen: i.slot == FROZEN,
        })
    }

    /// How much layer `layer` covers what lies below: its weight times the share of its
    /// clips against its empty states (a fade from an empty state at ¼ gives ¼). The mask
    /// scales this per node.
    #[must_use]
    pub fn layer_weight(&self, layer: usize) -> f32 {
        self.layers.get(layer).map_or(0.0, |r| r.weight * r.share)
    }
}
