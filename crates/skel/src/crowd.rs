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
//! [`Crowd::request_pose_readback`] reads chosen poses back.
//!
//! On the CPU path [`Crowd::cull`] cuts the visible list to the instances a camera sees, from
//! each instance's box ([`Crowd::instance_box`], see `crowd_cull`), made by the cull or, with
//! [`CrowdDescriptor::boxes_in_tick`], by the tick.
//!
//! Meshes with morph targets are morphed per instance before compute skinning (glTF 2.0
//! §3.7.2.2, as a single character is): on [`Posing::Gpu`] with the weights the pose pass
//! samples into [`Crowd::morph_weights_buffer`] (nothing uploaded), on [`Posing::Cpu`] with each
//! player's weights, carried to the GPU by the same staging slot as the bones. Meshes without
//! targets keep their pipelines. The vertex-shader fragment does not morph: draw morphing
//! meshes from the skinned output.

use skel_anim::{LayerDesc, Player, PoseSink};
use skel_gpu::glam::{Mat4, Vec3};
use skel_gpu::{CrowdBones, CrowdBonesDescriptor, CrowdSkinning, GpuContext, GpuError};

use crate::crowd_bounds::{CullSpheres, cull_spheres, spheres_box};
use crate::crowd_cull_pass::GpuCull;
use crate::crowd_gpu::{GpuPosing, Posing};
use crate::crowd_mesh::{CrowdMesh, MeshSetup, MorphWeights};
use crate::crowd_pipelines::{CROWD_PIPELINES, morph_layout, pipeline_slot};
use crate::{AssetContainer, CrowdDescriptor, SkelError};

/// A skeleton binding's place in an instance's bones.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Span {
    pub(crate) binding: usize,
    pub(crate) first: usize,
    pub(crate) count: usize,
}

/// The pose sink of one instance: copies each binding's matrices into its span, and each
/// morph binding's weights to its offset in the instance's weights (no offsets: none kept).
struct SpanSink<'a> {
    spans: &'a [Span],
    out: &'a mut [Mat4],
    morph_offsets: &'a [u32],
    weights: &'a mut [f32],
}

