//! Weighted blending of any number of clips of one asset (the seed's weighted manager,
//! `weighted-gltf-mixer` → `uploadTarget`; three.js `AnimationMixer`, bevy's blend weights).
//!
//! # What you see
//!
//! A [`WeightedBlend`] holds layers: a clip, a weight and a [`PlaybackClock`](crate::PlaybackClock) each (a clip may
//! appear in several layers). Every tick each property that some playing layer animates
//! (a node's translation, rotation or scale, or a mesh's morph weights) is blended **on its own**,
//! over only the layers whose clip animates it:
//!
//! - When those layers' weights add up to 1 or more, they are normalised by their sum: a
//!   hand-only clip at weight 1 over a walk at weight 1 averages the hands and leaves the body
//!   walking at full strength (it does not halve the body, as a global normalisation would).
//! - When they add up to less than 1, the rest pose (with any bone-control overrides) fills in
//!   the remainder: a cross-fade that brings in a clip animating bones the old one did not
//!   starts from where those bones were, with no jump on its first frame.
//! - A property no weighted layer animates keeps its rest value.
//!
//! Rotations are blended as weighted quaternion sums, each contributor flipped into the
//! hemisphere of the first one (`q` and `-q` are the same rotation; summing opposite signs would
//! cancel) and normalised at the end. Translations, scales and morph weights are weighted
//! linear sums. A property with a single contributor at weight ≥ 1 is copied as sampled, so
//! weights `(1, 0)` reproduce the first clip bit for bit. After blending, the bone-control
//! visibility hook runs again (`after_channels`: a hidden bone stays hidden even under clips with
//! scale tracks), exactly as in the single-clip [`AnimationController`](crate::AnimationController).
//!
//! The maps from each clip's channels to these properties are built once in
//! [`WeightedBlend::new`]; [`tick`](WeightedBlend::tick) walks flat arrays, allocates nothing
//! and cannot fail.
//!
//! ```
//! use std::sync::Arc;
//! use skel_anim::*;
//!
//! // Two clips moving one joint along x: "left" to -1, "right" to +1.
//! let clip = |name: &str, x: f32| -> Result<Clip, AnimError> {
//!     let s = Sampler::new(vec![0.0, 1.0], vec![0.0, 0.0, 0.0, x, 0.0, 0.0], Interpolation::Linear)?;
//!     Ok(Clip::new(name, vec![s], vec![Channel { sampler: 0, node: 0, path: ChannelPath::Translation }]))
//! };
//! let data = Arc::new(AnimationData {
//!     nodes: vec![NodeRest::new("root", None), NodeRest::new("mesh", None)],
//!     clips: vec![clip("left", -1.0)?, clip("right", 1.0)?],
//!     skeletons: vec![SkeletonBinding::new(0, 1, vec![0], vec![])?],
//!     morph_bindings: vec![],
//!     handedness: Handedness::RightHanded,
//! });
//!
//! let mut blend = WeightedBlend::with_weights(data, &[(0, 0.25), (1, 0.75)])?;
//! let mut sink = RecordingSink::default();
//! for layer in blend.layers_mut() {
//!     layer.clock_mut().seek(1.0); // both at the last key
//! }
//! blend.evaluate(&mut sink);
//! // 0.25 · -1 + 0.75 · 1 = 0.5
//! assert!((sink.bone_matrices[0][12] - 0.5).abs() < 1e-6);
//!
//! // Weight 0.5 on "right" alone: the rest pose (x = 0) fills in the other half.
//! blend.set_weight(0, 0.0)?;
//! blend.set_weight(1, 0.5)?;
//! blend.evaluate(&mut sink);
//! assert!((sink.bone_matrices[0][12] - 0.5).abs() < 1e-6);
//! # Ok::<(), AnimError>(())
//! ```

use std::sync::Arc;

use crate::{AnimError, AnimationData, LayerDesc, Player, PoseHook, PoseScratch, PoseSink, Rig};

pub use crate::player::MAX_WEIGHT;

/// One clip playing inside a [`WeightedBlend`]: a [`Layer`](crate::Layer) of the player
/// underneath, in blend mode.
pub type BlendLayer = crate::Layer;

/// A weighted blend of clips of one asset, turned into bone matrices and morph weights every
/// tick: the seed's weighted mixer, a thin adapter over a [`Player`] whose layers are all blend
/// layers, with the seed's millisecond tick. See the [module docs](self) for the blending rules.
#[derive(Debug, Clone)]
pub struct WeightedBlend {
    player: Player,
}

impl WeightedBlend {
    /// Validates and compiles `data` and allocates every buffer. Starts with no layers (the
    /// rest pose).
    ///
    /// # Errors
    /// What [`AnimationData::validate`] finds.
    pub fn new(data: Arc<AnimationData>) -> Result<Self, AnimError> {
        Ok(Self::from_rig(&Rig::new(data)?))
    }

    /// A blend over an already compiled rig, with no layers.
    #[must_use]
    pub fn from_rig(rig: &Arc<Rig>) -> Self {
        Self {
            player: Player::new(rig),
        }
    }

