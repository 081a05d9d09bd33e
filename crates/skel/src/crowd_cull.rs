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
//! renderer's [`place`](crate::render::CrowdRenderer::place) and draw. A GPU-posed crowd is
//! culled on the GPU instead (`crowd_gpu_cull`).

use skel_gpu::frustum_planes;
use skel_gpu::glam::{Mat4, Vec3};

use crate::crowd_bounds::{Frustum, box_meets_frustum, box_verdict, spheres_box};
use crate::{Crowd, CullError, SkelError};

impl Crowd {
    /// The box `(min, max)` around every skinned (and morphed) vertex of instance
    /// `instance` in the pose its last [`tick`](Self::tick) computed, in the character's
    /// world before a renderer's placement: the skinned meshes' nodes where the rest pose
    /// puts them (as [`CrowdRenderer`](crate::render::CrowdRenderer) draws them when given
    /// the rest world matrices). A few nanoseconds per joint; allocates nothing. With
    /// [`CrowdDescriptor::boxes_in_tick`](crate::CrowdDescriptor::boxes_in_tick) the box `tick`
    /// made and kept (the same box, bit for bit), at no cost.
    ///
    /// `None` for an instance past the end, a GPU-posed crowd (its matrices are on the GPU),
    /// or bone matrices that are not finite.
    #[must_use]
    pub fn instance_box(&self, instance: usize) -> Option<(Vec3, Vec3)> {
        if self.gpu_posing.is_some() {
            return None;
        }
        if !self.boxes.is_empty() {
            return self.boxes.get(instance).copied().flatten();
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
    /// ([`CrowdRenderer::place`](crate::render::CrowdRenderer::place)).
    ///
    /// The test is conservative: an instance is kept unless its box lies wholly outside one
    /// of the frustum's six planes. An instance none of whose joints has a finite box (NaN or
    /// infinite bones, which draw nothing) goes, as the GPU cull ([`skel_gpu::CrowdCull`])
    /// decides; a character with no joint spheres at all is never culled. Allocates
    /// nothing; with the `rayon` feature the boxes are made on rayon's pool (call it inside
    /// `ThreadPool::install`, as [`tick`](Self::tick)). With
    /// [`CrowdDescriptor::boxes_in_tick`](crate::CrowdDescriptor::boxes_in_tick) the boxes
    /// `tick` kept are tested instead, with the same verdicts: no bone is read again, and the
    /// boxes' cost moves into the tick (docs/bounds.md has what each way costs).
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
        let planes = Frustum::new(&frustum_planes(view_projection));
        let Self {
            players,
            bones,
            visible,
            stride,
            cull_spheres,
            cull_keep,
            boxes,
            ..
        } = self;
        let keep = |&i: &u32| {
            let i = i as usize;
            let Some(placement) = placements.get(i) else {
                return true;
            };
            if !players.get(i).is_some_and(skel_anim::Player::visible) {
                return false;
            }
            match boxes.get(i) {
                // The box tick kept (`boxes_in_tick`).
                Some(&kept) => box_verdict(cull_spheres, kept, placement, &planes),
                None => {
                    let bones = bones.chunks(*stride).nth(i).unwrap_or_default();
                    box_meets_frustum(cull_spheres, bones, placement, &planes)
                }
            }
        };
        #[cfg(feature = "rayon")]
        {
            // The verdicts on rayon's pool (call inside `ThreadPool::install`, as `tick`),
            // then the list kept in order.
            use rayon::prelude::*;
            let verdicts = &mut cull_keep[..visible.len().min(players.len())];
            visible
                .par_iter()
                .zip(verdicts.par_iter_mut())
                .for_each(|(i, k)| *k = keep(i));
            let mut kept = verdicts.iter();
            visible.retain(|_| kept.next().copied().unwrap_or(true));
        }
        #[cfg(not(feature = "rayon"))]
        {
            let _ = cull_keep;
            visible.retain(keep);
        }
        Ok(self.visible_count())
    }
}
