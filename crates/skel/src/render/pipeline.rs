//! Render pipelines: the mesh shader composed with the skinning fragment of each variant
//! (0/4/8/16 influences × morph, morph deltas in a buffer or a texture), per topology and
//! blending, for one [`RenderFormat`].

use super::material::{draw_layout_entries, frame_layout_entries};
use std::collections::HashMap;
use std::collections::hash_map::Entry;

use skel_gpu::{FragmentBindings, GpuContext, MorphDeltaStorage, ShaderFragment, SkinningVariant};

use super::{RenderError, RenderFormat};
use crate::Topology;

/// The renderer's WGSL (groups 0 and 1, entry points `vs_main` / `fs_main`); the skinning
/// fragment is composed in front of it and owns group 2.
pub const MESH_WGSL: &str = include_str!("../../shaders/demo_mesh.wgsl");

/// First shader location of the per-instance model matrix (four `vec4` columns, 12..=15): above
/// every location the skinning fragment can take from [`FRAGMENT_BINDINGS`].
pub const INSTANCE_LOCATION: u32 = 12;

/// Per-instance vertex attributes: the model matrix's four columns.
const INSTANCE_ATTRIBUTES: [wgpu::VertexAttribute; 4] = wgpu::vertex_attr_array![
    12 => Float32x4, 13 => Float32x4, 14 => Float32x4, 15 => Float32x4
];

/// Where the skinning fragment goes: group 2, bindings from 0, influences from location 4
/// (0..3 are position, normal, uv).
pub const FRAGMENT_BINDINGS: FragmentBindings = FragmentBindings {
    group: 2,
    first_binding: 0,
    first_location: 4,
};

/// Vertex buffer slots: positions, normals, uvs, then the fragment's influence buffers, then the
/// instance buffer.
pub const FIRST_INFLUENCE_SLOT: u32 = 3;

/// What distinguishes one skinning fragment from another: its variant, and where a morph
/// variant reads the deltas (a storage buffer, or a texture on WebGL2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct FragmentKey {
    /// Skinning fragment variant.
    pub variant: SkinningVariant,
    /// Where the morph deltas are (`Buffer` without morph).
    pub morph_deltas: MorphDeltaStorage,
}

impl FragmentKey {
    /// The fragment that draws `mesh`.
    pub fn of(mesh: &crate::Mesh) -> Self {
        Self {
            variant: mesh.skinning_variant(),
            morph_deltas: mesh.morph_deltas(),
        }
    }
}

/// What distinguishes one pipeline from another.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct PipelineKey {
    /// Skinning fragment.
    pub fragment: FragmentKey,
    /// Primitive topology.
    pub topology: Topology,
    /// Alpha blending (glTF `BLEND`): no depth writes, drawn after opaque primitives.
    pub blend: bool,
}

/// The bind group layouts shared by every pipeline and the pipelines made so far.
#[derive(Debug)]
pub struct Pipelines {
    format: RenderFormat,
    /// Group 0: the `Frame` uniform.
    pub frame_layout: wgpu::BindGroupLayout,
    /// Group 1: the `Draw` uniform, base colour texture and sampler.
    pub draw_layout: wgpu::BindGroupLayout,
    fragment_layouts: HashMap<FragmentKey, (ShaderFragment, wgpu::BindGroupLayout)>,
    modules: HashMap<FragmentKey, wgpu::ShaderModule>,
    pipelines: HashMap<PipelineKey, wgpu::RenderPipeline>,
}

