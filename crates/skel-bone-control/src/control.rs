//! The bone-control API on a [`Skeleton`] handle: immediate setters (eager bake), deferred
//! setters, bake, clear, and reads of the override state.
//!
//! Immediate setters (`set_bone_position`, `set_bone_rotation_quaternion`, `set_bone_scaling`,
//! `set_bone_visible`, `clear_bone_override`) write the override and then re-bake the whole
//! asset from its rest pose + overrides and hand every binding's bone matrices to the sink (the
//! GPU upload), so they show on a static model with no clip playing. Deferred setters only
//! write; [`Skeleton::bake_skeleton`] uploads the batch once.

use skel_anim::PoseSink;
use skel_anim::glam::Mat4;

use crate::{
    BoneControlError, BoneKey, BoneOverrideState, BoneWorldPose, Skeleton,
    overrides::{MASK_HIDDEN, MASK_ROTATION, MASK_SCALE, MASK_TRANSLATION},
    world_pose,
};

/// Checks that every component is finite.
fn check_finite(what: &'static str, bone: usize, values: &[f32]) -> Result<(), BoneControlError> {
    match values.iter().position(|v| !v.is_finite()) {
        None => Ok(()),
        Some(component) => Err(BoneControlError::NotFinite {
            what,
            bone,
            component,
            value: values[component],
        }),
    }
}

/// Checks a quaternion and returns it normalised.
fn unit_rotation(
    what: &'static str,
    bone: usize,
    q: [f32; 4],
) -> Result<[f32; 4], BoneControlError> {
    check_finite(what, bone, &q)?;
    let len = q.iter().map(|v| v * v).sum::<f32>().sqrt();
    if len > 0.0 && len.is_finite() {
        Ok(q.map(|v| v / len))
    } else {
        Err(BoneControlError::ZeroRotation {
            what,
            bone,
            rotation: q,
        })
    }
}

impl Skeleton {
    /// Overrides the bone's local translation, then re-bakes and uploads (eager bake).
    ///
    /// While a clip plays, the override is written after the rest reset and before channels:
    /// a clip that animates this bone's translation wins; one that does not keeps it.
    ///
    /// # Errors
    /// A bad bone ([`BoneKey::resolve`]) or a non-finite component
    /// ([`BoneControlError::NotFinite`]); nothing is written or uploaded then.
    #[doc(alias = "setBonePosition")]
    pub fn set_bone_position(
        &self,
        bone: impl BoneKey,
        position: [f32; 3],
        sink: &mut dyn PoseSink,
    ) -> Result<(), BoneControlError> {
        let b = bone.resolve(self)?;
        check_finite("position", b, &position)?;
        self.state.write().update(self.joints[b], |o| {
            o.mask |= MASK_TRANSLATION;
            o.translation = position;
        });
        self.state.bake(sink);
        Ok(())
    }

    /// Overrides the bone's local rotation (`[x, y, z, w]`, normalised here), then re-bakes and
    /// uploads. A clip that animates the bone's rotation wins, as for
    /// [`set_bone_position`](Self::set_bone_position).
    ///
    /// # Errors
    /// A bad bone, a non-finite component, or a zero quaternion
    /// ([`BoneControlError::ZeroRotation`]); nothing is written or uploaded then.
    #[doc(alias = "setBoneRotationQuaternion")]
    pub fn set_bone_rotation_quaternion(
        &self,
        bone: impl BoneKey,
        rotation: [f32; 4],
        sink: &mut dyn PoseSink,
    ) -> Result<(), BoneControlError> {
        let b = bone.resolve(self)?;
        let rotation = unit_rotation("rotation", b, rotation)?;
        self.state.write().update(self.joints[b], |o| {
            o.mask |= MASK_ROTATION;
            o.rotation = rotation;
        });
        self.state.bake(sink);
        Ok(())
    }

