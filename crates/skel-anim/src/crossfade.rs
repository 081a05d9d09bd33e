//! Cross-fades between clips over a duration, on top of a [`WeightedBlend`] (three.js
//! `crossFadeTo`, Babylon's blending between animation groups).
//!
//! A fade moves from the blend as it is (whatever the weights are) to one target clip at weight
//! 1: over `duration` seconds the target's weight rises from where it was to 1 and every other
//! contributor's weight falls to 0 in proportion, so the first faded frame is the pose that was
//! on screen. A fade that interrupts a fade still in progress first freezes the pose on screen
//! (a [snapshot](WeightedBlend::capture_snapshot)) and fades from that, so chaining fades never
//! pops and never piles up more layers to sample than the new target and one snapshot.

use std::sync::Arc;

use crate::{AnimError, AnimationData, PoseSink, WeightedBlend};

#[derive(Debug, Clone, Copy)]
struct Fade {
    target: usize,
    elapsed: f32,
    duration: f32,
}

/// Plays one clip at a time and cross-fades between them.
///
/// Layer `i` of the underlying blend plays clip `i`; every layer's clock runs (looping) whether
/// or not it is weighted, and a clip faded in from weight 0 restarts from the start of its
/// range. [`tick`](Self::tick) allocates nothing and cannot fail.
///
/// ```
/// # use std::sync::Arc;
/// # use skel_anim::*;
/// # let clip = |name: &str, x: f32| -> Result<Clip, AnimError> {
/// #     let s = Sampler::new(vec![0.0, 1.0], vec![x, 0.0, 0.0, x, 0.0, 0.0], Interpolation::Linear)?;
/// #     Ok(Clip::new(name, vec![s], vec![Channel { sampler: 0, node: 0, path: ChannelPath::Translation }]))
/// # };
/// # let data = Arc::new(AnimationData {
/// #     nodes: vec![NodeRest::new("root", None), NodeRest::new("mesh", None)],
/// #     clips: vec![clip("idle", 0.0)?, clip("walk", 1.0)?],
/// #     skeletons: vec![SkeletonBinding::new(0, 1, vec![0], vec![])?],
/// #     morph_bindings: vec![],
/// #     handedness: Handedness::RightHanded,
/// # });
/// // "idle" holds x = 0, "walk" holds x = 1.
/// let mut fader = CrossFade::new(data)?;
/// fader.play(0)?;
/// fader.fade_to(1, 0.5)?; // half a second
/// let mut sink = RecordingSink::default();
/// fader.tick(250.0, &mut sink);
/// assert!((sink.bone_matrices[0][12] - 0.5).abs() < 1e-6); // half-way
/// fader.tick(250.0, &mut sink);
/// assert!(!fader.is_fading());
/// assert!((sink.bone_matrices[0][12] - 1.0).abs() < 1e-6);
/// # Ok::<(), AnimError>(())
/// ```
#[derive(Debug, Clone)]
pub struct CrossFade {
    blend: WeightedBlend,
    fade: Option<Fade>,
    start_weights: Vec<f32>,
    start_snapshot: f32,
}

impl CrossFade {
    /// A blend of `data` with one playing layer per clip, every weight 0 (the rest pose) until
    /// [`play`](Self::play) or [`fade_to`](Self::fade_to).
    ///
    /// # Errors
    /// What [`AnimationData::validate`] finds.
    pub fn new(data: Arc<AnimationData>) -> Result<Self, AnimError> {
        let clips = data.clips.len();
        let mut blend = WeightedBlend::new(data)?;
        for clip in 0..clips {
            blend.add_layer(clip, 0.0)?;
        }
        Ok(Self {
            blend,
            fade: None,
            start_weights: vec![0.0; clips],
            start_snapshot: 0.0,
        })
    }