impl PoseSink for SpanSink<'_> {
    fn bone_matrices(&mut self, binding: usize, matrices: &[Mat4]) {
        if let Some(s) = self.spans.iter().find(|s| s.binding == binding) {
            let n = s.count.min(matrices.len());
            self.out[s.first..s.first + n].copy_from_slice(&matrices[..n]);
        }
    }

    fn morph_weights(&mut self, binding: usize, weights: &[f32]) {
        if let Some(&at) = self.morph_offsets.get(binding) {
            let out = self.weights.get_mut(at as usize..).unwrap_or_default();
            let n = weights.len().min(out.len());
            out[..n].copy_from_slice(&weights[..n]);
        }
    }

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
    pub(crate) visible: Vec<u32>,
    pub(crate) spans: Vec<Span>,
    pub(crate) stride: usize,
    pub(crate) gpu: CrowdBones,
    pub(crate) meshes: Vec<CrowdMesh>,
    // [influence slot (0: 4, 1: 8, 2: 16 influences) + 3 * dual quaternion + 6 * morph]
    pub(crate) pipelines: [Option<CrowdSkinning>; CROWD_PIPELINES],
    /// CPU posing of morphing meshes: each morph binding's first weight in an instance's
    /// (empty otherwise, and the players' weights are not kept).
    pub(crate) morph_offsets: Vec<u32>,
    /// Every instance's morph weights, `morph_chunk` floats each (uploaded when
    /// `gpu.morph_weights_buffer()` is there).
    pub(crate) morph_weights: Vec<f32>,
    pub(crate) morph_chunk: usize,
    warnings: Vec<String>,
    pub(crate) gpu_posing: Option<GpuPosing>,
    /// The skin joints' spheres by bone place, for [`Crowd::instance_box`] and
    /// [`Crowd::cull`] (empty on the GPU path).
    pub(crate) cull_spheres: CullSpheres,
    /// [`Crowd::cull`]'s verdicts, one per instance (what rayon's pass writes), made once.
    pub(crate) cull_keep: Vec<bool>,
    /// With [`CrowdDescriptor::boxes_in_tick`]: each instance's box (`spheres_box` of its
    /// bones as they stand in `bones`), rewritten whenever `tick` poses the instance, so that
    /// the cull need not read the bones again; empty without it.
    pub(crate) boxes: Vec<Option<(Vec3, Vec3)>>,
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
        // Every instance over the container's one compiled rig, with its VRM springs and
        // constraints (each instance keeps its own spring state).
        let mut first = asset.player()?;
        if let Some(clip) = desc.clip {
            first.add_layer(LayerDesc::new(clip))?;
        }
        let on_gpu = matches!(desc.posing, Posing::Gpu(_));
        if desc.pose_only_seen
            && !(desc.gpu_cull && desc.posing == Posing::Gpu(skel_gpu::PoseLayout::Baked))
        {
            return Err(crate::CullError::PoseOnlySeen.into());
        }
        let players = if on_gpu {
            Vec::new()
        } else {
            vec![first; desc.instances as usize]
        };
        let bones_per_instance = u32::try_from(stride).unwrap_or(u32::MAX);
        // Morph weights per instance on the CPU path, when a mesh morphs in compute skinning.
        let morphing = desc.compute
            && asset
                .meshes
                .iter()
                .any(|m| m.skeleton.is_some() && m.morph.is_some());
        let (cpu_morph_offsets, cpu_morph_stride) = if morphing && !on_gpu {
            morph_layout(asset.rig.data())
        } else {
            (Vec::new(), 0)
        };
        let gpu = if on_gpu {
            CrowdBones::new_gpu_posed(ctx, desc.instances, bones_per_instance)
        } else {
            CrowdBones::with_morph_weights(
                ctx,
                &CrowdBonesDescriptor {
                    instances: desc.instances,
                    bones_per_instance,
                    staging_slots: desc.staging_slots,
                },
                cpu_morph_stride,
            )
        }
        .map_err(SkelError::gpu("crowd bones"))?;
        let mut gpu_posing = match desc.posing {
            Posing::Cpu => None,
            Posing::Gpu(layout) => {
                let cull = desc
                    .gpu_cull
                    .then(|| GpuCull::new(ctx, asset, &gpu, desc.max_chunk_bytes))
                    .transpose()?;
                Some(
                    GpuPosing::new(
                        ctx,
                        &asset.rig,
                        &gpu,
                        crate::crowd_gpu::GpuPosingSpec {
                            clip: desc.clip,
                            layout,
                            max_chunk_bytes: desc.max_chunk_bytes,
                            only_seen: desc.pose_only_seen,
                        },
                        cull,
                    )
                    .map_err(SkelError::gpu("crowd GPU posing"))?,
                )
            }
        };
        let morph = match &gpu_posing {
            Some(posing) => Some(MorphWeights {
                buffer: posing.pose.morph_buffer(),
                stride: posing.clips.morph_floats(),
                offsets: &posing.set.morph_offsets,
            }),
            None => gpu.morph_weights_buffer().map(|buffer| MorphWeights {
                buffer,
                stride: cpu_morph_stride,
                offsets: &cpu_morph_offsets,
            }),
        };
        let setup = MeshSetup {
            bones: &gpu,
            instances: desc.instances,
            compute: desc.compute,
            skinning: desc.skinning,
            max_chunk_bytes: desc.max_chunk_bytes,
            morph: morph.filter(|_| morphing),
        };
        let mut pipelines = std::array::from_fn(|_| None);
        let mut meshes = Vec::new();
        let mut warnings = Vec::new();
        if on_gpu && !asset.secondary.is_empty() {
            warnings.push(
                "VRM spring bones and node constraints do not run on the GPU pose path \
                 (Posing::Gpu): the crowd poses its clip without them (Posing::Cpu runs them \
                 for every instance)"
                    .to_owned(),
            );
        }
        for (index, mesh) in asset.meshes.iter().enumerate() {
            let Some(skeleton) = &mesh.skeleton else {
                continue;
            };
            let span = spans.iter().find(|s| s.binding == skeleton.binding);
            let bone_offset = span.map_or(0, |s| s.first as u32);
            meshes.push(CrowdMesh::build(
                ctx,
                &setup,
                (index, mesh, bone_offset),
                &mut pipelines,
                &mut warnings,
            )?);
        }
        if let Some(cull) = gpu_posing.as_mut().and_then(|p| p.cull.as_mut()) {
            cull.set_dispatch(ctx, &gpu, &meshes);
        }
        let instances = if on_gpu { 0 } else { desc.instances as usize };
        let cull_spheres = if on_gpu {
            CullSpheres::default()
        } else {
            cull_spheres(asset, |binding| {
                spans.iter().find(|s| s.binding == binding).map(|s| s.first)
            })
        };
        let mut bones: Vec<Mat4> = vec![Mat4::ZERO; stride * instances];
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
        // With `boxes_in_tick`, every instance's box: the rest pose's until it is first posed.
        let boxes = if desc.boxes_in_tick && !on_gpu {
            let rest = bones.chunks(stride).next().unwrap_or_default();
            vec![spheres_box(&cull_spheres, rest); instances]
        } else {
            Vec::new()
        };
        // One chunk of weights per player (at least one float, so that chunking works when
        // no weights are kept).
        let morph_chunk = (cpu_morph_stride as usize).max(1);
        let mut morph_weights = vec![0.0; morph_chunk * players.len()];
        // Every instance starts at the meshes' default weights, as at the rest pose.
        for chunk in morph_weights.chunks_mut(morph_chunk) {
            for (binding, &at) in asset
                .rig
                .data()
                .morph_bindings
                .iter()
                .zip(&cpu_morph_offsets)
            {
                let at = at as usize;
                chunk[at..at + binding.target_count()].copy_from_slice(&binding.default_weights);
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
            morph_chunk,
            morph_weights,
            morph_offsets: cpu_morph_offsets,
            cull_spheres,
            cull_keep: vec![true; instances],
            boxes,
        })
    }

    /// What [`new`](Self::new) could not do as asked (dual-quaternion meshes skinned linearly
    /// because their bones carry scale, morphing meshes skinned without their targets on a
    /// device with too few storage buffers per stage, a VRM's springs left out of a GPU-posed
    /// crowd), one line each; empty when everything went as asked.
    #[must_use]
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    /// Advances every player by `dt` seconds and writes the visible ones' bone matrices into the
    /// crowd's bone array (on rayon's pool with the `rayon` feature: call it inside
    /// `ThreadPool::install` for an allocation-free frame), then rebuilds the visible list.
    /// With [`CrowdDescriptor::boxes_in_tick`] each posed instance is boxed right after its
    /// player writes its matrices, in the same task, while they are still in the cache.
    pub fn tick(&mut self, dt: f32) {
        if let Some(posing) = &mut self.gpu_posing {
            // The GPU advances the playheads at the next upload; the visible list stays.
            posing.dt = dt;
            return;
        }
        let spans = &self.spans[..];
        let morph_offsets = &self.morph_offsets[..];
        let bones = &mut self.bones[..];
        let weights = &mut self.morph_weights[..];
        let spheres = &self.cull_spheres;
        // One instance's tick, and its box into `kept` when it was posed (a hidden player's
        // matrices stay as they were, and so does its box).
        let tick = |((player, out), weights): ((&mut Player, &mut [Mat4]), &mut [f32]),
                    kept: Option<&mut Option<(Vec3, Vec3)>>| {
            let mut sink = SpanSink {
                spans,
                out,
                morph_offsets,
                weights,
            };
            player.tick(dt, &mut sink);
            if let Some(kept) = kept
                && player.visible()
            {
                *kept = spheres_box(spheres, sink.out);
            }
        };
        #[cfg(feature = "rayon")]
        {
            use rayon::prelude::*;
            let instances = self
                .players
                .par_iter_mut()
                .zip(bones.par_chunks_mut(self.stride))
                .zip(weights.par_chunks_mut(self.morph_chunk));
            if self.boxes.is_empty() {
                instances.for_each(|i| tick(i, None));
            } else {
                instances
                    .zip(self.boxes.par_iter_mut())
                    .for_each(|(i, kept)| tick(i, Some(kept)));
            }
        }
        #[cfg(not(feature = "rayon"))]
        {
            let instances = self
                .players
                .iter_mut()
                .zip(bones.chunks_mut(self.stride))
                .zip(weights.chunks_mut(self.morph_chunk));
            if self.boxes.is_empty() {
                instances.for_each(|i| tick(i, None));
            } else {
                instances
                    .zip(self.boxes.iter_mut())
                    .for_each(|(i, kept)| tick(i, Some(kept)));
            }
        }
        self.visible.clear();
        self.visible.extend(
            (0u32..)
                .zip(&self.players)
                .filter(|(_, p)| p.visible())
                .map(|(i, _)| i),
        );
    }

    /// Records one compute pass with one dispatch per mesh, skinning every visible instance
    /// into [`CrowdMesh::skinned_positions`] / `skinned_normals` (slot order). Does nothing
    /// without compute. A GPU-culled crowd's dispatches are indirect: a small pass recorded
    /// first turns the visible list's count on the GPU into each dispatch's grid.
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
        // A GPU-culled crowd: each chunk's grid from the list's count on the GPU.
        let indirect = self
            .gpu_posing
            .as_ref()
            .and_then(|p| p.cull.as_ref()?.dispatch.as_ref());
        if let Some(d) = indirect {
            d.encode(encoder);
        }
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("skel crowd skinning"),
            timestamp_writes,
        });
        let mut chunk = 0;
        for mesh in &self.meshes {
            let slot = pipeline_slot(mesh.influences, mesh.skinning, mesh.morph);
            for bindings in &mesh.compute {
                match (&self.pipelines[slot], indirect) {
                    (Some(p), Some(d)) => p.dispatch_indirect(
                        &mut pass,
                        bindings,
                        d.args_buffer(),
                        chunk * skel_gpu::DISPATCH_ARGS_BYTES,
                    ),
                    (Some(p), None) => p.dispatch(&mut pass, bindings, visible),
                    (None, _) => {}
                }
                chunk += 1;
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