    /// Overrides the bone's local scale, then re-bakes and uploads. A clip with a scale track on
    /// the bone wins (so scaling to 0 is not a reliable way to hide a bone under animation: use
    /// [`set_bone_visible`](Self::set_bone_visible)).
    ///
    /// # Errors
    /// A bad bone or a non-finite component; nothing is written or uploaded then.
    #[doc(alias = "setBoneScaling")]
    pub fn set_bone_scaling(
        &self,
        bone: impl BoneKey,
        scaling: [f32; 3],
        sink: &mut dyn PoseSink,
    ) -> Result<(), BoneControlError> {
        let b = bone.resolve(self)?;
        check_finite("scaling", b, &scaling)?;
        self.state.write().update(self.joints[b], |o| {
            o.mask |= MASK_SCALE;
            o.scale = scaling;
        });
        self.state.bake(sink);
        Ok(())
    }

    /// Hides (`false`) or shows the bone and the sub-tree it drives, then re-bakes and uploads.
    ///
    /// Hiding scales the bone to zero **after** channel evaluation, in every pose path (the
    /// controller's tick, a blend of several clips, the eager bake): a hidden bone stays hidden
    /// while a clip with a scale track on it plays (every Mixamo export has one on every bone).
    /// Visibility has its own mask bit: showing the bone again leaves an explicit
    /// [`set_bone_scaling`](Self::set_bone_scaling) override in place.
    ///
    /// # Errors
    /// A bad bone; nothing is written or uploaded then.
    #[doc(alias = "setBoneVisible")]
    pub fn set_bone_visible(
        &self,
        bone: impl BoneKey,
        visible: bool,
        sink: &mut dyn PoseSink,
    ) -> Result<(), BoneControlError> {
        let b = bone.resolve(self)?;
        self.state.write().update(self.joints[b], |o| {
            if visible {
                o.mask &= !MASK_HIDDEN;
            } else {
                o.mask |= MASK_HIDDEN;
            }
        });
        self.state.bake(sink);
        Ok(())
    }

    /// Overrides the bone's local translation and rotation together **without** baking: for
    /// drivers that pose many bones a frame (hand tracking, procedural rigs). Set every driven
    /// bone, then call [`bake_skeleton`](Self::bake_skeleton) once. A clip that animates a
    /// component wins on it, as for the immediate setters.
    ///
    /// # Errors
    /// A bad bone, a non-finite component, or a zero quaternion; nothing is written then.
    #[doc(alias = "setBonePoseDeferred")]
    pub fn set_bone_pose_deferred(
        &self,
        bone: impl BoneKey,
        position: [f32; 3],
        rotation: [f32; 4],
    ) -> Result<(), BoneControlError> {
        let b = bone.resolve(self)?;
        check_finite("position", b, &position)?;
        let rotation = unit_rotation("rotation", b, rotation)?;
        self.state.write().update(self.joints[b], |o| {
            o.mask |= MASK_TRANSLATION | MASK_ROTATION;
            o.translation = position;
            o.rotation = rotation;
        });
        Ok(())
    }

    /// Overrides the bone from an absolute pose in the loader's world space (left-handed by
    /// default), **without** baking: for world-space drivers such as physics ragdolls.
    ///
    /// The handedness reflection is applied here: the pose is the one a left-handed user sees
    /// (see [`bone_world_pose`](Self::bone_world_pose), its inverse), and after the bake the
    /// joint node's world matrix is `T(position) · R(rotation) · S · H`, with `H` the loader's
    /// reflection and `S` the world scale the bone's own local scale and its parents give. The
    /// pose is turned into a local translation and rotation through the parent's **current**
    /// world matrix, i.e. the rest pose + overrides, including ones written earlier in this batch:
    /// set parents before children. The translation is exact; the rotation is exact unless an
    /// ancestor has a non-uniform scale (then the bone's world axes are sheared, and the nearest
    /// rotation is stored).
    ///
    /// # Errors
    /// A bad bone, a non-finite component, a zero quaternion, a singular parent world matrix
    /// ([`BoneControlError::SingularParent`]), or a pose whose local translation or rotation
    /// would not be finite ([`BoneControlError::NotFinite`], e.g. a far position under a parent
    /// scaled down); nothing is written then.
    #[doc(alias = "setBoneWorldPoseDeferred")]
    pub fn set_bone_world_pose_deferred(
        &self,
        bone: impl BoneKey,
        position: [f32; 3],
        rotation: [f32; 4],
    ) -> Result<(), BoneControlError> {
        let b = bone.resolve(self)?;
        check_finite("world position", b, &position)?;
        let rotation = unit_rotation("world rotation", b, rotation)?;
        let node = self.joints[b];
        // One write lock for the read of the parent chain and the write: another thread cannot
        // slip a parent override in between.
        let mut table = self.state.write();
        let (t, r) = world_pose::world_to_local(&self.state.data, &table, node, position, rotation)
            .map_err(|parent| BoneControlError::SingularParent {
                bone: b,
                node,
                parent,
            })?;
        // A finite world pose can still be out of f32 range locally (far away under a shrunk
        // parent): store nothing rather than an infinite translation and a NaN rotation.
        check_finite("local translation from world position", b, &t)?;
        check_finite("local rotation from world rotation", b, &r)?;
        table.update(node, |o| {
            o.mask |= MASK_TRANSLATION | MASK_ROTATION;
            o.translation = t;
            o.rotation = r;
        });
        Ok(())
    }

