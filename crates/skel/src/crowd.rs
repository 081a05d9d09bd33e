//! Crowds: many instances of one loaded asset, posed on the CPU into one contiguous bone array,
//! uploaded once per frame into one GPU buffer, skinned in one compute dispatch per mesh or in
//! the user's vertex shader, and drawn with one instanced draw per primitive.
//!
//! Instances share the [`AssetContainer`]'s vertex buffers, joints and weights; each owns an
//! [`Player`] (its layers, clocks and pose scratch, over the asset's one compiled rig) in
//! [`Crowd::players`]: blend, mask, add or cross-fade per instance as with any player.
//! `players[i].set_visible(false)` culls one: its clocks move, its pose, upload slot, skinning
//! and draw are skipped (the visible list is rebuilt by every [`Crowd::tick`]).
//!
//! [`Crowd::tick`] allocates nothing on the heap, and [`Crowd::upload`] nothing of its own
//! (a test counts both): what remains inside `upload` is wgpu 30's, 2 per frame in a release
//! build (a fresh encoder's command list and its list of deferred mappings, see
//! [`CrowdBones`](skel_gpu::CrowdBones)); wgpu's encoder creation, `submit` and mapping allocate
//! more, outside that count.
//!
//! With [`Posing::Gpu`] the GPU poses the crowd instead (see `crowd_gpu`): no players, no bone
//! array, no upload per instance; [`Crowd::set_instances`] changes instances sparsely and
//! [`Crowd::request_pose_readback`] reads chosen poses back. Its morph weights are sampled per
//! instance into [`Crowd::morph_weights_buffer`]; the crowd's own skinning does not morph.

use skel_anim::{LayerDesc, Player, PoseSink};
use skel_gpu::glam::Mat4;
use skel_gpu::{
    CROWD_STAGING_SLOTS, CrowdBones, CrowdBonesDescriptor, CrowdSkinning, CrowdSkinningBindings,
    CrowdSkinningInputs, GpuContext, GpuError, Influences, SkinningMethod,
};

use crate::crowd_gpu::{GpuPosing, Posing};
use crate::crowd_pipelines::pipeline_slot;
use crate::{AssetContainer, SkelError};

/// What [`Crowd::new`] builds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CrowdDescriptor {
    /// Instances (at least 1).
    pub instances: u32,
    /// The clip every player starts with (`None`: the rest pose).
    pub clip: Option<usize>,
    /// Whether to create the compute pipelines and the skinned output buffers
    /// (12 + 12 bytes per vertex per instance) for [`Crowd::skin`].
    pub compute: bool,
    /// Staging slots of the upload ring.
    pub staging_slots: usize,
    /// How the compute path skins: linear, or dual quaternions (volume-preserving twists).
    /// A mesh whose rest bones carry scale or shear falls back to linear skinning and says so
    /// in [`Crowd::warnings`].
    pub skinning: SkinningMethod,
    /// Where instances are posed: CPU players, or the GPU pose pass (see [`Crowd::posed_on_gpu`]).
    pub posing: Posing,
    /// The largest storage binding a chunk of the bone buffer or the skinned output may take
    /// (`None`: the device's `max_storage_buffer_binding_size`); smaller values exercise the
    /// chunking that lets crowds past the limit skin.
    pub max_chunk_bytes: Option<u64>,
}

impl Default for CrowdDescriptor {
    /// One instance, clip 0, compute skinning on, [`CROWD_STAGING_SLOTS`] slots.
    fn default() -> Self {
        Self {
            instances: 1,
            clip: Some(0),
            compute: true,
            staging_slots: CROWD_STAGING_SLOTS,
            skinning: SkinningMethod::Linear,
            posing: Posing::Cpu,
            max_chunk_bytes: None,
        }
    }
}

/// One skinned mesh of a crowd.
#[derive(Debug)]
#[non_exhaustive]
pub struct CrowdMesh {
    /// Its index in [`AssetContainer::meshes`].
    pub mesh: usize,
    /// Its first bone matrix within an instance's bones.
    pub bone_offset: u32,
    /// Its vertices.
    pub vertex_count: u32,
    /// Influences per vertex (4, 8 or 16).
    pub influences: u32,
    /// How [`Crowd::skin`] skins it (linear after a dual-quaternion fallback).
    pub skinning: SkinningMethod,
    /// Skinned positions, slot-major (`(slot * vertex_count + vertex) * 3` floats), written by
    /// [`Crowd::skin`]; `None` without compute.
    pub skinned_positions: Option<wgpu::Buffer>,
    /// Skinned normals, same layout.
    pub skinned_normals: Option<wgpu::Buffer>,
    /// The 16-byte `SkelCrowdDraw` uniform of the vertex fragment.
    pub draw_params: wgpu::Buffer,
    /// One binding per chunk of slots (one without chunking); empty without compute.
    pub(crate) compute: Vec<CrowdSkinningBindings>,
}

