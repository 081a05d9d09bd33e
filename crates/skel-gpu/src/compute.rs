//! Compute skinning: rest positions/normals + influences → skinned position/normal buffers, for
//! users who skin once and draw many passes (shadows, depth pre-pass, picking).

use std::num::NonZeroU64;

use crate::shader::{fill, sources};
use crate::{
    FragmentBindings, GpuContext, GpuError, Influences, MorphGpu, ShaderFragment, SkeletonGpu,
    SkinningVariant,
};

/// Invocations per workgroup, and vertices per tile (one per invocation): WebGPU's default
/// `max_compute_invocations_per_workgroup`, so the bone cache is filled by many hands.
pub const COMPUTE_WORKGROUP_SIZE: u32 = 256;

/// Bones kept in workgroup memory by skinned compute variants: 256 × 48 bytes = 12 KiB in the
/// default affine-row layout (256 × 64 = 16 KiB, WebGPU's default
/// `max_compute_workgroup_storage_size`, in the column layout); fewer on a device with less.
pub const COMPUTE_BONE_CACHE_SIZE: u32 = 256;

/// With [`ComputeTuning::tiles_per_workgroup`] left automatic, tiles per workgroup are chosen
/// so that a dispatch has about this many workgroups (never fewer tiles than 1, never more
/// than [`COMPUTE_MAX_AUTO_TILES`]): enough to keep a large GPU busy through the last wave,
/// few enough that each workgroup's bone-cache fill is shared by several tiles.
pub const COMPUTE_AUTO_WORKGROUPS: u32 = 4096;

/// The most tiles per workgroup the automatic choice takes.
pub const COMPUTE_MAX_AUTO_TILES: u32 = 64;

/// How the workgroup bone cache stores a bone.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum BoneCacheLayout {
    /// The 3 rows of the matrix's affine part, 48 bytes (`skel_bone_cache.wgsl`): 3 reads and
    /// 12 multiply-adds per influence, and bones spread over all workgroup-memory banks.
    #[default]
    AffineRows,
    /// The full 4×4 matrix as uploaded, 64 bytes (`skel_bone_cache_columns.wgsl`): the layout
    /// skel used first, kept so benchmarks can show what the affine rows gain.
    Columns,
}

impl BoneCacheLayout {
    /// Bytes of workgroup memory per cached bone.
    #[must_use]
    pub fn bytes_per_bone(self) -> u32 {
        match self {
            Self::AffineRows => 48,
            Self::Columns => 64,
        }
    }
}

/// How the compute pipeline spreads work; every choice computes the same result (the
/// throughput example sweeps them). [`Default`] is what measured fastest on an NVIDIA H200
/// (docs/benchmarks.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ComputeTuning {
    /// The bone cache's layout.
    pub bone_cache: BoneCacheLayout,
    /// Tiles of [`COMPUTE_WORKGROUP_SIZE`] vertices each workgroup skins after filling its
    /// bone cache once; `None` chooses from the vertex count (see
    /// [`COMPUTE_AUTO_WORKGROUPS`]). Rounded up to a multiple of
    /// [`vertices_per_iteration`](Self::vertices_per_iteration).
    pub tiles_per_workgroup: Option<u32>,
    /// Vertices each invocation loads before skinning any of them, one per tile (1 to 4;
    /// values outside are clamped): more loads in flight per invocation, more registers.
    pub vertices_per_iteration: u32,
    /// Whether a zero weight skips its bone read (a branch per influence, as the CPU
    /// reference does) or is accumulated like any other (same result for finite bones).
    pub skip_zero_weights: bool,
}

impl Default for ComputeTuning {
    fn default() -> Self {
        Self {
            bone_cache: BoneCacheLayout::AffineRows,
            tiles_per_workgroup: None,
            vertices_per_iteration: 2,
            skip_zero_weights: true,
        }
    }
}

impl ComputeTuning {
    /// The tuning of skel's first compute pipeline: 4×4 columns, one tile per workgroup, one
    /// vertex per invocation, zero weights skipped (a baseline for benchmarks).
    #[must_use]
    pub fn baseline() -> Self {
        Self {
            bone_cache: BoneCacheLayout::Columns,
            tiles_per_workgroup: Some(1),
            vertices_per_iteration: 1,
            skip_zero_weights: true,
        }
    }