    /// Switches to `clip` at once: its weight 1, every other 0, any fade or snapshot dropped.
    /// The clip restarts when it was not already weighted.
    ///
    /// # Errors
    /// [`AnimError::NoSuchClip`] for an index past the end.
    pub fn play(&mut self, clip: usize) -> Result<(), AnimError> {
        self.check_clip(clip)?;
        self.fade = None;
        self.blend.clear_snapshot();
        let layers = self.blend.layers_mut();
        if layers[clip].weight() <= 0.0 {
            layers[clip].clock_mut().restart();
        }
        for (i, layer) in layers.iter_mut().enumerate() {
            layer.set_weight(if i == clip { 1.0 } else { 0.0 });
        }
        Ok(())
    }

    /// Starts a cross-fade to `clip` over `duration_s` seconds (a duration that is not a
    /// positive number switches at once, like [`play`](Self::play)). Interrupting a fade in
    /// progress freezes the pose of the last tick and fades from it.
    ///
    /// # Errors
    /// [`AnimError::NoSuchClip`] for an index past the end.
    pub fn fade_to(&mut self, clip: usize, duration_s: f32) -> Result<(), AnimError> {
        self.check_clip(clip)?;
        if !(duration_s.is_finite() && duration_s > 0.0) {
            return self.play(clip);
        }
        let was_weighted = self.blend.layers()[clip].weight() > 0.0;
        if self.fade.is_some() {
            self.blend.capture_snapshot();
            self.blend.set_snapshot_weight(1.0);
            for layer in self.blend.layers_mut() {
                layer.set_weight(0.0);
            }
        }
        if !was_weighted {
            self.blend.layers_mut()[clip].clock_mut().restart();
        }
        let layers = self.blend.layers();
        self.start_weights.resize(layers.len(), 0.0);
        for (start, layer) in self.start_weights.iter_mut().zip(layers) {
            *start = layer.weight();
        }
        self.start_snapshot = self.blend.snapshot_weight();
        self.fade = Some(Fade {
            target: clip,
            elapsed: 0.0,
            duration: duration_s,
        });
        Ok(())
    }

    fn check_clip(&self, clip: usize) -> Result<(), AnimError> {
        let clip_count = self.blend.layers().len();
        if clip < clip_count {
            Ok(())
        } else {
            Err(AnimError::NoSuchClip { clip, clip_count })
        }
    }

    /// Whether a fade is in progress.
    #[must_use]
    pub fn is_fading(&self) -> bool {
        self.fade.is_some()
    }

    /// The clip being faded to and the fade's progress in `[0, 1]`, while fading.
    #[must_use]
    pub fn fade_progress(&self) -> Option<(usize, f32)> {
        self.fade
            .map(|f| (f.target, (f.elapsed / f.duration).min(1.0)))
    }

    /// Moves the fade on by `delta_ms` milliseconds of real time (not scaled by any clip's
    /// speed; NaN, infinite and negative deltas do not move it), sets the weights, then ticks
    /// the blend: every layer's clock advances and the pose goes to `sink`.
    pub fn tick(&mut self, delta_ms: f32, sink: &mut dyn PoseSink) {
        if let Some(fade) = &mut self.fade {
            if delta_ms.is_finite() && delta_ms > 0.0 {
                fade.elapsed += delta_ms / 1000.0;
            }
            let a = (fade.elapsed / fade.duration).min(1.0);
            let target = fade.target;
            let keep = 1.0 - a;
            for (i, (layer, &start)) in self
                .blend
                .layers_mut()
                .iter_mut()
                .zip(&self.start_weights)
                .enumerate()
            {
                layer.set_weight(if i == target {
                    start + (1.0 - start) * a
                } else {
                    start * keep
                });
            }
            self.blend.set_snapshot_weight(self.start_snapshot * keep);
            if a >= 1.0 {
                self.fade = None;
                self.blend.clear_snapshot();
            }
        }
        self.blend.tick(delta_ms, sink);
    }

    /// The blend underneath (weights, clocks, last pose).
    #[must_use]
    pub fn blend(&self) -> &WeightedBlend {
        &self.blend
    }

    /// The blend underneath, to change clocks or install a pose hook. Weights set here are
    /// overwritten by a fade in progress.
    pub fn blend_mut(&mut self) -> &mut WeightedBlend {
        &mut self.blend
    }
}