/// A skeleton binding's place in an instance's bones.
#[derive(Debug, Clone, Copy)]
struct Span {
    binding: usize,
    first: usize,
    count: usize,
}

/// The pose sink of one instance: copies each binding's matrices into its span.
struct SpanSink<'a> {
    spans: &'a [Span],
    out: &'a mut [Mat4],
}

impl PoseSink for SpanSink<'_> {
    fn bone_matrices(&mut self, binding: usize, matrices: &[Mat4]) {
        if let Some(s) = self.spans.iter().find(|s| s.binding == binding) {
            let n = s.count.min(matrices.len());
            self.out[s.first..s.first + n].copy_from_slice(&matrices[..n]);
        }
    }

    fn morph_weights(&mut self, _binding: usize, _weights: &[f32]) {}

    /// A crowd reads only bone matrices (its players are its own): plain playback skips the
    /// per-node TRS record.
    fn wants_local_transforms(&self) -> bool {
        false
    }
}

/// Many instances of one asset; see the module docs.
///
/// ```no_run
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let ctx = skel::gpu::GpuContext::new_headless()?;
/// let path = std::path::Path::new("CesiumMan.glb");
/// let asset = skel::load_gltf(&ctx, path, &skel::LoadOptions::default())?;
/// let mut crowd = skel::Crowd::new(&ctx, &asset, &skel::CrowdDescriptor {
///     instances: 1000,
///     ..Default::default()
/// })?;
/// crowd.players[1].set_visible(false); // culled
/// crowd.tick(1.0 / 60.0);
/// let mut encoder = ctx.device.create_command_encoder(&Default::default());
/// crowd.upload(&ctx, &mut encoder)?;
/// crowd.skin(&mut encoder);
/// ctx.queue.submit([encoder.finish()]);
/// # Ok(()) }
/// ```
#[derive(Debug)]
pub struct Crowd {
    /// One player per instance (`set_visible(false)` culls one).
    pub players: Vec<Player>,
    /// Every instance's matrices, `stride` per instance.
    pub(crate) bones: Vec<Mat4>,
    visible: Vec<u32>,
    spans: Vec<Span>,
    pub(crate) stride: usize,
    pub(crate) gpu: CrowdBones,
    pub(crate) meshes: Vec<CrowdMesh>,
    // [influence slot (0: 4, 1: 8, 2: 16 influences) + 3 * dual quaternion]
    pub(crate) pipelines: [Option<CrowdSkinning>; 6],
    warnings: Vec<String>,
    pub(crate) gpu_posing: Option<GpuPosing>,
}

