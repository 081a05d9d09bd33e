//! The player of layers (see [`Player`]) and its parts.
pub(crate) mod accumulators;
mod additive;
pub(crate) mod clock;
mod events;
mod fade;
mod foot_pass;
mod group;
mod group_mix;
mod ik_jobs;
pub(crate) mod ik_pass;
mod inertia_state;
mod inertialize;
mod lane_rules;
mod layer;
mod mask;
pub(crate) mod mix;
pub(crate) mod motion_extraction;
mod playback;
mod properties;
mod quad_mix;
mod root_motion;
mod spring_pass;

use std::sync::Arc;

use glam::Mat4;

pub use events::AnimationEvent;
pub use fade::FadeSync;
pub use foot_pass::FootPlacementJob;
pub use group::{GroupDesc, GroupMode, LayerGroup};
pub use ik_pass::IkJob;
pub use layer::{Layer, LayerDesc, LayerMode, MAX_WEIGHT, Reference};
pub use mask::Mask;
pub use mix::{LayerMix, mix_layers};
pub use motion_extraction::{RootDelta, RootMotion};
pub use properties::PropertyPose;
pub use spring_pass::SpringJob;

use crate::{AnimError, AnimationData, PoseHook, PoseScratch, Rig};
use accumulators::{Mix, Snapshot};

