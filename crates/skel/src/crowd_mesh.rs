//! One skinned mesh of a [`Crowd`](crate::Crowd): its draw parameters, its skinned output and
//! compute bindings, and, for a mesh with morph targets, where each instance's weights are.

use skel_gpu::{
    CrowdBones, CrowdMorphInputs, CrowdSkinning, CrowdSkinningBindings, CrowdSkinningInputs,
    GpuContext, GpuError, Influences, SkinningMethod,
};

use crate::crowd_pipelines::{CROWD_PIPELINES, pipeline_slot};
use crate::{Mesh, SkelError};

/// One skinned mesh of a crowd.
#[derive(Debug)]
#[non_exhaustive]
pub struct CrowdMesh {
    /// Its index in [`AssetContainer::meshes`](crate::AssetContainer::meshes).
    pub mesh: usize,
    /// Its first bone matrix within an instance's bones.
    pub bone_offset: u32,
    /// Its vertices.
    pub vertex_count: u32,
    /// Influences per vertex (4, 8 or 16).
    pub influences: u32,
    /// How [`Crowd::skin`](crate::Crowd::skin) skins it (linear after a dual-quaternion
    /// fallback).
    pub skinning: SkinningMethod,
    /// Whether [`Crowd::skin`](crate::Crowd::skin) morphs it before skinning, each instance
    /// with its own weights: the mesh has morph targets and the crowd has compute skinning
    /// (and the device enough storage buffers per stage; else [`Crowd::warnings`] says so).
    ///
    /// The vertex-shader fragment does not morph (see `skel_gpu::crowd_vertex_wgsl`); draw a
    /// morphing mesh from the skinned output.
    ///
    /// [`Crowd::warnings`]: crate::Crowd::warnings
    pub morph: bool,
    /// Skinned positions, slot-major (`(slot * vertex_count + vertex) * 3` floats), written by
    /// [`Crowd::skin`](crate::Crowd::skin); `None` without compute.
    pub skinned_positions: Option<wgpu::Buffer>,
    /// Skinned normals, same layout.
    pub skinned_normals: Option<wgpu::Buffer>,
    /// The 16-byte `SkelCrowdDraw` uniform of the vertex fragment.
    pub draw_params: wgpu::Buffer,
    /// One binding per chunk of slots (one without chunking); empty without compute.
    pub(crate) compute: Vec<CrowdSkinningBindings>,
}

/// Every instance's morph weights: one buffer, `stride` floats per instance, morph binding
/// `b`'s targets from float `offsets[b]` of an instance's (the pose pass's layout, see
/// `skel_gpu::GpuCrowdPose::morph_buffer`).
#[derive(Debug, Clone, Copy)]
pub(crate) struct MorphWeights<'a> {
    pub(crate) buffer: &'a wgpu::Buffer,
    pub(crate) stride: u32,
    pub(crate) offsets: &'a [u32],
}

/// What every mesh of one crowd shares.
pub(crate) struct MeshSetup<'a> {
    pub(crate) bones: &'a CrowdBones,
    pub(crate) instances: u32,
    pub(crate) compute: bool,
    pub(crate) skinning: SkinningMethod,
    pub(crate) max_chunk_bytes: Option<u64>,
    /// `None` when no mesh morphs.
    pub(crate) morph: Option<MorphWeights<'a>>,
}

