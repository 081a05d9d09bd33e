//! Drawing a [`Crowd`]: every primitive of the crowd's skinned meshes once, instanced over
//! every visible character. The shader is the renderer's own [`MESH_WGSL`] (the lights,
//! materials and tone curve of a one-character render), fed by the crowd's vertex fragment
//! instead of a skinning fragment: vertex `v` of draw instance `i` is what crowd compute
//! skinning wrote for instance `i` (`skel_crowd_skinned`), and the per-instance model matrix
//! puts instance `i` where the caller placed it. `skel render --crowd` and the browser demo
//! draw with it.

use std::collections::HashMap;

use glam::Mat4;
use image::RgbaImage;
use skel_gltf::AlphaMode;
use skel_gpu::GpuContext;

use super::renderer::{draw_primitive, set_vertex_streams};
use super::{
    Camera, MESH_WGSL, RenderError, RenderFormat, base_color_sampler, base_color_texture,
    draw_bind_group, draw_layout_entries, draw_uniform, frame_layout_entries, frame_uniform,
    upload_texture,
};
use crate::{AssetContainer, Crowd, Topology};

/// Group of the crowd's vertex fragment (`MESH_WGSL` owns groups 0 and 1).
const CROWD_GROUP: u32 = 2;
/// Vertex buffer slot of the per-instance model matrices (after positions, normals, uvs).
const INSTANCE_SLOT: u32 = 3;

/// `MESH_WGSL` calls `skel_skin_vertex(vertex_index, position, normal {{SKEL_INFLUENCES_ARG}})`:
/// here the extra argument is the draw instance, and the skinned vertex comes from the crowd.
const SKIN_FROM_CROWD: &str = "
fn skel_skin_vertex(vertex_index: u32, position: vec3<f32>, normal: vec3<f32>, instance_index: u32) -> SkelCrowdVertex {
    return skel_crowd_skinned(instance_index, vertex_index);
}
";

/// The crowd shader: the crowd fragment in group 2, the shim, then [`MESH_WGSL`] with the
/// instance index as its skinning argument.
#[must_use]
pub fn crowd_wgsl() -> String {
    let mesh = MESH_WGSL
        .replace(
            "{{SKEL_INFLUENCES_PARAM}}",
            ", @builtin(instance_index) skel_instance: u32",
        )
        .replace("{{SKEL_INFLUENCES_ARG}}", ", skel_instance");
    format!(
        "{}\n{SKIN_FROM_CROWD}\n{mesh}",
        skel_gpu::crowd_vertex_wgsl(CROWD_GROUP)
    )
}

/// One primitive's draw.
#[derive(Debug)]
struct Item {
    mesh: usize,
    primitive: usize,
    /// Index of its crowd mesh (its group-2 bind group).
    crowd_mesh: usize,
    blend: bool,
    bind_group: wgpu::BindGroup,
}

/// Pipelines, bind groups and the placements of a crowd's draw.
///
/// Per frame: [`Crowd::tick`], [`Crowd::cull`] (optional, CPU posing),
/// [`Crowd::upload`] and [`Crowd::skin`] into an encoder, [`place_visible`](Self::place_visible)
/// when the visible list is not every instance, then [`draw`](Self::draw) in a render pass of
/// the format this was made for.
#[derive(Debug)]
pub struct CrowdRenderer {
    opaque: wgpu::RenderPipeline,
    blended: wgpu::RenderPipeline,
    frame_uniform: wgpu::Buffer,
    frame_group: wgpu::BindGroup,
    crowd_groups: Vec<wgpu::BindGroup>,
    items: Vec<Item>,
    instances: wgpu::Buffer,
    instance_count: u32,
    /// The placements by instance, and the scratch of [`CrowdRenderer::place_visible`]'s
    /// placements by draw instance.
    placements: Vec<Mat4>,
    by_slot: Vec<[f32; 16]>,
    /// Primitives not drawn: lines and points, and meshes without a skin (not in the crowd).
    pub skipped: usize,
}

