//! The per-frame animation controller (the seed's `createAnimationController`).

use std::sync::Arc;

use crate::{AnimError, AnimationData, PoseHook, PoseScratch, PoseSink, apply_clip, reset_to_rest};

/// Plays one clip of an asset and turns it into bone matrices every frame.
///
/// All scratch memory is allocated in [`AnimationController::new`]; [`tick`](Self::tick)
/// allocates nothing and cannot fail. Keyframes are shared through the `Arc`: many controllers
/// over one [`AnimationData`] cost only their scratch buffers.
#[derive(Debug, Clone)]
pub struct AnimationController {
    data: Arc<AnimationData>,
    scratch: PoseScratch,
    clip: Option<usize>,
    hook: Option<Arc<dyn PoseHook>>,
    /// Current playback time in seconds.
    pub time: f32,
    /// Whether `tick` advances time.
    pub playing: bool,
    /// Playback speed multiplier (default 1; negative plays backwards).
    pub speed_ratio: f32,
    /// Whether playback wraps at the end of the clip (default true) or holds the last frame.
    pub looping: bool,
    /// Whether [`tick`](Self::tick) poses (default true). A character the renderer has culled
    /// can be marked not visible: its clock keeps moving, but sampling, the hierarchy and the
    /// bone matrices are skipped and the sink hears nothing, so it costs a few nanoseconds a
    /// frame; its first visible tick poses it at its current time.
    pub visible: bool,
}

impl AnimationController {
    /// Validates `data` and allocates every scratch buffer. Starts playing with no clip chosen
    /// (the rest pose) at time 0; pick one with [`set_clip`](Self::set_clip).
    ///
    /// Controllers over the same `Arc` (made here or cloned) share one evaluation plan: node
    /// order, tracks and an interleaved copy of the clips' keys, built by the first of them and
    /// dropped with the last.
    ///
    /// # Errors
    /// What [`AnimationData::validate`] finds (bad indices, cycles, wrong component counts).
    #[doc(alias = "createAnimationController")]
    pub fn new(data: Arc<AnimationData>) -> Result<Self, AnimError> {
        let plan = crate::plan::PosePlan::shared(&data)?;
        let scratch = PoseScratch::with_plan(&data, plan);
        Ok(Self {
            data,
            scratch,
            clip: None,
            hook: None,
            time: 0.0,
            playing: true,
            speed_ratio: 1.0,
            looping: true,
            visible: true,
        })
    }

    /// Chooses the clip to play (`None`: rest pose only).
    ///
    /// # Errors
    /// [`AnimError::NoSuchClip`] for an index past the end.
    pub fn set_clip(&mut self, clip: Option<usize>) -> Result<(), AnimError> {
        self.check_clip(clip)?;
        self.clip = clip;
        Ok(())
    }

    fn check_clip(&self, clip: Option<usize>) -> Result<(), AnimError> {
        match clip {
            Some(c) if c >= self.data.clips.len() => Err(AnimError::NoSuchClip {
                clip: c,
                clip_count: self.data.clips.len(),
            }),
            _ => Ok(()),
        }
    }

    /// The clip being played.
    #[must_use]
    pub fn clip(&self) -> Option<usize> {
        self.clip
    }

    /// Duration of the current clip in seconds (0 without one).
    #[must_use]
    pub fn duration(&self) -> f32 {
        self.clip.map_or(0.0, |c| self.scratch.clip_duration(c))
    }

    /// The shared animation data.
    #[must_use]
    pub fn data(&self) -> &Arc<AnimationData> {
        &self.data
    }

    /// Installs (or with `None` removes) the bone-control hook.
    pub fn set_pose_hook(&mut self, hook: Option<Arc<dyn PoseHook>>) {
        self.hook = hook;
    }

    /// The installed bone-control hook.
    #[must_use]
    pub fn pose_hook(&self) -> Option<&Arc<dyn PoseHook>> {
        self.hook.as_ref()
    }