    /// A blend with one playing, looping layer per `(clip, weight)`, in order.
    ///
    /// # Errors
    /// What [`AnimationData::validate`] finds, or [`AnimError::NoSuchClip`].
    pub fn with_weights(
        data: Arc<AnimationData>,
        weights: &[(usize, f32)],
    ) -> Result<Self, AnimError> {
        let mut blend = Self::new(data)?;
        for &(clip, weight) in weights {
            blend.add_layer(clip, weight)?;
        }
        Ok(blend)
    }

    /// Adds a layer playing `clip` at `weight` (playing and looping over the whole clip, at
    /// time 0) and returns its index. Negative, NaN and infinite weights count as 0. Allocates:
    /// do it at setup, not every frame.
    ///
    /// # Errors
    /// [`AnimError::NoSuchClip`] for an index past the end.
    pub fn add_layer(&mut self, clip: usize, weight: f32) -> Result<usize, AnimError> {
        let weight = if weight.is_finite() { weight } else { 0.0 };
        self.player.add_layer(LayerDesc::new(clip).weight(weight))
    }

    /// Removes layer `layer` (later layers move down by one) and returns it.
    ///
    /// # Errors
    /// [`AnimError::NoSuchLayer`] for an index past the end.
    pub fn remove_layer(&mut self, layer: usize) -> Result<BlendLayer, AnimError> {
        self.player.remove_layer(layer)
    }

    /// Sets the weight of layer `layer` (negative, NaN and infinite weights count as 0, weights
    /// above [`MAX_WEIGHT`] as `MAX_WEIGHT`).
    ///
    /// # Errors
    /// [`AnimError::NoSuchLayer`] for an index past the end.
    pub fn set_weight(&mut self, layer: usize, weight: f32) -> Result<(), AnimError> {
        let weight = if weight.is_finite() { weight } else { 0.0 };
        self.player.set_weight(layer, weight)
    }

    /// The layers, in order.
    #[must_use]
    pub fn layers(&self) -> &[BlendLayer] {
        self.player.layers()
    }

    /// The layers, to change weights and clocks.
    pub fn layers_mut(&mut self) -> &mut [BlendLayer] {
        self.player.layers_mut()
    }

    /// The player underneath.
    #[must_use]
    pub fn player(&self) -> &Player {
        &self.player
    }

    /// The player underneath, e.g. to add additive or masked layers.
    pub fn player_mut(&mut self) -> &mut Player {
        &mut self.player
    }

    /// The shared animation data.
    #[must_use]
    pub fn data(&self) -> &Arc<AnimationData> {
        self.player.data()
    }

    /// Installs (or removes) the bone-control hook: `before_channels` runs after the rest
    /// reset (so overrides are the "rest" that fills in below weight 1), `after_channels`
    /// (visibility) after the blend.
    pub fn set_pose_hook(&mut self, hook: Option<Arc<dyn PoseHook>>) {
        self.player.set_pose_hook(hook);
    }

    /// The installed bone-control hook.
    #[must_use]
    pub fn pose_hook(&self) -> Option<&Arc<dyn PoseHook>> {
        self.player.pose_hook()
    }

    /// Freezes the pose of the last evaluation (the blended values, before visibility) as an
    /// extra contributor (see [`Player::capture_snapshot`]).
    pub fn capture_snapshot(&mut self) {
        self.player.capture_snapshot();
    }

    /// Weight of the captured snapshot (0: ignored).
    #[must_use]
    pub fn snapshot_weight(&self) -> f32 {
        self.player.snapshot_weight()
    }

    /// Sets the snapshot's weight (negative, NaN and infinite weights count as 0, weights above
    /// [`MAX_WEIGHT`] as `MAX_WEIGHT`).
    pub fn set_snapshot_weight(&mut self, weight: f32) {
        self.player.set_snapshot_weight(weight);
    }

    /// Drops the snapshot (weight 0, nothing captured).
    pub fn clear_snapshot(&mut self) {
        self.player.clear_snapshot();
    }

    /// Advances every layer's clock by `delta_ms` milliseconds, then (when
    /// [`visible`](Self::visible)) blends and writes the pose to `sink` (see
    /// [`evaluate`](Self::evaluate)).
    pub fn tick(&mut self, delta_ms: f32, sink: &mut dyn PoseSink) {
        self.player.tick_seconds(f64::from(delta_ms) / 1000.0, sink);
    }

    /// Marks the blend visible or not (see [`Player::set_visible`]).
    pub fn set_visible(&mut self, visible: bool) {
        self.player.set_visible(visible);
    }

    /// Whether [`tick`](Self::tick) poses.
    #[must_use]
    pub fn visible(&self) -> bool {
        self.player.visible()
    }

    /// Blends the layers at their current times and writes the pose to `sink`.
    pub fn evaluate(&mut self, sink: &mut dyn PoseSink) {
        self.player.evaluate(sink);
    }

    /// World matrices of every node from the last pose, 16 floats each.
    pub fn world_matrices(&mut self) -> &[f32] {
        self.player.world_matrices()
    }

    /// Brings `scratch().world` up to date with the last pose.
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

    /// The scratch buffers of the last pose (blended TRS, world matrices, bones, weights).
    #[must_use]
    pub fn scratch(&self) -> &PoseScratch {
        self.player.scratch()
    }
}
