//! Compute skinning: rest positions/normals + influences → skinned position/normal buffers, for
//! users who skin once and draw many passes (shadows, depth pre-pass, picking).

use crate::bind_entries::{READ, UNIFORM, WRITE, compute_entry};
use crate::{
    COMPUTE_BONE_CACHE_SIZE, COMPUTE_FRAGMENT_GROUP, COMPUTE_WORKGROUP_SIZE, ComputeSkinningConfig,
    ComputeTuning, FragmentBindings, GpuContext, GpuError, Influences, MorphGpu, ShaderFragment,
    SkeletonGpu,
};

/// The buffers one dispatch reads and writes. Every buffer needs `STORAGE` usage; positions
/// and normals are tightly packed `f32` triples.
#[derive(Debug, Clone, Copy)]
pub struct ComputeSkinningInputs<'a> {
    /// Vertices to skin.
    pub vertex_count: u32,
    /// Rest positions, 12 bytes per vertex.
    pub rest_positions: &'a wgpu::Buffer,
    /// Rest normals, 12 bytes per vertex (when the pipeline skins normals).
    pub rest_normals: Option<&'a wgpu::Buffer>,
    /// Joints per set (`[JOINTS_0, JOINTS_1, JOINTS_2, JOINTS_3]`; as many as the variant
    /// reads), in the pipeline's [`JointFormat`](crate::JointFormat). Indices must be below the skeleton's bone
    /// count: compute inputs are not read back to check.
    pub joints: [Option<&'a wgpu::Buffer>; 4],
    /// Weights per set, in the pipeline's [`WeightFormat`](crate::WeightFormat).
    pub weights: [Option<&'a wgpu::Buffer>; 4],
    /// Skinned positions out, 12 bytes per vertex.
    pub out_positions: &'a wgpu::Buffer,
    /// Skinned normals out, 12 bytes per vertex (when the pipeline skins normals).
    pub out_normals: Option<&'a wgpu::Buffer>,
}

impl<'a> ComputeSkinningInputs<'a> {
    /// Inputs that read `skeleton`'s own joints and weights buffers (`u32`/`f32`, 1, 2 or 4
    /// sets, already validated against the bone count).
    #[must_use]
    pub fn from_skeleton(
        skeleton: &'a SkeletonGpu,
        rest_positions: &'a wgpu::Buffer,
        rest_normals: Option<&'a wgpu::Buffer>,
        out_positions: &'a wgpu::Buffer,
        out_normals: Option<&'a wgpu::Buffer>,
    ) -> Self {
        Self {
            vertex_count: u32::try_from(skeleton.vertex_count()).unwrap_or(u32::MAX),
            rest_positions,
            rest_normals,
            joints: std::array::from_fn(|s| skeleton.influence_buffers(s).map(|(j, _)| j)),
            weights: std::array::from_fn(|s| skeleton.influence_buffers(s).map(|(_, w)| w)),
            out_positions,
            out_normals,
        }
    }
}

/// Bind groups and dispatch size for one set of inputs; reuse it every frame while the inputs
/// stay the same (bone and morph uploads need no new bind group).
#[derive(Debug)]
pub struct ComputeSkinningBindings {
    buffers: wgpu::BindGroup,
    fragment: wgpu::BindGroup,
    vertex_count: u32,
    workgroups: (u32, u32),
    tiles_per_workgroup: u32,
    // Kept alive with the bind group that references it.
    _params: wgpu::Buffer,
}

impl ComputeSkinningBindings {
    /// Vertices the dispatch skins.
    #[must_use]
    pub fn vertex_count(&self) -> u32 {
        self.vertex_count
    }

    /// Workgroups dispatched in x and y.
    #[must_use]
    pub fn workgroups(&self) -> (u32, u32) {
        self.workgroups
    }

    /// Tiles of [`COMPUTE_WORKGROUP_SIZE`] vertices each workgroup skins.
    #[must_use]
    pub fn tiles_per_workgroup(&self) -> u32 {
        self.tiles_per_workgroup
    }
}

/// A compute pipeline for one [`ComputeSkinningConfig`].
#[derive(Debug)]
pub struct ComputeSkinning {
    config: ComputeSkinningConfig,
    tuning: ComputeTuning,
    fragment: ShaderFragment,
    buffers_layout: wgpu::BindGroupLayout,
    fragment_layout: wgpu::BindGroupLayout,
    pipeline: wgpu::ComputePipeline,
    max_workgroups_per_dimension: u32,
}

impl ComputeSkinning {
    /// Compiles the pipeline with the default [`ComputeTuning`]. The bone cache holds as many
    /// of [`COMPUTE_BONE_CACHE_SIZE`] bones as the device's
    /// `max_compute_workgroup_storage_size` allows.
    ///
    /// # Errors
    /// [`GpuError::MissingLimit`] (`max_storage_buffers_per_shader_stage`: up to 9 for 8
    /// influences with normals and morph targets, 13 for 16, where WebGPU's default is 8;
    /// `max_compute_invocations_per_workgroup` and `max_compute_workgroup_size_x`: 256;
    /// `max_compute_workgroup_storage_size`: one bone, 48 bytes);
    /// [`GpuError::Validation`] from shader or pipeline creation.
    pub fn new(ctx: &GpuContext, config: ComputeSkinningConfig) -> Result<Self, GpuError> {
        Self::with_tuning(ctx, config, ComputeTuning::default())
    }

    /// [`new`](Self::new) with an explicit [`ComputeTuning`] (benchmarks compare them).
    ///
    /// # Errors
    /// As [`new`](Self::new); the column layout needs 64 bytes of workgroup storage.
    pub fn with_tuning(
        ctx: &GpuContext,
        config: ComputeSkinningConfig,
        tuning: ComputeTuning,
    ) -> Result<Self, GpuError> {
        let size = u64::from(COMPUTE_WORKGROUP_SIZE);
        ctx.require_limit("max_compute_invocations_per_workgroup", size, |l| {
            u64::from(l.max_compute_invocations_per_workgroup)
        })?;
        ctx.require_limit("max_compute_workgroup_size_x", size, |l| {
            u64::from(l.max_compute_workgroup_size_x)
        })?;
        let skinned = config.variant.influences != Influences::None;
        let bone_bytes = tuning.bone_cache.bytes_per_bone();
        if skinned {
            ctx.require_limit(
                "max_compute_workgroup_storage_size",
                u64::from(bone_bytes),
                |l| u64::from(l.max_compute_workgroup_storage_size),
            )?;
        }
        let cache_size =
            COMPUTE_BONE_CACHE_SIZE.min(ctx.limits.max_compute_workgroup_storage_size / bone_bytes);
        ctx.require_limit(
            "max_storage_buffers_per_shader_stage",
            u64::from(config.storage_buffer_count()),
            |l| u64::from(l.max_storage_buffers_per_shader_stage),
        )?;
        // The fragment as the compute shader includes it: every influence set comes from
        // group 0, so a 16-influence variant binds no storage sets in group 1.
        let fragment = ShaderFragment::generate(
            config.variant,
            FragmentBindings {
                group: COMPUTE_FRAGMENT_GROUP,
                first_binding: 0,
                first_location: 0,
            },
            false,
            // Compute shaders read storage buffers anyway: the deltas are one.
            crate::MorphDeltaStorage::Buffer,
        );
        let fragment_layout =
            fragment.create_bind_group_layout(ctx, wgpu::ShaderStages::COMPUTE)?;
        let entries = buffer_layout_entries(&config);
        let wgsl = config.wgsl_tuned(&tuning, cache_size);
        let (buffers_layout, pipeline) = ctx.capture("ComputeSkinning::new", || {
            let buffers_layout =
                ctx.device
                    .create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
                        label: Some("skel compute skinning buffers"),
                        entries: &entries,
                    });
            let [pipeline] = crate::compute_pass::compute_pipelines(
                ctx,
                "skel compute skinning",
                wgsl.into(),
                &[&buffers_layout, &fragment_layout],
                ["skel_skin_compute"],
                true,
            );
            (buffers_layout, pipeline)
        })?;
        Ok(Self {
            config,
            tuning,
            fragment,
            buffers_layout,
            fragment_layout,
            pipeline,
            max_workgroups_per_dimension: ctx.limits.max_compute_workgroups_per_dimension,
        })
    }

    /// The configuration.
    #[must_use]
    pub fn config(&self) -> ComputeSkinningConfig {
        self.config
    }

    /// The tuning.
    #[must_use]
    pub fn tuning(&self) -> ComputeTuning {
        self.tuning
    }

    /// Workgroups in x and y for `vertex_count` vertices, each skinning
    /// [`ComputeTuning::tiles_for`] tiles: 1D up to `max_compute_workgroups_per_dimension`
    /// groups, then 2D (x full, y rows).
    #[must_use]
    pub fn workgroups_for(&self, vertex_count: u32) -> (u32, u32) {
        let per_group =
            u64::from(COMPUTE_WORKGROUP_SIZE) * u64::from(self.tuning.tiles_for(vertex_count));
        let groups = u32::try_from(u64::from(vertex_count).div_ceil(per_group)).unwrap_or(u32::MAX);
        let x = groups.min(self.max_workgroups_per_dimension.max(1));
        if x == 0 {
            return (0, 0);
        }
        (x, groups.div_ceil(x))
    }

    /// Checks `inputs` against the configuration and binds them with `skeleton`'s bone texture
    /// and `morph`'s targets.
    ///
    /// # Errors
    /// [`GpuError::MissingBinding`] for a buffer, skeleton or morph the configuration needs;
    /// [`GpuError::BufferTooSmall`] for a buffer shorter than `vertex_count` needs;
    /// [`GpuError::LengthMismatch`] when morph targets have another vertex count;
    /// [`GpuError::MorphDeltaMismatch`] when their deltas are in a texture (compute skinning
    /// reads a storage buffer);
    /// [`GpuError::MissingLimit`] (`max_storage_buffer_binding_size`,
    /// `max_compute_workgroups_per_dimension`); [`GpuError::Validation`] (e.g. a buffer without
    /// `STORAGE` usage).
    pub fn bind(
        &self,
        ctx: &GpuContext,
        inputs: &ComputeSkinningInputs<'_>,
        skeleton: Option<&SkeletonGpu>,
        morph: Option<&MorphGpu>,
    ) -> Result<ComputeSkinningBindings, GpuError> {
        let n = u64::from(inputs.vertex_count);
        let cfg = &self.config;
        let mut entries: Vec<(u32, &wgpu::Buffer, u64)> = Vec::with_capacity(13);
        let mut add = |binding: u32, what, buffer, needed| -> Result<(), GpuError> {
            entries.push((binding, checked_buffer(ctx, what, buffer, needed)?, needed));
            Ok(())
        };
        add(1, "rest positions", Some(inputs.rest_positions), n * 12)?;
        add(
            2,
            "skinned positions out",
            Some(inputs.out_positions),
            n * 12,
        )?;
        if cfg.normals {
            add(3, "rest normals", inputs.rest_normals, n * 12)?;
            add(4, "skinned normals out", inputs.out_normals, n * 12)?;
        }
        const JOINT_NAMES: [&str; 4] = [
            "joints (set 0)",
            "joints (set 1)",
            "joints (set 2)",
            "joints (set 3)",
        ];
        const WEIGHT_NAMES: [&str; 4] = [
            "weights (set 0)",
            "weights (set 1)",
            "weights (set 2)",
            "weights (set 3)",
        ];
        for set in 0..cfg.variant.influences.sets() as usize {
            let binding = 5 + 2 * set as u32;
            let joint_bytes = n * cfg.joint_format.bytes_per_vertex();
            let weight_bytes = n * cfg.weight_format.bytes_per_vertex();
            add(binding, JOINT_NAMES[set], inputs.joints[set], joint_bytes)?;
            add(
                binding + 1,
                WEIGHT_NAMES[set],
                inputs.weights[set],
                weight_bytes,
            )?;
        }
        if let Some(m) = morph.filter(|_| cfg.variant.morph)
            && m.vertex_count() as u64 != n
        {
            return Err(GpuError::LengthMismatch {
                what: "morph target vertices",
                expected: inputs.vertex_count as usize,
                got: m.vertex_count(),
            });
        }
        let workgroups = self.workgroups_for(inputs.vertex_count);
        ctx.require_limit(
            "max_compute_workgroups_per_dimension",
            u64::from(workgroups.1),
            |l| u64::from(l.max_compute_workgroups_per_dimension),
        )?;
        let fragment_entries = self.fragment.entries(skeleton, morph, false)?;
        let bone_count = skeleton.map_or(0, SkeletonGpu::bone_count);
        let tiles = self.tuning.tiles_for(inputs.vertex_count);
        let params_bytes: [u32; 4] = [inputs.vertex_count, bone_count, tiles, 0];
        ctx.capture("ComputeSkinning::bind", || {
            let (params, buffers) = crate::buffers::params_bind_group(
                ctx,
                ("skel compute params", "skel compute skinning buffers"),
                &self.buffers_layout,
                bytemuck::cast_slice(&params_bytes),
                &entries,
            )?;
            let fragment = ctx.device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("skel compute skinning fragment"),
                layout: &self.fragment_layout,
                entries: &fragment_entries,
            });
            Ok(ComputeSkinningBindings {
                buffers,
                fragment,
                vertex_count: inputs.vertex_count,
                workgroups,
                tiles_per_workgroup: tiles,
                _params: params,
            })
        })?
    }

    /// Records the dispatch into an open compute pass.
    pub fn dispatch(&self, pass: &mut wgpu::ComputePass<'_>, bindings: &ComputeSkinningBindings) {
        let (x, y) = bindings.workgroups;
        if x == 0 {
            return;
        }
        pass.set_pipeline(&self.pipeline);
        pass.set_bind_group(0, &bindings.buffers, &[]);
        pass.set_bind_group(COMPUTE_FRAGMENT_GROUP, &bindings.fragment, &[]);
        pass.dispatch_workgroups(x, y, 1);
    }

    /// Records a compute pass with the dispatch (and `timestamp_writes`, when given).
    pub fn encode(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        bindings: &ComputeSkinningBindings,
        timestamp_writes: Option<wgpu::ComputePassTimestampWrites<'_>>,
    ) {
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("skel compute skinning"),
            timestamp_writes,
        });
        self.dispatch(&mut pass, bindings);
    }
}

