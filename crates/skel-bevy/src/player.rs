//! `SkelPlayer`: the component that makes a spawned glTF character play through skel.

use std::sync::Arc;

use bevy::asset::AssetPath;
use bevy::prelude::{Component, Entity, Handle, Mat4, Transform};
use skel_anim::{AnimationData, AnimationEvent, LayerDesc, Player, PoseSink, Rig};
use skel_graph::GraphInstance;

use crate::driver::{Driver, Setup};
use crate::ik::BoundIk;
use crate::joint_writes::JointWrites;
use crate::{SkelBevyError, SkelRetarget, SkelRig};

/// One layer of a [`SkelPlayer`]: skel's own [`LayerDesc`] (weight, blend or additive mode,
/// mask, speed, loop mode, start time, group), with its clip named rather than indexed so
/// that it can be written before the glTF has loaded. The name is resolved when the
/// character binds (`desc.clip` is then overwritten with the rig's index of that clip).
///
/// Every setting is `LayerDesc`'s: chain its builder through [`with`](Self::with), or
/// change its fields in place (`SkelLayer` dereferences to it).
///
/// ```
/// use skel_bevy::SkelLayer;
/// use skel_bevy::anim::LoopMode;
///
/// let layer = SkelLayer::clip("Run").with(|d| d.speed(1.5).weight(0.5).loop_mode(LoopMode::Once));
/// assert_eq!((layer.speed, layer.weight), (1.5, 0.5));
/// let idle: SkelLayer = "Idle".into();
/// assert_eq!(idle.clip, "Idle");
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct SkelLayer {
    /// The clip's name in the rig.
    pub clip: String,
    /// skel's layer settings (its `clip` index is set at bind from [`clip`](Self::clip)).
    pub desc: LayerDesc,
}

impl SkelLayer {
    /// The clip named `clip` with [`LayerDesc::new`]'s settings: a blend layer at weight 1,
    /// speed 1, looping from time 0, over every node.
    #[must_use]
    pub fn clip(clip: impl Into<String>) -> Self {
        Self {
            clip: clip.into(),
            desc: LayerDesc::new(0),
        }
    }

    /// The same with `LayerDesc`'s builder applied (`|d| d.speed(2.0).additive(…)`).
    #[must_use]
    pub fn with(mut self, build: impl FnOnce(LayerDesc) -> LayerDesc) -> Self {
        self.desc = build(self.desc);
        self
    }

    fn desc(&self, rig: &Rig) -> Result<LayerDesc, SkelBevyError> {
        let clip = rig
            .clip_index(&self.clip)
            .ok_or_else(|| SkelBevyError::NoSuchClip(self.clip.clone()))?;
        Ok(LayerDesc {
            clip,
            ..self.desc.clone()
        })
    }
}

impl std::ops::Deref for SkelLayer {
    type Target = LayerDesc;

    fn deref(&self) -> &LayerDesc {
        &self.desc
    }
}

impl std::ops::DerefMut for SkelLayer {
    fn deref_mut(&mut self) -> &mut LayerDesc {
        &mut self.desc
    }
}

impl From<&str> for SkelLayer {
    fn from(clip: &str) -> Self {
        Self::clip(clip)
    }
}

impl From<String> for SkelLayer {
    fn from(clip: String) -> Self {
        Self::clip(clip)
    }
}

/// One animation marker a character's playhead passed this frame (names are shared, not
/// copied: firing allocates nothing).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Fired {
    pub(crate) name: Arc<str>,
    pub(crate) clip: usize,
    pub(crate) layer: usize,
    pub(crate) time: f32,
    pub(crate) weight: f32,
}

/// What binding made: skel's player over the rig (driven by a graph or not), the marker
/// names as shared strings, and the entity whose `GlobalTransform` is the glTF scene's frame.
#[derive(Debug)]
pub(crate) struct Bound {
    pub(crate) driver: Driver,
    /// The rig's data with its skin bindings (the player's rig has none): which nodes are
    /// skin joints, for names that resolve to a joint first.
    pub(crate) data: Arc<AnimationData>,
    /// The joints and what was last written to them.
    pub(crate) joints: JointWrites,
    pub(crate) frame: Option<Entity>,
    pub(crate) ik: BoundIk,
    pub(crate) marker_names: Vec<Vec<Arc<str>>>,
    pub(crate) fired: Vec<Fired>,
    /// The VRM secondary motion installed on the player (`None` until the plugin installs
    /// it after binding).
    pub(crate) secondary: Option<crate::SkelSprings>,
}

