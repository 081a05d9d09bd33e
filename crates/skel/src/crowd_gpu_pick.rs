//! Picking a GPU-posed [`Crowd`] on the GPU ([`GpuCrowdPicker`]): the first triangle a ray
//! hits over every instance, against the triangles as the pose pass posed them, with each
//! instance's box from the GPU cull tested first ([`skel_gpu::CrowdPick`]). The same answer as
//! [`CrowdPicker`](crate::CrowdPicker) gives a CPU-posed crowd in the same poses; 32 bytes
//! come back.
//!
//! Morphing meshes are picked morphed, with the weights the pose pass sampled for each
//! instance into [`Crowd::morph_weights_buffer`] (glTF: morph, then skin).

use skel_gltf::{PickHit, PrimitiveMode};
use skel_gpu::glam::{Mat4, Vec3};
use skel_gpu::{
    CrowdPick, CrowdPickDescriptor, CrowdPickHit, CrowdPickPrimitive, PickMorph, PickMorphWeights,
    PickTopology,
};

use crate::{AssetContainer, Crowd, CrowdHit, CullError, SkelError};

/// GPU picking of one GPU-posed crowd made with
/// [`CrowdDescriptor::gpu_cull`](crate::CrowdDescriptor::gpu_cull): the character's triangles
/// packed on the GPU once, and one ray per pick.
///
/// ```no_run
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// use skel::gpu::glam::{Mat4, Vec3};
/// let ctx = skel::gpu::GpuContext::new_headless()?;
/// let asset = skel::load_gltf(&ctx, std::path::Path::new("CesiumMan.glb"), &Default::default())?;
/// let mut crowd = skel::Crowd::new(&ctx, &asset, &skel::CrowdDescriptor {
///     instances: 3,
///     posing: skel::Posing::Gpu(Default::default()),
///     gpu_cull: true,
///     ..Default::default()
/// })?;
/// let placements: Vec<Mat4> =
///     (0..3).map(|i| Mat4::from_translation(Vec3::new(i as f32, 0.0, 0.0))).collect();
/// crowd.set_placements(&ctx, &placements)?;
/// let mut picker = skel::GpuCrowdPicker::new(&ctx, &asset, &crowd)?;
/// let camera = Mat4::perspective_rh(0.8, 1.5, 0.1, 100.0)
///     * Mat4::look_at_rh(Vec3::new(1.0, 1.0, 4.0), Vec3::new(1.0, 0.5, 0.0), Vec3::Y);
/// crowd.tick(0.25);
/// let mut encoder = ctx.device.create_command_encoder(&Default::default());
/// crowd.upload(&ctx, &mut encoder)?;
/// crowd.encode_cull(&ctx, &mut encoder, camera)?; // the boxes the pick tests first
/// ctx.queue.submit([encoder.finish()]);
/// if let Some(hit) = picker.pick(&ctx, Vec3::new(1.0, 0.5, 4.0), Vec3::NEG_Z)? {
///     println!("instance {} triangle {} at {} m", hit.instance, hit.hit.triangle, hit.hit.distance);
/// }
/// # Ok(()) }
/// ```
#[derive(Debug)]
pub struct GpuCrowdPicker {
    pick: CrowdPick,
}

