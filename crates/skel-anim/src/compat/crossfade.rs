//! Cross-fades between clips over a duration (three.js `crossFadeTo`, Babylon's blending
//! between animation groups): a thin adapter over a [`Player`](crate::Player) with one layer per
//! clip, whose weight ramps ([`Player::fade_layer_to`](crate::Player::fade_layer_to)) do the
//! fading.
//!
//! A fade moves every layer's cross-fade factor from where it is to 0, and the target's to 1,
//! linearly over `duration` seconds of real time, so the first faded frame is the pose that was
//! on screen, and an interrupting fade starts every ramp from the factor it has reached: chained
//! fades never pop. Layers are never added or removed, so fading allocates nothing.

use std::sync::Arc;

use crate::{AnimError, AnimationData, PoseSink, WeightedBlend};

/// Plays one clip at a time and cross-fades between them.
///
/// Layer `i` of the underlying blend plays clip `i` at weight 1; its cross-fade factor says how
/// much of it is on screen. Every layer's clock runs (looping) whether or not it is visible, and
/// a clip faded in from factor 0 restarts from the start of its range. [`tick`](Self::tick) allocates nothing and cannot fail.
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
    /// The clip of the last `play` or `fade_to`.
    target: Option<usize>,
}

impl CrossFade {
    /// One playing layer per clip of `data`, every cross-fade factor 0 (the rest pose) until
    /// [`play`](Self::play) or [`fade_to`](Self::fade_to).
    ///
    /// # Errors
    /// What [`AnimationData::validate`] finds.
    pub fn new(data: Arc<AnimationData>) -> Result<Self, AnimError> {
        let clips = data.clips.len();
        let mut blend = WeightedBlend::new(data)?;
        for clip in 0..clips {
            blend.add_layer(clip, 1.0)?;
            blend.player_mut().set_fade_factor(clip, 0.0)?;
        }
        Ok(Self {
            blend,
            target: None,
        })
    }

    /// Switches to `clip` at once: its factor 1, every other 0, any fade dropped. The clip
    /// restarts when it was not on screen.
    ///
    /// # Errors
    /// [`AnimError::NoSuchClip`] for an index past the end.
    pub fn play(&mut self, clip: usize) -> Result<(), AnimError> {
        self.check_clip(clip)?;
        self.restart_if_hidden(clip);
        let player = self.blend.player_mut();
        for i in 0..player.layers().len() {
            player.set_fade_factor(i, if i == clip { 1.0 } else { 0.0 })?;
        }
        self.target = Some(clip);
        Ok(())
    }

    /// Starts a cross-fade to `clip` over `duration_s` seconds (a duration that is not a
    /// positive number switches at once, like [`play`](Self::play)). Interrupting a fade in
    /// progress ramps every layer on from where it is.
    ///
    /// # Errors
    /// [`AnimError::NoSuchClip`] for an index past the end.
    pub fn fade_to(&mut self, clip: usize, duration_s: f32) -> Result<(), AnimError> {
        self.check_clip(clip)?;
        if !(duration_s.is_finite() && duration_s > 0.0) {
            return self.play(clip);
        }
        self.restart_if_hidden(clip);
        self.blend.player_mut().fade_layer_to(clip, duration_s)?;
        self.target = Some(clip);
        Ok(())
    }

    fn restart_if_hidden(&mut self, clip: usize) {
        let layer = &mut self.blend.layers_mut()[clip];
        if layer.effective_weight() <= 0.0 {
            layer.clock_mut().restart();
        }
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
        self.blend.player().is_fading()
    }

    /// The clip being faded to and the fade's progress in `[0, 1]`, while fading.
    #[must_use]
    pub fn fade_progress(&self) -> Option<(usize, f32)> {
        let target = self.target?;
        let progress = self.blend.layers()[target].fade_progress()?;
        Some((target, progress))
    }

    /// Moves the fade on by `delta_ms` milliseconds of real time (not scaled by any clip's
    /// speed; NaN, infinite and negative deltas do not move it), then ticks the blend: every
    /// layer's clock advances and the pose goes to `sink`.
    pub fn tick(&mut self, delta_ms: f32, sink: &mut dyn PoseSink) {
        self.blend.tick(delta_ms, sink);
    }

    /// The blend underneath (layers, clocks, last pose).
    #[must_use]
    pub fn blend(&self) -> &WeightedBlend {
        &self.blend
    }

    /// The blend underneath, to change clocks or install a pose hook. Factors set here are
    /// overwritten by a fade in progress.
    pub fn blend_mut(&mut self) -> &mut WeightedBlend {
        &mut self.blend
    }
}
