//! Picking a crowd on the GPU ([`CrowdPick`]): the first triangle one ray hits over every
//! instance of a crowd, against the instances' skinned triangles (not the bind pose), with each
//! instance's world box tested first, and the same answer as skel-gltf's CPU `pick` run on each
//! instance (the nearest hit; a tie goes to the lowest instance, then the lowest triangle in
//! primitive order, which is the order the CPU keeps within an instance).
//!
//! **How.** One compute pass clears the state, tests every instance's world box (the boxes
//! [`CrowdCull`] or the pose pass wrote this frame) against the ray and appends the crossed
//! ones to a candidate list, and writes an indirect dispatch of (triangles × candidates). The
//! triangle pass then runs three times, skinning each candidate's triangles from the crowd's
//! bone buffer (either [`BoneLayout`](crate::BoneLayout)) and intersecting them
//! (Möller–Trumbore, both faces, the CPU's arithmetic): the first time each hit takes an
//! `atomicMin` of the hit distances' bits (a positive `f32`'s bits order as the number does),
//! the second the least instance among the hits at exactly that distance, the third that
//! instance's least triangle there; a last thread recomputes the winner's barycentric
//! coordinates. The three are one pipeline told its stage through the state buffer, so every
//! distance is computed by the same machine code each time and the exact comparison holds.
//! Nothing depends on the order threads run in, so the same ray gives the same answer every
//! time. 32 bytes come back.
//!
//! **Cost.** Buffers are made once in [`CrowdPick::new`]; a pick writes 64 bytes of
//! parameters and maps the 32-byte readback buffer. Instances whose box the ray misses cost
//! one box test; a candidate costs one pass over its triangles (three vertices skinned each),
//! a second unless its box starts beyond the nearest hit, and the winner a third.
//!
//! **Morph targets.** A primitive given with [`CrowdPickPrimitive::morph`] is morphed with each
//! instance's weights ([`CrowdPickDescriptor::morph_weights`]) before it is skinned, as the CPU
//! reference does (`pick_morph`); without weights every primitive is picked unmorphed.
//!
//! **Not covered.** Rigid (unskinned) primitives are not in a crowd's bones, so they cannot be
//! given. The bone buffer must fit one storage binding (it is not
//! bound in chunks as the cull and pose passes bind it).

use glam::Vec3;

use crate::bind_entries::{READ, UNIFORM, WRITE, compute_entry};
use crate::compute_pass::{compute_pipelines_with, groups_2d};
use crate::map_wait::MapWait;
use crate::pick_inputs::{CrowdPickPrimitive, PackedMesh, check_ray, pack};
use crate::{CrowdBones, CrowdCull, CrowdPickHit, GpuContext, GpuError};

/// The WGSL of the picking passes (entry points `skel_pick_reset`, `skel_pick_candidates`,
/// `skel_pick_args`, `skel_pick_hits`, `skel_pick_next_stage`, `skel_pick_resolve`).
pub const PICK_WGSL: &str = include_str!("../shaders/skel_pick.wgsl");

/// Threads per workgroup of the candidate and triangle passes.
pub const PICK_WORKGROUP_SIZE: u32 = 64;

/// Bytes of the uniform parameters (`SkelPickParams`).
const PARAMS_BYTES: u64 = 64;
/// `u32`s of the state before the candidate list (`SKEL_PICK_CANDIDATES`).
const STATE_HEADER: u64 = 16;
/// Byte offset of the triangle passes' indirect arguments in the state (`SKEL_PICK_ARGS`).
const ARGS_OFFSET: u64 = 16;
/// Byte offset and size of the answer in the state (`SKEL_PICK_RESULT`).
const RESULT_OFFSET: u64 = 32;
const RESULT_BYTES: u64 = 32;

/// What [`CrowdPick::new`] picks against.
#[derive(Debug, Clone, Copy)]
pub struct CrowdPickDescriptor<'a> {
    /// The character's skinned primitives (at least one), in the order whose lower entries win
    /// a tie (skel-gltf's `GltfAsset::primitives` order gives the CPU's answer).
    pub primitives: &'a [CrowdPickPrimitive<'a>],
    /// Every instance's morph weights, which primitives with
    /// [`CrowdPickPrimitive::morph`] are morphed with; `None`: every primitive is picked
    /// unmorphed.
    pub morph_weights: Option<PickMorphWeights<'a>>,
}

/// Where a crowd keeps its instances' morph weights: a GPU-posed crowd's pose pass samples
/// them into one buffer (`GpuCrowdPose::morph_buffer`), `floats_per_instance` an instance.
#[derive(Debug, Clone, Copy)]
pub struct PickMorphWeights<'a> {
    /// The weights (`f32`s; instance `i`'s first at `i · floats_per_instance`).
    pub buffer: &'a wgpu::Buffer,
    /// Floats per instance.
    pub floats_per_instance: u32,
}

