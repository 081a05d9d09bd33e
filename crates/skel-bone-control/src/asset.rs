//! Enabling bone control for one asset: the handles, the shared override map and the pose hook.

use std::sync::Arc;

use skel_anim::{
    AnimationController, AnimationData, AnimationGroup, CrossFade, PoseHook, PoseScratch, PoseSink,
    WeightedBlend,
};

use crate::{
    BoneControlError, MeshSkeleton, Skeleton, SkeletonAssociation, skeleton_association,
    state::SharedState,
};

/// Bone control of one loaded asset: one [`Skeleton`] handle per skeleton binding (per skinned
/// mesh), one override map shared by all of them, and the [`PoseHook`] every controller of the
/// asset must carry.
///
/// Nothing of this exists unless bone control is enabled: an asset loaded without it has no
/// handle, no parent references and no override map, and its controllers hold no hook (one
/// `None` check per tick).
#[derive(Debug, Clone)]
pub struct BoneControlAsset {
    state: Arc<SharedState>,
    skeletons: Vec<Arc<Skeleton>>,
    hook: Arc<BoneControlHook>,
}

/// Enables bone control for a loaded asset (the seed's `enableBoneControl` followed by the
/// loader's opt-in builder): builds one [`Skeleton`] handle per skeleton binding, in binding
/// order, with its bones in glTF joint order and each parent the nearest ancestor joint of the
/// same skin; allocates the asset's override map and the bake scratch.
///
/// Call it once per asset, when loading (the facade's load option does); calling it twice gives
/// two independent sets of handles and override maps.
///
/// # Errors
/// [`BoneControlError::Anim`] when `data` does not validate.
#[doc(alias = "enableBoneControl")]
pub fn enable_bone_control(
    data: &Arc<AnimationData>,
) -> Result<BoneControlAsset, BoneControlError> {
    Ok(enable_bone_control_for_rig(&skel_anim::Rig::new(
        Arc::clone(data),
    )?))
}

/// [`enable_bone_control`] over an already compiled rig (the loader compiles each asset once
/// and hands the same rig to its players and to bone control).
#[must_use]
pub fn enable_bone_control_for_rig(rig: &Arc<skel_anim::Rig>) -> BoneControlAsset {
    let data = rig.data();
    let scratch = PoseScratch::for_rig(rig);
    let state = Arc::new(SharedState::new(Arc::clone(data), scratch));
    let skeletons = data
        .skeletons
        .iter()
        .enumerate()
        .map(|(i, sk)| Arc::new(Skeleton::build(data, i, sk, Arc::clone(&state))))
        .collect();
    let hook = Arc::new(BoneControlHook {
        state: Arc::clone(&state),
    });
    BoneControlAsset {
        state,
        skeletons,
        hook,
    }
}

impl BoneControlAsset {
    /// Every handle, one per skeleton binding (index = binding index).
    #[must_use]
    pub fn skeletons(&self) -> &[Arc<Skeleton>] {
        &self.skeletons
    }

    /// The handle of skeleton binding `binding`.
    #[must_use]
    pub fn skeleton_for_binding(&self, binding: usize) -> Option<&Arc<Skeleton>> {
        self.skeletons.get(binding)
    }

    /// The handle of the skinned mesh on node `mesh_node`; `None` when that node has no
    /// skinned mesh.
    #[must_use]
    pub fn skeleton_for_mesh_node(&self, mesh_node: usize) -> Option<&Arc<Skeleton>> {
        self.skeletons.iter().find(|s| s.mesh_node == mesh_node)
    }

    /// The asset's animation data.
    #[must_use]
    pub fn data(&self) -> &Arc<AnimationData> {
        &self.state.data
    }

    /// The hook to install on every controller of this asset (see [`install`](Self::install),
    /// which checks the controller's data first). It applies the translation / rotation /
    /// scaling overrides before channels and visibility after them, reading the override map
    /// without allocating.
    #[must_use]
    pub fn pose_hook(&self) -> Arc<dyn PoseHook> {
        Arc::clone(&self.hook) as Arc<dyn PoseHook>
    }

