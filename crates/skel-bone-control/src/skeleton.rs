//! The public handles: [`Skeleton`] (one per skinned mesh) and its [`Bone`]s, built by the
//! opt-in discovery pass.

use std::sync::Arc;

use skel_anim::{AnimationData, SkeletonBinding};

use crate::{BoneControlError, state::SharedState};

/// One joint of a skin, as the user sees it. Its index in [`Skeleton::bones`] is the bone index
/// (the joint's position in glTF `skin.joints`); there is no separate index field.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Bone {
    /// The joint node's name (glTF `node.name`; empty when absent).
    pub name: String,
    /// Index (in the same skeleton) of the nearest ancestor node that is a joint of the same
    /// skin, skipping non-joint nodes in between; `None` for a root of the skin.
    pub parent: Option<usize>,
}

/// The bone-control handle of one skinned mesh (one skeleton binding).
///
/// Created only by [`enable_bone_control`](crate::enable_bone_control) and always held in an
/// [`Arc`]: the handle's identity is the `Arc`'s ([`Arc::ptr_eq`]), which is how a scene's
/// skeletons are deduplicated. The bone list and parent references never change after creation.
///
/// Every handle of one asset shares one override map: a skin split across several meshes has a
/// handle per mesh, and an override set through any of them moves the joint on every mesh.
pub struct Skeleton {
    pub(crate) bones: Vec<Bone>,
    /// Joint node of each bone.
    pub(crate) joints: Vec<usize>,
    pub(crate) binding: usize,
    pub(crate) skin: usize,
    pub(crate) mesh_node: usize,
    pub(crate) state: Arc<SharedState>,
}

impl std::fmt::Debug for Skeleton {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Skeleton")
            .field("binding", &self.binding)
            .field("skin", &self.skin)
            .field("mesh_node", &self.mesh_node)
            .field("bones", &self.bones.len())
            .finish_non_exhaustive()
    }
}

impl Skeleton {
    /// Builds the handle of skeleton binding `binding` (discovery: bones in joint order, each
    /// parent the nearest ancestor joint of the same skin).
    pub(crate) fn build(
        data: &AnimationData,
        binding: usize,
        sk: &SkeletonBinding,
        state: Arc<SharedState>,
    ) -> Self {
        Self {
            bones: discover_bones(data, &sk.joints),
            joints: sk.joints.clone(),
            binding,
            skin: sk.skin,
            mesh_node: sk.mesh_node,
            state,
        }
    }

    /// The bones, in glTF joint order: the index here is the bone index.
    #[must_use]
    pub fn bones(&self) -> &[Bone] {
        &self.bones
    }

    /// Number of bones.
    #[must_use]
    pub fn bone_count(&self) -> usize {
        self.bones.len()
    }

    /// The first bone named `name`.
    #[doc(alias = "getBoneByName")]
    #[must_use]
    pub fn get_bone_by_name(&self, name: &str) -> Option<&Bone> {
        self.bones.iter().find(|b| b.name == name)
    }

    /// Index of the first bone named `name`.
    #[must_use]
    pub fn bone_index_by_name(&self, name: &str) -> Option<usize> {
        self.bones.iter().position(|b| b.name == name)
    }

    /// Index of `bone` in this skeleton.
    ///
    /// # Errors
    /// [`BoneControlError::BoneOutOfRange`] / [`BoneControlError::ForeignBone`] as
    /// [`BoneKey::resolve`] says.
    pub fn bone_index(&self, bone: impl BoneKey) -> Result<usize, BoneControlError> {
        bone.resolve(self)
    }

    /// The node index of `bone`'s joint.
    ///
    /// # Errors
    /// As [`bone_index`](Self::bone_index).
    pub fn joint_node(&self, bone: impl BoneKey) -> Result<usize, BoneControlError> {
        let b = bone.resolve(self)?;
        Ok(self.joints[b])
    }