/// skel's [`Player`] for one character spawned from a glTF (`WorldAssetRoot`): its layers
/// (as skel's: blend or additive, fades, masks, IK, root motion, events) pose the joints,
/// whose `Transform`s the plugin writes in `PostUpdate`, before transform propagation.
///
/// Add it with the layers to start with; once the scene has spawned and the rig has loaded
/// the plugin binds it, and [`player_mut`](Self::player_mut) gives skel's full API.
#[derive(Component, Debug, Default)]
pub struct SkelPlayer {
    layers: Vec<SkelLayer>,
    rig: Option<Handle<SkelRig>>,
    rig_file: Option<AssetPath<'static>>,
    retarget: Option<SkelRetarget>,
    pub(crate) bound: Option<Bound>,
}

impl SkelPlayer {
    /// A player with no layers (the rest pose) over the character's own glTF.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a layer on top of the others: a [`SkelLayer`], or a clip's name for a layer
    /// with [`LayerDesc::new`]'s settings.
    #[must_use]
    pub fn with_layer(mut self, layer: impl Into<SkelLayer>) -> Self {
        self.layers.push(layer.into());
        self
    }

    /// Uses `rig` instead of the rig read from the character's own glTF file (a rig with
    /// retargeted clips; a scene that was not loaded from a file).
    #[must_use]
    pub fn with_rig(mut self, rig: Handle<SkelRig>) -> Self {
        self.rig = Some(rig);
        self
    }

    /// Builds the rig from glTF file `path` (an asset path) instead of the character's own:
    /// the clips of another file with the same skeleton.
    #[must_use]
    pub fn with_rig_file(mut self, path: impl Into<AssetPath<'static>>) -> Self {
        self.rig_file = Some(path.into());
        self
    }

    /// Adds the clips of another glTF file, retargeted onto this character's skeleton (see
    /// [`SkelRetarget`]); layers and graphs then name them like the character's own. Ignored
    /// with [`with_rig`](Self::with_rig) (that rig is used as it is).
    #[must_use]
    pub fn with_retargeted_clips(mut self, retarget: SkelRetarget) -> Self {
        self.retarget = Some(retarget);
        self
    }

    /// The retargeting asked for, if any.
    #[must_use]
    pub fn retarget(&self) -> Option<&SkelRetarget> {
        self.retarget.as_ref()
    }

    /// The explicit rig, if any.
    #[must_use]
    pub fn rig_handle(&self) -> Option<&Handle<SkelRig>> {
        self.rig.as_ref()
    }