    /// Installs [`pose_hook`](Self::pose_hook) on a pose path of this asset: an
    /// [`AnimationController`], an [`AnimationGroup`], a [`WeightedBlend`] or a [`CrossFade`].
    /// Every one of them runs the hook's `before_channels` after the rest reset and its
    /// `after_channels` after the channels (after blending, for a blend).
    ///
    /// # Errors
    /// [`BoneControlError::ForeignController`] when it plays other animation data (not the
    /// same `Arc` and not an identical node hierarchy): node indices would not match.
    pub fn install(
        &self,
        target: &mut (impl PoseHookHost + ?Sized),
    ) -> Result<(), BoneControlError> {
        let theirs = target.animation_data();
        if !Arc::ptr_eq(theirs, &self.state.data) && theirs.nodes != self.state.data.nodes {
            return Err(BoneControlError::ForeignController {
                asset_nodes: self.state.data.nodes.len(),
                controller_nodes: theirs.nodes.len(),
            });
        }
        target.set_bone_control_hook(Some(self.pose_hook()));
        Ok(())
    }

    /// Re-bakes every binding of the asset from the rest pose + overrides into `sink` (what
    /// [`Skeleton::bake_skeleton`] does through any handle).
    #[doc(alias = "bakeSkeleton")]
    pub fn bake(&self, sink: &mut dyn PoseSink) {
        self.state.bake(sink);
    }

    /// The association to stamp into `skel_gpu::SkeletonGpu::handle` for skeleton binding
    /// `binding` (`None` when the binding does not exist). See [`crate::mesh`]'s pattern.
    #[must_use]
    pub fn association(&self, binding: usize) -> Option<SkeletonAssociation> {
        self.skeleton_for_binding(binding).map(skeleton_association)
    }

    /// The mesh-side association of skeleton binding `binding`: `gpu` (the GPU skeleton, e.g.
    /// `skel_gpu::SkeletonGpu`) beside this asset's handle for the binding (none when the
    /// binding does not exist).
    #[must_use]
    pub fn attach<G>(&self, gpu: G, binding: usize) -> MeshSkeleton<G> {
        MeshSkeleton::with_handle(gpu, binding, self.skeleton_for_binding(binding).cloned())
    }
}

/// The [`PoseHook`] of one asset: reads the shared override map.
struct BoneControlHook {
    state: Arc<SharedState>,
}

impl std::fmt::Debug for BoneControlHook {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BoneControlHook")
            .field("active_overrides", &self.state.read().active_count())
            .finish()
    }
}

impl PoseHook for BoneControlHook {
    fn before_channels(&self, trs: &mut [f32]) {
        self.state.read().apply_transforms(trs);
    }

    fn after_channels(&self, trs: &mut [f32]) {
        self.state.read().apply_visibility(trs);
    }
}

/// A pose path of skel-anim that carries a bone-control hook, so that
/// [`BoneControlAsset::install`] can check its data and install the hook on any of them.
pub trait PoseHookHost {
    /// The animation data it poses.
    fn animation_data(&self) -> &Arc<AnimationData>;
    /// Installs (or with `None` removes) the hook.
    fn set_bone_control_hook(&mut self, hook: Option<Arc<dyn PoseHook>>);
}

impl PoseHookHost for AnimationController {
    fn animation_data(&self) -> &Arc<AnimationData> {
        self.data()
    }
    fn set_bone_control_hook(&mut self, hook: Option<Arc<dyn PoseHook>>) {
        self.set_pose_hook(hook);
    }
}

impl PoseHookHost for AnimationGroup {
    fn animation_data(&self) -> &Arc<AnimationData> {
        self.data()
    }
    fn set_bone_control_hook(&mut self, hook: Option<Arc<dyn PoseHook>>) {
        self.set_pose_hook(hook);
    }
}

impl PoseHookHost for skel_anim::Player {
    fn animation_data(&self) -> &Arc<AnimationData> {
        self.data()
    }
    fn set_bone_control_hook(&mut self, hook: Option<Arc<dyn PoseHook>>) {
        self.set_pose_hook(hook);
    }
}

impl PoseHookHost for WeightedBlend {
    fn animation_data(&self) -> &Arc<AnimationData> {
        self.data()
    }
    fn set_bone_control_hook(&mut self, hook: Option<Arc<dyn PoseHook>>) {
        self.set_pose_hook(hook);
    }
}

impl PoseHookHost for CrossFade {
    fn animation_data(&self) -> &Arc<AnimationData> {
        self.blend().data()
    }
    fn set_bone_control_hook(&mut self, hook: Option<Arc<dyn PoseHook>>) {
        self.blend_mut().set_pose_hook(hook);
    }
}