    /// One tuning per distinct shader shape (layout × zero-weight skipping × vertices per
    /// iteration; tiles only change a uniform), for `cargo xtask validate-shaders` and tests.
    #[must_use]
    pub fn variants() -> Vec<Self> {
        let mut all = Vec::new();
        for bone_cache in [BoneCacheLayout::AffineRows, BoneCacheLayout::Columns] {
            for skip_zero_weights in [false, true] {
                for vertices_per_iteration in 1..=4 {
                    all.push(Self {
                        bone_cache,
                        tiles_per_workgroup: None,
                        vertices_per_iteration,
                        skip_zero_weights,
                    });
                }
            }
        }
        all
    }

    /// [`vertices_per_iteration`](Self::vertices_per_iteration) clamped to 1..=4.
    #[must_use]
    pub fn vertices_per_iteration(&self) -> u32 {
        self.vertices_per_iteration.clamp(1, 4)
    }

    /// Tiles per workgroup for `vertex_count` vertices: the fixed choice, or the automatic
    /// one; a multiple of [`vertices_per_iteration`](Self::vertices_per_iteration).
    #[must_use]
    pub fn tiles_for(&self, vertex_count: u32) -> u32 {
        let tiles = self.tiles_per_workgroup.unwrap_or_else(|| {
            vertex_count
                .div_ceil(COMPUTE_WORKGROUP_SIZE)
                .div_ceil(COMPUTE_AUTO_WORKGROUPS)
                .clamp(1, COMPUTE_MAX_AUTO_TILES)
        });
        let k = self.vertices_per_iteration();
        tiles.clamp(1, u32::MAX / 2).div_ceil(k) * k
    }
}

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
    /// with a [`COMPUTE_BONE_CACHE_SIZE`]-bone workgroup cache and the default
    /// [`ComputeTuning`].
    #[must_use]
    pub fn wgsl(&self) -> String {
        self.wgsl_with_cache(COMPUTE_BONE_CACHE_SIZE)
    }

    /// [`wgsl`](Self::wgsl) with a bone cache of `cache_size` bones (at least 1).
    #[must_use]
    pub fn wgsl_with_cache(&self, cache_size: u32) -> String {
        self.wgsl_tuned(&ComputeTuning::default(), cache_size)
    }

    /// The WGSL for `tuning`, with a bone cache of `cache_size` bones (at least 1).
    #[must_use]
    pub fn wgsl_tuned(&self, tuning: &ComputeTuning, cache_size: u32) -> String {
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
            let cache = match tuning.bone_cache {
                BoneCacheLayout::AffineRows => sources::BONE_CACHE,
                BoneCacheLayout::Columns => sources::BONE_CACHE_COLUMNS,
            };
            let skip = if tuning.skip_zero_weights {
                "if (weight == 0.0) {\n        return m;\n    }"
            } else {
                ""
            };
            (
                format!(
                    "{}\n{}",
                    fill(cache, &[("BONE_CACHE_SIZE", cache_size.clone())]),
                    fill(
                        sources::COMPUTE_AFFINE,
                        &[("SKIP_ZERO_WEIGHT", skip.to_owned())]
                    )
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
        let mut input_fields = String::new();
        let mut input_loads = String::new();
        let mut skin_sets = String::new();
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
            input_fields.push_str(&format!(
                "    joints{set}: vec4<u32>,\n    weights{set}: vec4<f32>,\n"
            ));
            input_loads.push_str(&format!(
                ", skel_load_joints{set}(v), skel_load_weights{set}(v)"
            ));
            skin_sets.push_str(&format!(
                "    m = skel_add_affine_set(m, input.joints{set}, input.weights{set});\n"
            ));
        }
        let skin_input = if skinned {
            format!(
                "fn skel_skin_input(v: u32, input: SkelComputeInput) -> SkelVertex {{\n    \
                 var m = SKEL_ZERO_AFFINE;\n{skin_sets}    \
                 return skel_apply_affine(m, skel_morph(v, input.position, input.normal));\n}}"
            )
        } else {
            "fn skel_skin_input(v: u32, input: SkelComputeInput) -> SkelVertex {\n    \
             return skel_skin(v, input.position, input.normal);\n}"
                .to_owned()
        };
        let per_iteration = tuning.vertices_per_iteration();
        let mut iteration = String::new();
        for k in 1..per_iteration {
            iteration.push_str(&format!(
                "        let v{k} = v0 + {k}u * SKEL_WORKGROUP_SIZE;\n        \
                 let at{k} = min(v{k}, last);\n"
            ));
        }
        iteration.push_str("        let input0 = skel_load_input(v0);\n");
        for k in 1..per_iteration {
            iteration.push_str(&format!("        let input{k} = skel_load_input(at{k});\n"));
        }
        iteration.push_str("        let skinned0 = skel_skin_input(v0, input0);\n");
        for k in 1..per_iteration {
            iteration.push_str(&format!(
                "        let skinned{k} = skel_skin_input(at{k}, input{k});\n"
            ));
        }
        iteration.push_str("        skel_store(v0, skinned0);\n");
        for k in 1..per_iteration {
            iteration.push_str(&format!(
                "        if (v{k} < count) {{\n            skel_store(v{k}, skinned{k});\n        }}\n"
            ));
        }
        let compute = fill(
            sources::COMPUTE,
            &[
                ("FRAGMENT_GROUP", COMPUTE_FRAGMENT_GROUP.to_string()),
                ("NORMAL_BINDINGS", normal_bindings),
                ("INFLUENCE_BINDINGS", influence_bindings),
                ("INPUT_FIELDS", input_fields),
                ("INPUT_LOADS", input_loads),
                ("SKIN_INPUT", skin_input),
                ("ITERATION", iteration),
                ("WORKGROUP_SIZE", COMPUTE_WORKGROUP_SIZE.to_string()),
                ("VERTICES_PER_ITERATION", per_iteration.to_string()),
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
    /// Joints per set (`[JOINTS_0, JOINTS_1, JOINTS_2, JOINTS_3]`; as many as the variant
    /// reads), in the pipeline's [`JointFormat`]. Indices must be below the skeleton's bone
    /// count: compute inputs are not read back to check.
    pub joints: [Option<&'a wgpu::Buffer>; 4],
    /// Weights per set, in the pipeline's [`WeightFormat`].
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn automatic_tiles_aim_at_a_fixed_workgroup_count() {
        let auto = ComputeTuning {
            vertices_per_iteration: 1,
            ..ComputeTuning::default()
        };
        let tile = COMPUTE_WORKGROUP_SIZE;
        // Up to COMPUTE_AUTO_WORKGROUPS tiles: one tile per workgroup.
        assert_eq!(auto.tiles_for(0), 1);
        assert_eq!(auto.tiles_for(1), 1);
        assert_eq!(auto.tiles_for(COMPUTE_AUTO_WORKGROUPS * tile), 1);
        // One vertex more: two tiles per workgroup.
        assert_eq!(auto.tiles_for(COMPUTE_AUTO_WORKGROUPS * tile + 1), 2);
        // 16.7M vertices = 65 536 tiles: 16 per workgroup.
        assert_eq!(
            auto.tiles_for(1 << 24),
            (1 << 24) / tile / COMPUTE_AUTO_WORKGROUPS
        );
        // Capped for the largest meshes.
        assert_eq!(auto.tiles_for(u32::MAX), COMPUTE_MAX_AUTO_TILES);
        // The default loads 2 vertices per iteration, so tiles come in pairs.
        assert_eq!(ComputeTuning::default().tiles_for(1), 2);
    }

    #[test]
    fn tiles_are_a_multiple_of_the_vertices_per_iteration() {
        let t = |tiles, k| ComputeTuning {
            tiles_per_workgroup: Some(tiles),
            vertices_per_iteration: k,
            ..ComputeTuning::default()
        };
        assert_eq!(t(3, 1).tiles_for(1000), 3);
        assert_eq!(t(3, 2).tiles_for(1000), 4);
        assert_eq!(t(5, 4).tiles_for(1000), 8);
        assert_eq!(t(0, 1).tiles_for(1000), 1);
        // Out-of-range vertices per iteration are clamped to 1..=4.
        assert_eq!(t(1, 9).vertices_per_iteration(), 4);
        assert_eq!(t(1, 0).vertices_per_iteration(), 1);
    }

    #[test]
    fn every_tuning_shape_generates_its_own_shader() {
        let config = ComputeSkinningConfig::default();
        let sources: std::collections::HashSet<String> = ComputeTuning::variants()
            .iter()
            .map(|t| config.wgsl_tuned(t, COMPUTE_BONE_CACHE_SIZE))
            .collect();
        assert_eq!(sources.len(), ComputeTuning::variants().len());
        assert!(config.wgsl().contains("array<mat3x4<f32>, 256>"));
    }
}
