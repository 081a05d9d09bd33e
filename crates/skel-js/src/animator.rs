//! [`Animator`]: one character's player and the pose it leaves after each tick.

use skel_anim::{LayerDesc, LoopMode, NullSink, Player};
use skel_graph::GraphPlayer;

use crate::JsApiError;

/// One character: a [`Player`] over an [`Asset`](crate::Asset)'s rig, playing clips, or a
/// [`GraphPlayer`] driving one ([`CompiledGraph::animator`](crate::CompiledGraph::animator)),
/// playing what its parameters choose. Its pose buffers are allocated when it is made and
/// only written after: the slices [`bone_matrices`], [`world_matrices`] and
/// [`morph_weights`] return keep their address for the animator's life, which is what lets
/// JavaScript hold `Float32Array` views over them.
///
/// [`bone_matrices`]: Self::bone_matrices
/// [`world_matrices`]: Self::world_matrices
/// [`local_transforms`]: Self::local_transforms
/// [`morph_weights`]: Self::morph_weights
#[derive(Debug)]
pub struct Animator {
    driver: Driver,
}

/// What chooses the clips: the caller ([`Animator::play`]) or a graph.
#[derive(Debug)]
enum Driver {
    Clips(Box<Player>),
    Graph(Box<GraphPlayer>),
}

impl Animator {
    /// An animator over `player`, posed once (at rest when it has no layer) so that every
    /// buffer holds a pose before the first tick.
    #[must_use]
    pub fn new(player: Player) -> Self {
        Self::posed(Driver::Clips(Box::new(player)))
    }

    /// An animator whose clips `graph` chooses, posed once at its entry states.
    #[must_use]
    pub fn with_graph(graph: GraphPlayer) -> Self {
        Self::posed(Driver::Graph(Box::new(graph)))
    }

    fn posed(driver: Driver) -> Self {
        let mut animator = Self { driver };
        animator.tick(0.0);
        animator
    }

    /// Plays clip `clip` alone from its start: every layer is replaced by one full-weight
    /// layer of it, looping (`looping`) or stopping at its end. The pose changes at the next
    /// [`tick`](Self::tick).
    ///
    /// # Errors
    /// [`JsApiError::NoSuchClip`] for an index past the end, [`JsApiError::GraphDriven`] when
    /// a graph chooses the clips; nothing changes then.
    pub fn play(&mut self, clip: usize, looping: bool) -> Result<(), JsApiError> {
        let Driver::Clips(player) = &mut self.driver else {
            return Err(JsApiError::GraphDriven);
        };
        let clip_count = player.data().clips.len();
        if clip >= clip_count {
            return Err(JsApiError::NoSuchClip { clip, clip_count });
        }
        let mode = if looping {
            LoopMode::Repeat
        } else {
            LoopMode::Once
        };
        player.clear_layers();
        player.add_layer(LayerDesc::new(clip).loop_mode(mode))?;
        Ok(())
    }

    /// Removes every layer: the next tick poses the rest pose.
    ///
    /// # Errors
    /// [`JsApiError::GraphDriven`] when a graph chooses the clips (its layers stay).
    pub fn stop(&mut self) -> Result<(), JsApiError> {
        let Driver::Clips(player) = &mut self.driver else {
            return Err(JsApiError::GraphDriven);
        };
        player.clear_layers();
        Ok(())
    }

    /// Moves every playhead to `time` seconds (within each clip's range) without firing
    /// markers; the pose changes at the next [`tick`](Self::tick) (`tick(0)` to see it now).
    pub fn seek(&mut self, time: f32) {
        self.player_mut().seek(time);
    }

    /// Advances by `dt` seconds (a graph first takes its transitions and sets its clips'
    /// weights and times) and poses: bone matrices, morph weights and node world matrices all
    /// hold the new pose afterwards. A NaN or infinite `dt` moves nothing (the player's rule);
    /// allocates nothing.
    pub fn tick(&mut self, dt: f32) {
        match &mut self.driver {
            Driver::Clips(player) => player.tick(dt, &mut NullSink),
            Driver::Graph(graph) => graph.tick(dt, &mut NullSink),
        }
        self.player_mut().resolve_world_matrices();
    }

    /// The graph that chooses the clips, `None` for an animator that plays them.
    #[must_use]
    pub fn graph(&self) -> Option<&GraphPlayer> {
        match &self.driver {
            Driver::Clips(_) => None,
            Driver::Graph(graph) => Some(graph),
        }
    }

    /// The graph, mutably: its parameters are set through
    /// [`GraphPlayer::instance_mut`]. `None` for an animator that plays clips.
    pub fn graph_mut(&mut self) -> Option<&mut GraphPlayer> {
        match &mut self.driver {
            Driver::Clips(_) => None,
            Driver::Graph(graph) => Some(graph),
        }
    }

    /// The skinning matrices of skeleton binding `binding`, 16 floats per joint in the skin's
    /// joint order: `inverse(meshWorld) · jointWorld · inverseBind` (glTF 2.0 §3.7.3.3: what a
    /// vertex shader multiplies a bind-pose vertex by, in the mesh node's space).
    ///
    /// # Errors
    /// [`JsApiError::NoSuchSkeleton`] for an index past the end.
    pub fn bone_matrices(&self, binding: usize) -> Result<&[f32], JsApiError> {
        let bones = &self.player().scratch().bones;
        bones
            .get(binding)
            .map(|m| bytemuck::cast_slice(m.as_slice()))
            .ok_or(JsApiError::NoSuchSkeleton {
                binding,
                count: bones.len(),
            })
    }

    /// Every node's world matrix, 16 floats per node in glTF node order (the scene's roots
    /// have the identity as parent: place the character by multiplying on the left).
    #[must_use]
    pub fn world_matrices(&self) -> &[f32] {
        bytemuck::cast_slice(self.player().scratch().world.as_slice())
    }

    /// Every node's local transform from the last pose, [`TRS_STRIDE`](skel_anim::TRS_STRIDE)
    /// (12) floats per node in glTF node order: translation `xyz`, rotation `xyzw`, scale
    /// `xyz`, two unused. What an engine that composes its own node matrices (Babylon.js's
    /// `TransformNode`) takes, as its animation groups write them. The handedness mirror is not
    /// in them (it is the rig's root transform), so they are the glTF file's local space.
    #[must_use]
    pub fn local_transforms(&self) -> &[f32] {
        &self.player().scratch().trs
    }

    /// The morph weights of morph binding `binding`, one per target.
    ///
    /// # Errors
    /// [`JsApiError::NoSuchMorphBinding`] for an index past the end.
    pub fn morph_weights(&self, binding: usize) -> Result<&[f32], JsApiError> {
        let weights = &self.player().scratch().morph_weights;
        weights
            .get(binding)
            .map(Vec::as_slice)
            .ok_or(JsApiError::NoSuchMorphBinding {
                binding,
                count: weights.len(),
            })
    }

    /// The player, for what the bindings do not cover (layers, weights, fades, IK); a graph's
    /// own when a graph drives it.
    #[must_use]
    pub fn player(&self) -> &Player {
        match &self.driver {
            Driver::Clips(player) => player,
            Driver::Graph(graph) => graph.player(),
        }
    }

    /// The player, mutably. Adding layers allocates; the pose buffers stay where they are.
    pub fn player_mut(&mut self) -> &mut Player {
        match &mut self.driver {
            Driver::Clips(player) => player,
            Driver::Graph(graph) => graph.player_mut(),
        }
    }
}