impl Pipelines {
    /// Creates the shared layouts for targets of `format`.
    #[must_use]
    pub fn new(ctx: &GpuContext, format: RenderFormat) -> Self {
        let device = &ctx.device;
        let frame_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("skel render frame"),
            entries: &frame_layout_entries(),
        });
        let draw_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("skel render draw"),
            entries: &draw_layout_entries(),
        });
        Self {
            format,
            frame_layout,
            draw_layout,
            fragment_layouts: HashMap::new(),
            modules: HashMap::new(),
            pipelines: HashMap::new(),
        }
    }

    /// The skinning fragment of `key` and its bind group layout (group 2), made once.
    ///
    /// # Errors
    /// [`RenderError::Gpu`] when the device cannot hold the fragment's bindings.
    pub fn fragment(
        &mut self,
        ctx: &GpuContext,
        key: FragmentKey,
    ) -> Result<&(ShaderFragment, wgpu::BindGroupLayout), RenderError> {
        if let Entry::Vacant(slot) = self.fragment_layouts.entry(key) {
            let fragment =
                ShaderFragment::with_morph_deltas(key.variant, FRAGMENT_BINDINGS, key.morph_deltas);
            let layout = fragment
                .create_bind_group_layout(ctx, wgpu::ShaderStages::VERTEX)
                .map_err(|source| RenderError::Gpu {
                    context: "creating the skinning bind group layout",
                    source,
                })?;
            slot.insert((fragment, layout));
        }
        Ok(&self.fragment_layouts[&key])
    }

    /// The fragment of `key` when [`fragment`](Self::fragment) has made it.
    #[must_use]
    pub fn fragment_made(
        &self,
        key: FragmentKey,
    ) -> Option<&(ShaderFragment, wgpu::BindGroupLayout)> {
        self.fragment_layouts.get(&key)
    }

    /// The pipeline for `key` when [`get`](Self::get) has made it.
    #[must_use]
    pub fn made(&self, key: &PipelineKey) -> Option<&wgpu::RenderPipeline> {
        self.pipelines.get(key)
    }

    /// The pipeline for `key`, made on first use.
    ///
    /// # Errors
    /// [`RenderError::Gpu`] when the composed shader or the pipeline does not validate.
    pub fn get(
        &mut self,
        ctx: &GpuContext,
        key: PipelineKey,
    ) -> Result<&wgpu::RenderPipeline, RenderError> {
        if !self.pipelines.contains_key(&key) {
            let pipeline = self.create(ctx, key)?;
            self.pipelines.insert(key, pipeline);
        }
        Ok(&self.pipelines[&key])
    }

    fn create(
        &mut self,
        ctx: &GpuContext,
        key: PipelineKey,
    ) -> Result<wgpu::RenderPipeline, RenderError> {
        let gpu_err = |source| RenderError::Gpu {
            context: "creating the render pipeline",
            source,
        };
        let (fragment, fragment_layout) = {
            let (f, l) = self.fragment(ctx, key.fragment)?;
            (f.clone(), l.clone())
        };
        if let Entry::Vacant(slot) = self.modules.entry(key.fragment) {
            let source = fragment.compose(MESH_WGSL);
            let module = ctx
                .capture("compiling the mesh shader", || {
                    ctx.device
                        .create_shader_module(wgpu::ShaderModuleDescriptor {
                            label: Some("skel mesh"),
                            source: wgpu::ShaderSource::Wgsl(source.into()),
                        })
                })
                .map_err(gpu_err)?;
            slot.insert(module);
        }
        let module = &self.modules[&key.fragment];
        let layout = ctx
            .device
            .create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                label: Some("skel render"),
                bind_group_layouts: &[
                    Some(&self.frame_layout),
                    Some(&self.draw_layout),
                    Some(&fragment_layout),
                ],
                immediate_size: 0,
            });
        let float3 = |location| {
            [wgpu::VertexAttribute {
                format: wgpu::VertexFormat::Float32x3,
                offset: 0,
                shader_location: location,
            }]
        };
        let position = float3(0);
        let normal = float3(1);
        let uv = [wgpu::VertexAttribute {
            format: wgpu::VertexFormat::Float32x2,
            offset: 0,
            shader_location: 2,
        }];
        let stream = |stride, attributes| wgpu::VertexBufferLayout {
            array_stride: stride,
            step_mode: wgpu::VertexStepMode::Vertex,
            attributes,
        };
        let mut buffers = vec![
            Some(stream(12, &position[..])),
            Some(stream(12, &normal[..])),
            Some(stream(8, &uv[..])),
        ];
        buffers.extend(
            fragment
                .influence_vertex_buffer_layouts()
                .into_iter()
                .map(Some),
        );
        // The instance buffer comes right after the variant's influence buffers.
        buffers.push(Some(wgpu::VertexBufferLayout {
            array_stride: 64,
            step_mode: wgpu::VertexStepMode::Instance,
            attributes: &INSTANCE_ATTRIBUTES,
        }));
        let blend = if key.blend {
            Some(wgpu::BlendState::ALPHA_BLENDING)
        } else {
            None
        };
        ctx.capture("creating the render pipeline", || {
            ctx.device
                .create_render_pipeline(&wgpu::RenderPipelineDescriptor {
                    label: Some("skel render"),
                    layout: Some(&layout),
                    vertex: wgpu::VertexState {
                        module,
                        entry_point: Some("vs_main"),
                        compilation_options: wgpu::PipelineCompilationOptions::default(),
                        buffers: &buffers,
                    },
                    primitive: wgpu::PrimitiveState {
                        topology: key.topology.to_wgpu(),
                        front_face: wgpu::FrontFace::Ccw,
                        // No culling: glTF's double-sided materials, the left-handed mode's
                        // mirrored world (RH_TO_LH flips every triangle's winding) and negative
                        // node scales all draw correctly; the fragment shader lights whichever
                        // side faces the camera.
                        cull_mode: None,
                        ..wgpu::PrimitiveState::default()
                    },
                    depth_stencil: Some(wgpu::DepthStencilState {
                        format: self.format.depth,
                        depth_write_enabled: Some(!key.blend),
                        depth_compare: Some(wgpu::CompareFunction::LessEqual),
                        stencil: wgpu::StencilState::default(),
                        bias: wgpu::DepthBiasState::default(),
                    }),
                    multisample: wgpu::MultisampleState {
                        count: self.format.sample_count,
                        ..wgpu::MultisampleState::default()
                    },
                    fragment: Some(wgpu::FragmentState {
                        module,
                        entry_point: Some("fs_main"),
                        compilation_options: wgpu::PipelineCompilationOptions::default(),
                        targets: &[Some(wgpu::ColorTargetState {
                            format: self.format.color,
                            blend,
                            write_mask: wgpu::ColorWrites::ALL,
                        })],
                    }),
                    multiview_mask: None,
                    cache: None,
                })
        })
        .map_err(gpu_err)
    }
}