/// One player per character: an ordered list of layers over a compiled [`Rig`], turned into
/// bone matrices and morph weights every tick (bevy's `AnimationPlayer`, three.js's
/// `AnimationMixer`).
///
/// # What you see
///
/// Each [`Layer`] plays one clip on its own [`PlaybackClock`](crate::PlaybackClock) with a
/// weight, a [`LayerMode`] and an optional [`Mask`]. Every tick, property by property (a node's
/// translation, rotation or scale, a mesh's morph weights):
///
/// 1. **Blend layers** that animate the property with a non-zero effective weight
///    (`weight × fade × mask(node)`) are averaged: normalised by their total when it is 1 or
///    more; below 1 the rest value (with any bone-control overrides) fills the remainder, so a
///    layer fading in starts from where the bone was. Rotations are weighted quaternion sums,
///    each contributor flipped into the first one's hemisphere, normalised at the end (not
///    three.js's running slerp; the two agree within the golden tolerance, and exactly for one
///    contributor). A single contributor at weight ≥ 1 is copied as sampled.
/// 2. **Additive layers** are then applied in layer order, each as its difference from a
///    reference pose ([`Reference`]: by default its own clip at time 0; the rest value where
///    the reference clip does not animate a property): rotation `q ← q · (conj(ref) · v)^w`,
///    translation, scale and morph weights `x ← x + w · (v − ref)`. Negative weights subtract.
///    A property only additive layers animate starts from its rest value.
/// 3. A property no layer animates keeps its rest value.
///
/// **Layer groups** ([`add_group`](Self::add_group), [`LayerDesc::group`]) put a pose made of
/// several clips (a state mid-fade, a blend space) over what lies below, as Unity's layers do.
/// Ungrouped blend layers make the base pose (rule 1); then each group applies, in the order
/// the groups were added:
/// - an **override** group's own pose is rule 1 over its members alone (blend layers; with its
///   [snapshot](Self::capture_group_snapshot) as one more member), the pose below filling a
///   total below 1; it is laid over the pose below as `lerp(below, own, weight × mask(node))`,
///   rotations by a normalised lerp on the short path. Weight 0 leaves the pose below; weight
///   1 over members whose weights sum to 1 shows the group's blend alone;
/// - an **additive** group's members (additive layers) are added by rule 2 at their weight ×
///   the group's weight × the group's mask, after its [snapshot](Self::capture_group_snapshot)
///   (the change the group applied when it was captured) at the snapshot's weight × the same.
///
/// Ungrouped additive layers then apply last (rule 2). Root motion follows the same weights
/// (see [`RootMotion`]). A layer's members renormalise only against each other: that is what
/// a group is for, and why weights alone cannot do it.
///
/// One blend layer at effective weight ≥ 1 with no mask (plain playback) takes the fused
/// single-clip pass: it costs what a single clip always cost. Other stacks over clips whose
/// keys come in four-node blocks ([`Rig::layers_four_nodes_at_a_time`]; exporters' usual
/// output) apply these rules four nodes at a time and compose and place in the same pass; a
/// stack with a [snapshot](Player::capture_snapshot) or [root motion](Player::set_root_motion),
/// or over other clips, runs them property by property. Both give the same pose within f32
/// rounding. A player with groups runs property by property, unless its groups reduce to a
/// plain stack (one override group at weight 1 without a mask or snapshot, nothing below it,
/// every other layer silent but the ungrouped additive ones: a graph whose upper layers are
/// off), which takes the paths above; a player without groups takes exactly the paths it took
/// before groups existed.
///
/// Cross-fades are weight ramps owned by the player: [`Player::crossfade_to`] ramps every blend
/// layer down to 0 and the new clip's layer up to 1 over the same time, so weights that summed to
/// 1 keep summing to 1 and an interrupted fade continues from the weights on screen.
///
/// Building layers allocates (their cursors, masks, reference poses); ticking never does.
///
/// ```
/// use std::sync::Arc;
/// use skel_anim::*;
///
/// // One joint moving along x: "left" to -1, "right" to +1 over one second.
/// let clip = |name: &str, x: f32| -> Result<Clip, AnimError> {
///     let s = Sampler::new(vec![0.0, 1.0], vec![0.0, 0.0, 0.0, x, 0.0, 0.0], Interpolation::Linear)?;
///     Ok(Clip::new(name, vec![s], vec![Channel { sampler: 0, node: 0, path: ChannelPath::Translation }]))
/// };
/// let rig = Rig::new(Arc::new(AnimationData {
///     nodes: vec![NodeRest::new("root", None), NodeRest::new("mesh", None)],
///     clips: vec![clip("left", -1.0)?, clip("right", 1.0)?],
///     skeletons: vec![SkeletonBinding::new(0, 1, vec![0], vec![])?],
///     morph_bindings: vec![],
///     handedness: Handedness::RightHanded,
/// }))?;
/// let mut player = Player::new(&rig);
/// player.add_layer(LayerDesc::new(0).weight(0.25))?;
/// player.add_layer(LayerDesc::new(1).weight(0.75))?;
/// let mut sink = RecordingSink::default();
/// player.tick(1.0, &mut sink); // one second: both clips at their last key
/// // 0.25 · -1 + 0.75 · 1 = 0.5 … but a second wraps a looping clip back to 0:
/// assert!(sink.bone_matrices[0][0].w_axis.x.abs() < 1e-6);
/// player.tick(0.5, &mut sink);
/// assert!((sink.bone_matrices[0][0].w_axis.x - 0.25).abs() < 1e-6);
///
/// // "right" added on top of itself at half weight: +0.5 · (0.5 − 0).
/// player.add_layer(LayerDesc::new(1).weight(0.5).additive(Reference::default()))?;
/// player.layer_mut(2)?.clock_mut().seek(0.5);
/// player.evaluate(&mut sink);
/// assert!((sink.bone_matrices[0][0].w_axis.x - 0.5).abs() < 1e-6);
/// # Ok::<(), AnimError>(())
/// ```
#[derive(Debug, Clone)]
pub struct Player {
    poser: crate::pose::pipeline::Poser,
    layers: Vec<Layer>,
    groups: Vec<LayerGroup>,
    mix: Mix,
    snapshot: Snapshot,
    visible: bool,
    root: Option<motion_extraction::RootState>,
    ik: Vec<IkJob>,
    frame_map: ik_pass::FrameMap,
    /// Inertialized switches (`None` until the first one or a reservation).
    inertia: Option<Box<inertia_state::PlayerInertia>>,
    /// Foot placement, run after IK.
    foot: Option<Box<FootPlacementJob>>,
    /// Node constraints, run after foot placement and before the springs.
    constraints: Option<Arc<crate::constraint::NodeConstraints>>,
    /// Spring bones, stepped while the clocks advance and written after foot placement.
    springs: Option<Box<SpringJob>>,
    /// Seconds of the last advance (what the pose operations that ease take as their step).
    last_dt: f32,
}

impl Player {
    /// A player over `rig` with no layers (the rest pose). Allocates its scratch buffers.
    #[must_use]
    pub fn new(rig: &Arc<Rig>) -> Self {
        Self {
            poser: crate::pose::pipeline::Poser::new(rig),
            layers: Vec::new(),
            groups: Vec::new(),
            mix: Mix::new(rig),
            snapshot: Snapshot::new(rig),
            visible: true,
            root: None,
            ik: Vec::new(),
            frame_map: ik_pass::FrameMap::of(rig),
            inertia: None,
            foot: None,
            constraints: None,
            springs: None,
            last_dt: 0.0,
        }
    }

    /// The compiled rig.
    #[must_use]
    pub fn rig(&self) -> &Arc<Rig> {
        &self.poser.rig
    }

    /// The asset's data.
    #[must_use]
    pub fn data(&self) -> &Arc<AnimationData> {
        self.poser.rig.data()
    }