impl Crowd {
    /// Builds `desc.instances` players over `asset`'s animation and the GPU side: one bone
    /// buffer for every skeleton of every instance, the staging ring and, with
    /// `desc.compute`, the pipelines and output buffers.
    ///
    /// # Errors
    /// [`SkelError::Anim`] for a bad clip; [`SkelError::Gpu`] when the asset has no skinned
    /// mesh, or a buffer or pipeline cannot be created (limits, memory).
    pub fn new(
        ctx: &GpuContext,
        asset: &AssetContainer,
        desc: &CrowdDescriptor,
    ) -> Result<Self, SkelError> {
        let mut spans: Vec<Span> = Vec::new();
        let mut stride = 0;
        for mesh in &asset.meshes {
            if let Some(s) = &mesh.skeleton
                && !spans.iter().any(|sp| sp.binding == s.binding)
            {
                let count = s.gpu.bone_count() as usize;
                spans.push(Span {
                    binding: s.binding,
                    first: stride,
                    count,
                });
                stride += count;
            }
        }
        if spans.is_empty() {
            return Err(SkelError::gpu("crowd")(GpuError::MissingBinding {
                what: "a skinned mesh",
            }));
        }
        // Every instance over the container's one compiled rig.
        let mut first = Player::new(&asset.rig);
        if let Some(clip) = desc.clip {
            first.add_layer(LayerDesc::new(clip))?;
        }
        let on_gpu = matches!(desc.posing, Posing::Gpu(_));
        let players = if on_gpu {
            Vec::new()
        } else {
            vec![first; desc.instances as usize]
        };
        let bones_per_instance = u32::try_from(stride).unwrap_or(u32::MAX);
        let gpu = if on_gpu {
            CrowdBones::new_gpu_posed(ctx, desc.instances, bones_per_instance)
        } else {
            CrowdBones::new(
                ctx,
                &CrowdBonesDescriptor {
                    instances: desc.instances,
                    bones_per_instance,
                    staging_slots: desc.staging_slots,
                },
            )
        }
        .map_err(SkelError::gpu("crowd bones"))?;
        let mut pipelines = [None, None, None, None, None, None];
        let mut meshes = Vec::new();
        let mut warnings = Vec::new();
        for (index, mesh) in asset.meshes.iter().enumerate() {
            let Some(skeleton) = &mesh.skeleton else {
                continue;
            };
            let span = spans.iter().find(|s| s.binding == skeleton.binding);
            let bone_offset = span.map_or(0, |s| s.first as u32);
            let influences = skeleton.gpu.influences_per_vertex();
            let what = format!("crowd mesh {index}");
            let params = skel_gpu::crowd_mesh_params(mesh.vertex_count, &gpu, bone_offset);
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
            let mut skinning = desc.skinning;
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
            let slot = pipeline_slot(influences, skinning);
            if desc.compute {
                if pipelines[slot].is_none() {
                    let kind = Influences::for_count(influences);
                    pipelines[slot] = Some(
                        CrowdSkinning::with_method(ctx, kind, skinning)
                            .map_err(SkelError::gpu(what.clone()))?,
                    );
                }
                let bytes = u64::from(mesh.vertex_count) * 12 * u64::from(desc.instances);
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
                    bones: &gpu,
                    bone_offset,
                    skeleton: &skeleton.gpu,
                    rest_positions: &mesh.positions,
                    rest_normals: &mesh.normals,
                    out_positions: &p,
                    out_normals: &n,
                };
                let pipeline = pipelines[slot].as_ref().ok_or_else(|| {
                    SkelError::gpu(what.clone())(GpuError::MissingBinding {
                        what: "crowd pipeline",
                    })
                })?;
                compute = pipeline
                    .bind_chunked(ctx, &inputs, desc.max_chunk_bytes)
                    .map_err(SkelError::gpu(what.clone()))?;
                (skinned_positions, skinned_normals) = (Some(p), Some(n));
            }
            meshes.push(CrowdMesh {
                mesh: index,
                bone_offset,
                vertex_count: mesh.vertex_count,
                influences,
                skinning,
                skinned_positions,
                skinned_normals,
                draw_params,
                compute,
            });
        }
        let gpu_posing = match desc.posing {
            Posing::Cpu => None,
            Posing::Gpu(layout) => Some(
                GpuPosing::new(
                    ctx,
                    &asset.rig,
                    &gpu,
                    desc.clip,
                    layout,
                    desc.max_chunk_bytes,
                )
                .map_err(SkelError::gpu("crowd GPU posing"))?,
            ),
        };
        let instances = if on_gpu { 0 } else { desc.instances as usize };
        let mut bones = vec![Mat4::ZERO; stride * instances];
        // Every instance starts at the rest pose the skeletons were created with.
        for mesh in &asset.meshes {
            if let Some(s) = &mesh.skeleton
                && let Some(span) = spans.iter().find(|sp| sp.binding == s.binding)
            {
                let rest = s.gpu.bone_matrices();
                for chunk in bones.chunks_mut(stride) {
                    chunk[span.first..span.first + span.count].copy_from_slice(&rest);
                }
            }
        }
        Ok(Self {
            players,
            bones,
            visible: (0..desc.instances).collect(),
            spans,
            stride,
            gpu,
            meshes,
            pipelines,
            warnings,
            gpu_posing,
        })
    }

    /// What [`new`](Self::new) could not do as asked (dual-quaternion meshes skinned linearly
    /// because their bones carry scale), one line each; empty when everything went as asked.
    #[must_use]
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    /// Advances every player by `dt` seconds and writes the visible ones' bone matrices into the
    /// crowd's bone array (on rayon's pool with the `rayon` feature: call it inside
    /// `ThreadPool::install` for an allocation-free frame), then rebuilds the visible list.
    pub fn tick(&mut self, dt: f32) {
        if let Some(posing) = &mut self.gpu_posing {
            // The GPU advances the playheads at the next upload; the visible list stays.
            posing.dt = dt;
            return;
        }
        let spans = &self.spans[..];
        let bones = &mut self.bones[..];
        #[cfg(feature = "rayon")]
        {
            use rayon::prelude::*;
            self.players
                .par_iter_mut()
                .zip(bones.par_chunks_mut(self.stride))
                .for_each(|(player, out)| player.tick(dt, &mut SpanSink { spans, out }));
        }
        #[cfg(not(feature = "rayon"))]
        for (player, out) in self.players.iter_mut().zip(bones.chunks_mut(self.stride)) {
            player.tick(dt, &mut SpanSink { spans, out });
        }
        self.visible.clear();
        self.visible.extend(
            (0u32..)
                .zip(&self.players)
                .filter(|(_, p)| p.visible())
                .map(|(i, _)| i),
        );
    }

    /// Copies the bone array and the visible list into the next staging slot and records
    /// their copies into `encoder` (see [`CrowdBones::upload`]); submit `encoder` afterwards.
    ///
    /// # Errors
    /// [`SkelError::Gpu`] with [`GpuError::StagingBusy`] when earlier uploads were never
    /// submitted, or a mapping error.
    pub fn upload(
        &mut self,
        ctx: &GpuContext,
        encoder: &mut wgpu::CommandEncoder,
    ) -> Result<(), SkelError> {
        self.upload_timed(ctx, encoder, None)
    }

    /// [`upload`](Self::upload) with GPU timestamps around the pose pass of a GPU-posed crowd
    /// (ignored on the CPU path; for benchmarks, needs `Features::TIMESTAMP_QUERY`).
    ///
    /// # Errors
    /// As [`upload`](Self::upload).
    pub fn upload_timed(
        &mut self,
        ctx: &GpuContext,
        encoder: &mut wgpu::CommandEncoder,
        timestamp_writes: Option<wgpu::ComputePassTimestampWrites<'_>>,
    ) -> Result<(), SkelError> {
        let Some(posing) = &mut self.gpu_posing else {
            return self
                .gpu
                .upload(ctx, encoder, &self.bones, &self.visible)
                .map_err(SkelError::gpu("crowd upload"));
        };
        posing.pose.prepare(ctx, posing.dt);
        {
            let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some("skel crowd pose"),
                timestamp_writes,
            });
            posing.pose.record(&mut pass);
        }
        posing.readback.record(ctx, encoder, &self.gpu);
        Ok(())
    }

    /// Records one compute pass with one dispatch per mesh, skinning every visible instance
    /// into [`CrowdMesh::skinned_positions`] / `skinned_normals` (slot order). Does nothing
    /// without compute.
    pub fn skin(&self, encoder: &mut wgpu::CommandEncoder) {
        self.skin_timed(encoder, None);
    }

    /// [`skin`](Self::skin) with GPU timestamps written at the start and end of the pass
    /// (for benchmarks; needs `Features::TIMESTAMP_QUERY`).
    pub fn skin_timed(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        timestamp_writes: Option<wgpu::ComputePassTimestampWrites<'_>>,
    ) {
        let visible = self.visible_count();
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("skel crowd skinning"),
            timestamp_writes,
        });
        for mesh in &self.meshes {
            let slot = pipeline_slot(mesh.influences, mesh.skinning);
            if let Some(pipeline) = &self.pipelines[slot] {
                for bindings in &mesh.compute {
                    pipeline.dispatch(&mut pass, bindings, visible);
                }
            }
        }
    }

    /// Instances drawn this frame (the instance count of every instanced draw).
    #[must_use]
    pub fn visible_count(&self) -> u32 {
        u32::try_from(self.visible.len()).unwrap_or(u32::MAX)
    }

    /// The visible instances in slot order.
    #[must_use]
    pub fn visible(&self) -> &[u32] {
        &self.visible
    }

    /// The skinned meshes.
    #[must_use]
    pub fn meshes(&self) -> &[CrowdMesh] {
        &self.meshes
    }
}