    /// The skeleton binding this handle belongs to (index in `AnimationData::skeletons`, the
    /// `binding` argument of [`PoseSink::bone_matrices`](skel_anim::PoseSink::bone_matrices)).
    #[must_use]
    pub fn binding(&self) -> usize {
        self.binding
    }

    /// The glTF skin of the binding (several handles share one when a skin is split across
    /// meshes).
    #[must_use]
    pub fn skin(&self) -> usize {
        self.skin
    }

    /// The node holding the skinned mesh.
    #[must_use]
    pub fn mesh_node(&self) -> usize {
        self.mesh_node
    }

    /// Whether `other` is a handle of the same asset, i.e. shares its override map.
    #[must_use]
    pub fn shares_overrides_with(&self, other: &Skeleton) -> bool {
        Arc::ptr_eq(&self.state, &other.state)
    }

    /// The animation data of the asset.
    #[must_use]
    pub fn data(&self) -> &Arc<AnimationData> {
        &self.state.data
    }
}

/// Resolves each joint's parent bone by walking the node ancestry until another joint of the same
/// skin is found (non-joint nodes in between are skipped); roots get `None`.
fn discover_bones(data: &AnimationData, joints: &[usize]) -> Vec<Bone> {
    let mut bone_of_node: Vec<Option<usize>> = vec![None; data.nodes.len()];
    for (bone, &node) in joints.iter().enumerate() {
        if let Some(slot) = bone_of_node.get_mut(node) {
            slot.get_or_insert(bone);
        }
    }
    joints
        .iter()
        .map(|&node| {
            // `data` was validated (no cycle, parents in range), so this walk ends.
            let mut ancestor = data.nodes.get(node).and_then(|n| n.parent);
            let parent = loop {
                match ancestor {
                    None => break None,
                    Some(a) => match bone_of_node.get(a).copied().flatten() {
                        Some(bone) => break Some(bone),
                        None => ancestor = data.nodes.get(a).and_then(|n| n.parent),
                    },
                }
            };
            Bone {
                name: data
                    .nodes
                    .get(node)
                    .map(|n| n.name.clone())
                    .unwrap_or_default(),
                parent,
            }
        })
        .collect()
}

/// How a setter names a bone: by index (`usize`) or by a `&Bone` taken from the same skeleton.
/// Sealed: implemented for those two only.
pub trait BoneKey: sealed::Sealed {
    /// The bone index in `skeleton`.
    ///
    /// # Errors
    /// [`BoneControlError::BoneOutOfRange`] for an index past the end;
    /// [`BoneControlError::ForeignBone`] for a `&Bone` that is not an element of
    /// `skeleton.bones()` (identity, not name: a bone of another handle is refused even when
    /// the names match).
    fn resolve(&self, skeleton: &Skeleton) -> Result<usize, BoneControlError>;
}

impl BoneKey for usize {
    fn resolve(&self, skeleton: &Skeleton) -> Result<usize, BoneControlError> {
        if *self < skeleton.bones.len() {
            Ok(*self)
        } else {
            Err(BoneControlError::BoneOutOfRange {
                bone: *self,
                bone_count: skeleton.bones.len(),
                binding: skeleton.binding,
            })
        }
    }
}

impl BoneKey for &Bone {
    fn resolve(&self, skeleton: &Skeleton) -> Result<usize, BoneControlError> {
        skeleton
            .bones
            .iter()
            .position(|b| std::ptr::eq(b, *self))
            .ok_or_else(|| BoneControlError::ForeignBone {
                name: self.name.clone(),
                binding: skeleton.binding,
            })
    }
}

/// The supertrait that keeps [`BoneKey`] closed: it is not nameable outside this crate, so
/// no other type can implement it. It names nothing of this module; the two impls live here
/// beside the `BoneKey` impls, so the dependency runs one way (this module uses `sealed`).
mod sealed {
    /// Implemented for exactly the types that implement [`BoneKey`](super::BoneKey).
    pub trait Sealed {}
}

impl sealed::Sealed for usize {}
impl sealed::Sealed for &Bone {}
