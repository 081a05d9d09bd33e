//! Boxing and culling a CPU-posed [`Crowd`]: each instance's box from the bone matrices its
//! player just computed, and the visible list cut to the instances whose placed box meets a
//! camera's frustum, so that upload, skinning and drawing skip the rest.
//!
//! The box is [`skel_gltf::CharacterBounds`]'s rule (the container's
//! [`bounds`](crate::AssetContainer::bounds)) over the crowd's own matrices: each skin
//! joint's sphere (in mesh space, around every vertex the joint moves, widened by how far the
//! morph targets push them) carried by the joint's bone matrix, and the union of the spheres'
//! exact boxes. A skinned vertex is a convex combination of its joints' carried points, so it
//! lies inside, for every pose and every morph weight in `0..=1`. docs/bounds.md has the rule
//! and how tight it is.
//!
//! A frame: [`Crowd::tick`], [`Crowd::cull`], [`Crowd::upload`], [`Crowd::skin`], then the
//! renderer's [`place_visible`](crate::render::CrowdRenderer::place_visible) and draw.

use skel_gltf::carried_spheres_box;
use skel_gpu::frustum_planes;
use skel_gpu::glam::{Mat4, Vec3, Vec4};

use crate::{AssetContainer, Crowd, SkelError};

/// Why a crowd cannot be culled as asked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CullError {
    /// A GPU-posed crowd has no bone matrices on the CPU: cull it on the GPU with
    /// [`skel_gpu::CrowdCull`], which boxes the instances where the pose pass wrote them.
    #[error("the crowd is posed on the GPU; cull it there (skel_gpu::CrowdCull)")]
    PosedOnGpu,
    /// Fewer placements than instances.
    #[error("{given} placements for {instances} instances")]
    Placements {
        /// Placements given.
        given: usize,
        /// Instances in the crowd.
        instances: usize,
    },
}

/// A skin joint's sphere, by its bone's place in an instance's bone matrices.
#[derive(Debug, Clone, Copy)]
pub(crate) struct CullSphere {
    bone: usize,
    /// The skinned mesh node's rest world matrix, where it is not the identity: a bone matrix
    /// is `inverse(meshWorld) · jointWorld · inverseBind` (skinned vertices in the mesh
    /// node's frame, which the renderer then places), so this takes the sphere on to the
    /// character's world.
    mesh: Option<Mat4>,
    center: Vec3,
    radius: f32,
}

/// The spheres of `asset`'s skinned meshes, each under its bone's place in an instance's
/// matrices (`first_bone(binding)`: where that skeleton binding's bones start) and its mesh
/// node's rest world matrix.
pub(crate) fn cull_spheres(
    asset: &AssetContainer,
    first_bone: impl Fn(usize) -> Option<usize>,
) -> Vec<CullSphere> {
    let rest = skel_gltf::rest_world_matrices(&asset.animation).unwrap_or_default();
    let mesh_world = |binding: usize| {
        let node = asset.animation.skeletons.get(binding)?.mesh_node;
        rest.get(node).copied().filter(|m| *m != Mat4::IDENTITY)
    };
    asset
        .bounds
        .bone_spheres()
        .filter_map(|s| {
            Some(CullSphere {
                bone: first_bone(s.binding)? + s.joint,
                mesh: mesh_world(s.binding),
                center: s.center,
                radius: s.radius,
            })
        })
        .collect()
}

impl Crowd {
    /// The box `(min, max)` around every skinned (and morphed) vertex of instance
    /// `instance` in the pose its last [`tick`](Self::tick) computed, in the character's
    /// world before a renderer's placement: the skinned meshes' nodes where the rest pose
    /// puts them (as [`CrowdRenderer`](crate::render::CrowdRenderer) draws them when given
    /// the rest world matrices). A few nanoseconds per joint; allocates nothing.
    ///
    /// `None` for an instance past the end, a GPU-posed crowd (its matrices are on the GPU),
    /// or bone matrices that are not finite.
    #[must_use]
    pub fn instance_box(&self, instance: usize) -> Option<(Vec3, Vec3)> {
        if self.gpu_posing.is_some() {
            return None;
        }
        let bones = self.bones.chunks(self.stride).nth(instance)?;
        spheres_box(&self.cull_spheres, bones)
    }

