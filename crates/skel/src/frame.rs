//! [`Frame`]: one call per frame that advances a character by `dt` seconds and leaves
//! everything a renderer reads consistent (bone matrices and morph weights on the GPU, node
//! world matrices, animated properties, root motion, the markers passed).

use skel_anim::glam::{Affine3A, Mat4, Vec3};
use skel_anim::{
    AnimationData, AnimationEvent, AnimationGroup, FootPlacementJob, Handedness, Player, PoseSink,
    PropertyPose, SpringJob,
};
use skel_gpu::GpuContext;
use skel_graph::GraphPlayer;

use crate::{AssetContainer, FrameError, MeshPoseSink};

/// What drives a character's pose for [`Frame::advance`]: a [`Player`] of layers, a
/// [`GraphPlayer`] (an animation graph over one), an [`AnimationGroup`] (the seed's one-clip
/// adapter), or a front end's own wrapper around one of them (a scheduler of parameter
/// changes, say). The frame only needs to advance it in seconds, hear its markers, read the
/// player that posed, and bring that player's world matrices up to date.
pub trait Animate {
    /// Advances by `dt` seconds, calls `on_event` for every marker a playhead passes, and
    /// (when the player is visible) writes the pose to `sink`.
    fn animate(
        &mut self,
        dt: f32,
        sink: &mut dyn PoseSink,
        on_event: &mut dyn FnMut(&AnimationEvent<'_>),
    );
    /// The player whose pose was written (world matrices, root motion, properties).
    fn player(&self) -> &Player;
    /// Brings the player's world matrices up to date with its last pose
    /// ([`Player::resolve_world_matrices`]).
    fn resolve_world_matrices(&mut self);
    /// The player's foot placement, which root motion moves to where the character stands
    /// ([`Player::foot_placement_mut`]); `None` by default.
    fn foot_placement_mut(&mut self) -> Option<&mut FootPlacementJob> {
        None
    }
    /// The player's VRM springs, which root motion carries with the character
    /// ([`Player::springs_mut`]); `None` by default.
    fn springs_mut(&mut self) -> Option<&mut SpringJob> {
        None
    }
}

impl Animate for Player {
    fn animate(
        &mut self,
        dt: f32,
        sink: &mut dyn PoseSink,
        on_event: &mut dyn FnMut(&AnimationEvent<'_>),
    ) {
        self.tick_with_events(dt, sink, on_event);
    }

    fn player(&self) -> &Player {
        self
    }

    fn resolve_world_matrices(&mut self) {
        Player::resolve_world_matrices(self);
    }

    fn foot_placement_mut(&mut self) -> Option<&mut FootPlacementJob> {
        Player::foot_placement_mut(self)
    }

    fn springs_mut(&mut self) -> Option<&mut SpringJob> {
        Player::springs_mut(self)
    }
}

impl Animate for GraphPlayer {
    fn animate(
        &mut self,
        dt: f32,
        sink: &mut dyn PoseSink,
        on_event: &mut dyn FnMut(&AnimationEvent<'_>),
    ) {
        self.tick_with_events(dt, sink, on_event);
    }

    fn player(&self) -> &Player {
        GraphPlayer::player(self)
    }

    fn resolve_world_matrices(&mut self) {
        self.player_mut().resolve_world_matrices();
    }

    fn foot_placement_mut(&mut self) -> Option<&mut FootPlacementJob> {
        self.player_mut().foot_placement_mut()
    }

    fn springs_mut(&mut self) -> Option<&mut SpringJob> {
        self.player_mut().springs_mut()
    }
}

impl Animate for AnimationGroup {
    /// The group's clock moves by `dt` seconds (its own `tick` takes the seed's
    /// milliseconds). The one-clip adapter reports no markers: play the clip on a [`Player`]
    /// to hear them.
    fn animate(
        &mut self,
        dt: f32,
        sink: &mut dyn PoseSink,
        _on_event: &mut dyn FnMut(&AnimationEvent<'_>),
    ) {
        self.tick(dt * 1000.0, sink);
    }

    fn player(&self) -> &Player {
        AnimationGroup::player(self)
    }

    fn resolve_world_matrices(&mut self) {
        AnimationGroup::resolve_world_matrices(self);
    }
}

/// A marker passed during the last [`Frame::advance`] (an owned copy of the player's
/// [`AnimationEvent`], so the list outlives the tick without copying names).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FrameEvent {
    /// The layer whose playhead passed the marker.
    pub layer: usize,
    /// The layer's clip.
    pub clip: usize,
    /// The marker's index in the clip's `markers`.
    pub marker: usize,
    /// The marker's time in the clip, in seconds.
    pub time: f32,
    /// The layer's effective weight after the tick (see [`AnimationEvent::weight`]).
    pub weight: f32,
}

impl FrameEvent {
    /// The marker's name, looked up in `data` (the container's `animation`).
    #[must_use]
    pub fn name<'a>(&self, data: &'a AnimationData) -> Option<&'a str> {
        let clip = data.clips.get(self.clip)?;
        clip.markers.get(self.marker).map(|m| m.name.as_str())
    }
}

impl From<&AnimationEvent<'_>> for FrameEvent {
    fn from(e: &AnimationEvent<'_>) -> Self {
        Self {
            layer: e.layer,
            clip: e.clip,
            marker: e.marker,
            time: e.time,
            weight: e.weight,
        }
    }
}