    /// The explicit rig file, if any.
    #[must_use]
    pub fn rig_file(&self) -> Option<&AssetPath<'static>> {
        self.rig_file.as_ref()
    }

    /// Whether the character is bound (its joints are driven).
    #[must_use]
    pub fn is_bound(&self) -> bool {
        self.bound.is_some()
    }

    /// skel's player, once bound. Its rig is the character's without skin bindings (see
    /// [`SkelRig::from_data`]): bevy skins from the joints, so a pose computes no skinning
    /// matrices.
    #[must_use]
    pub fn player(&self) -> Option<&Player> {
        self.bound.as_ref().map(|b| b.driver.player())
    }

    /// skel's player, once bound: change weights, cross-fade, seek, add IK jobs. Under a
    /// [`SkelGraph`](crate::SkelGraph) the graph sets its own groups' layers every tick: change
    /// parameters through [`graph_mut`](Self::graph_mut) instead.
    pub fn player_mut(&mut self) -> Option<&mut Player> {
        self.bound.as_mut().map(|b| b.driver.player_mut())
    }

    /// The animation graph's state for this character (current states, transitions, clips
    /// and weights, parameter values), once bound under a [`SkelGraph`](crate::SkelGraph).
    #[must_use]
    pub fn graph(&self) -> Option<&GraphInstance> {
        self.bound
            .as_ref()
            .and_then(|b| b.driver.graph_player())
            .map(skel_graph::GraphPlayer::instance)
    }

    /// The animation graph's state, to set parameters (`set_float`, `set_bool`,
    /// `set_trigger`) or travel, once bound under a [`SkelGraph`](crate::SkelGraph); `None`
    /// before (a parameter set then would have nowhere to go).
    ///
    /// ```
    /// # use skel_bevy::SkelPlayer;
    /// fn run(player: &mut SkelPlayer) -> Result<(), skel_bevy::SkelBevyError> {
    ///     if let Some(graph) = player.graph_mut() {
    ///         graph.set_float("speed", 1.5)?;
    ///     }
    ///     Ok(())
    /// }
    /// # run(&mut SkelPlayer::new()).unwrap();
    /// ```
    pub fn graph_mut(&mut self) -> Option<&mut GraphInstance> {
        self.bound
            .as_mut()
            .and_then(|b| b.driver.graph_player_mut())
            .map(skel_graph::GraphPlayer::instance_mut)
    }

    /// Node `node`'s local transform in the last pose, as a Bevy `Transform`.
    #[must_use]
    pub fn local_transform(&self, node: usize) -> Option<Transform> {
        crate::joint_writes::local_transform(&self.player()?.scratch().trs, node)
    }

    /// Builds skel's player over `skel_rig`'s pose rig with this component's layers and
    /// `setup` (root motion, IK, a graph); `frame` is the entity whose `GlobalTransform`
    /// places the glTF scene; `joints[node]` is node `node`'s entity. Nothing is kept on
    /// error.
    pub(crate) fn bind(
        &mut self,
        skel_rig: &SkelRig,
        joints: &[Option<Entity>],
        setup: Setup<'_>,
        frame: Option<Entity>,
        ik: BoundIk,
    ) -> Result<(), SkelBevyError> {
        let rig = skel_rig.pose_rig();
        let mut player = Player::new(rig);
        for layer in &self.layers {
            player.add_layer(layer.desc(rig)?)?;
        }
        let mut driver = Driver::new(player, setup)?;
        let marker_names = rig
            .data()
            .clips
            .iter()
            .map(|c| {
                c.markers
                    .iter()
                    .map(|m| Arc::from(m.name.as_str()))
                    .collect()
            })
            .collect();
        // Poses once so that the first write shows the layers at time 0.
        driver.player_mut().evaluate(&mut LocalPose);
        self.bound = Some(Bound {
            driver,
            data: Arc::clone(skel_rig.rig().data()),
            joints: JointWrites::new(joints),
            frame,
            ik,
            marker_names,
            fired: Vec::with_capacity(16),
            secondary: None,
        });
        Ok(())
    }

    /// Drops skel's player (the character binds again on a later frame, its joints keeping
    /// their last pose until then).
    pub(crate) fn unbind(&mut self) {
        self.bound = None;
    }

    /// Advances the player by `dt` seconds and records the markers passed; the pose waits
    /// for [`evaluate`](Self::evaluate).
    pub(crate) fn advance(&mut self, dt: f32) {
        let Some(bound) = self.bound.as_mut() else {
            return;
        };
        bound.fired.clear();
        let (names, fired) = (&bound.marker_names, &mut bound.fired);
        bound
            .driver
            .advance_with_events(dt, &mut |e: &AnimationEvent<'_>| {
                let name = names
                    .get(e.clip)
                    .and_then(|n| n.get(e.marker))
                    .cloned()
                    .unwrap_or_else(|| Arc::from(e.name));
                fired.push(Fired {
                    name,
                    clip: e.clip,
                    layer: e.layer,
                    time: e.time,
                    weight: e.weight,
                });
            });
    }

    /// Poses at the times the last [`advance`](Self::advance) reached, IK included, and
    /// notes the joints the pose moved.
    pub(crate) fn evaluate(&mut self) {
        if let Some(bound) = self.bound.as_mut() {
            bound.driver.evaluate(&mut LocalPose);
            bound.joints.update(&bound.driver.player().scratch().trs);
        }
    }
}

/// The pose goes to the local transforms (`scratch().trs`); bone matrices are bevy's job.
struct LocalPose;

impl PoseSink for LocalPose {
    fn bone_matrices(&mut self, _binding: usize, _matrices: &[Mat4]) {}
    fn morph_weights(&mut self, _binding: usize, _weights: &[f32]) {}
}

/// A joint entity driven by a [`SkelPlayer`]: which character and which of skel's nodes.
/// The plugin writes the joint's `Transform` whenever the character's pose moves it (a
/// value set in between stays until then); remove the component to drive the joint
/// yourself.
#[derive(Component, Debug, Clone, Copy, PartialEq, Eq)]
pub struct SkelJoint {
    /// The character entity holding the [`SkelPlayer`].
    pub character: Entity,
    /// skel's (the glTF's) node index.
    pub node: usize,
}