    /// Recomputes the asset's bone matrices from the rest pose + overrides and hands every
    /// skeleton binding's matrices to `sink` (one upload per binding). Pairs with the deferred
    /// setters. Morph weights are left alone.
    #[doc(alias = "bakeSkeleton")]
    pub fn bake_skeleton(&self, sink: &mut dyn PoseSink) {
        self.state.bake(sink);
    }

    /// Removes every override of the bone (translation, rotation, scaling, visibility),
    /// reverting it to the rest pose / the clip, then re-bakes and uploads.
    ///
    /// # Errors
    /// A bad bone; nothing is written or uploaded then.
    #[doc(alias = "clearBoneOverride")]
    pub fn clear_bone_override(
        &self,
        bone: impl BoneKey,
        sink: &mut dyn PoseSink,
    ) -> Result<(), BoneControlError> {
        let b = bone.resolve(self)?;
        self.state.write().update(self.joints[b], |o| o.mask = 0);
        self.state.bake(sink);
        Ok(())
    }

    /// The bone's override state.
    ///
    /// # Errors
    /// A bad bone.
    pub fn bone_override(&self, bone: impl BoneKey) -> Result<BoneOverrideState, BoneControlError> {
        let b = bone.resolve(self)?;
        Ok(self.state.read().get(self.joints[b]).into())
    }

    /// Whether the bone is shown (not hidden by [`set_bone_visible`](Self::set_bone_visible)).
    ///
    /// # Errors
    /// A bad bone.
    pub fn is_bone_visible(&self, bone: impl BoneKey) -> Result<bool, BoneControlError> {
        Ok(!self.bone_override(bone)?.hidden)
    }

    /// The bone's pose in the loader's world space, from the rest pose + overrides (what the
    /// eager bake shows), with the handedness reflection taken out: the inverse of
    /// [`set_bone_world_pose_deferred`](Self::set_bone_world_pose_deferred), e.g. to start a
    /// ragdoll where the character stands. Visibility is ignored.
    ///
    /// # Errors
    /// A bad bone, or [`BoneControlError::SingularWorld`] when the bone is scaled to zero.
    pub fn bone_world_pose(&self, bone: impl BoneKey) -> Result<BoneWorldPose, BoneControlError> {
        let b = bone.resolve(self)?;
        let node = self.joints[b];
        world_pose::world_pose(&self.state.data, &self.state.read(), node)
            .ok_or(BoneControlError::SingularWorld { bone: b, node })
    }

    /// World matrix (handedness included) of the bone's joint node as the last bake computed
    /// it; the rest pose before the first bake.
    ///
    /// # Errors
    /// A bad bone.
    pub fn baked_world_matrix(&self, bone: impl BoneKey) -> Result<Mat4, BoneControlError> {
        let b = bone.resolve(self)?;
        let node = self.joints[b];
        // The bake scratch has a world matrix per node and `node` is a validated joint index.
        Ok(self.state.baked_world(node).unwrap_or(Mat4::IDENTITY))
    }
}