/// What a renderer reads after [`Frame::advance`], handed to its [`ShowFrame`].
#[derive(Debug, Clone, Copy)]
pub struct FrameState<'a> {
    /// Every node's world matrix, by node index (the meshes' placement; skinned meshes cancel
    /// theirs against the bone matrices).
    pub world: &'a [Mat4],
    /// The animated properties (`KHR_animation_pointer`: material factors, texture
    /// transforms, visibility, cameras, lights), one slot per `container.properties` entry.
    pub properties: &'a PropertyPose,
    /// With root motion: the model matrix that carries the in-place character along the
    /// motion accumulated so far ([`root_motion_instance`]); `None` without root motion.
    pub root_instance: Option<Mat4>,
    /// The markers passed in this frame, in the order they fired.
    pub events: &'a [FrameEvent],
}

/// A renderer that shows a frame: [`Frame::advance`] hands it the frame's state after
/// posing, so nothing a draw reads is left a frame behind. `skel::render::AssetRenderer`
/// implements it (world matrices, properties, and the root-motion instance); `()` shows
/// nothing (a program with its own drawing reads [`Frame`] and the player itself).
pub trait ShowFrame {
    /// Writes what the frame changed into the renderer's GPU state.
    fn show(&mut self, ctx: &GpuContext, container: &AssetContainer, frame: &FrameState<'_>);
}

impl ShowFrame for () {
    fn show(&mut self, _: &GpuContext, _: &AssetContainer, _: &FrameState<'_>) {}
}

/// One character's frame: the storage a frame fills besides the player's pose (the property
/// pose, the fired markers, the root-motion instance), allocated once by [`Frame::new`].
///
/// Each frame, [`advance`](Self::advance) runs, in this order: root motion moves the foot
/// placement's world to where the character now stands (the feet query the ground there);
/// the player advances by `dt` seconds and poses, its bone matrices and morph weights going
/// straight into the container's GPU buffers; the node world matrices are resolved; the
/// property tracks are blended by the same layer weights as the joints; the root-motion
/// instance is recomputed; the renderer is handed all of it. Times are in seconds (the seed's
/// millisecond `tick_animation` stays on [`AssetContainer`] for its animation groups).
///
/// ```
/// use skel::render::{AssetRenderer, OffscreenTarget};
/// use skel::{Frame, LoadOptions, anim::LayerDesc, anim::Player, gpu::GpuContext, load_gltf};
///
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let ctx = match GpuContext::new_headless() {
///     Ok(ctx) => ctx,
///     Err(e) => {
///         eprintln!("no GPU adapter, nothing to show: {e}");
///         return Ok(());
///     }
/// };
/// let mut character = load_gltf(&ctx, skel::DEFAULT_CHARACTER, &LoadOptions::default())?;
/// let target = OffscreenTarget::new(&ctx.device, 64, 64, 1)?;
/// let mut renderer = AssetRenderer::new(&ctx, &character, &target.format())?;
/// let mut player = Player::new(&character.rig);
/// player.add_layer(LayerDesc::new(character.clip_index("Walk").unwrap_or(0)))?;
///
/// let mut frame = Frame::new(&character);
/// for _ in 0..3 {
///     // Bones, morph weights, node transforms, properties and root motion, then the renderer.
///     frame.advance(&ctx, &mut character, &mut player, 1.0 / 60.0, &mut renderer)?;
/// }
/// assert!((player.layers()[0].clock().time() - 3.0 / 60.0).abs() < 1e-5);
/// // A step that is not a number of seconds is refused, and nothing moves.
/// assert!(frame.advance(&ctx, &mut character, &mut player, f32::NAN, &mut renderer).is_err());
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone)]
pub struct Frame {
    properties: PropertyPose,
    events: Vec<FrameEvent>,
    root_instance: Option<Mat4>,
    /// The container's node count, checked against the one each advance is given.
    nodes: usize,
    /// Uploads the last frame's sink found no mesh for.
    skipped: u32,
}

impl Frame {
    /// The frame storage of a character of `container` (a property slot for each of its
    /// animated properties). Allocates; [`advance`](Self::advance) allocates nothing of its
    /// own but the event list's growth the first time many markers fire in one frame.
    #[must_use]
    pub fn new(container: &AssetContainer) -> Self {
        Self {
            properties: PropertyPose::new(&container.animation.clips),
            events: Vec::with_capacity(8),
            root_instance: None,
            nodes: container.animation.nodes.len(),
            skipped: 0,
        }
    }