    /// Advances time by `delta_ms` milliseconds × `speed_ratio` (when playing), wraps or clamps
    /// it to the clip, and (when [`visible`](Self::visible)) writes the pose to `sink`: rest
    /// reset, bone-control overrides, channels, visibility, local → world, bone matrices and
    /// morph weights.
    ///
    /// A step that is not finite (a NaN or infinite `delta_ms`, or a NaN or infinite
    /// `speed_ratio`) is ignored, so one bad frame time cannot poison the clock; a `time` that
    /// is not finite (set from outside) counts as 0.
    pub fn tick(&mut self, delta_ms: f32, sink: &mut dyn PoseSink) {
        if self.playing {
            self.time = advance_time(
                self.time,
                delta_ms / 1000.0 * self.speed_ratio,
                self.duration(),
                self.looping,
            );
        }
        if self.visible {
            self.pose(self.clip, self.time, sink);
        }
    }

    /// Evaluates `clip` (or the rest pose) at `time` seconds and writes it to `sink`, without
    /// touching the controller's clock or chosen clip: for tools, tests and scrubbing.
    ///
    /// # Errors
    /// [`AnimError::NoSuchClip`] for an index past the end.
    pub fn evaluate_at(
        &mut self,
        clip: Option<usize>,
        time: f32,
        sink: &mut dyn PoseSink,
    ) -> Result<(), AnimError> {
        self.check_clip(clip)?;
        self.pose(clip, time, sink);
        Ok(())
    }

    /// Poses `clip` (valid, or `None`) at `time`: the fused pass without a hook, the step by
    /// step pipeline with one.
    pub(crate) fn pose(&mut self, clip: Option<usize>, time: f32, sink: &mut dyn PoseSink) {
        // Without a hook nothing needs the pose between its steps: sample straight into the
        // hierarchy pass.
        if let (None, Some(c)) = (&self.hook, clip) {
            let data = &*self.data;
            if crate::pose::pose_clip_fused(data, c, time, &mut self.scratch) {
                crate::pose::compute_frame_bone_matrices(data, &mut self.scratch, sink);
                return;
            }
        }
        self.pose_with(sink, |data, scratch| {
            if let Some(c) = clip {
                apply_clip(data, c, time, scratch);
            }
        });
    }

    /// The pose pipeline with the channel step supplied by the caller (one clip here, a blend
    /// in [`WeightedBlend`](crate::WeightedBlend)): rest reset, `before_channels`, `channels`,
    /// `after_channels`, local → world, bone matrices and morph weights to `sink`. Keeping the
    /// order in one place is what makes visibility beat animation in every pose path.
    pub(crate) fn pose_with(
        &mut self,
        sink: &mut dyn PoseSink,
        channels: impl FnOnce(&AnimationData, &mut PoseScratch),
    ) {
        let data = &*self.data;
        let scratch = &mut self.scratch;
        reset_to_rest(data, scratch);
        if let Some(hook) = &self.hook {
            hook.before_channels(&mut scratch.trs);
        }
        channels(data, scratch);
        if let Some(hook) = &self.hook {
            hook.after_channels(&mut scratch.trs);
        }
        crate::pose::compute_frame_matrices(scratch);
        crate::pose::compute_frame_bone_matrices(data, scratch, sink);
    }

    /// World matrices of every node from the last pose, 16 floats each (the seed's
    /// `_debugWorldMat`).
    ///
    /// The controller poses in a frame where the first skinned mesh sits at its rest place
    /// (bone matrices then cost one product each, not two); world matrices are one product per
    /// node away and are computed here, on the first call after each pose.
    pub fn world_matrices(&mut self) -> &[f32] {
        self.resolve_world_matrices();
        &self.scratch.world
    }

    /// Brings `scratch().world` up to date with the last pose (what
    /// [`world_matrices`](Self::world_matrices) does before returning them), for callers that
    /// read them together with other scratch buffers.
    pub fn resolve_world_matrices(&mut self) {
        crate::pose::resolve_world(&mut self.scratch);
    }

