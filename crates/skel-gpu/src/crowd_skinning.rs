//! Skinning a crowd: one compute dispatch per mesh for every visible instance
//! ([`CrowdSkinning`]; the vertex-shader fragment is in `crowd_vertex`). It reads the bone
//! matrices of instance `list[1 + slot]` at `instance * bone_stride + bone_offset` in a
//! [`CrowdBones`] buffer and, for a mesh with morph targets, morphs each vertex with that
//! instance's weights first (`crowd_morph`). The bones may be 4×4 or 3×4
//! ([`BoneLayout`]): the pipeline for 3×4 is compiled the first time a crowd of that layout is
//! bound, and both rebuild the same 4×4 matrix before skinning.

use crate::bind_entries::{READ, UNIFORM, WRITE, compute_entry};
use crate::crowd_morph::{
    CROWD_MORPH_BINDINGS, CrowdMorphInputs, check_morph, morph_layout_entries,
};
use crate::{
    BoneLayout, CrowdBones, GpuContext, GpuError, Influences, SkeletonGpu, SkinningMethod,
};

/// The crowd compute module (entry points `skel_crowd_skin4`/`8`/`16`, their `_dq` forms, and
/// the `_morph` forms of all six for meshes with morph targets):
/// `skel_crowd_compute.wgsl` followed by the skinning it shares with the vertex fragment,
/// `skel_crowd_skin.wgsl`, joined at build time.
pub const CROWD_COMPUTE_WGSL: &str = concat!(
    include_str!("../shaders/skel_crowd_compute.wgsl"),
    "\n",
    include_str!("../shaders/skel_crowd_skin.wgsl"),
);

/// Invocations (vertices) per workgroup of crowd compute skinning.
pub const CROWD_WORKGROUP_SIZE: u32 = 256;

/// The 16-byte parameters of one mesh in a crowd (the compute uniform and the vertex
/// fragment's `SkelCrowdDraw`): vertex count, bone stride, bone offset, padding.
#[must_use]
pub fn crowd_mesh_params(vertex_count: u32, bones: &CrowdBones, bone_offset: u32) -> [u32; 4] {
    [vertex_count, bones.bones_per_instance(), bone_offset, 0]
}

/// One mesh of a crowd for [`CrowdSkinning::bind`].
#[derive(Debug, Clone, Copy)]
pub struct CrowdSkinningInputs<'a> {
    /// The crowd's bones and visible list.
    pub bones: &'a CrowdBones,
    /// The mesh's first matrix within an instance's bones.
    pub bone_offset: u32,
    /// The mesh's skeleton: its joints/weights buffers (`u32`/`f32`) are read.
    pub skeleton: &'a SkeletonGpu,
    /// Rest positions, 12 bytes per vertex, `STORAGE` usage.
    pub rest_positions: &'a wgpu::Buffer,
    /// Rest normals, 12 bytes per vertex, `STORAGE` usage.
    pub rest_normals: &'a wgpu::Buffer,
    /// Skinned positions out, slot-major: 12 bytes per vertex per instance.
    pub out_positions: &'a wgpu::Buffer,
    /// Skinned normals out, same layout.
    pub out_normals: &'a wgpu::Buffer,
    /// The mesh's morph targets and the instances' weights: required by a morphing pipeline
    /// ([`CrowdSkinning::with_morph`]), ignored by the others.
    pub morph: Option<CrowdMorphInputs<'a>>,
}

/// Bind group and sizes of one mesh of a crowd; reuse it every frame.
#[derive(Debug)]
pub struct CrowdSkinningBindings {
    pub(crate) group: wgpu::BindGroup,
    vertex_count: u32,
    /// Slots this binding skins: `first_slot..first_slot + instance_count`.
    first_slot: u32,
    instance_count: u32,
    pub(crate) bone_layout: BoneLayout,
    // Kept alive with the bind group that references them.
    _params: wgpu::Buffer,
    _morph_params: Option<wgpu::Buffer>,
}

impl CrowdSkinningBindings {
    /// Vertices of the mesh.
    #[must_use]
    pub fn vertex_count(&self) -> u32 {
        self.vertex_count
    }