/// GPU picking of one crowd (see the module docs): its pipelines, the character's packed
/// triangles, and the state and readback buffers, made once.
#[derive(Debug)]
pub struct CrowdPick {
    /// reset, candidates, args, triangles, next stage, resolve.
    pipelines: [wgpu::ComputePipeline; 6],
    group: wgpu::BindGroup,
    params: wgpu::Buffer,
    state: wgpu::Buffer,
    indirect: wgpu::Buffer,
    readback: wgpu::Buffer,
    /// Per primitive slot: first triangle, caller's primitive number, mesh.
    slots: Vec<[u32; 3]>,
    /// instances, triangles, bones per instance, sets, row threads, max groups, triangle
    /// groups, morph weights per instance.
    base_params: [u32; 8],
    /// The candidate pass's workgroups (x, y).
    candidate_groups: (u32, u32),
    /// The ray of the last [`encode`](Self::encode): origin, normalised direction.
    ray: (Vec3, Vec3),
}

impl CrowdPick {
    /// Sets up picking `crowd`, whose instances' world boxes and placements are `cull`'s
    /// ([`CrowdCull::boxes_buffer`], written by its `encode` or by the pose pass's bounds, and
    /// [`CrowdCull::placements_buffer`]).
    ///
    /// # Errors
    /// [`GpuError::LengthMismatch`] for no primitives, a primitive's streams of other lengths
    /// than its vertex count implies, or a cull of another instance count;
    /// [`GpuError::OutOfRange`] for influences per vertex that are not a positive multiple of
    /// 4 or an index past the primitive's vertices; [`GpuError::JointOutOfRange`] for a joint
    /// past the instance's bones; [`GpuError::NotFinite`] for a position, weight or matrix
    /// that is not finite; [`GpuError::MissingLimit`] when the bone buffer (or the packed
    /// mesh) does not fit one storage binding, or for fewer than 8 storage buffers a stage;
    /// [`GpuError::Validation`] / [`GpuError::OutOfMemory`] from wgpu.
    pub fn new(
        ctx: &GpuContext,
        crowd: &CrowdBones,
        cull: &CrowdCull,
        desc: &CrowdPickDescriptor<'_>,
    ) -> Result<Self, GpuError> {
        let count = crowd.instance_count();
        if cull.instance_count() != count {
            return Err(GpuError::LengthMismatch {
                what: "pick: the cull's instances (one per crowd instance)",
                expected: count as usize,
                got: cull.instance_count() as usize,
            });
        }
        let PackedMesh {
            vertices,
            triangles,
            frames,
            sets,
            slots,
        } = pack(
            desc.primitives,
            crowd.bones_per_instance(),
            desc.morph_weights.map(|w| w.floats_per_instance),
        )?;
        if let Some(w) = desc.morph_weights {
            let bytes = u64::from(count) * u64::from(w.floats_per_instance) * 4;
            if w.buffer.size() < bytes {
                return Err(GpuError::LengthMismatch {
                    what: "pick morph weights buffer (bytes)",
                    expected: usize::try_from(bytes).unwrap_or(usize::MAX),
                    got: usize::try_from(w.buffer.size()).unwrap_or(usize::MAX),
                });
            }
        }
        let binding = |l: &wgpu::Limits| l.max_storage_buffer_binding_size;
        let bone_bytes = u64::from(count) * crowd.instance_bytes();
        ctx.require_limit("max_storage_buffer_binding_size", bone_bytes, binding)?;
        let state_bytes = (STATE_HEADER + u64::from(count)) * 4;
        for bytes in [
            vertices.len() as u64 * 16,
            triangles.len() as u64 * 16,
            state_bytes,
        ] {
            ctx.require_limit("max_storage_buffer_binding_size", bytes, binding)?;
        }
        ctx.require_limit("max_storage_buffers_per_shader_stage", 8, |l| {
            u64::from(l.max_storage_buffers_per_shader_stage)
        })?;
        let max_groups = ctx.limits.max_compute_workgroups_per_dimension.max(1);
        let candidate_groups = groups_2d(u64::from(count), max_groups, PICK_WORKGROUP_SIZE);
        let triangle_count = triangles.len() as u32;
        let triangle_groups = triangle_count
            .div_ceil(PICK_WORKGROUP_SIZE)
            .clamp(1, max_groups);
        let base_params = [
            count,
            triangle_count,
            crowd.bones_per_instance(),
            sets,
            candidate_groups.0 * PICK_WORKGROUP_SIZE,
            max_groups,
            triangle_groups,
            desc.morph_weights.map_or(0, |w| w.floats_per_instance),
        ];
        ctx.capture("CrowdPick::new", || {
            let buffer = |label, size: u64, usage| {
                ctx.device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some(label),
                    size: size.max(16).next_multiple_of(wgpu::COPY_BUFFER_ALIGNMENT),
                    usage,
                    mapped_at_creation: false,
                })
            };
            let read = wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST;
            let params = buffer(
                "skel pick params",
                PARAMS_BYTES,
                wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            );
            let filled = |label, bytes: &[u8]| {
                let b = buffer(label, bytes.len() as u64, read);
                ctx.queue.write_buffer(&b, 0, bytes);
                b
            };
            let vertex_buffer = filled("skel pick vertices", bytemuck::cast_slice(&vertices));
            let triangle_buffer = filled("skel pick triangles", bytemuck::cast_slice(&triangles));
            let frame_buffer = filled("skel pick frames", bytemuck::cast_slice(&frames));
            let state = buffer(
                "skel pick state",
                state_bytes,
                wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
            );
            let indirect = buffer(
                "skel pick indirect",
                12,
                wgpu::BufferUsages::INDIRECT | wgpu::BufferUsages::COPY_DST,
            );
            let readback = buffer(
                "skel pick readback",
                RESULT_BYTES,
                wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            );
            // Without weights, a zero one (no vertex points at a morph head then).
            let no_weights = buffer("skel pick no morph weights", 16, read);
            let weights = desc.morph_weights.map_or(&no_weights, |w| w.buffer);
            let entries: [wgpu::BindGroupLayoutEntry; 9] = std::array::from_fn(|i| {
                let ty = match i {
                    0 => UNIFORM,
                    7 => WRITE,
                    _ => READ,
                };
                compute_entry(i as u32, ty)
            });
            let layout = ctx
                .device
                .create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
                    label: Some("skel pick"),
                    entries: &entries,
                });
            let group = crate::bind_entries::numbered_bind_group(
                &ctx.device,
                "skel pick",
                &layout,
                [
                    params.as_entire_binding(),
                    crowd.bones_buffer().as_entire_binding(),
                    cull.placements_buffer().as_entire_binding(),
                    cull.boxes_buffer().as_entire_binding(),
                    vertex_buffer.as_entire_binding(),
                    triangle_buffer.as_entire_binding(),
                    frame_buffer.as_entire_binding(),
                    state.as_entire_binding(),
                    weights.as_entire_binding(),
                ],
            );
            let pipelines = compute_pipelines_with(
                ctx,
                "skel pick",
                PICK_WGSL.into(),
                &[&layout],
                [
                    "skel_pick_reset",
                    "skel_pick_candidates",
                    "skel_pick_args",
                    "skel_pick_hits",
                    "skel_pick_next_stage",
                    "skel_pick_resolve",
                ],
                true,
                &crowd.bone_layout().constants(),
            );
            Self {
                pipelines,
                group,
                params,
                state,
                indirect,
                readback,
                slots,
                base_params,
                candidate_groups,
                ray: (Vec3::ZERO, Vec3::Z),
            }
        })
    }

    /// Records the pick of the ray from `origin` along `direction` (normalised here) into
    /// `encoder`, ending with a copy of the answer into the readback buffer; submit it, then
    /// [`read`](Self::read). Record it after whatever writes this frame's bones and boxes.
    /// One pick per submission: the ray goes in through `write_buffer`, which a second
    /// `encode` before the submit would overwrite for both.
    ///
    /// # Errors
    /// [`GpuError::NotFinite`] for a NaN or infinite origin or direction,
    /// [`GpuError::ZeroRayDirection`] for a direction without length.
    pub fn encode(
        &mut self,
        ctx: &GpuContext,
        encoder: &mut wgpu::CommandEncoder,
        origin: Vec3,
        direction: Vec3,
    ) -> Result<(), GpuError> {
        let dir = check_ray(origin, direction)?;
        self.ray = (origin, dir);
        let mut params = [0u32; PARAMS_BYTES as usize / 4];
        params[..3].copy_from_slice(&origin.to_array().map(f32::to_bits));
        params[4..7].copy_from_slice(&dir.to_array().map(f32::to_bits));
        params[8..].copy_from_slice(&self.base_params);
        ctx.queue
            .write_buffer(&self.params, 0, bytemuck::cast_slice(&params));
        let [reset, candidates, args, triangles, next_stage, resolve] = &self.pipelines;
        {
            let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some("skel pick candidates"),
                timestamp_writes: None,
            });
            pass.set_bind_group(0, &self.group, &[]);
            pass.set_pipeline(reset);
            pass.dispatch_workgroups(1, 1, 1);
            pass.set_pipeline(candidates);
            pass.dispatch_workgroups(self.candidate_groups.0, self.candidate_groups.1, 1);
            pass.set_pipeline(args);
            pass.dispatch_workgroups(1, 1, 1);
        }
        // The state is read-write storage in the passes; the indirect arguments need a buffer
        // of their own, so the args thread's words are copied out between the passes.
        encoder.copy_buffer_to_buffer(&self.state, ARGS_OFFSET, &self.indirect, 0, 12);
        {
            let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some("skel pick triangles"),
                timestamp_writes: None,
            });
            pass.set_bind_group(0, &self.group, &[]);
            for stage in 0..3 {
                if stage > 0 {
                    pass.set_pipeline(next_stage);
                    pass.dispatch_workgroups(1, 1, 1);
                }
                pass.set_pipeline(triangles);
                pass.dispatch_workgroups_indirect(&self.indirect, 0);
            }
            pass.set_pipeline(resolve);
            pass.dispatch_workgroups(1, 1, 1);
        }
        encoder.copy_buffer_to_buffer(&self.state, RESULT_OFFSET, &self.readback, 0, RESULT_BYTES);
        Ok(())
    }

    /// [`encode`](Self::encode) in a command buffer of its own, submitted, and
    /// [`read`](Self::read): the first hit of the ray over the whole crowd, or `None`. Blocks
    /// until the GPU is done.
    ///
    /// # Errors
    /// As [`encode`](Self::encode) and [`read`](Self::read).
    #[cfg(not(target_arch = "wasm32"))]
    pub fn pick(
        &mut self,
        ctx: &GpuContext,
        origin: Vec3,
        direction: Vec3,
    ) -> Result<Option<CrowdPickHit>, GpuError> {
        let mut encoder = ctx
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("skel pick"),
            });
        self.encode(ctx, &mut encoder, origin, direction)?;
        ctx.queue.submit([encoder.finish()]);
        self.read(ctx)
    }

    /// The answer of the last submitted [`encode`](Self::encode), waiting for the GPU
    /// (blocking on [`read_async`](Self::read_async)).
    ///
    /// # Errors
    /// [`GpuError::Readback`] when mapping fails (or nothing was encoded and submitted).
    #[cfg(not(target_arch = "wasm32"))]
    pub fn read(&self, ctx: &GpuContext) -> Result<Option<CrowdPickHit>, GpuError> {
        pollster::block_on(self.read_async(ctx))
    }

    /// [`read`](Self::read) waiting without blocking (a browser's only way).
    ///
    /// # Errors
    /// As [`read`](Self::read).
    pub async fn read_async(&self, ctx: &GpuContext) -> Result<Option<CrowdPickHit>, GpuError> {
        let readback = |reason: String| GpuError::Readback { reason };
        let wait = MapWait::new();
        self.readback
            .map_async(wgpu::MapMode::Read, .., wait.callback());
        wait.wait(&ctx.device)
            .await
            .map_err(readback)?
            .map_err(|e| readback(e.to_string()))?;
        let words: [u32; 8] = {
            let view = self
                .readback
                .get_mapped_range(..)
                .map_err(|e| readback(e.to_string()))?;
            bytemuck::pod_read_unaligned(&view[..RESULT_BYTES as usize])
        };
        self.readback.unmap();
        Ok(self.hit(words))
    }

    /// The answer's words (hit, instance, triangle, distance, u, v bits) as a hit.
    fn hit(&self, words: [u32; 8]) -> Option<CrowdPickHit> {
        let [found, instance, t, distance, u, v, ..] = words;
        if found == 0 {
            return None;
        }
        let slot = self.slots.partition_point(|s| s[0] <= t).checked_sub(1)?;
        let [first, primitive, mesh] = *self.slots.get(slot)?;
        let distance = f32::from_bits(distance);
        let (origin, dir) = self.ray;
        Some(CrowdPickHit {
            instance,
            primitive,
            mesh,
            triangle: t - first,
            barycentric: [f32::from_bits(u), f32::from_bits(v)],
            distance,
            point: origin + dir * distance,
        })
    }

    /// Triangles of the character, over every primitive.
    #[must_use]
    pub fn triangle_count(&self) -> u32 {
        self.base_params[1]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pick_module_is_valid_wgsl() {
        // `cargo xtask validate-shaders` validates the file too; this keeps the crate's own
        // tests honest without a GPU.
        let module = naga::front::wgsl::parse_str(PICK_WGSL)
            .unwrap_or_else(|e| panic!("{}", e.emit_to_string(PICK_WGSL)));
        naga::valid::Validator::new(
            naga::valid::ValidationFlags::all(),
            naga::valid::Capabilities::default(),
        )
        .validate(&module)
        .unwrap_or_else(|e| panic!("{}", e.emit_to_string(PICK_WGSL)));
    }
}