    /// Advances `animator` by `dt` seconds and leaves `container` and `view` consistent with
    /// the new pose (see [`Frame`] for the steps). `dt` may be 0 (pose without moving time) or
    /// negative (clocks run backwards).
    ///
    /// # Errors
    /// [`FrameError::BadStep`] for a NaN or infinite `dt`; [`FrameError::OtherAsset`] when
    /// the animator's player, this frame or `container` come from different assets (their
    /// node, skeleton or morph binding counts differ). Nothing moves on an error.
    pub fn advance<A, S>(
        &mut self,
        ctx: &GpuContext,
        container: &mut AssetContainer,
        animator: &mut A,
        dt: f32,
        view: &mut S,
    ) -> Result<(), FrameError>
    where
        A: Animate + ?Sized,
        S: ShowFrame + ?Sized,
    {
        if !dt.is_finite() {
            return Err(FrameError::BadStep { dt });
        }
        self.check(container, animator.player().data())?;
        self.events.clear();
        {
            let events = &mut self.events;
            let mut sink = MeshPoseSink::new(&ctx.queue, &mut container.meshes);
            advance_pose(animator, dt, &mut sink, &mut |e| {
                events.push(FrameEvent::from(e));
            });
            self.skipped = sink.skipped();
        }
        let player = animator.player();
        if !self.properties.is_empty() {
            player.sample_properties(&mut self.properties);
        }
        self.root_instance = root_motion_instance(player);
        let state = FrameState {
            world: &player.scratch().world,
            properties: &self.properties,
            root_instance: self.root_instance,
            events: &self.events,
        };
        view.show(ctx, container, &state);
        Ok(())
    }

    /// The animated properties as of the last [`advance`](Self::advance) (the file's values
    /// before the first).
    #[must_use]
    pub fn properties(&self) -> &PropertyPose {
        &self.properties
    }

