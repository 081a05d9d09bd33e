//! The mesh side: how a mesh finds its [`Skeleton`] handle, and mesh visibility.
//!
//! # The pattern for the facade
//!
//! The association is written once, by the opt-in builder at load, into the runtime skeleton
//! data of each skinned mesh; [`get_mesh_skeleton`] reads it back directly (no registry). Two
//! places are supported:
//!
//! 1. **`skel_gpu::SkeletonGpu::handle`** (the seed's `SkeletonData._skeleton`), the
//!    recommended one with skel-gpu: stamp it with [`skeleton_association`] (or
//!    [`BoneControlAsset::association`](crate::BoneControlAsset::association)). skel-gpu's
//!    `SkeletonGpu::recreate` rebuilds only GPU fields after a device loss and leaves `handle`
//!    alone; meshes that share one `SkeletonGpu` (clones sharing runtime skeleton data) share
//!    the handle and, through it, the override state.
//! 2. **[`MeshSkeleton<G>`]**, for hosts with their own GPU type: the GPU skeleton `G` in a
//!    public field beside a private handle. Recovery assigns `gpu` (or calls
//!    [`MeshSkeleton::replace_gpu`]) and cannot reach the handle; cloning clones the `Arc`.
//!
//! ```
//! # use std::any::Any;
//! # use std::sync::Arc;
//! # use skel_bone_control::*;
//! # struct SkeletonGpu { handle: Option<Arc<dyn Any + Send + Sync>> } // stands for skel_gpu's
//! #[derive(Clone)]
//! pub struct Mesh {
//!     pub visible: bool,
//!     pub skeleton: Option<Arc<SkeletonGpu>>, // None: not skinned; clones share it
//!     /* … */
//! }
//! impl HasMeshSkeleton for Mesh {
//!     fn mesh_skeleton(&self) -> Option<Arc<Skeleton>> {
//!         self.skeleton.as_ref()?.handle.mesh_skeleton()
//!     }
//! }
//! impl MeshVisibility for Mesh {
//!     fn set_visible(&mut self, visible: bool) { self.visible = visible; /* mark draws dirty */ }
//! }
//! ```
//!
//! The loader stamps the association only when bone control is enabled; skins loaded without
//! it, and skeleton data made by hand, have none, and [`get_mesh_skeleton`] gives `None`. To
//! enumerate a scene's skeletons, walk the meshes and dedupe by handle identity:
//! [`collect_skeletons`].

use std::any::Any;
use std::sync::Arc;

use crate::Skeleton;

/// A skinned mesh's runtime skeleton data (`gpu`) with its optional bone-control handle.
#[derive(Debug, Clone)]
pub struct MeshSkeleton<G> {
    /// The GPU skeleton (bone texture, joint/weight buffers). Replaced wholesale on device
    /// recovery; the handle below is untouched by that.
    pub gpu: G,
    binding: usize,
    handle: Option<Arc<Skeleton>>,
}

impl<G> MeshSkeleton<G> {
    /// A mesh skeleton without bone control: skins loaded without it and skeleton data made by
    /// hand. [`get_mesh_skeleton`] gives `None` for it.
    #[must_use]
    pub fn new(gpu: G, binding: usize) -> Self {
        Self {
            gpu,
            binding,
            handle: None,
        }
    }

    pub(crate) fn with_handle(gpu: G, binding: usize, handle: Option<Arc<Skeleton>>) -> Self {
        Self {
            gpu,
            binding,
            handle,
        }
    }

    /// Recovery-style replacement of the GPU fields: returns the old ones and keeps the
    /// bone-control handle.
    pub fn replace_gpu(&mut self, gpu: G) -> G {
        std::mem::replace(&mut self.gpu, gpu)
    }

    /// The skeleton binding (index in `AnimationData::skeletons`).
    #[must_use]
    pub fn binding(&self) -> usize {
        self.binding
    }

