//! GPU bounds and frustum culling of a crowd ([`CrowdCull`]): one dispatch boxes every instance
//! from the character's bounding spheres under the bone matrices already in its
//! [`CrowdBones`] buffer, tests the box against the camera's six planes and appends the
//! visible instances to a list; a second, one-thread dispatch writes a `DrawIndexedIndirect`
//! whose instance count is the list's length. A bone buffer larger than one storage binding is
//! bound in chunks of whole instances, one dispatch each. A crowd posed on the GPU
//! ([`GpuCrowdPose`](crate::GpuCrowdPose)) is then culled and drawn without reading anything
//! back to the CPU.
//!
//! **Which matrices.** The bone buffer holds skinning matrices `S = meshInverse · jointWorld ·
//! inverseBind` (the pose pass and the CPU sink both write those). A sphere is given in its
//! joint's frame, as `skel_gltf::CharacterBounds` keeps it (the bind-pose sphere carried by the
//! inverse bind matrix), so the pass rebuilds the joint's matrix as `J = placement · left · S ·
//! right` with [`CullBone::left`] the mesh node's world matrix and [`CullBone::right`] the
//! bind matrix (the inverse bind's inverse), and boxes the sphere exactly as
//! `CharacterBounds::world_box` does: centre `J c`, half extent `r ×` the length of each row of
//! `J`'s 3×3 part. Mapping a joint-frame sphere through `S` alone would box it in the wrong
//! frame (off by the inverse bind), and shrinking it back into mesh space would lose the
//! exactness of the CPU box for inverse binds that stretch.
//!
//! The pass reads the bones in the crowd's [`BoneLayout`](crate::BoneLayout) (4×4 or 3×4).

use glam::{Mat4, Vec4};

use crate::bind_entries::{READ, UNIFORM, WRITE, compute_entry};
use crate::compute_pass::{compute_pipelines_with, groups_2d};
use crate::cull_inputs::check_parts;
use crate::{BoneLayout, CrowdBones, CullBone, CullPart, GpuContext, GpuError};

/// The WGSL of the culling pass (entry points `skel_cull_instances`, `skel_cull_boxes_only`,
/// `skel_cull_draw_args`).
pub const CULL_WGSL: &str = include_str!("../shaders/skel_cull.wgsl");

/// Threads per workgroup of the culling pass (one instance each).
pub const CULL_WORKGROUP_SIZE: u32 = 64;

/// Bytes of the indirect draw arguments ([`wgpu::util::DrawIndexedIndirectArgs`]: index count,
/// instance count, first index, base vertex, first instance).
pub const DRAW_INDEXED_INDIRECT_BYTES: u64 = 20;

/// Bytes of one chunk's uniform parameters (`SkelCullParams`).
const PARAMS_BYTES: u64 = 144;

/// Bytes between two chunks' parameters (WebGPU's uniform offset alignment).
const PARAMS_STRIDE: u64 = 256;

/// What [`CrowdCull::new`] culls and draws.
#[derive(Debug, Clone, Copy)]
pub struct CrowdCullDescriptor<'a> {
    /// The character's bounding spheres (at least one).
    pub parts: &'a [CullPart],
    /// One entry per bone of an instance ([`CrowdBones::bones_per_instance`]).
    pub bones: &'a [CullBone],
    /// The indirect draw's index count (the character's indices).
    pub index_count: u32,
    /// The indirect draw's first index.
    pub first_index: u32,
    /// The indirect draw's base vertex.
    pub base_vertex: i32,
    /// The largest piece of the bone buffer one dispatch binds, in bytes; `None`: the device's
    /// `max_storage_buffer_binding_size`. A larger bone buffer is culled in chunks of whole
    /// instances, one dispatch each (smaller values exercise the chunking).
    pub max_chunk_bytes: Option<u64>,
}

/// The culling pass of one crowd (see the module docs): its pipelines, the character's spheres,
/// each instance's placement, and the buffers it writes (boxes, visible list, indirect args).
#[derive(Debug)]
pub struct CrowdCull {
    instances_pipeline: wgpu::ComputePipeline,
    boxes_pipeline: wgpu::ComputePipeline,
    draw_pipeline: wgpu::ComputePipeline,
    /// One bind group per chunk of the bone buffer.
    groups: Vec<wgpu::BindGroup>,
    params: wgpu::Buffer,
    placements: wgpu::Buffer,
    boxes: wgpu::Buffer,
    visible: wgpu::Buffer,
    indirect: wgpu::Buffer,
    base_params: [u32; 8],
    /// Per chunk: first instance, instances, workgroups (x, y).
    chunks: Vec<(u32, u32, u32, u32)>,
    instance_count: u32,
}