    /// The markers passed during the last [`advance`](Self::advance).
    #[must_use]
    pub fn events(&self) -> &[FrameEvent] {
        &self.events
    }

    /// The root-motion instance of the last [`advance`](Self::advance) (see
    /// [`root_motion_instance`]).
    #[must_use]
    pub fn root_instance(&self) -> Option<Mat4> {
        self.root_instance
    }

    /// Bone or morph uploads of the last advance that found no mesh of the container (0 for
    /// a player of the container's own rig).
    #[must_use]
    pub fn skipped_uploads(&self) -> u32 {
        self.skipped
    }

    fn check(&self, container: &AssetContainer, data: &AnimationData) -> Result<(), FrameError> {
        let ours = &container.animation;
        let pairs = [
            ("nodes (frame)", self.nodes, ours.nodes.len()),
            ("nodes", data.nodes.len(), ours.nodes.len()),
            (
                "skeleton bindings",
                data.skeletons.len(),
                ours.skeletons.len(),
            ),
            (
                "morph bindings",
                data.morph_bindings.len(),
                ours.morph_bindings.len(),
            ),
        ];
        match pairs.into_iter().find(|(_, a, b)| a != b) {
            Some((what, animated, container)) => Err(FrameError::OtherAsset {
                what,
                animated,
                container,
            }),
            None => Ok(()),
        }
    }
}

/// The pose half of [`Frame::advance`], into any sink (a [`NullSink`](skel_anim::NullSink)
/// for a probe that only needs the joints on the CPU): root motion moves the foot
/// placement's and the springs' world to where the character stands (the springs then feel
/// the walk as hair feels a moving head; they see each frame's motion from the frame after,
/// since the springs step inside the advance that makes it), `animator` advances by `dt` seconds and
/// poses into `sink` (calling `on_event` for each marker passed), and the node world matrices
/// are resolved. Programs that frame a whole clip before drawing it pose a clone through this,
/// so the probe and the frame cannot drift apart.
pub fn advance_pose<A: Animate + ?Sized>(
    animator: &mut A,
    dt: f32,
    sink: &mut dyn PoseSink,
    on_event: &mut dyn FnMut(&AnimationEvent<'_>),
) {
    // Root motion carries the character: its feet look for the ground where it stands, and
    // its hair swings with the walk.
    if let Some(moved) = root_motion_instance(animator.player()) {
        let world = Affine3A::from_mat4(moved);
        if let Some(job) = animator.foot_placement_mut() {
            job.world = world;
        }
        if let Some(springs) = animator.springs_mut() {
            springs.world = world;
        }
    }
    animator.animate(dt, sink, on_event);
    animator.resolve_world_matrices();
}

/// With root motion: the world transform that moves the in-place character by the motion
/// `player` accumulated so far, `P · motion · P⁻¹` (`P` the world matrix, as of the player's
/// last resolved pose, of the root-motion node's parent, or for a root without parent the
/// handedness mirror the rig applies). `None` without root motion or with a singular `P`.
/// Draw the character with it as its one instance.
#[must_use]
pub fn root_motion_instance(player: &Player) -> Option<Mat4> {
    let config = player.root_motion()?;
    let total = player.root_motion_total();
    let motion = Mat4::from_rotation_translation(total.rotation, total.translation);
    let data = player.data();
    let parent = match data.nodes.get(config.node).and_then(|n| n.parent) {
        Some(p) => player
            .scratch()
            .world
            .get(p)
            .copied()
            .unwrap_or(Mat4::IDENTITY),
        None => match data.handedness {
            Handedness::LeftHanded => Mat4::from_scale(Vec3::new(-1.0, 1.0, 1.0)),
            Handedness::RightHanded => Mat4::IDENTITY,
        },
    };
    let det = parent.determinant();
    (det != 0.0 && det.is_finite()).then(|| parent * motion * parent.inverse())
}
