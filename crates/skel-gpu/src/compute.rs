//! Compute skinning: rest positions/normals + influences → skinned position/normal buffers, for
//! users who skin once and draw many passes (shadows, depth pre-pass, picking).

use std::num::NonZeroU64;

use crate::shader::{fill, sources};
use crate::{
    FragmentBindings, GpuContext, GpuError, Influences, MorphGpu, ShaderFragment, SkeletonGpu,
    SkinningVariant,
};

/// Invocations per workgroup (one vertex each): WebGPU's default
/// `max_compute_invocations_per_workgroup`, so the bone cache is filled by many hands.
pub const COMPUTE_WORKGROUP_SIZE: u32 = 256;

/// Bones kept in workgroup memory by skinned compute variants: 256 × 64 bytes = 16 KiB,
/// WebGPU's default `max_compute_workgroup_storage_size` (fewer on a device with less).
pub const COMPUTE_BONE_CACHE_SIZE: u32 = 256;

/// The bind group of the fragment's resources (bone texture, morph) in the compute pipeline;
/// group 0 holds the vertex buffers.
pub const COMPUTE_FRAGMENT_GROUP: u32 = 1;

/// How joint indices are stored in the compute input buffers, 4 per vertex per set.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum JointFormat {
    /// 4 × `u8` (glTF `UNSIGNED_BYTE`, the `Uint8x4` layout): 4 bytes per vertex.
    U8,
    /// 4 × `u16` (glTF `UNSIGNED_SHORT`, the `Uint16x4` layout): 8 bytes per vertex.
    U16,
    /// 4 × `u32`, what [`SkeletonGpu`]'s joints buffers hold: 16 bytes per vertex.
    #[default]
    U32,
}

impl JointFormat {
    /// Bytes per vertex per set.
    #[must_use]
    pub fn bytes_per_vertex(self) -> u64 {
        match self {
            Self::U8 => 4,
            Self::U16 => 8,
            Self::U32 => 16,
        }
    }

    fn wgsl_element(self) -> &'static str {
        match self {
            Self::U8 => "u32",
            Self::U16 => "vec2<u32>",
            Self::U32 => "vec4<u32>",
        }
    }

    fn wgsl_unpack(self, name: &str) -> String {
        match self {
            Self::U8 => format!(
                "let p = {name}[v];\n    return vec4<u32>(p & 0xffu, (p >> 8u) & 0xffu, (p >> 16u) & 0xffu, p >> 24u);"
            ),
            Self::U16 => format!(
                "let p = {name}[v];\n    return vec4<u32>(p.x & 0xffffu, p.x >> 16u, p.y & 0xffffu, p.y >> 16u);"
            ),
            Self::U32 => format!("return {name}[v];"),
        }
    }
}

/// How weights are stored in the compute input buffers, 4 per vertex per set.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum WeightFormat {
    /// 4 × normalized `u8` (`Unorm8x4`): 4 bytes per vertex.
    Unorm8,
    /// 4 × normalized `u16` (`Unorm16x4`): 8 bytes per vertex.
    Unorm16,
    /// 4 × `f32`, what [`SkeletonGpu`]'s weights buffers hold: 16 bytes per vertex.
    #[default]
    F32,
}

impl WeightFormat {
    /// Bytes per vertex per set.
    #[must_use]
    pub fn bytes_per_vertex(self) -> u64 {
        match self {
            Self::Unorm8 => 4,
            Self::Unorm16 => 8,
            Self::F32 => 16,
        }
    }

    fn wgsl_element(self) -> &'static str {
        match self {
            Self::Unorm8 => "u32",
            Self::Unorm16 => "vec2<u32>",
            Self::F32 => "vec4<f32>",
        }
    }

    fn wgsl_unpack(self, name: &str) -> String {
        match self {
            Self::Unorm8 => format!("return unpack4x8unorm({name}[v]);"),
            Self::Unorm16 => format!(
                "let p = {name}[v];\n    return vec4<f32>(unpack2x16unorm(p.x), unpack2x16unorm(p.y));"
            ),
            Self::F32 => format!("return {name}[v];"),
        }
    }
}

/// What a [`ComputeSkinning`] pipeline reads and writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ComputeSkinningConfig {
    /// Influences and morph targets.
    pub variant: SkinningVariant,
    /// Whether normals are skinned too (rest normals in, skinned normals out).
    pub normals: bool,
    /// Joint storage format.
    pub joint_format: JointFormat,
    /// Weight storage format.
    pub weight_format: WeightFormat,
}

