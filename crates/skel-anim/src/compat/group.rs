//! Animation groups: one playable clip with its own clock (the seed's `createAnimationGroups()`
//! and `tickAnimation(group, deltaMs, engine)`; Babylon.js `AnimationGroup`).
//!
//! Every group of an asset holds the same [`Arc<AnimationData>`]: keyframes exist once however
//! many groups (or characters) play them; a group owns only its clock and pose scratch.
//!
//! ```
//! use std::sync::Arc;
//! use skel_anim::*;
//!
//! // One joint sliding along x from 0 to 2 over one second.
//! let slide = Sampler::new(vec![0.0, 1.0], vec![0.0, 0.0, 0.0, 2.0, 0.0, 0.0], Interpolation::Linear)?;
//! let data = Arc::new(AnimationData {
//!     nodes: vec![NodeRest::new("root", None), NodeRest::new("mesh", None)],
//!     clips: vec![Clip::new(
//!         "slide",
//!         vec![slide],
//!         vec![Channel { sampler: 0, node: 0, path: ChannelPath::Translation }],
//!     )],
//!     skeletons: vec![SkeletonBinding::new(0, 1, vec![0], vec![])?],
//!     morph_bindings: vec![],
//!     handedness: Handedness::RightHanded,
//! });
//!
//! let mut groups = create_animation_groups(data)?;
//! let group = &mut groups[0];
//! group.set_looping(false);
//! group.play();
//! let mut sink = RecordingSink::default();
//! tick_animation(group, 750.0, &mut sink);
//! assert!((sink.bone_matrices[0][12] - 1.5).abs() < 1e-6);
//! tick_animation(group, 750.0, &mut sink); // runs into the end: clamped, finished
//! assert!(group.is_finished() && group.finished_this_tick());
//! assert_eq!(sink.bone_matrices[0][12], 2.0);
//! # Ok::<(), AnimError>(())
//! ```

use std::sync::Arc;

use crate::{AnimError, AnimationData, LayerDesc, PlaybackClock, Player, PoseHook, PoseSink, Rig};

/// One clip of an asset with its own [`PlaybackClock`] (play, pause, stop, seek, speed, loop,
/// sub-range) and its own pose scratch: a thin adapter over a [`Player`] holding one layer.
///
/// [`tick`](Self::tick) (or [`tick_animation`]) advances the clock and writes the clip's pose
/// at the new time to a [`PoseSink`]; like [`AnimationController::tick`](crate::AnimationController::tick)
/// it allocates nothing and cannot fail, and a paused or finished group still writes its (held)
/// pose. Groups of one asset drive the same character independently of each other: to mix
/// clips, give one [`Player`] several layers.
#[derive(Debug, Clone)]
pub struct AnimationGroup {
    player: Player,
    clip: usize,
}

impl AnimationGroup {
    /// A stopped group for clip `clip` of `data`, over the clip's whole duration, looping.
    ///
    /// # Errors
    /// What [`AnimationData::validate`] finds, or [`AnimError::NoSuchClip`].
    pub fn new(data: Arc<AnimationData>, clip: usize) -> Result<Self, AnimError> {
        Self::from_rig(&Rig::new(data)?, clip)
    }

    /// A stopped group for clip `clip` of an already compiled rig.
    ///
    /// # Errors
    /// [`AnimError::NoSuchClip`].
    pub fn from_rig(rig: &Arc<Rig>, clip: usize) -> Result<Self, AnimError> {
        let mut player = Player::new(rig);
        let layer = player.add_layer(LayerDesc::new(clip))?;
        player.layer_mut(layer)?.clock_mut().stop();
        Ok(Self { player, clip })
    }

    /// The clip this group plays.
    #[must_use]
    pub fn clip(&self) -> usize {
        self.clip
    }

    /// The clip's name (glTF `animation.name`).
    #[must_use]
    pub fn name(&self) -> &str {
        &self.player.data().clips[self.clip].name
    }

    /// The shared animation data.
    #[must_use]
    pub fn data(&self) -> &Arc<AnimationData> {
        self.player.data()
    }

    /// The playback clock.
    #[must_use]
    pub fn clock(&self) -> &PlaybackClock {
        self.player.layers()[0].clock()
    }

    /// The playback clock, for everything the shortcuts below do not cover.
    pub fn clock_mut(&mut self) -> &mut PlaybackClock {
        self.player.layers_mut()[0].clock_mut()
    }

    /// Starts or resumes playback (see [`PlaybackClock::play`]).
    pub fn play(&mut self) {
        self.clock_mut().play();
    }

    /// Pauses, keeping the time.
    pub fn pause(&mut self) {
        self.clock_mut().pause();
    }

    /// Stops and goes back to `from`.
    pub fn stop(&mut self) {
        self.clock_mut().stop();
    }

    /// Plays again from the start of the playing direction.
    pub fn restart(&mut self) {
        self.clock_mut().restart();
    }