    /// Adds a layer on top of the others and returns its index. Allocates: do it at setup.
    ///
    /// # Errors
    /// [`AnimError::NoSuchClip`] for a clip (or reference clip) past the end,
    /// [`AnimError::NotFiniteValue`] for a NaN or infinite weight, speed, start or reference
    /// time, and what [`Mask`] resolution finds (unknown node, mask selecting nothing);
    /// for a [group](LayerDesc::group) member, [`AnimError::NoSuchGroup`] and
    /// [`AnimError::GroupModeMismatch`] (an override group takes blend layers, an additive
    /// group additive ones). Nothing is added on error.
    pub fn add_layer(&mut self, desc: LayerDesc) -> Result<usize, AnimError> {
        if let Some(group) = desc.group {
            self.check_member(group, desc.mode)?;
        }
        let layer = Layer::new(&self.poser.rig, &desc)?;
        self.layers.push(layer);
        Ok(self.layers.len() - 1)
    }

    /// Removes layer `layer` (later layers move down by one) and returns it.
    ///
    /// # Errors
    /// [`AnimError::NoSuchLayer`] for an index past the end.
    pub fn remove_layer(&mut self, layer: usize) -> Result<Layer, AnimError> {
        self.check_layer(layer)?;
        Ok(self.layers.remove(layer))
    }

    /// Removes every layer (the rest pose).
    pub fn clear_layers(&mut self) {
        self.layers.clear();
    }

    fn check_layer(&self, layer: usize) -> Result<(), AnimError> {
        if layer < self.layers.len() {
            Ok(())
        } else {
            Err(AnimError::NoSuchLayer {
                layer,
                layer_count: self.layers.len(),
            })
        }
    }

    /// The layers, bottom first.
    #[must_use]
    pub fn layers(&self) -> &[Layer] {
        &self.layers
    }

    /// The layers, to change weights and clocks.
    pub fn layers_mut(&mut self) -> &mut [Layer] {
        &mut self.layers
    }

    /// Layer `layer`.
    ///
    /// # Errors
    /// [`AnimError::NoSuchLayer`] for an index past the end.
    pub fn layer_mut(&mut self, layer: usize) -> Result<&mut Layer, AnimError> {
        self.check_layer(layer)?;
        Ok(&mut self.layers[layer])
    }

    /// Sets the weight of layer `layer` (see [`Layer::set_weight`]).
    ///
    /// # Errors
    /// [`AnimError::NoSuchLayer`] for an index past the end.
    pub fn set_weight(&mut self, layer: usize, weight: f32) -> Result<(), AnimError> {
        self.layer_mut(layer)?.set_weight(weight);
        Ok(())
    }

    /// Installs (or removes) the bone-control hook: `before_channels` runs after the rest
    /// reset (so overrides are the "rest" that fills in below weight 1), `after_channels`
    /// (visibility) after every layer.
    pub fn set_pose_hook(&mut self, hook: Option<Arc<dyn PoseHook>>) {
        self.poser.hook = hook;
    }

    /// The installed bone-control hook.
    #[must_use]
    pub fn pose_hook(&self) -> Option<&Arc<dyn PoseHook>> {
        self.poser.hook.as_ref()
    }

    /// Marks the character visible or not: while not visible, [`tick`](Self::tick) moves the
    /// clocks and fades and skips the pose (a culled character costs a few nanoseconds); its
    /// first visible tick poses it at its current times.
    pub fn set_visible(&mut self, visible: bool) {
        self.visible = visible;
    }

    /// Whether [`tick`](Self::tick) poses.
    #[must_use]
    pub fn visible(&self) -> bool {
        self.visible
    }

    /// World matrices of every node from the last pose, by node index (computed on the first
    /// call after each pose: the player poses in the first skinned mesh's rest frame, where a
    /// bone costs one product).
    pub fn world_matrices(&mut self) -> &[Mat4] {
        self.resolve_world_matrices();
        &self.poser.scratch.world
    }

    /// Brings `scratch().world` up to date with the last pose.
    pub fn resolve_world_matrices(&mut self) {
        crate::pose::steps::resolve_world(&mut self.poser.scratch);
    }

    /// Bone matrices of skeleton binding `binding` from the last pose.
    #[must_use]
    pub fn bone_matrices(&self, binding: usize) -> Option<&[Mat4]> {
        self.poser.scratch.bones.get(binding).map(Vec::as_slice)
    }

    /// Morph weights of morph binding `binding` from the last pose.
    #[must_use]
    pub fn morph_weights(&self, binding: usize) -> Option<&[f32]> {
        self.poser
            .scratch
            .morph_weights
            .get(binding)
            .map(Vec::as_slice)
    }

    /// The scratch buffers of the last pose (local TRS, bones, weights; `world` as of the last
    /// [`world_matrices`](Self::world_matrices) call).
    #[must_use]
    pub fn scratch(&self) -> &PoseScratch {
        &self.poser.scratch
    }
}