impl Default for ComputeSkinningConfig {
    /// 4 influences, no morph, with normals, the skeleton's own `u32`/`f32` buffers.
    fn default() -> Self {
        Self {
            variant: SkinningVariant::default(),
            normals: true,
            joint_format: JointFormat::U32,
            weight_format: WeightFormat::F32,
        }
    }
}

impl ComputeSkinningConfig {
    /// Storage buffers bound in the compute stage: positions in/out, normals in/out, a joints
    /// and a weights buffer per set, morph deltas.
    #[must_use]
    pub fn storage_buffer_count(&self) -> u32 {
        2 + 2 * u32::from(self.normals)
            + 2 * self.variant.influences.sets()
            + u32::from(self.variant.morph)
    }

    /// Bytes read and written per vertex from vertex buffers (excluding bone and morph
    /// fetches, which mostly hit caches): the figure throughput is judged against.
    #[must_use]
    pub fn bytes_per_vertex(&self) -> u64 {
        let streams = if self.normals { 4 } else { 2 };
        let sets = u64::from(self.variant.influences.sets());
        streams * 12
            + sets * (self.joint_format.bytes_per_vertex() + self.weight_format.bytes_per_vertex())
    }

    /// The full WGSL of the pipeline: the fragment (group 1) followed by the compute template,
    /// with a [`COMPUTE_BONE_CACHE_SIZE`]-bone workgroup cache.
    #[must_use]
    pub fn wgsl(&self) -> String {
        self.wgsl_with_cache(COMPUTE_BONE_CACHE_SIZE)
    }

    /// [`wgsl`](Self::wgsl) with a bone cache of `cache_size` bones (at least 1).
    #[must_use]
    pub fn wgsl_with_cache(&self, cache_size: u32) -> String {
        let skinned = self.variant.influences != Influences::None;
        let fragment = ShaderFragment::generate(
            self.variant,
            FragmentBindings {
                group: COMPUTE_FRAGMENT_GROUP,
                first_binding: 0,
                first_location: 0,
            },
            !skinned,
        );
        let cache_size = cache_size.max(1).to_string();
        let (bone_cache, bone_cache_load) = if skinned {
            (
                fill(
                    sources::BONE_CACHE,
                    &[("BONE_CACHE_SIZE", cache_size.clone())],
                ),
                "skel_fill_bone_cache(lane);".to_owned(),
            )
        } else {
            (String::new(), String::new())
        };
        let normal_bindings = if self.normals {
            "@group(0) @binding(3) var<storage, read> skel_rest_normals: array<f32>;\n\
             @group(0) @binding(4) var<storage, read_write> skel_out_normals: array<f32>;\n\
             fn skel_load_normal(v: u32) -> vec3<f32> {\n    \
             return vec3<f32>(skel_rest_normals[v * 3u], skel_rest_normals[v * 3u + 1u], skel_rest_normals[v * 3u + 2u]);\n}\n\
             fn skel_store_normal(v: u32, n: vec3<f32>) {\n    \
             skel_out_normals[v * 3u] = n.x;\n    skel_out_normals[v * 3u + 1u] = n.y;\n    skel_out_normals[v * 3u + 2u] = n.z;\n}"
                .to_owned()
        } else {
            "fn skel_load_normal(v: u32) -> vec3<f32> {\n    return vec3<f32>(0.0);\n}\n\
             fn skel_store_normal(v: u32, n: vec3<f32>) {}"
                .to_owned()
        };
        let mut influence_bindings = String::new();
        let mut args = String::new();
        for set in 0..self.variant.influences.sets() {
            let (jb, wb) = (5 + 2 * set, 6 + 2 * set);
            let (jt, wt) = (
                self.joint_format.wgsl_element(),
                self.weight_format.wgsl_element(),
            );
            let (jn, wn) = (format!("skel_joints{set}"), format!("skel_weights{set}"));
            influence_bindings.push_str(&format!(
                "@group(0) @binding({jb}) var<storage, read> {jn}: array<{jt}>;\n\
                 @group(0) @binding({wb}) var<storage, read> {wn}: array<{wt}>;\n\
                 fn skel_load_joints{set}(v: u32) -> vec4<u32> {{\n    {}\n}}\n\
                 fn skel_load_weights{set}(v: u32) -> vec4<f32> {{\n    {}\n}}\n",
                self.joint_format.wgsl_unpack(&jn),
                self.weight_format.wgsl_unpack(&wn),
            ));
            args.push_str(&format!(
                ", skel_load_joints{set}(v), skel_load_weights{set}(v)"
            ));
        }
        let compute = fill(
            sources::COMPUTE,
            &[
                ("FRAGMENT_GROUP", COMPUTE_FRAGMENT_GROUP.to_string()),
                ("NORMAL_BINDINGS", normal_bindings),
                ("INFLUENCE_BINDINGS", influence_bindings),
                ("INFLUENCE_ARGS", args),
                ("WORKGROUP_SIZE", COMPUTE_WORKGROUP_SIZE.to_string()),
                ("BONE_CACHE_SIZE", cache_size),
                ("BONE_CACHE", bone_cache),
                ("BONE_CACHE_LOAD", bone_cache_load),
            ],
        );
        format!("{}\n{compute}", fragment.source())
    }