    /// The slots this binding skins (a chunk of the crowd: first slot, count).
    #[must_use]
    pub fn slots(&self) -> (u32, u32) {
        (self.first_slot, self.instance_count)
    }
}

/// The crowd compute pipeline for 4, 8 or 16 influences, linear or dual-quaternion skinning,
/// with or without morph targets.
#[derive(Debug)]
pub struct CrowdSkinning {
    influences: Influences,
    method: SkinningMethod,
    morph: bool,
    layout: wgpu::BindGroupLayout,
    pub(crate) pipeline: wgpu::ComputePipeline,
    /// The pipeline for [`BoneLayout::Affine3x4`] bones, compiled at the first bind of such a
    /// crowd.
    pub(crate) affine: std::sync::OnceLock<wgpu::ComputePipeline>,
    entry_point: String,
    max_per_dimension: u32,
}

impl CrowdSkinning {
    /// Compiles the pipeline for `influences` (`Four`, `Eight` or `Sixteen`).
    ///
    /// # Errors
    /// [`GpuError::InfluenceMismatch`] for `Influences::None`; [`GpuError::MissingLimit`]
    /// (`max_storage_buffers_per_shader_stage`: 8, 10 with 8 influences, 14 with 16; 256
    /// invocations per workgroup); [`GpuError::Validation`].
    pub fn new(ctx: &GpuContext, influences: Influences) -> Result<Self, GpuError> {
        Self::with_method(ctx, influences, SkinningMethod::Linear)
    }

    /// [`new`](Self::new) with a [`SkinningMethod`]: `DualQuaternion` converts each bone
    /// matrix to a dual quaternion on the GPU, flips influences to the hemisphere of the
    /// vertex's first one and renormalises the blend (see [`crate::dual_quat`]). The caller
    /// checks the bones are rigid ([`crate::dual_quat::is_rigid`]).
    ///
    /// # Errors
    /// As [`new`](Self::new).
    pub fn with_method(
        ctx: &GpuContext,
        influences: Influences,
        method: SkinningMethod,
    ) -> Result<Self, GpuError> {
        Self::build(ctx, influences, method, false)
    }

    /// [`with_method`](Self::with_method) for meshes with morph targets: each vertex is
    /// morphed with its instance's own weights (`p + Σ w_t Δp_t`, normals likewise when the
    /// targets carry normal deltas; zero weights read nothing) and then skinned. A separate
    /// pipeline, so that meshes without targets keep theirs and pay nothing; its bindings
    /// need [`CrowdSkinningInputs::morph`].
    ///
    /// # Errors
    /// As [`new`](Self::new), with two more storage buffers (10, 12 with 8 influences, 16
    /// with 16) and two uniform buffers.
    pub fn with_morph(
        ctx: &GpuContext,
        influences: Influences,
        method: SkinningMethod,
    ) -> Result<Self, GpuError> {
        Self::build(ctx, influences, method, true)
    }