impl GpuCrowdPicker {
    /// Packs `asset`'s skinned triangles (the container `crowd` was built from) for picking
    /// `crowd` on the GPU.
    ///
    /// # Errors
    /// [`CullError::PosedOnCpu`] / [`CullError::GpuCullOff`] for a crowd without a GPU cull
    /// (the pick tests its boxes and reads its placements); [`SkelError::Gpu`] when the
    /// character has no skinned triangle, or for what [`CrowdPick::new`] refuses (a bone
    /// buffer past one storage binding, too few storage buffers a stage).
    pub fn new(
        ctx: &skel_gpu::GpuContext,
        asset: &AssetContainer,
        crowd: &Crowd,
    ) -> Result<Self, SkelError> {
        if !crowd.posed_on_gpu() {
            return Err(CullError::PosedOnCpu.into());
        }
        let cull = crowd.gpu_cull().ok_or(CullError::GpuCullOff)?;
        // The pose pass's weights: each morph binding's first weight within an instance's.
        let posing = crowd.gpu_posing.as_ref().ok_or(CullError::PosedOnCpu)?;
        let (morph_offsets, morph_floats) =
            (&posing.set.morph_offsets, posing.clips.morph_floats());
        let rest = skel_gltf::rest_world_matrices(&asset.animation)?;
        let skeletons = &asset.animation.skeletons;
        // An instance's bones: every skeleton binding's joints, in binding order.
        let first_bone = |binding: usize| -> u32 {
            skeletons[..binding.min(skeletons.len())]
                .iter()
                .map(|b| u32::try_from(b.joints.len()).unwrap_or(u32::MAX))
                .sum()
        };
        let primitives: Vec<CrowdPickPrimitive<'_>> = (0u32..)
            .zip(&asset.primitives)
            .filter_map(|(p, prim)| {
                let binding = prim.skeleton_binding?;
                let skeleton = skeletons.get(binding)?;
                let influences = prim.influences.as_ref()?;
                let topology = match prim.mode {
                    PrimitiveMode::Triangles => PickTopology::Triangles,
                    PrimitiveMode::TriangleStrip => PickTopology::TriangleStrip,
                    PrimitiveMode::TriangleFan => PickTopology::TriangleFan,
                    _ => return None,
                };
                Some(CrowdPickPrimitive {
                    primitive: p,
                    mesh: u32::try_from(prim.mesh).ok()?,
                    topology,
                    positions: &prim.positions,
                    indices: prim.indices.as_deref(),
                    influences_per_vertex: u32::try_from(influences.per_vertex).ok()?,
                    joints: &influences.joints,
                    weights: &influences.weights,
                    bone_offset: first_bone(binding),
                    mesh_world: rest
                        .get(skeleton.mesh_node)
                        .copied()
                        .unwrap_or(Mat4::IDENTITY),
                    morph: prim
                        .morph_targets
                        .as_ref()
                        .zip(prim.morph_binding.and_then(|b| morph_offsets.get(b)))
                        .map(|(targets, &first_weight)| PickMorph {
                            deltas: &targets.positions,
                            targets: u32::try_from(targets.target_count).unwrap_or(u32::MAX),
                            first_weight,
                        }),
                })
            })
            .collect();
        let pick = CrowdPick::new(
            ctx,
            crowd.gpu(),
            cull,
            &CrowdPickDescriptor {
                primitives: &primitives,
                morph_weights: (morph_floats > 0).then(|| PickMorphWeights {
                    buffer: posing.pose.morph_buffer(),
                    floats_per_instance: morph_floats,
                }),
            },
        )
        .map_err(SkelError::gpu("crowd GPU pick"))?;
        Ok(Self { pick })
    }

    /// The first triangle the ray from `origin` along `direction` hits over every instance
    /// of the crowd, as its last pose pass posed it, placed by
    /// [`Crowd::set_placements`], both faces counting; `None` for a miss. Submit a frame with
    /// [`Crowd::encode_cull`] after the pose first: the pick tests the boxes that cull wrote.
    /// Blocks until the GPU is done (in a browser, use [`encode`](Self::encode) and
    /// [`read_async`](Self::read_async)).
    ///
    /// # Errors
    /// [`SkelError::Gpu`] for a NaN or infinite origin or direction, a direction without
    /// length, or a failed readback.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn pick(
        &mut self,
        ctx: &skel_gpu::GpuContext,
        origin: Vec3,
        direction: Vec3,
    ) -> Result<Option<CrowdHit>, SkelError> {
        let hit = self
            .pick
            .pick(ctx, origin, direction)
            .map_err(SkelError::gpu("crowd GPU pick"))?;
        Ok(hit.map(crowd_hit))
    }

    /// Records the pick of one ray into `encoder` (after the frame's pose and cull); submit,
    /// then [`read_async`](Self::read_async). One pick per submission.
    ///
    /// # Errors
    /// As [`pick`](Self::pick).
    pub fn encode(
        &mut self,
        ctx: &skel_gpu::GpuContext,
        encoder: &mut wgpu::CommandEncoder,
        origin: Vec3,
        direction: Vec3,
    ) -> Result<(), SkelError> {
        self.pick
            .encode(ctx, encoder, origin, direction)
            .map_err(SkelError::gpu("crowd GPU pick"))
    }

    /// The answer of the last submitted [`encode`](Self::encode), waiting without blocking.
    ///
    /// # Errors
    /// [`SkelError::Gpu`] when the readback fails.
    pub async fn read_async(
        &self,
        ctx: &skel_gpu::GpuContext,
    ) -> Result<Option<CrowdHit>, SkelError> {
        let hit = self
            .pick
            .read_async(ctx)
            .await
            .map_err(SkelError::gpu("crowd GPU pick"))?;
        Ok(hit.map(crowd_hit))
    }
}

/// skel-gpu's answer in the CPU picker's terms.
fn crowd_hit(h: CrowdPickHit) -> CrowdHit {
    CrowdHit {
        instance: h.instance,
        hit: PickHit {
            primitive: h.primitive as usize,
            mesh: h.mesh as usize,
            triangle: h.triangle as usize,
            barycentric: h.barycentric,
            distance: h.distance,
            point: h.point,
        },
    }
}
