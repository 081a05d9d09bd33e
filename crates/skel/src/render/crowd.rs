//! Drawing a [`Crowd`]: every primitive of the crowd's skinned meshes once, instanced over
//! every visible character. The shader is the renderer's own [`MESH_WGSL`] (the lights,
//! materials and tone curve of a one-character render), fed by the crowd's vertex fragment
//! instead of a skinning fragment: vertex `v` of draw instance `s` is what crowd compute
//! skinning wrote into slot `s` (`skel_crowd_skinned`), and the per-instance model matrix puts
//! slot `s` where the caller placed the instance the crowd's visible list names for it. The
//! draws are indirect: their instance count, and each slot's placement, are written on the GPU
//! from the visible list by [`CrowdRenderer::place`] (`crowd_place`), so a crowd culled on the
//! CPU ([`Crowd::cull`]) or on the GPU ([`Crowd::encode_cull`]) draws the same way. `skel
//! render --crowd`, `skel view --crowd` and the browser demo draw with it.

use std::collections::HashMap;

use glam::Mat4;
use image::RgbaImage;
use skel_gltf::AlphaMode;
use skel_gpu::GpuContext;

use super::crowd_place::{ARGS_WORDS, DrawArgs, SlotPlacements};
use super::renderer::set_vertex_streams;
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
    /// Index of its crowd mesh (its group-2 bind group).
    crowd_mesh: usize,
    blend: bool,
    bind_group: wgpu::BindGroup,
    /// Indexed (`draw_indexed_indirect`) or not; its arguments sit at `args` × 20 bytes.
    indexed: bool,
    args: usize,
}