impl CrowdCull {
    /// Sets up culling `crowd` (every instance placed at the identity until
    /// [`set_placements`](Self::set_placements)).
    ///
    /// # Errors
    /// [`GpuError::LengthMismatch`] for no parts, a crowd of no instances, or `bones` of
    /// another length than the crowd's bones per instance; [`GpuError::OutOfRange`] for a
    /// part's bone past them; [`GpuError::NotFinite`] for a part's centre or radius (or a
    /// bone's matrix) that is not finite, or a negative radius;
    /// [`GpuError::MissingLimit`] when four instances' bones do not fit one storage binding;
    /// [`GpuError::Validation`] / [`GpuError::OutOfMemory`] from wgpu.
    pub fn new(
        ctx: &GpuContext,
        crowd: &CrowdBones,
        desc: &CrowdCullDescriptor<'_>,
    ) -> Result<Self, GpuError> {
        let count = crowd.instance_count();
        let bones = crowd.bones_per_instance();
        for (what, expected, got) in [
            ("cull parts", 1, desc.parts.len()),
            ("culled crowd instances", 1, count as usize),
        ] {
            if got == 0 {
                return Err(GpuError::LengthMismatch {
                    what,
                    expected,
                    got,
                });
            }
        }
        if desc.bones.len() != bones as usize {
            return Err(GpuError::LengthMismatch {
                what: "cull bones (one per bone of an instance)",
                expected: bones as usize,
                got: desc.bones.len(),
            });
        }
        check_parts(desc.parts, bones)?;
        let frames: Vec<Mat4> = desc.bones.iter().flat_map(|b| [b.left, b.right]).collect();
        if let Some(index) = bytemuck::cast_slice::<Mat4, f32>(&frames)
            .iter()
            .position(|v| !v.is_finite())
        {
            return Err(GpuError::NotFinite {
                what: "cull bone matrices (left, right per bone)",
                index,
            });
        }
        let instance_bytes = crowd.instance_bytes();
        let per_chunk = crate::bone_layout::instances_per_chunk(
            ctx,
            instance_bytes,
            desc.max_chunk_bytes,
            count,
        )?;
        let placement_bytes = u64::from(count) * 64;
        ctx.require_limit("max_storage_buffer_binding_size", placement_bytes, |l| {
            l.max_storage_buffer_binding_size
        })?;
        let max_x = ctx.limits.max_compute_workgroups_per_dimension.max(1);
        let chunks: Vec<(u32, u32, u32, u32)> = (0..count.div_ceil(per_chunk))
            .map(|c| {
                let first = c * per_chunk;
                let n = per_chunk.min(count - first);
                let (x, y) = groups_2d(u64::from(n), max_x, CULL_WORKGROUP_SIZE);
                (first, n, x, y)
            })
            .collect();
        let parts: Vec<[u32; 8]> = desc
            .parts
            .iter()
            .map(|p| {
                let c = p.center.to_array().map(f32::to_bits);
                [c[0], c[1], c[2], p.radius.to_bits(), p.bone, 0, 0, 0]
            })
            .collect();
        let base_params = [
            count,
            desc.parts.len() as u32,
            bones,
            0,
            desc.index_count,
            desc.first_index,
            desc.base_vertex.cast_unsigned(),
            0,
        ];
        ctx.capture("CrowdCull::new", || {
            let buffer = |label, size: u64, usage| {
                ctx.device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some(label),
                    size: size.next_multiple_of(wgpu::COPY_BUFFER_ALIGNMENT),
                    usage,
                    mapped_at_creation: false,
                })
            };
            let read = wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST;
            let out = wgpu::BufferUsages::STORAGE
                | wgpu::BufferUsages::COPY_SRC
                | wgpu::BufferUsages::COPY_DST;
            let params = buffer(
                "skel cull params",
                chunks.len() as u64 * PARAMS_STRIDE,
                wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            );
            let parts_buffer = buffer("skel cull parts", parts.len() as u64 * 32, read);
            ctx.queue
                .write_buffer(&parts_buffer, 0, bytemuck::cast_slice(&parts));
            let frames_buffer = buffer("skel cull bone frames", frames.len() as u64 * 64, read);
            ctx.queue
                .write_buffer(&frames_buffer, 0, bytemuck::cast_slice(&frames));
            let placements = buffer("skel cull placements", placement_bytes, read);
            let identity = vec![Mat4::IDENTITY; count as usize];
            ctx.queue
                .write_buffer(&placements, 0, bytemuck::cast_slice(&identity));
            let boxes = buffer("skel cull boxes", u64::from(count) * 32, out);
            let visible = buffer("skel cull visible", (u64::from(count) + 1) * 4, out);
            let indirect = buffer(
                "skel cull indirect",
                DRAW_INDEXED_INDIRECT_BYTES,
                out | wgpu::BufferUsages::INDIRECT,
            );
            let (layout, [instances_pipeline, boxes_pipeline, draw_pipeline]) =
                pipelines(ctx, crowd.bone_layout());
            let piece = |buffer, offset, size| {
                wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                    buffer,
                    offset,
                    size: std::num::NonZeroU64::new(size),
                })
            };
            let groups = chunks
                .iter()
                .enumerate()
                .map(|(c, &(first, n, _, _))| {
                    let resources = [
                        piece(&params, c as u64 * PARAMS_STRIDE, PARAMS_BYTES),
                        piece(
                            crowd.bones_buffer(),
                            u64::from(first) * instance_bytes,
                            u64::from(n) * instance_bytes,
                        ),
                        parts_buffer.as_entire_binding(),
                        frames_buffer.as_entire_binding(),
                        placements.as_entire_binding(),
                        boxes.as_entire_binding(),
                        visible.as_entire_binding(),
                        indirect.as_entire_binding(),
                    ];
                    crate::bind_entries::numbered_bind_group(
                        &ctx.device,
                        "skel cull chunk",
                        &layout,
                        resources,
                    )
                })
                .collect();
            Self {
                instances_pipeline,
                boxes_pipeline,
                draw_pipeline,
                groups,
                params,
                placements,
                boxes,
                visible,
                indirect,
                base_params,
                chunks,
                instance_count: count,
            }
        })
    }

    /// Places every instance in the world (`placements[i]` maps instance `i`'s character frame
    /// into the frame of the planes; one `write_buffer`).
    ///
    /// # Errors
    /// [`GpuError::LengthMismatch`] for another count than the crowd's instances.
    pub fn set_placements(&self, ctx: &GpuContext, placements: &[Mat4]) -> Result<(), GpuError> {
        if placements.len() != self.instance_count as usize {
            return Err(GpuError::LengthMismatch {
                what: "cull placements (one per instance)",
                expected: self.instance_count as usize,
                got: placements.len(),
            });
        }
        ctx.queue
            .write_buffer(&self.placements, 0, bytemuck::cast_slice(placements));
        Ok(())
    }

    /// Writes the frustum (`planes`: `(n, d)` each, `n·p + d ≥ 0` inside; need not be
    /// normalised; [`frustum_planes`](crate::frustum_planes) makes them from a camera) and records into `encoder`: clearing the visible count, the culling
    /// dispatch, and the indirect arguments' dispatch. Record it after the pass that writes
    /// the bones and submit before drawing with [`indirect_buffer`](Self::indirect_buffer).
    /// A box is culled when its corner farthest along some plane's normal is outside that
    /// plane (conservative: a box across a frustum corner may be kept).
    ///
    /// # Errors
    /// [`GpuError::NotFinite`] for a plane with a NaN or infinite component (a NaN plane
    /// would keep or cull everything silently).
    pub fn encode(
        &self,
        ctx: &GpuContext,
        encoder: &mut wgpu::CommandEncoder,
        planes: &[Vec4; 6],
    ) -> Result<(), GpuError> {
        self.encode_timed(ctx, encoder, planes, None)
    }

    /// [`encode`](Self::encode) with GPU timestamps written at the start and end of the
    /// culling pass (both dispatches; needs `TIMESTAMP_QUERY`).
    ///
    /// # Errors
    /// As [`encode`](Self::encode).
    pub fn encode_timed(
        &self,
        ctx: &GpuContext,
        encoder: &mut wgpu::CommandEncoder,
        planes: &[Vec4; 6],
        timestamp_writes: Option<wgpu::ComputePassTimestampWrites<'_>>,
    ) -> Result<(), GpuError> {
        self.record(ctx, encoder, planes, timestamp_writes, false)
    }

    /// [`encode`](Self::encode) for a crowd whose boxes the pose pass already wrote into
    /// [`boxes_buffer`](Self::boxes_buffer) this frame
    /// ([`GpuCrowdPose::with_options`](crate::GpuCrowdPose::with_options) with
    /// [`PoseBounds`](crate::PoseBounds)): the culling dispatch reads one box (32 bytes) an
    /// instance and tests it, instead of boxing the instance from every part's bone matrix.
    /// The visible set is the one [`encode`](Self::encode) keeps for the same boxes, and the
    /// list a baked pose pass that skips unseen instances poses
    /// ([`PoseOptions::skip_unseen`](crate::PoseOptions::skip_unseen)). Each box's `min.w`
    /// becomes 0 for an instance left out, 1 for one kept and 2 for one kept after a frame
    /// that left it out (that pass poses it whatever its update rate says).
    ///
    /// # Errors
    /// As [`encode`](Self::encode).
    pub fn encode_from_boxes(
        &self,
        ctx: &GpuContext,
        encoder: &mut wgpu::CommandEncoder,
        planes: &[Vec4; 6],
        timestamp_writes: Option<wgpu::ComputePassTimestampWrites<'_>>,
    ) -> Result<(), GpuError> {
        self.record(ctx, encoder, planes, timestamp_writes, true)
    }

    /// Writes the parameters and records clearing the count, the culling dispatches (boxing
    /// from the bones, or reading the boxes when `from_boxes`) and the draw arguments.
    fn record(
        &self,
        ctx: &GpuContext,
        encoder: &mut wgpu::CommandEncoder,
        planes: &[Vec4; 6],
        timestamp_writes: Option<wgpu::ComputePassTimestampWrites<'_>>,
        from_boxes: bool,
    ) -> Result<(), GpuError> {
        let floats: &[f32] = bytemuck::cast_slice(planes);
        if let Some(index) = floats.iter().position(|v| !v.is_finite()) {
            return Err(GpuError::NotFinite {
                what: "frustum planes",
                index,
            });
        }
        let mut params = [0u32; PARAMS_BYTES as usize / 4];
        params[..24].copy_from_slice(bytemuck::cast_slice(floats));
        params[24..32].copy_from_slice(&self.base_params);
        for (c, &(first, n, x, _)) in self.chunks.iter().enumerate() {
            params[27] = x * CULL_WORKGROUP_SIZE;
            params[32] = first;
            params[33] = n;
            ctx.queue.write_buffer(
                &self.params,
                c as u64 * PARAMS_STRIDE,
                bytemuck::cast_slice(&params),
            );
        }
        encoder.clear_buffer(&self.visible, 0, Some(4));
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("skel cull"),
            timestamp_writes,
        });
        pass.set_pipeline(if from_boxes {
            &self.boxes_pipeline
        } else {
            &self.instances_pipeline
        });
        for (group, &(_, _, x, y)) in self.groups.iter().zip(&self.chunks) {
            pass.set_bind_group(0, group, &[]);
            pass.dispatch_workgroups(x, y, 1);
        }
        pass.set_pipeline(&self.draw_pipeline);
        pass.dispatch_workgroups(1, 1, 1);
        Ok(())
    }

    /// Each instance's placement ([`set_placements`](Self::set_placements)): one `mat4x4<f32>`
    /// an instance, which the pose pass's bounds read too.
    #[must_use]
    pub fn placements_buffer(&self) -> &wgpu::Buffer {
        &self.placements
    }

    /// Instances culled.
    #[must_use]
    pub fn instance_count(&self) -> u32 {
        self.instance_count
    }

    /// Chunks the bone buffer is bound in (one culling dispatch each).
    #[must_use]
    pub fn chunk_count(&self) -> usize {
        self.chunks.len()
    }

    /// Every instance's world box: `vec4` min then `vec4` max, 32 bytes an instance; an
    /// instance without a finite sphere gets min > max and is culled. The `w` of max is 0;
    /// the `w` of min is 0, or after [`encode_from_boxes`](Self::encode_from_boxes) 1 for an
    /// instance it kept (and 1 from a baked pose pass's boxes until a cull says otherwise).
    #[must_use]
    pub fn boxes_buffer(&self) -> &wgpu::Buffer {
        &self.boxes
    }

    /// The visible list: the count, then the visible instances in no particular order (the
    /// layout of [`CrowdBones::instances_buffer`], so the crowd vertex fragment and crowd
    /// skinning can bind it in its place).
    #[must_use]
    pub fn visible_buffer(&self) -> &wgpu::Buffer {
        &self.visible
    }

    /// The `DrawIndexedIndirect` arguments ([`DRAW_INDEXED_INDIRECT_BYTES`]), instance count
    /// = visible instances, for [`wgpu::RenderPass::draw_indexed_indirect`].
    #[must_use]
    pub fn indirect_buffer(&self) -> &wgpu::Buffer {
        &self.indirect
    }
}

/// The bind group layout and the three pipelines (boxing from the bones, from the boxes, the
/// draw arguments).
fn pipelines(
    ctx: &GpuContext,
    bone_layout: BoneLayout,
) -> (wgpu::BindGroupLayout, [wgpu::ComputePipeline; 3]) {
    let entries = [
        compute_entry(0, UNIFORM),
        compute_entry(1, READ),
        compute_entry(2, READ),
        compute_entry(3, READ),
        compute_entry(4, READ),
        compute_entry(5, WRITE),
        compute_entry(6, WRITE),
        compute_entry(7, WRITE),
    ];
    let layout = ctx
        .device
        .create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("skel cull"),
            entries: &entries,
        });
    let pipelines = compute_pipelines_with(
        ctx,
        "skel cull",
        CULL_WGSL.into(),
        &[&layout],
        [
            "skel_cull_instances",
            "skel_cull_boxes_only",
            "skel_cull_draw_args",
        ],
        true,
        &bone_layout.constants(),
    );
    (layout, pipelines)
}