    /// Keeps in the visible list only the instances whose player is visible and whose box
    /// ([`instance_box`](Self::instance_box)) moved by `placements[i]` meets the frustum of
    /// `view_projection` (projection · view, WebGPU's clip space: depth from 0 to 1); returns
    /// how many are left. Call it after [`tick`](Self::tick) (which rebuilds the list from
    /// the players) and before [`upload`](Self::upload); the culled instances' bones are
    /// neither uploaded nor skinned, and a renderer draws the list as it is left
    /// ([`CrowdRenderer::place_visible`](crate::render::CrowdRenderer::place_visible)).
    ///
    /// The test is conservative: an instance is kept unless its box lies wholly outside one
    /// of the frustum's six planes, and an instance with no finite box is kept. Allocates
    /// nothing.
    ///
    /// ```no_run
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// use skel::gpu::glam::{Mat4, Vec3};
    /// let ctx = skel::gpu::GpuContext::new_headless()?;
    /// let path = std::path::Path::new("CesiumMan.glb");
    /// let asset = skel::load_gltf(&ctx, path, &skel::LoadOptions::default())?;
    /// let mut crowd = skel::Crowd::new(&ctx, &asset, &skel::CrowdDescriptor {
    ///     instances: 100,
    ///     ..Default::default()
    /// })?;
    /// let placements: Vec<Mat4> = (0..100)
    ///     .map(|i| Mat4::from_translation(Vec3::new((i % 10) as f32, 0.0, (i / 10) as f32)))
    ///     .collect();
    /// let view = Mat4::look_at_rh(Vec3::new(0.0, 2.0, 3.0), Vec3::new(0.0, 1.0, 0.0), Vec3::Y);
    /// let projection = Mat4::perspective_rh(0.8, 16.0 / 9.0, 0.1, 100.0);
    /// crowd.tick(1.0 / 60.0);
    /// let seen = crowd.cull(projection * view, &placements)?;
    /// println!("{seen} of 100 in view");
    /// # Ok(()) }
    /// ```
    ///
    /// # Errors
    /// [`CullError::PosedOnGpu`] for a GPU-posed crowd, [`CullError::Placements`] when
    /// `placements` is shorter than the crowd; the visible list is left as it was.
    pub fn cull(&mut self, view_projection: Mat4, placements: &[Mat4]) -> Result<u32, SkelError> {
        if self.gpu_posing.is_some() {
            return Err(CullError::PosedOnGpu.into());
        }
        if placements.len() < self.players.len() {
            return Err(CullError::Placements {
                given: placements.len(),
                instances: self.players.len(),
            }
            .into());
        }
        let planes = frustum_planes(view_projection);
        let Self {
            players,
            bones,
            visible,
            stride,
            cull_spheres,
            ..
        } = self;
        visible.retain(|&i| {
            let i = i as usize;
            let Some(placement) = placements.get(i) else {
                return true;
            };
            let boxed = bones
                .chunks(*stride)
                .nth(i)
                .and_then(|bones| spheres_box(cull_spheres, bones));
            players.get(i).is_some_and(skel_anim::Player::visible)
                && boxed.is_none_or(|b| meets_frustum(placement, b, &planes))
        });
        Ok(self.visible_count())
    }
}

/// The box of `spheres` under one instance's `bones` (and their mesh nodes' matrices).
fn spheres_box(spheres: &[CullSphere], bones: &[Mat4]) -> Option<(Vec3, Vec3)> {
    carried_spheres_box(spheres.iter().filter_map(|s| {
        let bone = *bones.get(s.bone)?;
        let m = s.mesh.map_or(bone, |mesh| mesh * bone);
        Some((m, s.center, s.radius))
    }))
}

/// Whether the box `(min, max)` moved by `placement` is not wholly outside one of `planes`
/// (`n·p + d ≥ 0` inside). The moved box is boxed again (its centre moved, its half extent
/// through the absolute 3×3 part), which only widens it.
fn meets_frustum(placement: &Mat4, (min, max): (Vec3, Vec3), planes: &[Vec4; 6]) -> bool {
    let center = placement.transform_point3((min + max) * 0.5);
    let half = (max - min) * 0.5;
    let abs = |c: Vec4| c.truncate().abs();
    let extent = abs(placement.x_axis) * half.x
        + abs(placement.y_axis) * half.y
        + abs(placement.z_axis) * half.z;
    planes.iter().all(|p| {
        let n = p.truncate();
        // The box's corner farthest along `n`: outside only when even it is behind the plane
        // (a NaN distance is not `Less`, so a non-finite placement keeps the instance).
        let farthest = n.dot(center) + n.abs().dot(extent) + p.w;
        farthest.partial_cmp(&0.0) != Some(core::cmp::Ordering::Less)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_box_is_outside_only_when_wholly_behind_a_plane() {
        let view = Mat4::look_at_rh(Vec3::new(0.0, 0.0, 5.0), Vec3::ZERO, Vec3::Y);
        let planes = frustum_planes(Mat4::perspective_rh(1.0, 1.0, 0.1, 50.0) * view);
        let unit = (Vec3::splat(-0.5), Vec3::splat(0.5));
        let at = |x: f32, z: f32| Mat4::from_translation(Vec3::new(x, 0.0, z));
        assert!(meets_frustum(&at(0.0, 0.0), unit, &planes), "in front");
        assert!(
            !meets_frustum(&at(0.0, 10.0), unit, &planes),
            "behind the camera"
        );
        assert!(
            !meets_frustum(&at(30.0, 0.0), unit, &planes),
            "far to the side"
        );
        assert!(
            !meets_frustum(&at(0.0, -60.0), unit, &planes),
            "past the far plane"
        );
        // The box's far face is 5.5 m from the camera, where the half-width seen is
        // 5.5 tan(0.5) ≈ 3.0: a box reaching 0.1 past it meets, one 0.1 short of it does not.
        let edge = 5.5 * 0.5_f32.tan();
        assert!(
            meets_frustum(&at(edge + 0.4, 0.0), unit, &planes),
            "straddles"
        );
        assert!(
            !meets_frustum(&at(edge + 0.6, 0.0), unit, &planes),
            "just outside"
        );
        // A turned placement widens the box, never loses it.
        let turned = at(edge + 0.6, 0.0) * Mat4::from_rotation_z(0.7);
        assert!(
            meets_frustum(&turned, unit, &planes),
            "the turned box's corner reaches in"
        );
        assert!(meets_frustum(&Mat4::NAN, unit, &planes), "not finite: kept");
    }
}