/// `buffer` when it is given and holds `needed` bytes within the storage binding limit.
fn checked_buffer<'b>(
    ctx: &GpuContext,
    what: &'static str,
    buffer: Option<&'b wgpu::Buffer>,
    needed: u64,
) -> Result<&'b wgpu::Buffer, GpuError> {
    let buffer = buffer.ok_or(GpuError::MissingBinding { what })?;
    if buffer.size() < needed {
        return Err(GpuError::BufferTooSmall {
            what,
            needed,
            got: buffer.size(),
        });
    }
    ctx.require_limit("max_storage_buffer_binding_size", needed, |l| {
        l.max_storage_buffer_binding_size
    })?;
    Ok(buffer)
}

/// Layout entries of group 0 for `config` (see the WGSL template for the binding numbers).
fn buffer_layout_entries(config: &ComputeSkinningConfig) -> Vec<wgpu::BindGroupLayoutEntry> {
    let entry = compute_entry;
    let read = READ;
    let write = WRITE;
    let mut entries = vec![entry(0, UNIFORM), entry(1, read), entry(2, write)];
    if config.normals {
        entries.extend([entry(3, read), entry(4, write)]);
    }
    for set in 0..config.variant.influences.sets() {
        entries.extend([entry(5 + 2 * set, read), entry(6 + 2 * set, read)]);
    }
    entries
}