    /// The bone-control handle, when the skin was loaded with bone control.
    #[must_use]
    pub fn skeleton(&self) -> Option<&Arc<Skeleton>> {
        self.handle.as_ref()
    }
}

/// A type-erased association for a slot owned by a lower layer that cannot name this crate
/// (`skel_gpu::SkeletonGpu::handle`).
pub type SkeletonAssociation = Arc<dyn Any + Send + Sync>;

/// The association to stamp into `SkeletonGpu::handle` for `skeleton`: the same `Arc`, erased.
#[must_use]
pub fn skeleton_association(skeleton: &Arc<Skeleton>) -> SkeletonAssociation {
    Arc::clone(skeleton) as SkeletonAssociation
}

/// Something that may carry a bone-control handle: a mesh (the facade's mesh type implements
/// it), a [`MeshSkeleton`], or a [`SkeletonAssociation`] slot.
pub trait HasMeshSkeleton {
    /// The handle, when the mesh is skinned and was loaded with bone control.
    fn mesh_skeleton(&self) -> Option<Arc<Skeleton>>;
}

impl<G> HasMeshSkeleton for MeshSkeleton<G> {
    fn mesh_skeleton(&self) -> Option<Arc<Skeleton>> {
        self.handle.clone()
    }
}

impl HasMeshSkeleton for SkeletonAssociation {
    /// The handle when the slot holds one (anything else stamped there gives `None`).
    fn mesh_skeleton(&self) -> Option<Arc<Skeleton>> {
        Arc::clone(self).downcast::<Skeleton>().ok()
    }
}

impl<T: HasMeshSkeleton> HasMeshSkeleton for Option<T> {
    fn mesh_skeleton(&self) -> Option<Arc<Skeleton>> {
        self.as_ref().and_then(HasMeshSkeleton::mesh_skeleton)
    }
}

impl<T: HasMeshSkeleton + ?Sized> HasMeshSkeleton for &T {
    fn mesh_skeleton(&self) -> Option<Arc<Skeleton>> {
        (**self).mesh_skeleton()
    }
}

/// The public skeleton driving `mesh`: `None` for unskinned meshes, skins loaded without bone
/// control and skeleton data made by hand. A direct read of the mesh's association, no registry.
#[doc(alias = "getMeshSkeleton")]
#[must_use]
pub fn get_mesh_skeleton<M: HasMeshSkeleton + ?Sized>(mesh: &M) -> Option<Arc<Skeleton>> {
    mesh.mesh_skeleton()
}

/// Every distinct handle among `meshes`, in first-seen order, deduplicated by identity
/// ([`Arc::ptr_eq`]): clones of a mesh count once; two meshes of one split skin have two
/// handles (one per mesh), which share one override map.
pub fn collect_skeletons<'a, M, I>(meshes: I) -> Vec<Arc<Skeleton>>
where
    M: HasMeshSkeleton + ?Sized + 'a,
    I: IntoIterator<Item = &'a M>,
{
    let mut out: Vec<Arc<Skeleton>> = Vec::new();
    for mesh in meshes {
        if let Some(handle) = mesh.mesh_skeleton()
            && !out.iter().any(|h| Arc::ptr_eq(h, &handle))
        {
            out.push(handle);
        }
    }
    out
}

/// A mesh whose visibility can be switched. The facade's mesh type implements it (setting its
/// flag and whatever its renderer caches about it).
pub trait MeshVisibility {
    /// Shows or hides the whole mesh.
    fn set_visible(&mut self, visible: bool);
}

/// Shows or hides one mesh.
///
/// Use this, not [`Skeleton::set_bone_visible`], to hide one mesh of a skin split across
/// several: bone overrides are asset-wide and would hide the bone on every mesh of the skin.
/// It writes no override and uploads nothing.
#[doc(alias = "setMeshVisible")]
pub fn set_mesh_visible<M: MeshVisibility + ?Sized>(mesh: &mut M, visible: bool) {
    mesh.set_visible(visible);
}