    /// Bone matrices of skeleton binding `binding` from the last pose.
    #[must_use]
    pub fn bone_matrices(&self, binding: usize) -> Option<&[f32]> {
        self.scratch.bones.get(binding).map(Vec::as_slice)
    }

    /// Morph weights of morph binding `binding` from the last pose.
    #[must_use]
    pub fn morph_weights(&self, binding: usize) -> Option<&[f32]> {
        self.scratch.morph_weights.get(binding).map(Vec::as_slice)
    }

    /// Node names in node order (the seed's `_debugNodeNames`).
    pub fn node_names(&self) -> impl Iterator<Item = &str> {
        self.data.nodes.iter().map(|n| n.name.as_str())
    }

    /// The scratch buffers of the last pose (TRS, bones, weights; `world` as of the last
    /// [`world_matrices`](Self::world_matrices) call).
    #[must_use]
    pub fn scratch(&self) -> &PoseScratch {
        &self.scratch
    }
}

/// Moves `time` by `delta` seconds within a clip of `duration`: wraps into `[0, duration)` when
/// looping (negative speeds wrap from the start to the end), clamps to `[0, duration]`
/// otherwise. A non-finite `delta` does not move the clock; a non-finite `time` counts as 0.
#[must_use]
pub(crate) fn advance_time(time: f32, delta: f32, duration: f32, looping: bool) -> f32 {
    let time = if time.is_finite() { time } else { 0.0 };
    let t = if delta.is_finite() {
        time + delta
    } else {
        time
    };
    if duration.is_nan() || duration <= 0.0 || !t.is_finite() {
        return 0.0;
    }
    if looping {
        // Most frames stay inside the loop: skip the (slow) float remainder.
        if (0.0..duration).contains(&t) {
            return t;
        }
        let wrapped = t.rem_euclid(duration);
        // rem_euclid may round up to exactly `duration` for tiny negative inputs.
        if wrapped >= duration { 0.0 } else { wrapped }
    } else {
        t.clamp(0.0, duration)
    }
}

#[cfg(test)]
mod tests {
    use super::advance_time;

    #[test]
    fn wraps_into_the_half_open_loop() {
        assert_eq!(advance_time(1.5, 0.5, 2.0, true), 0.0);
        assert_eq!(advance_time(0.25, -0.5, 2.0, true), 1.75);
        assert_eq!(advance_time(0.0, 9.0, 2.0, true), 1.0);
        assert_eq!(advance_time(0.0, -9.0, 2.0, true), 1.0);
        // −1e-9 rem_euclid 2 rounds to exactly 2.0 in f32: that is the start of the loop.
        assert_eq!((-1e-9_f32).rem_euclid(2.0), 2.0);
        assert_eq!(advance_time(0.0, -1e-9, 2.0, true), 0.0);
    }

    #[test]
    fn clamps_when_not_looping() {
        assert_eq!(advance_time(1.5, 1.0, 2.0, false), 2.0);
        assert_eq!(advance_time(0.5, -1.0, 2.0, false), 0.0);
        assert_eq!(advance_time(0.5, 1.0, 2.0, false), 1.5);
    }

    #[test]
    fn bad_inputs_cannot_poison_the_clock() {
        assert_eq!(advance_time(0.5, f32::NAN, 2.0, true), 0.5);
        assert_eq!(advance_time(0.5, f32::INFINITY, 2.0, false), 0.5);
        assert_eq!(advance_time(f32::NAN, 0.25, 2.0, true), 0.25);
        assert_eq!(advance_time(f32::MAX, f32::MAX, 2.0, true), 0.0);
        // A clip without length (no clip, or a single key at 0) holds time 0.
        assert_eq!(advance_time(0.7, 1.0, 0.0, true), 0.0);
    }
}
