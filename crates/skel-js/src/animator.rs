//! [`Animator`]: one character's player and the pose it leaves after each tick.

use skel_anim::{LayerDesc, LoopMode, NullSink, Player};

use crate::JsApiError;

/// One character: a [`Player`] over an [`Asset`](crate::Asset)'s rig. Its pose buffers are
/// allocated when it is made and only written after: the slices [`bone_matrices`],
/// [`world_matrices`] and [`morph_weights`] return keep their address for the animator's
/// life, which is what lets JavaScript hold `Float32Array` views over them.
///
/// [`bone_matrices`]: Self::bone_matrices
/// [`world_matrices`]: Self::world_matrices
/// [`local_transforms`]: Self::local_transforms
/// [`morph_weights`]: Self::morph_weights
#[derive(Debug)]
pub struct Animator {
    player: Player,
}

impl Animator {
    /// An animator over `player`, posed once (at rest when it has no layer) so that every
    /// buffer holds a pose before the first tick.
    #[must_use]
    pub fn new(player: Player) -> Self {
        let mut animator = Self { player };
        animator.tick(0.0);
        animator
    }

    /// Plays clip `clip` alone from its start: every layer is replaced by one full-weight
    /// layer of it, looping (`looping`) or stopping at its end. The pose changes at the next
    /// [`tick`](Self::tick).
    ///
    /// # Errors
    /// [`JsApiError::NoSuchClip`] for an index past the end; nothing changes then.
    pub fn play(&mut self, clip: usize, looping: bool) -> Result<(), JsApiError> {
        let clip_count = self.player.data().clips.len();
        if clip >= clip_count {
            return Err(JsApiError::NoSuchClip { clip, clip_count });
        }
        let mode = if looping {
            LoopMode::Repeat
        } else {
            LoopMode::Once
        };
        self.player.clear_layers();
        self.player
            .add_layer(LayerDesc::new(clip).loop_mode(mode))?;
        Ok(())
    }

    /// Removes every layer: the next tick poses the rest pose.
    pub fn stop(&mut self) {
        self.player.clear_layers();
    }

    /// Moves every playhead to `time` seconds (within each clip's range) without firing
    /// markers; the pose changes at the next [`tick`](Self::tick) (`tick(0)` to see it now).
    pub fn seek(&mut self, time: f32) {
        self.player.seek(time);
    }

    /// Advances by `dt` seconds and poses: bone matrices, morph weights and node world
    /// matrices all hold the new pose afterwards. A NaN or infinite `dt` moves nothing (the
    /// player's rule); allocates nothing.
    pub fn tick(&mut self, dt: f32) {
        self.player.tick(dt, &mut NullSink);
        self.player.resolve_world_matrices();
    }

    /// The skinning matrices of skeleton binding `binding`, 16 floats per joint in the skin's
    /// joint order: `inverse(meshWorld) · jointWorld · inverseBind` (glTF 2.0 §3.7.3.3: what a
    /// vertex shader multiplies a bind-pose vertex by, in the mesh node's space).
    ///
    /// # Errors
    /// [`JsApiError::NoSuchSkeleton`] for an index past the end.
    pub fn bone_matrices(&self, binding: usize) -> Result<&[f32], JsApiError> {
        let bones = &self.player.scratch().bones;
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
        bytemuck::cast_slice(self.player.scratch().world.as_slice())
    }

    /// Every node's local transform from the last pose, [`TRS_STRIDE`](skel_anim::TRS_STRIDE)
    /// (12) floats per node in glTF node order: translation `xyz`, rotation `xyzw`, scale
    /// `xyz`, two unused. What an engine that composes its own node matrices (Babylon.js's
    /// `TransformNode`) takes, as its animation groups write them. The handedness mirror is not
    /// in them (it is the rig's root transform), so they are the glTF file's local space.
    #[must_use]
    pub fn local_transforms(&self) -> &[f32] {
        &self.player.scratch().trs
    }

    /// The morph weights of morph binding `binding`, one per target.
    ///
    /// # Errors
    /// [`JsApiError::NoSuchMorphBinding`] for an index past the end.
    pub fn morph_weights(&self, binding: usize) -> Result<&[f32], JsApiError> {
        let weights = &self.player.scratch().morph_weights;
        weights
            .get(binding)
            .map(Vec::as_slice)
            .ok_or(JsApiError::NoSuchMorphBinding {
                binding,
                count: weights.len(),
            })
    }

    /// The player, for what the bindings do not cover (layers, weights, fades, IK).
    #[must_use]
    pub fn player(&self) -> &Player {
        &self.player
    }

    /// The player, mutably. Adding layers allocates; the pose buffers stay where they are.
    pub fn player_mut(&mut self) -> &mut Player {
        &mut self.player
    }
}