impl CrowdMesh {
    /// Sets up `mesh` (asset mesh `index`, whose bones start at `bone_offset`): its draw
    /// uniform and, with compute, its output buffers and bindings, compiling the pipeline it
    /// needs into `pipelines` when not there yet. A dual-quaternion mesh whose rest bones are
    /// not rigid is skinned linearly, with a line in `warnings`.
    pub(crate) fn build(
        ctx: &GpuContext,
        setup: &MeshSetup<'_>,
        (index, mesh, bone_offset): (usize, &Mesh, u32),
        pipelines: &mut [Option<CrowdSkinning>; CROWD_PIPELINES],
        warnings: &mut Vec<String>,
    ) -> Result<Self, SkelError> {
        let what = format!("crowd mesh {index}");
        let skeleton = mesh.skeleton.as_ref().ok_or_else(|| {
            SkelError::gpu(what.clone())(GpuError::MissingBinding {
                what: "a skinned mesh",
            })
        })?;
        let influences = skeleton.gpu.influences_per_vertex();
        let params = skel_gpu::crowd_mesh_params(mesh.vertex_count, setup.bones, bone_offset);
        let draw_params = skel_gpu::create_buffers_init(
            ctx,
            "skel crowd draw params",
            &[skel_gpu::BufferInit {
                label: "skel crowd draw params",
                usage: wgpu::BufferUsages::UNIFORM,
                contents: bytemuck::cast_slice(&params),
            }],
        )
        .map_err(SkelError::gpu(what.clone()))?
        .remove(0);
        let (mut skinned_positions, mut skinned_normals, mut compute) = (None, None, vec![]);
        let mut skinning = setup.skinning;
        if skinning == SkinningMethod::DualQuaternion
            && let Some(bone) =
                skel_gpu::dual_quat::first_non_rigid_bone(&skeleton.gpu.bone_matrices())
        {
            warnings.push(format!(
                "mesh {index} ({:?}): bone {bone} carries scale or shear at rest; skinned linearly, not with dual quaternions",
                mesh.name
            ));
            skinning = SkinningMethod::Linear;
        }
        // The mesh's targets and its instances' weights, when both are there.
        let mut morph = mesh.morph.as_ref().filter(|_| setup.compute).and_then(|m| {
            let weights = setup.morph?;
            Some(CrowdMorphInputs {
                morph: &m.gpu,
                weights: weights.buffer,
                weight_stride: weights.stride,
                weight_offset: *weights.offsets.get(m.binding)?,
            })
        });
        let kind = Influences::for_count(influences);
        let morph_slot = pipeline_slot(influences, skinning, true);
        if morph.is_some() && pipelines[morph_slot].is_none() {
            match CrowdSkinning::with_morph(ctx, kind, skinning) {
                Ok(pipeline) => pipelines[morph_slot] = Some(pipeline),
                // A device with few storage buffers per stage (WebGPU's default 8) still skins
                // the mesh, without its targets.
                Err(GpuError::MissingLimit {
                    name,
                    needed,
                    available,
                }) => {
                    warnings.push(format!(
                        "mesh {index} ({:?}): morphing in crowd skinning needs {name} ≥ {needed}, the device has {available}; skinned without its morph targets",
                        mesh.name
                    ));
                    morph = None;
                }
                Err(e) => return Err(SkelError::gpu(what)(e)),
            }
        }
        let slot = pipeline_slot(influences, skinning, morph.is_some());
        if setup.compute {
            if pipelines[slot].is_none() {
                let pipeline = CrowdSkinning::with_method(ctx, kind, skinning);
                pipelines[slot] = Some(pipeline.map_err(SkelError::gpu(what.clone()))?);
            }
            let bytes = u64::from(mesh.vertex_count) * 12 * u64::from(setup.instances);
            let out = |label| {
                ctx.capture("crowd output", || {
                    ctx.device.create_buffer(&wgpu::BufferDescriptor {
                        label: Some(label),
                        size: bytes.max(16),
                        usage: wgpu::BufferUsages::STORAGE
                            | wgpu::BufferUsages::VERTEX
                            | wgpu::BufferUsages::COPY_SRC,
                        mapped_at_creation: false,
                    })
                })
            };
            let (p, n) = (
                out("skel crowd skinned positions").map_err(SkelError::gpu(what.clone()))?,
                out("skel crowd skinned normals").map_err(SkelError::gpu(what.clone()))?,
            );
            let inputs = CrowdSkinningInputs {
                bones: setup.bones,
                bone_offset,
                skeleton: &skeleton.gpu,
                rest_positions: &mesh.positions,
                rest_normals: &mesh.normals,
                out_positions: &p,
                out_normals: &n,
                morph,
            };
            let pipeline = pipelines[slot].as_ref().ok_or_else(|| {
                SkelError::gpu(what.clone())(GpuError::MissingBinding {
                    what: "crowd pipeline",
                })
            })?;
            compute = pipeline
                .bind_chunked(ctx, &inputs, setup.max_chunk_bytes)
                .map_err(SkelError::gpu(what.clone()))?;
            (skinned_positions, skinned_normals) = (Some(p), Some(n));
        }
        Ok(Self {
            mesh: index,
            bone_offset,
            vertex_count: mesh.vertex_count,
            influences,
            skinning,
            morph: morph.is_some(),
            skinned_positions,
            skinned_normals,
            draw_params,
            compute,
        })
    }
}