#[cfg(test)]
mod tests {
    use skel_gpu::{Influences, MorphDeltaStorage, ShaderFragment, SkinningVariant};

    use super::{FRAGMENT_BINDINGS, MESH_WGSL};

    /// Every variant of the composed shader, morph deltas from a buffer or a texture, parses
    /// and validates (naga, no GPU needed).
    #[test]
    fn demo_shader_validates_for_every_variant() {
        for variant in SkinningVariant::all() {
            for deltas in [MorphDeltaStorage::Buffer, MorphDeltaStorage::Texture] {
                let source = ShaderFragment::with_morph_deltas(variant, FRAGMENT_BINDINGS, deltas)
                    .compose(MESH_WGSL);
                let module = naga::front::wgsl::parse_str(&source).unwrap_or_else(|e| {
                    panic!("{variant:?} {deltas:?}: {}", e.emit_to_string(&source))
                });
                naga::valid::Validator::new(
                    naga::valid::ValidationFlags::all(),
                    naga::valid::Capabilities::default(),
                )
                .validate(&module)
                .unwrap_or_else(|e| panic!("{variant:?} {deltas:?}: {e:?}"));
                let skinned = variant.influences != Influences::None;
                assert_eq!(source.contains("skel_influences: SkelInfluences"), skinned);
            }
        }
    }
}