fn gpu_error(context: &'static str) -> impl Fn(skel_gpu::GpuError) -> RenderError {
    move |source| RenderError::Gpu { context, source }
}

fn buffer_init(
    ctx: &GpuContext,
    label: &str,
    bytes: &[u8],
    usage: wgpu::BufferUsages,
) -> wgpu::Buffer {
    let buffer = ctx.device.create_buffer(&wgpu::BufferDescriptor {
        label: Some(label),
        size: skel_gpu::padded_buffer_size(bytes.len() as u64),
        usage: usage | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    ctx.queue.write_buffer(&buffer, 0, bytes);
    buffer
}

impl CrowdRenderer {
    /// Sets up drawing `crowd` of `container` with instance `i` moved by `placements[i]`, into
    /// passes of `format`. `world` holds the nodes' world matrices (the mesh nodes').
    ///
    /// # Errors
    /// [`RenderError::Gpu`] when the shader, a pipeline or a bind group does not validate;
    /// [`RenderError::Crowd`] when the crowd's meshes cannot be bound.
    pub fn new(
        ctx: &GpuContext,
        container: &AssetContainer,
        crowd: &Crowd,
        world: &[Mat4],
        placements: &[Mat4],
        format: &RenderFormat,
    ) -> Result<Self, RenderError> {
        let device = &ctx.device;
        let frame_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("skel crowd frame"),
            entries: &frame_layout_entries(),
        });
        let draw_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("skel crowd draw"),
            entries: &draw_layout_entries(),
        });
        let crowd_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("skel crowd vertex"),
            entries: &skel_gpu::crowd_vertex_layout_entries(wgpu::ShaderStages::VERTEX),
        });
        let frame_uniform = buffer_init(
            ctx,
            "skel crowd frame",
            &frame_uniform(&Camera::framing(
                &[],
                1.0,
                skel_anim::Handedness::RightHanded,
            )),
            wgpu::BufferUsages::UNIFORM,
        );
        let frame_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("skel crowd frame"),
            layout: &frame_layout,
            entries: &[wgpu::BindGroupEntry {
                binding: 0,
                resource: frame_uniform.as_entire_binding(),
            }],
        });
        let crowd_groups = (0..crowd.meshes().len())
            .map(|m| crowd.vertex_bind_group(ctx, &crowd_layout, m))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|source| RenderError::Crowd {
                context: "binding the crowd's meshes",
                source: Box::new(source),
            })?;

        let sampler = base_color_sampler(device);
        let white = upload_texture(ctx, &RgbaImage::from_pixel(1, 1, image::Rgba([255; 4])));
        let mut textures: HashMap<usize, wgpu::TextureView> = HashMap::new();
        let mut items = Vec::new();
        let mut skipped = 0;
        for (mi, mesh) in container.meshes.iter().enumerate() {
            let Some(cm) = crowd.meshes().iter().position(|c| c.mesh == mi) else {
                skipped += mesh.primitives.len();
                continue;
            };
            let m = world.get(mesh.node).copied().unwrap_or(Mat4::IDENTITY);
            let det = m.determinant();
            // As the facade renderer: the bones hold the inverse of a regular node matrix.
            let m = if det != 0.0 && det.is_finite() {
                m
            } else {
                Mat4::IDENTITY
            };
            for (pi, primitive) in mesh.primitives.iter().enumerate() {
                if primitive.topology != Topology::Triangles {
                    skipped += 1;
                    continue;
                }
                let texture = base_color_texture(ctx, container, primitive, &mut textures);
                let uniform = buffer_init(
                    ctx,
                    "skel crowd draw",
                    &draw_uniform(&m, primitive, texture.is_some()),
                    wgpu::BufferUsages::UNIFORM,
                );
                let bind_group = draw_bind_group(
                    device,
                    &draw_layout,
                    &uniform,
                    texture.unwrap_or(&white),
                    &sampler,
                );
                items.push(Item {
                    mesh: mi,
                    primitive: pi,
                    crowd_mesh: cm,
                    blend: primitive.material.alpha_mode == AlphaMode::Blend,
                    bind_group,
                });
            }
        }
        // Opaque first, then blended ones (drawn over them without writing depth).
        items.sort_by_key(|i| i.blend);

        let module = ctx
            .capture("compiling the crowd shader", || {
                device.create_shader_module(wgpu::ShaderModuleDescriptor {
                    label: Some("skel crowd mesh"),
                    source: wgpu::ShaderSource::Wgsl(crowd_wgsl().into()),
                })
            })
            .map_err(gpu_error("compiling the crowd shader"))?;
        let layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("skel crowd"),
            bind_group_layouts: &[Some(&frame_layout), Some(&draw_layout), Some(&crowd_layout)],
            immediate_size: 0,
        });
        let pipeline = |blend| create_pipeline(ctx, &module, &layout, format, blend);
        let (opaque, blended) = (pipeline(false)?, pipeline(true)?);

        let matrices: Vec<[f32; 16]> = placements.iter().map(Mat4::to_cols_array).collect();
        let instances = buffer_init(
            ctx,
            "skel crowd placements",
            bytemuck::cast_slice(&matrices),
            wgpu::BufferUsages::VERTEX,
        );
        Ok(Self {
            opaque,
            blended,
            frame_uniform,
            frame_group,
            crowd_groups,
            items,
            instances,
            instance_count: u32::try_from(placements.len()).unwrap_or(u32::MAX),
            placements: placements.to_vec(),
            by_slot: Vec::new(),
            skipped,
        })
    }

    /// Puts draw instance `s` where `placements[visible[s]]` puts instance `visible[s]`:
    /// call it with [`Crowd::visible`] after [`Crowd::cull`], or whenever players are hidden
    /// or shown, so that each drawn character stands where its own instance was placed (the
    /// crowd skins visible instances into consecutive slots). Until it is called, draw
    /// instance `s` takes `placements[s]`, right while every instance is visible. An instance
    /// past the placements given to [`new`](Self::new) is drawn collapsed to a point.
    /// Allocates nothing once the longest list has been seen.
    pub fn place_visible(&mut self, queue: &wgpu::Queue, visible: &[u32]) {
        let count = visible.len().min(self.instance_count as usize);
        self.by_slot.clear();
        self.by_slot.extend(visible[..count].iter().map(|&i| {
            self.placements
                .get(i as usize)
                .unwrap_or(&Mat4::ZERO)
                .to_cols_array()
        }));
        if !self.by_slot.is_empty() {
            queue.write_buffer(&self.instances, 0, bytemuck::cast_slice(&self.by_slot));
        }
    }

    /// Writes the camera and lights (the facade renderer's).
    pub fn set_camera(&self, queue: &wgpu::Queue, camera: &Camera) {
        queue.write_buffer(&self.frame_uniform, 0, &frame_uniform(camera));
    }

    /// Draw calls per frame: one per primitive, each over every instance.
    #[must_use]
    pub fn draw_count(&self) -> usize {
        self.items.len()
    }

    /// Records every primitive's instanced draw of the `visible` instances into `pass`.
    pub fn draw(&self, container: &AssetContainer, visible: u32, pass: &mut wgpu::RenderPass<'_>) {
        let instances = 0..visible.min(self.instance_count);
        pass.set_bind_group(0, &self.frame_group, &[]);
        pass.set_vertex_buffer(INSTANCE_SLOT, self.instances.slice(..));
        for item in &self.items {
            let (Some(mesh), Some(group)) = (
                container.meshes.get(item.mesh),
                self.crowd_groups.get(item.crowd_mesh),
            ) else {
                continue;
            };
            let Some(primitive) = mesh.primitives.get(item.primitive) else {
                continue;
            };
            if !mesh.visible {
                continue;
            }
            pass.set_pipeline(if item.blend {
                &self.blended
            } else {
                &self.opaque
            });
            pass.set_bind_group(1, &item.bind_group, &[]);
            pass.set_bind_group(CROWD_GROUP, group, &[]);
            set_vertex_streams(pass, mesh);
            draw_primitive(pass, mesh, primitive, instances.clone());
        }
    }
}