    /// Every combination this crate can generate (for `cargo xtask validate-shaders`).
    #[must_use]
    pub fn all() -> Vec<Self> {
        let mut all = Vec::new();
        for variant in SkinningVariant::all() {
            for normals in [false, true] {
                for joint_format in [JointFormat::U8, JointFormat::U16, JointFormat::U32] {
                    for weight_format in [
                        WeightFormat::Unorm8,
                        WeightFormat::Unorm16,
                        WeightFormat::F32,
                    ] {
                        all.push(Self {
                            variant,
                            normals,
                            joint_format,
                            weight_format,
                        });
                    }
                }
            }
        }
        all
    }
}

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
    /// Joints per set (`[JOINTS_0, JOINTS_1]`), in the pipeline's [`JointFormat`]. Indices
    /// must be below the skeleton's bone count: compute inputs are not read back to check.
    pub joints: [Option<&'a wgpu::Buffer>; 2],
    /// Weights per set, in the pipeline's [`WeightFormat`].
    pub weights: [Option<&'a wgpu::Buffer>; 2],
    /// Skinned positions out, 12 bytes per vertex.
    pub out_positions: &'a wgpu::Buffer,
    /// Skinned normals out, 12 bytes per vertex (when the pipeline skins normals).
    pub out_normals: Option<&'a wgpu::Buffer>,
}

impl<'a> ComputeSkinningInputs<'a> {
    /// Inputs that read `skeleton`'s own joints and weights buffers (`u32`/`f32`, 1 or 2 sets,
    /// already validated against the bone count).
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
            joints: [Some(skeleton.joints_buffer()), skeleton.joints1_buffer()],
            weights: [Some(skeleton.weights_buffer()), skeleton.weights1_buffer()],
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
}

/// A compute pipeline for one [`ComputeSkinningConfig`].
#[derive(Debug)]
pub struct ComputeSkinning {
    config: ComputeSkinningConfig,
    fragment: ShaderFragment,
    buffers_layout: wgpu::BindGroupLayout,
    fragment_layout: wgpu::BindGroupLayout,
    pipeline: wgpu::ComputePipeline,
    max_workgroups_per_dimension: u32,
}

impl ComputeSkinning {
    /// Compiles the pipeline. The bone cache holds as many of [`COMPUTE_BONE_CACHE_SIZE`] bones
    /// as the device's `max_compute_workgroup_storage_size` allows.
    ///
    /// # Errors
    /// [`GpuError::MissingLimit`] (`max_storage_buffers_per_shader_stage`: up to 9 for 8
    /// influences with normals and morph targets, where WebGPU's default is 8;
    /// `max_compute_invocations_per_workgroup` and `max_compute_workgroup_size_x`: 256;
    /// `max_compute_workgroup_storage_size`: 64 bytes, one bone);
    /// [`GpuError::Validation`] from shader or pipeline creation.
    pub fn new(ctx: &GpuContext, config: ComputeSkinningConfig) -> Result<Self, GpuError> {
        let size = u64::from(COMPUTE_WORKGROUP_SIZE);
        ctx.require_limit("max_compute_invocations_per_workgroup", size, |l| {
            u64::from(l.max_compute_invocations_per_workgroup)
        })?;
        ctx.require_limit("max_compute_workgroup_size_x", size, |l| {
            u64::from(l.max_compute_workgroup_size_x)
        })?;
        let skinned = config.variant.influences != Influences::None;
        if skinned {
            ctx.require_limit("max_compute_workgroup_storage_size", 64, |l| {
                u64::from(l.max_compute_workgroup_storage_size)
            })?;
        }
        let cache_size =
            COMPUTE_BONE_CACHE_SIZE.min(ctx.limits.max_compute_workgroup_storage_size / 64);
        ctx.require_limit(
            "max_storage_buffers_per_shader_stage",
            u64::from(config.storage_buffer_count()),
            |l| u64::from(l.max_storage_buffers_per_shader_stage),
        )?;
        let fragment = ShaderFragment::new(
            config.variant,
            FragmentBindings {
                group: COMPUTE_FRAGMENT_GROUP,
                first_binding: 0,
                first_location: 0,
            },
        );
        let fragment_layout =
            fragment.create_bind_group_layout(ctx, wgpu::ShaderStages::COMPUTE)?;
        let entries = buffer_layout_entries(&config);
        let wgsl = config.wgsl_with_cache(cache_size);
        let (buffers_layout, pipeline) = ctx.capture("ComputeSkinning::new", || {
            let buffers_layout =
                ctx.device
                    .create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
                        label: Some("skel compute skinning buffers"),
                        entries: &entries,
                    });
            let module = ctx
                .device
                .create_shader_module(wgpu::ShaderModuleDescriptor {
                    label: Some("skel compute skinning"),
                    source: wgpu::ShaderSource::Wgsl(wgsl.into()),
                });
            let layout = ctx
                .device
                .create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                    label: Some("skel compute skinning"),
                    bind_group_layouts: &[Some(&buffers_layout), Some(&fragment_layout)],
                    immediate_size: 0,
                });
            let pipeline = ctx
                .device
                .create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                    label: Some("skel compute skinning"),
                    layout: Some(&layout),
                    module: &module,
                    entry_point: Some("skel_skin_compute"),
                    compilation_options: wgpu::PipelineCompilationOptions::default(),
                    cache: None,
                });
            (buffers_layout, pipeline)
        })?;
        Ok(Self {
            config,
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

    /// Workgroups in x and y for `vertex_count` vertices: 1D up to
    /// `max_compute_workgroups_per_dimension` groups, then 2D (x full, y rows).
    #[must_use]
    pub fn workgroups_for(&self, vertex_count: u32) -> (u32, u32) {
        let groups = vertex_count.div_ceil(COMPUTE_WORKGROUP_SIZE);
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
        let mut entries: Vec<(u32, &wgpu::Buffer, u64)> = Vec::with_capacity(9);
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
        const JOINT_NAMES: [&str; 2] = ["joints (set 0)", "joints (set 1)"];
        const WEIGHT_NAMES: [&str; 2] = ["weights (set 0)", "weights (set 1)"];
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
        let params_bytes: [u32; 4] = [inputs.vertex_count, bone_count, 0, 0];
        ctx.capture("ComputeSkinning::bind", || {
            let params = crate::buffers::create_filled_buffer(
                ctx,
                "skel compute params",
                wgpu::BufferUsages::UNIFORM,
                bytemuck::cast_slice(&params_bytes),
            )?;
            let mut bind_entries = vec![wgpu::BindGroupEntry {
                binding: 0,
                resource: params.as_entire_binding(),
            }];
            bind_entries.extend(entries.iter().map(|&(binding, buffer, needed)| {
                wgpu::BindGroupEntry {
                    binding,
                    resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                        buffer,
                        offset: 0,
                        size: NonZeroU64::new(needed.max(4)),
                    }),
                }
            }));
            let buffers = ctx.device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("skel compute skinning buffers"),
                layout: &self.buffers_layout,
                entries: &bind_entries,
            });
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
    let entry = |binding, ty| wgpu::BindGroupLayoutEntry {
        binding,
        visibility: wgpu::ShaderStages::COMPUTE,
        ty: wgpu::BindingType::Buffer {
            ty,
            has_dynamic_offset: false,
            min_binding_size: None,
        },
        count: None,
    };
    let read = wgpu::BufferBindingType::Storage { read_only: true };
    let write = wgpu::BufferBindingType::Storage { read_only: false };
    let mut entries = vec![
        entry(0, wgpu::BufferBindingType::Uniform),
        entry(1, read),
        entry(2, write),
    ];
    if config.normals {
        entries.extend([entry(3, read), entry(4, write)]);
    }
    for set in 0..config.variant.influences.sets() {
        entries.extend([entry(5 + 2 * set, read), entry(6 + 2 * set, read)]);
    }
    entries
}