    /// Moves the playhead to `time` seconds (clamped to the range).
    pub fn seek(&mut self, time: f32) {
        self.clock_mut().seek(time);
    }

    /// Moves the playhead to `frame` at `fps` frames per second.
    #[doc(alias = "goToFrame")]
    pub fn go_to_frame(&mut self, frame: f32, fps: f32) {
        self.clock_mut().go_to_frame(frame, fps);
    }

    /// Sets the speed multiplier (negative plays backwards; NaN and infinities are ignored).
    #[doc(alias = "speedRatio")]
    pub fn set_speed_ratio(&mut self, speed_ratio: f32) {
        self.clock_mut().set_speed_ratio(speed_ratio);
    }

    /// Looping (wrap) or clamped (hold the last frame and finish) playback.
    pub fn set_looping(&mut self, looping: bool) {
        self.clock_mut().set_looping(looping);
    }

    /// Plays only `[from, to]` seconds of the clip.
    ///
    /// # Errors
    /// [`AnimError::BadPlaybackRange`] when the range is not finite or `from > to`.
    pub fn set_range(&mut self, from: f32, to: f32) -> Result<(), AnimError> {
        self.clock_mut().set_range(from, to)
    }

    /// Current clip time in seconds.
    #[must_use]
    pub fn time(&self) -> f32 {
        self.clock().time()
    }

    /// Whether the group is playing.
    #[must_use]
    pub fn is_playing(&self) -> bool {
        self.clock().is_playing()
    }

    /// Whether a clamped group has reached its end.
    #[must_use]
    pub fn is_finished(&self) -> bool {
        self.clock().is_finished()
    }

    /// Whether the last tick is the one that finished the group (true for one tick).
    #[must_use]
    pub fn finished_this_tick(&self) -> bool {
        self.clock().finished_this_tick()
    }

    /// Installs (or removes) the bone-control hook of this group's pose.
    pub fn set_pose_hook(&mut self, hook: Option<Arc<dyn PoseHook>>) {
        self.player.set_pose_hook(hook);
    }

    /// Advances the clock by `delta_ms` milliseconds and (when [`visible`](Self::visible))
    /// writes the pose at the new time to `sink` (rest reset, bone-control overrides, channels,
    /// visibility, world, bones).
    pub fn tick(&mut self, delta_ms: f32, sink: &mut dyn PoseSink) {
        self.player.tick_seconds(f64::from(delta_ms) / 1000.0, sink);
    }

    /// Marks the group visible or not (see [`Player::set_visible`]): while not
    /// visible, [`tick`](Self::tick) moves the clock and skips the pose.
    pub fn set_visible(&mut self, visible: bool) {
        self.player.set_visible(visible);
    }

    /// Whether [`tick`](Self::tick) poses.
    #[must_use]
    pub fn visible(&self) -> bool {
        self.player.visible()
    }

    /// Writes the pose at the current time to `sink` without moving the clock.
    pub fn evaluate(&mut self, sink: &mut dyn PoseSink) {
        self.player.evaluate(sink);
    }

    /// The player holding this group's layer and last pose (bone matrices, morph weights,
    /// scratch).
    #[must_use]
    pub fn player(&self) -> &Player {
        &self.player
    }

    /// World matrices of every node from the last pose, 16 floats each (see
    /// [`Player::world_matrices`]).
    pub fn world_matrices(&mut self) -> &[f32] {
        self.player.world_matrices()
    }

    /// Brings `player().scratch().world` up to date with the last pose.
    pub fn resolve_world_matrices(&mut self) {
        self.player.resolve_world_matrices();
    }
}

/// One stopped [`AnimationGroup`] per clip of `data`, in clip order, all sharing `data` (the
/// asset is validated once; each group gets its own copy of the pose scratch).
///
/// # Errors
/// What [`AnimationData::validate`] finds.
#[doc(alias = "createAnimationGroups")]
pub fn create_animation_groups(data: Arc<AnimationData>) -> Result<Vec<AnimationGroup>, AnimError> {
    create_animation_groups_for(&Rig::new(data)?)
}

/// [`create_animation_groups`] over an already compiled rig (every group shares it).
///
/// # Errors
/// None in practice (every clip index exists); typed for symmetry with the other constructors.
pub fn create_animation_groups_for(rig: &Arc<Rig>) -> Result<Vec<AnimationGroup>, AnimError> {
    (0..rig.clip_count())
        .map(|clip| AnimationGroup::from_rig(rig, clip))
        .collect()
}

/// Advances `group` by `delta_ms` milliseconds and writes its pose to `sink`: the seed's
/// `tickAnimation(group, deltaMs, engine)`, with the engine's GPU upload behind the sink.
#[doc(alias = "tickAnimation")]
pub fn tick_animation(group: &mut AnimationGroup, delta_ms: f32, sink: &mut dyn PoseSink) {
    group.tick(delta_ms, sink);
}