    fn build(
        ctx: &GpuContext,
        influences: Influences,
        method: SkinningMethod,
        morph: bool,
    ) -> Result<Self, GpuError> {
        let sets = influences.sets();
        if sets == 0 {
            return Err(GpuError::InfluenceMismatch {
                shader: 0,
                skeleton: 4,
            });
        }
        ctx.require_limit(
            "max_storage_buffers_per_shader_stage",
            u64::from(6 + 2 * sets + 2 * u32::from(morph)),
            |l| u64::from(l.max_storage_buffers_per_shader_stage),
        )?;
        let size = u64::from(CROWD_WORKGROUP_SIZE);
        ctx.require_limit("max_compute_invocations_per_workgroup", size, |l| {
            u64::from(l.max_compute_invocations_per_workgroup)
        })?;
        let mut entries = layout_entries(sets);
        if morph {
            ctx.require_limit("max_uniform_buffers_per_shader_stage", 2, |l| {
                u64::from(l.max_uniform_buffers_per_shader_stage)
            })?;
            entries.extend(morph_layout_entries());
        }
        let skin = match (sets, method) {
            (1, SkinningMethod::Linear) => "skel_crowd_skin4",
            (2, SkinningMethod::Linear) => "skel_crowd_skin8",
            (_, SkinningMethod::Linear) => "skel_crowd_skin16",
            (1, SkinningMethod::DualQuaternion) => "skel_crowd_skin4_dq",
            (2, SkinningMethod::DualQuaternion) => "skel_crowd_skin8_dq",
            (_, SkinningMethod::DualQuaternion) => "skel_crowd_skin16_dq",
        };
        let entry_point = if morph {
            format!("{skin}_morph")
        } else {
            skin.to_owned()
        };
        let (layout, pipeline) = ctx.capture("CrowdSkinning::new", || {
            let layout = ctx
                .device
                .create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
                    label: Some("skel crowd skinning"),
                    entries: &entries,
                });
            let [pipeline] = crate::compute_pass::compute_pipelines(
                ctx,
                "skel crowd skinning",
                CROWD_COMPUTE_WGSL.into(),
                &[&layout],
                [&entry_point],
                true,
            );
            (layout, pipeline)
        })?;
        Ok(Self {
            influences,
            method,
            morph,
            layout,
            pipeline,
            affine: std::sync::OnceLock::new(),
            entry_point,
            max_per_dimension: ctx.limits.max_compute_workgroups_per_dimension.max(1),
        })
    }

    /// The influences per vertex the pipeline skins.
    #[must_use]
    pub fn influences(&self) -> Influences {
        self.influences
    }

    /// Linear or dual-quaternion skinning.
    #[must_use]
    pub fn method(&self) -> SkinningMethod {
        self.method
    }

    /// Whether the pipeline morphs before skinning ([`with_morph`](Self::with_morph)).
    #[must_use]
    pub fn morphs(&self) -> bool {
        self.morph
    }

    /// Checks `inputs` and binds them.
    ///
    /// # Errors
    /// [`GpuError::InfluenceMismatch`] when the skeleton has another influence count;
    /// [`GpuError::BufferTooSmall`] for a rest or output buffer shorter than the mesh (times
    /// the instance count for outputs) or a weights buffer shorter than the crowd's instances;
    /// for a morphing pipeline, [`GpuError::MissingBinding`] without
    /// [`CrowdSkinningInputs::morph`] and [`GpuError::LengthMismatch`] for targets of another
    /// vertex count or weights that do not fit `weight_stride`, and
    /// [`GpuError::MorphDeltaMismatch`] for targets whose deltas are in a texture;
    /// [`GpuError::MissingLimit`] (`max_storage_buffer_binding_size`,
    /// `max_compute_workgroups_per_dimension`); [`GpuError::Validation`] (a buffer without
    /// `STORAGE` usage).
    pub fn bind(
        &self,
        ctx: &GpuContext,
        inputs: &CrowdSkinningInputs<'_>,
    ) -> Result<CrowdSkinningBindings, GpuError> {
        self.bind_slots(ctx, inputs, 0, inputs.bones.instance_count())
    }

    /// [`bind`](Self::bind) in chunks of slots whose skinned output stays under
    /// `max_chunk_bytes` per binding (`None`: the device's `max_storage_buffer_binding_size`),
    /// so that a crowd whose output is larger than one storage binding may be (100 000
    /// CesiumMan: 3.9 GB) skins with one dispatch per chunk. The output buffers are bound in
    /// ranges; they may be as large as `max_buffer_size`.
    ///
    /// # Errors
    /// As [`bind`](Self::bind); [`GpuError::MissingLimit`] when not even 64 slots fit a chunk.
    pub fn bind_chunked(
        &self,
        ctx: &GpuContext,
        inputs: &CrowdSkinningInputs<'_>,
        max_chunk_bytes: Option<u64>,
    ) -> Result<Vec<CrowdSkinningBindings>, GpuError> {
        let limit = max_chunk_bytes
            .unwrap_or(u64::MAX)
            .min(ctx.limits.max_storage_buffer_binding_size);
        let per_slot = inputs.skeleton.vertex_count() as u64 * 12;
        // 64 slots of 12-byte vertices are a multiple of 256 bytes: every chunk's offset is
        // aligned for a storage binding.
        let slots = (limit / per_slot.max(1)) / 64 * 64;
        let count = inputs.bones.instance_count();
        if slots == 0 {
            return Err(GpuError::MissingLimit {
                name: "max_storage_buffer_binding_size",
                needed: 64 * per_slot,
                available: limit,
            });
        }
        let slots = slots.min(u64::from(count)) as u32;
        (0..count.div_ceil(slots))
            .map(|c| {
                let first = c * slots;
                self.bind_slots(ctx, inputs, first, slots.min(count - first))
            })
            .collect()
    }

    fn bind_slots(
        &self,
        ctx: &GpuContext,
        inputs: &CrowdSkinningInputs<'_>,
        first_slot: u32,
        slots: u32,
    ) -> Result<CrowdSkinningBindings, GpuError> {
        let skeleton = inputs.skeleton;
        if skeleton.influences_per_vertex() != self.influences.count() {
            return Err(GpuError::InfluenceMismatch {
                shader: self.influences.count(),
                skeleton: skeleton.influences_per_vertex(),
            });
        }
        let vertex_count = u32::try_from(skeleton.vertex_count()).unwrap_or(u32::MAX);
        let n = u64::from(vertex_count);
        let instances = u64::from(slots);
        let out_offset = u64::from(first_slot) * n * 12;
        let groups_x = vertex_count.div_ceil(CROWD_WORKGROUP_SIZE);
        ctx.require_limit(
            "max_compute_workgroups_per_dimension",
            u64::from(groups_x),
            |l| u64::from(l.max_compute_workgroups_per_dimension),
        )?;
        let mut entries: Vec<(u32, &wgpu::Buffer, u64, u64)> = vec![
            (
                1,
                inputs.bones.bones_buffer(),
                0,
                inputs.bones.bones_buffer().size(),
            ),
            (
                2,
                inputs.bones.instances_buffer(),
                0,
                inputs.bones.instances_buffer().size(),
            ),
            (3, inputs.rest_positions, 0, n * 12),
            (4, inputs.rest_normals, 0, n * 12),
            (5, skeleton.joints_buffer(), 0, n * 16),
            (6, skeleton.weights_buffer(), 0, n * 16),
            (9, inputs.out_positions, out_offset, n * 12 * instances),
            (10, inputs.out_normals, out_offset, n * 12 * instances),
        ];
        for set in 1..skeleton.influence_sets() {
            if let Some((j, w)) = skeleton.influence_buffers(set as usize) {
                let binding = if set == 1 { 7 } else { 11 + 2 * (set - 2) };
                entries.extend([(binding, j, 0, n * 16), (binding + 1, w, 0, n * 16)]);
            }
        }
        let mut morph_params = None;
        if self.morph {
            let morph = inputs.morph.as_ref().ok_or(GpuError::MissingBinding {
                what: "crowd morph targets (CrowdSkinningInputs::morph)",
            })?;
            let (params, deltas, weights) =
                check_morph(morph, vertex_count, inputs.bones.instance_count())?;
            morph_params = Some(params);
            let [_, deltas_binding, weights_binding] = CROWD_MORPH_BINDINGS;
            entries.extend([
                (deltas_binding, deltas, 0, deltas.size()),
                (weights_binding, morph.weights, 0, weights),
            ]);
        }
        const NAMES: [&str; 18] = [
            "params",
            "crowd bones",
            "crowd instances",
            "rest positions",
            "rest normals",
            "joints (set 0)",
            "weights (set 0)",
            "joints (set 1)",
            "weights (set 1)",
            "skinned positions out",
            "skinned normals out",
            "joints (set 2)",
            "weights (set 2)",
            "joints (set 3)",
            "weights (set 3)",
            "crowd morph params",
            "morph deltas",
            "crowd morph weights",
        ];
        for &(binding, buffer, offset, needed) in &entries {
            let what = NAMES[binding as usize];
            if buffer.size() < offset + needed {
                return Err(GpuError::BufferTooSmall {
                    what,
                    needed: offset + needed,
                    got: buffer.size(),
                });
            }
            ctx.require_limit("max_storage_buffer_binding_size", needed, |l| {
                l.max_storage_buffer_binding_size
            })?;
        }
        let bone_layout = inputs.bones.bone_layout();
        if bone_layout == BoneLayout::Affine3x4 && self.affine.get().is_none() {
            let pipeline = ctx.capture("CrowdSkinning::bind (3x4 pipeline)", || {
                let [pipeline] = crate::compute_pass::compute_pipelines_with(
                    ctx,
                    "skel crowd skinning (3x4 bones)",
                    CROWD_COMPUTE_WGSL.into(),
                    &[&self.layout],
                    [&self.entry_point],
                    true,
                    &bone_layout.constants(),
                );
                pipeline
            })?;
            let _ = self.affine.set(pipeline);
        }
        let mut params = crowd_mesh_params(vertex_count, inputs.bones, inputs.bone_offset);
        params[3] = first_slot;
        ctx.capture("CrowdSkinning::bind", || {
            let morph_params = morph_params
                .map(|p| {
                    crate::buffers::create_filled_buffer(
                        ctx,
                        "skel crowd morph params",
                        wgpu::BufferUsages::UNIFORM,
                        bytemuck::cast_slice(&p),
                    )
                })
                .transpose()?;
            let mut entries = entries.clone();
            if let Some(p) = &morph_params {
                entries.push((CROWD_MORPH_BINDINGS[0], p, 0, 16));
            }
            let (params, group) = crate::buffers::params_bind_group_ranges(
                ctx,
                ("skel crowd params", "skel crowd skinning"),
                &self.layout,
                bytemuck::cast_slice(&params),
                &entries,
            )?;
            Ok(CrowdSkinningBindings {
                group,
                vertex_count,
                first_slot,
                instance_count: slots,
                bone_layout,
                _params: params,
                _morph_params: morph_params,
            })
        })?
    }

    /// Workgroups (x, y, z) that skin `visible` instances of a mesh of `vertex_count`
    /// vertices: x over vertices, y·z ≥ `visible` over slots.
    #[must_use]
    pub fn workgroups_for(&self, vertex_count: u32, visible: u32) -> (u32, u32, u32) {
        if vertex_count == 0 || visible == 0 {
            return (0, 0, 0);
        }
        let y = visible.min(self.max_per_dimension);
        (
            vertex_count.div_ceil(CROWD_WORKGROUP_SIZE),
            y,
            visible.div_ceil(y),
        )
    }

    /// Records the dispatch of one mesh (or one chunk of it) for the first `visible` slots of
    /// the list uploaded last (pass the same count; slots past the uploaded count are skipped
    /// on the GPU).
    pub fn dispatch(
        &self,
        pass: &mut wgpu::ComputePass<'_>,
        bindings: &CrowdSkinningBindings,
        visible: u32,
    ) {
        let slots = visible
            .saturating_sub(bindings.first_slot)
            .min(bindings.instance_count);
        let (x, y, z) = self.workgroups_for(bindings.vertex_count, slots);
        if x == 0 {
            return;
        }
        let pipeline = match bindings.bone_layout {
            BoneLayout::Affine3x4 => self.affine.get().unwrap_or(&self.pipeline),
            BoneLayout::Mat4 => &self.pipeline,
        };
        pass.set_pipeline(pipeline);
        pass.set_bind_group(0, &bindings.group, &[]);
        pass.dispatch_workgroups(x, y, z);
    }
}

fn layout_entries(sets: u32) -> Vec<wgpu::BindGroupLayoutEntry> {
    let entry = compute_entry;
    let read = READ;
    let write = WRITE;
    let mut entries = vec![entry(0, UNIFORM)];
    entries.extend((1..=6).map(|b| entry(b, read)));
    if sets > 1 {
        entries.extend([entry(7, read), entry(8, read)]);
    }
    entries.extend([entry(9, write), entry(10, write)]);
    if sets > 2 {
        entries.extend((11..=14).map(|b| entry(b, read)));
    }
    entries
}