/// Pipelines, bind groups and the placements of a crowd's draw.
///
/// Per frame, into one encoder: [`Crowd::tick`] and [`Crowd::cull`] (CPU posing, optional)
/// before it, then [`Crowd::upload`], [`Crowd::encode_cull`] (GPU posing, optional),
/// [`Crowd::skin`], [`place`](Self::place), and [`draw`](Self::draw) in a render pass of the
/// format this was made for.
///
/// ```no_run
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// use skel::gpu::glam::{Mat4, Vec3};
/// use skel::render::{Camera, CrowdRenderer, OffscreenTarget, BACKGROUND};
/// let ctx = skel::gpu::GpuContext::new_headless()?;
/// let asset = skel::load_gltf(&ctx, std::path::Path::new("CesiumMan.glb"), &Default::default())?;
/// let mut crowd = skel::Crowd::new(&ctx, &asset, &skel::CrowdDescriptor {
///     instances: 100,
///     ..Default::default()
/// })?;
/// let placements: Vec<Mat4> = (0..100)
///     .map(|i| Mat4::from_translation(Vec3::new((i % 10) as f32, 0.0, (i / 10) as f32)))
///     .collect();
/// let rest = skel::gltf::rest_world_matrices(&asset.animation)?;
/// let target = OffscreenTarget::new(&ctx.device, 640, 360, 1)?;
/// let renderer = CrowdRenderer::new(&ctx, &asset, &crowd, &rest, &placements, &target.format())?;
/// let camera = Camera::framing(&[Vec3::ZERO, Vec3::new(9.0, 2.0, 9.0)], 16.0 / 9.0,
///     skel::anim::Handedness::RightHanded);
/// renderer.set_camera(&ctx.queue, &camera);
/// crowd.tick(1.0 / 60.0);
/// crowd.cull(camera.view_projection(), &placements)?;
/// let mut encoder = ctx.device.create_command_encoder(&Default::default());
/// crowd.upload(&ctx, &mut encoder)?;
/// crowd.skin(&mut encoder);
/// renderer.place(&mut encoder);
/// {
///     let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
///         color_attachments: &[Some(target.color_attachment(BACKGROUND))],
///         depth_stencil_attachment: Some(target.depth_attachment()),
///         ..Default::default()
///     });
///     renderer.draw(&asset, &mut pass);
/// }
/// ctx.queue.submit([encoder.finish()]);
/// # Ok(()) }
/// ```
#[derive(Debug)]
pub struct CrowdRenderer {
    opaque: wgpu::RenderPipeline,
    blended: wgpu::RenderPipeline,
    frame_uniform: wgpu::Buffer,
    frame_group: wgpu::BindGroup,
    crowd_groups: Vec<wgpu::BindGroup>,
    items: Vec<Item>,
    /// Placements by instance and by slot, and the draws' indirect arguments.
    slots: SlotPlacements,
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
    /// passes of `format`. `world` holds the nodes' world matrices (the mesh nodes'). An
    /// instance past `placements` is drawn collapsed to a point. Until the first
    /// [`place`](Self::place), nothing is drawn.
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
        let mut draws = Vec::new();
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
            for primitive in &mesh.primitives {
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
                let indexed = primitive.indices.is_some() && mesh.indices.is_some();
                items.push(Item {
                    mesh: mi,
                    crowd_mesh: cm,
                    blend: primitive.material.alpha_mode == AlphaMode::Blend,
                    bind_group,
                    indexed,
                    args: draws.len(),
                });
                draws.push(match &primitive.indices {
                    Some(range) if indexed => DrawArgs::Indexed {
                        first_index: range.start,
                        index_count: range.end - range.start,
                    },
                    _ => DrawArgs::Vertices {
                        first_vertex: primitive.base_vertex,
                        vertex_count: primitive.vertex_count,
                    },
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

        let slots = SlotPlacements::new(
            ctx,
            crowd.gpu().instances_buffer(),
            crowd.gpu().instance_count(),
            placements,
            &draws,
        )?;
        Ok(Self {
            opaque,
            blended,
            frame_uniform,
            frame_group,
            crowd_groups,
            items,
            slots,
            skipped,
        })
    }

    /// Records, into `encoder`, the pass that stands each drawn slot where the crowd's visible
    /// list says its instance was placed, and sets every draw's instance count to the list's
    /// length. Record it every frame after [`Crowd::upload`] and [`Crowd::encode_cull`] (which
    /// write the list) and before the render pass with [`draw`](Self::draw): the list lives on
    /// the GPU, and after a GPU cull only the GPU knows it. One dispatch of one thread a slot;
    /// nothing read back.
    pub fn place(&self, encoder: &mut wgpu::CommandEncoder) {
        self.slots.record(encoder);
    }

    /// Moves the instances: instance `i` to `placements[i]` (as many as [`new`](Self::new)
    /// was given; one `write_buffer`), from the next [`place`](Self::place) on.
    ///
    /// # Errors
    /// [`RenderError::Gpu`] with [`skel_gpu::GpuError::LengthMismatch`] for another count.
    pub fn set_placements(
        &self,
        queue: &wgpu::Queue,
        placements: &[Mat4],
    ) -> Result<(), RenderError> {
        self.slots.set(queue, placements)
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

    /// Records every primitive's instanced draw into `pass`, indirect: as many instances as
    /// the visible list held at the last [`place`](Self::place).
    pub fn draw(&self, container: &AssetContainer, pass: &mut wgpu::RenderPass<'_>) {
        pass.set_bind_group(0, &self.frame_group, &[]);
        pass.set_vertex_buffer(INSTANCE_SLOT, self.slots.by_slot.slice(..));
        for item in &self.items {
            let (Some(mesh), Some(group)) = (
                container.meshes.get(item.mesh),
                self.crowd_groups.get(item.crowd_mesh),
            ) else {
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
            let offset = (item.args * ARGS_WORDS * 4) as u64;
            match (&mesh.indices, item.indexed) {
                (Some(indices), true) => {
                    pass.set_index_buffer(indices.slice(..), wgpu::IndexFormat::Uint32);
                    pass.draw_indexed_indirect(&self.slots.args, offset);
                }
                _ => pass.draw_indirect(&self.slots.args, offset),
            }
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
