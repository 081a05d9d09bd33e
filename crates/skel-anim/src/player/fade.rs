//! Cross-fades: weight ramps the player owns (three.js `crossFadeTo`, Babylon's
//! `enableBlending`), so that groups, blends and fades are all one thing.

use super::Player;
use super::layer::{Fade, LayerDesc, LayerMode};
use crate::AnimError;

/// How [`Player::crossfade_to`] starts the incoming clip.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum FadeSync {
    /// From the start of the clip (the start of its range in its playing direction).
    #[default]
    Restart,
    /// At the same fraction of its duration as the strongest outgoing blend layer (a walk
    /// fading into a run keeps its footfalls in step).
    Phase,
}

impl Player {
    /// Fades every ungrouped blend layer out and a new blend layer playing `clip` in, linearly
    /// over `duration` seconds of real time (not clip time), and returns the new layer's index.
    /// Additive layers and the members of [groups](Player::add_group) are left alone. Faded-out layers are removed when their ramp ends (later
    /// layers move down). Interrupting a fade starts each ramp from the weight it has reached, so
    /// nothing jumps; weights that summed to 1 keep summing to 1 throughout.
    ///
    /// `duration` 0 (or less) switches at once. Allocates the new layer's cursors.
    ///
    /// # Errors
    /// [`AnimError::NoSuchClip`] for a clip past the end, [`AnimError::NotFiniteValue`] for a
    /// NaN or infinite duration. Nothing changes on error.
    pub fn crossfade_to(
        &mut self,
        clip: usize,
        duration: f32,
        sync: FadeSync,
    ) -> Result<usize, AnimError> {
        if !duration.is_finite() {
            return Err(AnimError::NotFiniteValue {
                what: "cross-fade duration",
                value: duration,
            });
        }
        let mut incoming = super::layer::Layer::new(self.rig(), &LayerDesc::new(clip))?;
        if sync == FadeSync::Phase {
            let strongest = self
                .layers
                .iter()
                .filter(|l| l.mode == LayerMode::Blend && l.group.is_none())
                .max_by(|a, b| a.effective_weight().total_cmp(&b.effective_weight()));
            if let Some(from) = strongest {
                let c = &from.clock;
                let len = c.to() - c.from();
                let phase = if len > 0.0 {
                    (c.time() - c.from()) / len
                } else {
                    0.0
                };
                let to = &mut incoming.clock;
                to.seek(to.from() + phase * (to.to() - to.from()));
            }
        }
        let duration = duration.max(0.0);
        for layer in &mut self.layers {
            if layer.mode == LayerMode::Blend && layer.group.is_none() {
                layer.fade = Some(Fade {
                    from: layer.fade_factor,
                    to: 0.0,
                    elapsed: 0.0,
                    duration,
                    remove_at_zero: true,
                });
            }
        }
        incoming.fade = Some(Fade {
            from: 0.0,
            to: 1.0,
            elapsed: 0.0,
            duration,
            remove_at_zero: true,
        });
        incoming.fade_factor = if duration > 0.0 { 0.0 } else { 1.0 };
        self.layers.push(incoming);
        let index = self.layers.len() - 1;
        Ok(index - self.finish_fades_before(index))
    }

    /// Ramps layer `layer`'s cross-fade factor to 1 and every other blend layer's of the same
    /// [group](Player::add_group) (or, for an ungrouped layer, every other ungrouped blend
    /// layer's) to 0 over `duration` seconds of real time, keeping every layer (a faded-out layer stays at factor
    /// 0, its clock running): fading among a fixed set of layers, e.g. one per clip, allocates
    /// nothing. Each ramp starts from the factor it has reached, so an interrupted fade never
    /// jumps. `duration` 0 (or less) switches at once.
    ///
    /// # Errors
    /// [`AnimError::NoSuchLayer`] for an index past the end, [`AnimError::NotFiniteValue`]
    /// for a NaN or infinite duration. Nothing changes on error.
    pub fn fade_layer_to(&mut self, layer: usize, duration: f32) -> Result<(), AnimError> {
        self.layer_mut(layer)?;
        if !duration.is_finite() {
            return Err(AnimError::NotFiniteValue {
                what: "cross-fade duration",
                value: duration,
            });
        }
        let duration = duration.max(0.0);
        let group = self.layers[layer].group;
        for (i, l) in self.layers.iter_mut().enumerate() {
            if i == layer || (l.mode == LayerMode::Blend && l.group == group) {
                l.fade = Some(Fade {
                    from: l.fade_factor,
                    to: if i == layer { 1.0 } else { 0.0 },
                    elapsed: 0.0,
                    duration,
                    remove_at_zero: false,
                });
            }
        }
        self.finish_fades();
        Ok(())
    }

    /// Sets layer `layer`'s cross-fade factor at once (clamped to `0..=1`; NaN counts as 0),
    /// ending any ramp on it.
    ///
    /// # Errors
    /// [`AnimError::NoSuchLayer`] for an index past the end.
    pub fn set_fade_factor(&mut self, layer: usize, factor: f32) -> Result<(), AnimError> {
        let l = self.layer_mut(layer)?;
        l.fade = None;
        l.fade_factor = if factor.is_nan() {
            0.0
        } else {
            factor.clamp(0.0, 1.0)
        };
        Ok(())
    }

    /// Whether any layer's weight is ramping.
    #[must_use]
    pub fn is_fading(&self) -> bool {
        self.layers.iter().any(|l| l.fade.is_some())
    }

    /// Ends finished ramps: layers faded out to 0 are removed, faded-in ones keep factor 1.
    pub(super) fn finish_fades(&mut self) {
        self.finish_fades_before(self.layers.len());
    }

    /// [`finish_fades`](Self::finish_fades), returning how many of the layers below `index`
    /// were removed.
    fn finish_fades_before(&mut self, index: usize) -> usize {
        let mut removed_below = 0;
        let mut i = 0;
        while i < self.layers.len() {
            let layer = &mut self.layers[i];
            match layer.fade {
                Some(f) if f.done() => {
                    layer.fade = None;
                    layer.fade_factor = f.to;
                    if f.to == 0.0 && f.remove_at_zero {
                        if i < index {
                            removed_below += 1;
                        }
                        self.layers.remove(i);
                        continue;
                    }
                }
                Some(f) => layer.fade_factor = f.factor(),
                None => {}
            }
            i += 1;
        }
        removed_below
    }
}