fn create_pipeline(
    ctx: &GpuContext,
    module: &wgpu::ShaderModule,
    layout: &wgpu::PipelineLayout,
    format: &RenderFormat,
    blend: bool,
) -> Result<wgpu::RenderPipeline, RenderError> {
    let attributes = |location, format| {
        [wgpu::VertexAttribute {
            format,
            offset: 0,
            shader_location: location,
        }]
    };
    let position = attributes(0, wgpu::VertexFormat::Float32x3);
    let normal = attributes(1, wgpu::VertexFormat::Float32x3);
    let uv = attributes(2, wgpu::VertexFormat::Float32x2);
    let placement = wgpu::vertex_attr_array![
        12 => Float32x4, 13 => Float32x4, 14 => Float32x4, 15 => Float32x4
    ];
    let stream = |array_stride, step_mode, attributes| {
        Some(wgpu::VertexBufferLayout {
            array_stride,
            step_mode,
            attributes,
        })
    };
    let vertex = wgpu::VertexStepMode::Vertex;
    let buffers = [
        stream(12, vertex, &position[..]),
        stream(12, vertex, &normal[..]),
        stream(8, vertex, &uv[..]),
        stream(64, wgpu::VertexStepMode::Instance, &placement[..]),
    ];
    ctx.capture("creating the crowd pipeline", || {
        ctx.device
            .create_render_pipeline(&wgpu::RenderPipelineDescriptor {
                label: Some("skel crowd"),
                layout: Some(layout),
                vertex: wgpu::VertexState {
                    module,
                    entry_point: Some("vs_main"),
                    compilation_options: wgpu::PipelineCompilationOptions::default(),
                    buffers: &buffers,
                },
                // No culling, as the facade renderer: double-sided materials and mirrored
                // (left-handed) worlds draw correctly.
                primitive: wgpu::PrimitiveState::default(),
                depth_stencil: Some(wgpu::DepthStencilState {
                    format: format.depth,
                    depth_write_enabled: Some(!blend),
                    depth_compare: Some(wgpu::CompareFunction::LessEqual),
                    stencil: wgpu::StencilState::default(),
                    bias: wgpu::DepthBiasState::default(),
                }),
                multisample: wgpu::MultisampleState {
                    count: format.sample_count,
                    ..wgpu::MultisampleState::default()
                },
                fragment: Some(wgpu::FragmentState {
                    module,
                    entry_point: Some("fs_main"),
                    compilation_options: wgpu::PipelineCompilationOptions::default(),
                    targets: &[Some(wgpu::ColorTargetState {
                        format: format.color,
                        blend: blend.then_some(wgpu::BlendState::ALPHA_BLENDING),
                        write_mask: wgpu::ColorWrites::ALL,
                    })],
                }),
                multiview_mask: None,
                cache: None,
            })
    })
    .map_err(gpu_error("creating the crowd pipeline"))
}

#[cfg(test)]
mod tests {
    /// The composed crowd shader names every function it calls (checked by compiling it
    /// against a real device in the render tests; here: the substitutions happened).
    #[test]
    fn crowd_shader_is_composed() {
        let source = super::crowd_wgsl();
        assert!(!source.contains("{{"));
        assert!(source.contains("@group(2) @binding(3)"));
        assert!(source.contains(
            "skel_skin_vertex(vertex_index, input.position, input.normal , skel_instance)"
        ));
    }
}
