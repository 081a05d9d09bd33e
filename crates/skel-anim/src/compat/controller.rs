//! The per-frame animation controller (the seed's `createAnimationController`).

use std::sync::Arc;

use crate::{
    AnimError, AnimationData, LayerDesc, LoopMode, Player, PoseHook, PoseScratch, PoseSink, Rig,
};

/// Plays one clip of an asset and turns it into bone matrices every frame: the seed's
/// controller, a thin adapter over a [`Player`] holding at most one layer.
///
/// All scratch memory is allocated in [`AnimationController::new`]; [`tick`](Self::tick)
/// allocates nothing and cannot fail. Keyframes are shared through the rig: many controllers
/// over one [`Rig`] ([`from_rig`](Self::from_rig), or clones) cost only their scratch buffers.
#[derive(Debug, Clone)]
pub struct AnimationController {
    player: Player,
    clip: Option<usize>,
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
    /// Validates and compiles `data` (a new [`Rig`]) and allocates every scratch buffer. Starts
    /// playing with no clip chosen (the rest pose) at time 0; pick one with
    /// [`set_clip`](Self::set_clip). To share one compiled rig between many controllers, build
    /// it once with [`Rig::new`] and use [`from_rig`](Self::from_rig) (or clone a controller).
    ///
    /// # Errors
    /// What [`AnimationData::validate`] finds (bad indices, cycles, wrong component counts).
    #[doc(alias = "createAnimationController")]
    pub fn new(data: Arc<AnimationData>) -> Result<Self, AnimError> {
        Ok(Self::from_rig(&Rig::new(data)?))
    }

    /// A controller over an already compiled rig (no validation or planning again).
    #[must_use]
    pub fn from_rig(rig: &Arc<Rig>) -> Self {
        Self {
            player: Player::new(rig),
            clip: None,
            time: 0.0,
            playing: true,
            speed_ratio: 1.0,
            looping: true,
            visible: true,
        }
    }

    /// Chooses the clip to play (`None`: rest pose only). Allocates the layer's cursors.
    ///
    /// # Errors
    /// [`AnimError::NoSuchClip`] for an index past the end.
    pub fn set_clip(&mut self, clip: Option<usize>) -> Result<(), AnimError> {
        if let Some(c) = clip {
            self.player.rig().check_clip(c)?;
        }
        self.player.clear_layers();
        if let Some(c) = clip {
            self.player.add_layer(LayerDesc::new(c))?;
        }
        self.clip = clip;
        Ok(())
    }

    /// The clip being played.
    #[must_use]
    pub fn clip(&self) -> Option<usize> {
        self.clip
    }

    /// Duration of the current clip in seconds (0 without one).
    #[must_use]
    pub fn duration(&self) -> f32 {
        self.clip
            .and_then(|c| self.player.rig().clip_duration(c))
            .unwrap_or(0.0)
    }

    /// The shared animation data.
    #[must_use]
    pub fn data(&self) -> &Arc<AnimationData> {
        self.player.data()
    }

    /// The compiled rig.
    #[must_use]
    pub fn rig(&self) -> &Arc<Rig> {
        self.player.rig()
    }

    /// The player underneath (one layer while a clip is chosen).
    #[must_use]
    pub fn player(&self) -> &Player {
        &self.player
    }

    /// Installs (or with `None` removes) the bone-control hook.
    pub fn set_pose_hook(&mut self, hook: Option<Arc<dyn PoseHook>>) {
        self.player.set_pose_hook(hook);
    }

    /// The installed bone-control hook.
    #[must_use]
    pub fn pose_hook(&self) -> Option<&Arc<dyn PoseHook>> {
        self.player.pose_hook()
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
        if !self.time.is_finite() {
            self.time = 0.0;
        }
        let loop_mode = if self.looping {
            LoopMode::Repeat
        } else {
            LoopMode::Once
        };
        let (time, speed, playing) = (self.time, self.speed_ratio, self.playing);
        let speed = if speed.is_finite() { speed } else { 0.0 };
        match self.player.layers_mut().first_mut() {
            Some(layer) => {
                let clock = layer.clock_mut();
                clock.set_state(time, speed, loop_mode, playing);
                clock.advance(delta_ms);
                self.time = clock.time();
            }
            // No clip: a clip without length holds time 0.
            None if playing => self.time = 0.0,
            None => {}
        }
        self.player.set_visible(self.visible);
        if self.visible {
            // The one layer at weight 1 is plain playback: straight to the single-clip pass.
            self.player.pose_clip(self.clip, self.time, sink);
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
        self.player.evaluate_clip_at(clip, time, sink)
    }

    /// World matrices of every node from the last pose, 16 floats each (the seed's
    /// `_debugWorldMat`).
    ///
    /// The controller poses in a frame where the first skinned mesh sits at its rest place
    /// (bone matrices then cost one product each, not two); world matrices are one product per
    /// node away and are computed here, on the first call after each pose.
    pub fn world_matrices(&mut self) -> &[f32] {
        self.player.world_matrices()
    }

    /// Brings `scratch().world` up to date with the last pose (what
    /// [`world_matrices`](Self::world_matrices) does before returning them), for callers that
    /// read them together with other scratch buffers.
    pub fn resolve_world_matrices(&mut self) {
        self.player.resolve_world_matrices();
    }

    /// Bone matrices of skeleton binding `binding` from the last pose.
    #[must_use]
    pub fn bone_matrices(&self, binding: usize) -> Option<&[f32]> {
        self.player.bone_matrices(binding)
    }

    /// Morph weights of morph binding `binding` from the last pose.
    #[must_use]
    pub fn morph_weights(&self, binding: usize) -> Option<&[f32]> {
        self.player.morph_weights(binding)
    }

    /// Node names in node order (the seed's `_debugNodeNames`).
    pub fn node_names(&self) -> impl Iterator<Item = &str> {
        self.player.data().nodes.iter().map(|n| n.name.as_str())
    }

    /// The scratch buffers of the last pose (TRS, bones, weights; `world` as of the last
    /// [`world_matrices`](Self::world_matrices) call).
    #[must_use]
    pub fn scratch(&self) -> &PoseScratch {
        self.player.scratch()
    }
}
