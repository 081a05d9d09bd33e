//! The CPU reference pose of a whole asset: node world matrices, per-skin joint and skin
//! matrices, and the world-space position of every vertex after morph targets and skinning.
//! `skel pose` prints it and the conformance tests compare it with an independent engine.

use std::sync::Arc;

use skel_anim::glam::{Mat4, Vec3};
use skel_anim::{AnimationController, IkJob, LayerDesc, NullSink, Player, PoseHook, RootMotion};

use crate::{GltfAsset, GltfError, SkinnedPose};

/// Poses an asset on the CPU with [`AnimationController::evaluate_at`] and
/// [`skin_vertices`](skel_anim::skin_vertices), and keeps the results of the last pose.
///
/// Skinned vertices are placed by `Σ wᵢ · jointWorldᵢ · inverseBindᵢ · v` (the mesh node's own
/// transform is ignored, glTF 2.0 §3.7.3); rigid ones by their node's world matrix. Everything
/// is in the asset's handedness. Buffers are allocated once in [`CpuPoser::new`].
#[derive(Debug, Clone)]
pub struct CpuPoser {
    controller: AnimationController,
    /// The skinned results of the last pose.
    skinned: SkinnedPose,
    /// The layer player of [`CpuPoser::pose_layers`] and the stack it was built for, made on
    /// first use and rebuilt when the stack changes.
    player: Option<(Vec<LayerDesc>, Player)>,
    /// Whether the last pose came from `player` rather than `controller`.
    blended: bool,
    /// The bone-control hook given to the controller and to the blend.
    hook: Option<Arc<dyn PoseHook>>,
}

impl CpuPoser {
    /// Prepares a poser for `asset` (shares its animation data).
    ///
    /// # Errors
    /// [`GltfError::Anim`] when the animation data fails validation.
    pub fn new(asset: &GltfAsset) -> Result<Self, GltfError> {
        let controller = AnimationController::new(Arc::new(asset.animation.clone()))?;
        Ok(Self {
            controller,
            skinned: SkinnedPose::new(asset),
            player: None,
            blended: false,
            hook: None,
        })
    }

    /// Evaluates `clip` (or the rest pose for `None`) at `time` seconds and skins every
    /// primitive of `asset` (the asset this poser was made for).
    ///
    /// # Errors
    /// [`GltfError::Anim`] for a clip index out of range, or when `asset` is not the asset
    /// this poser was made for (a stream's length disagrees).
    pub fn pose(
        &mut self,
        asset: &GltfAsset,
        clip: Option<usize>,
        time: f32,
    ) -> Result<(), GltfError> {
        self.controller.evaluate_at(clip, time, &mut NullSink)?;
        self.blended = false;
        self.controller.resolve_world_matrices();
        let scratch = self.controller.scratch();
        self.skinned
            .skin(asset, &scratch.world, &scratch.morph_weights)
    }

    /// Poses a weighted blend of clips (`(clip, weight)` pairs, as
    /// [`WeightedBlend::with_weights`](skel_anim::WeightedBlend::with_weights) takes them) with every clip at `time` seconds (held at
    /// its last key past its end, as [`pose`](Self::pose) does), and skins every primitive.
    /// The accessors then return the blended pose.
    ///
    /// # Errors
    /// [`GltfError::Anim`] for a clip index out of range, or when `asset` is not the asset
    /// this poser was made for.
    pub fn pose_blend(
        &mut self,
        asset: &GltfAsset,
        weights: &[(usize, f32)],
        time: f32,
    ) -> Result<(), GltfError> {
        let layers: Vec<LayerDesc> = weights
            .iter()
            .map(|&(clip, weight)| LayerDesc::new(clip).weight(weight))
            .collect();
        self.pose_layers(asset, &layers, time)
    }

    /// Poses a layer stack (blend and additive layers, masks; see [`Player`]) with every
    /// layer's clip at `time` seconds (held at its last key past its end, as
    /// [`pose`](Self::pose) does), and skins every primitive. The accessors then return the
    /// layered pose.
    ///
    /// # Errors
    /// What [`Player::add_layer`] finds, or when `asset` is not the asset this poser was made
    /// for.
    pub fn pose_layers(
        &mut self,
        asset: &GltfAsset,
        layers: &[LayerDesc],
        time: f32,
    ) -> Result<(), GltfError> {
        self.pose_stack(asset, layers, None, &[], time)
    }

    /// [`pose_layers`](Self::pose_layers) with root motion extracted (the root held in place on
    /// the extracted components, see [`RootMotion`]) and IK jobs solved after the layers.
    ///
    /// # Errors
    /// As [`pose_layers`](Self::pose_layers), and a root node past the end.
    pub fn pose_stack(
        &mut self,
        asset: &GltfAsset,
        layers: &[LayerDesc],
        root_motion: Option<RootMotion>,
        ik: &[IkJob],
        time: f32,
    ) -> Result<(), GltfError> {
        let player = match &mut self.player {
            Some((built, player)) if built.as_slice() == layers => player,
            _ => {
                let mut player = Player::new(self.controller.rig());
                for desc in layers {
                    player.add_layer(desc.clone())?;
                }
                player.set_pose_hook(self.hook.clone());
                &mut self.player.insert((layers.to_vec(), player)).1
            }
        };
        if player.root_motion() != root_motion {
            player.set_root_motion(root_motion)?;
        }
        if player.ik_jobs() != ik {
            player.clear_ik();
            for job in ik {
                player.add_ik(*job)?;
            }
        }
        for layer in player.layers_mut() {
            let end = layer.clock().to();
            // Past the end: seek clamps to the last key, exactly like `evaluate_at`.
            layer.clock_mut().seek(time.min(end));
        }
        player.evaluate(&mut NullSink);
        self.blended = true;
        player.resolve_world_matrices();
        let scratch = player.scratch();
        self.skinned
            .skin(asset, &scratch.world, &scratch.morph_weights)
    }

    /// World matrices of every node from the last pose, by node index.
    #[must_use]
    pub fn node_world_matrices(&self) -> &[Mat4] {
        // `pose` and `pose_blend` resolve the world matrices for skinning.
        match &self.player {
            Some((_, player)) if self.blended => &player.scratch().world,
            _ => &self.controller.scratch().world,
        }
    }

    /// `jointWorld · inverseBind` of every joint of skin `skin` from the last pose.
    #[must_use]
    pub fn skin_matrices(&self, skin: usize) -> Option<&[Mat4]> {
        self.skinned.skin_matrices(skin)
    }

    /// World position of every vertex of primitive `primitive` (index into
    /// [`GltfAsset::primitives`]) from the last pose.
    #[must_use]
    pub fn positions(&self, primitive: usize) -> Option<&[Vec3]> {
        self.skinned.positions(primitive)
    }

    /// Morph weights of morph binding `binding` from the last pose.
    #[must_use]
    pub fn morph_weights(&self, binding: usize) -> Option<&[f32]> {
        match &self.player {
            Some((_, player)) if self.blended => player.morph_weights(binding),
            _ => self.controller.morph_weights(binding),
        }
    }

    /// Installs (or with `None` removes) a pose hook (bone control's overrides) on every pose
    /// this poser makes, single clip or blend.
    pub fn set_pose_hook(&mut self, hook: Option<Arc<dyn PoseHook>>) {
        self.controller.set_pose_hook(hook.clone());
        if let Some((_, player)) = &mut self.player {
            player.set_pose_hook(hook.clone());
        }
        self.hook = hook;
    }

    /// The controller doing the posing.
    #[must_use]
    pub fn controller(&self) -> &AnimationController {
        &self.controller
    }
}
