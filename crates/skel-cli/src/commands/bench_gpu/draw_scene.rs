//! What `skel bench gpu draw` draws: a grid of N characters in one instanced, indexed draw,
//! skinned in the vertex shader from one bone texture holding every character's bones (the
//! shader offsets the mesh's joints by `instance_index × bones`), or the same draw of
//! pre-posed positions without skinning.

use std::time::Instant;

use glam::{Mat4, Vec3};
use skel::gpu::{FragmentBindings, GpuContext, ShaderFragment, SkeletonGpu};

type Error = Box<dyn std::error::Error>;

/// The user half of the shader, composed after the 4-influence skinning fragment (group 1).
const CROWD_WGSL: &str = r"
struct Frame {
    view_proj: mat4x4<f32>,
    // x: characters per grid row, y: spacing, z: bones per character.
    grid: vec4<f32>,
}

@group(0) @binding(0) var<uniform> frame: Frame;

struct VertexIn {
    @location(0) position: vec3<f32>,
    @location(1) normal: vec3<f32>,
}

struct VertexOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) normal: vec3<f32>,
}

@vertex
fn vs_main(
    @builtin(vertex_index) vertex_index: u32,
    @builtin(instance_index) instance: u32,
    input: VertexIn,
    influences: SkelInfluences,
) -> VertexOut {
    // This character's bones start at instance × bones-per-character in the shared texture.
    let first_bone = instance * u32(frame.grid.z);
    let skinned = skel_skin(vertex_index, input.position, input.normal,
                            influences.joints0 + vec4<u32>(first_bone), influences.weights0);
    let per_row = u32(frame.grid.x);
    let place = vec3<f32>(f32(instance % per_row), 0.0, f32(instance / per_row)) * frame.grid.y;
    var out: VertexOut;
    out.clip = frame.view_proj * vec4<f32>(skinned.position + place, 1.0);
    out.normal = skinned.normal;
    return out;
}

// The same draw without skinning: pre-posed positions (one pose for everyone), no bone reads.
// Its time is what the draw costs on this GPU before any skinning work.
@vertex
fn vs_posed(
    @builtin(instance_index) instance: u32,
    input: VertexIn,
) -> VertexOut {
    let per_row = u32(frame.grid.x);
    let place = vec3<f32>(f32(instance % per_row), 0.0, f32(instance / per_row)) * frame.grid.y;
    var out: VertexOut;
    out.clip = frame.view_proj * vec4<f32>(input.position + place, 1.0);
    out.normal = input.normal;
    return out;
}

@fragment
fn fs_main(input: VertexOut) -> @location(0) vec4<f32> {
    let n = normalize(input.normal);
    let light = abs(dot(n, normalize(vec3<f32>(0.3, 1.0, 0.5)))) * 0.8 + 0.2;
    return vec4<f32>(vec3<f32>(light), 1.0);
}
";

const COLOR_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba8Unorm;
const DEPTH_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Depth32Float;

/// A buffer of `usage | COPY_DST` holding `bytes`.
fn filled(ctx: &GpuContext, bytes: &[u8], usage: wgpu::BufferUsages) -> wgpu::Buffer {
    let b = ctx.device.create_buffer(&wgpu::BufferDescriptor {
        label: None,
        size: skel::gpu::padded_buffer_size(bytes.len() as u64),
        usage: usage | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    ctx.queue.write_buffer(&b, 0, bytes);
    b
}

/// What [`Scene::new`] draws: one mesh, its pose, how many and how big.
pub(super) struct SceneDesc<'a> {
    pub(super) positions: &'a [f32],
    pub(super) normals: &'a [f32],
    /// Positions of the first pose, for the draw without skinning.
    pub(super) posed: &'a [Vec3],
    pub(super) indices: &'a [u32],
    /// Bounds of the posed mesh over every pose: the grid spacing and camera follow them.
    pub(super) bounds: (Vec3, Vec3),
    pub(super) characters: u32,
    pub(super) bones_per_character: u32,
    pub(super) width: u32,
    pub(super) height: u32,
}

/// Pipelines, buffers and targets of the crowd draw.
pub(super) struct Scene {
    fragment: ShaderFragment,
    pipeline: wgpu::RenderPipeline,
    posed_pipeline: wgpu::RenderPipeline,
    frame_bind: wgpu::BindGroup,
    skin_bind: wgpu::BindGroup,
    color: wgpu::TextureView,
    depth: wgpu::TextureView,
    positions: wgpu::Buffer,
    normals: wgpu::Buffer,
    posed: wgpu::Buffer,
    index_buffer: wgpu::Buffer,
    index_count: u32,
    characters: u32,
    queries: Option<wgpu::QuerySet>,
    resolve: wgpu::Buffer,
}

impl Scene {
    /// Builds the draw of `desc` with `skeleton` (every character's bones) bound.
    ///
    /// # Errors
    /// The skinning fragment's layout or bind group cannot be made.
    pub(super) fn new(
        ctx: &GpuContext,
        desc: &SceneDesc<'_>,
        skeleton: &SkeletonGpu,
    ) -> Result<Self, Error> {
        // A grid on the ground plane, seen from above at an angle.
        let (lo, hi) = desc.bounds;
        let extent = hi - lo;
        let spacing = extent.x.max(extent.z).max(extent.y * 0.5) * 1.2;
        let per_row = (f64::from(desc.characters).sqrt().ceil() as u32).max(1);
        let side = per_row as f32 * spacing;
        let center = Vec3::new(side * 0.5, (lo.y + hi.y) * 0.5, side * 0.5);
        let eye = center + Vec3::new(0.0, side * 0.8, side * 0.9);
        let aspect = desc.width as f32 / desc.height as f32;
        let view_proj = Mat4::perspective_rh(0.8, aspect, side * 0.05, side * 4.0)
            * Mat4::look_at_rh(eye, center, Vec3::Y);
        let mut frame_data = view_proj.to_cols_array().to_vec();
        frame_data.extend([
            per_row as f32,
            spacing,
            desc.bones_per_character as f32,
            0.0,
        ]);
        let frame_uniform = filled(
            ctx,
            bytemuck::cast_slice(&frame_data),
            wgpu::BufferUsages::UNIFORM,
        );
        let fragment = ShaderFragment::for_skeleton(
            skeleton,
            false,
            FragmentBindings {
                group: 1,
                first_binding: 0,
                first_location: 2,
            },
        );
        let module = ctx
            .device
            .create_shader_module(wgpu::ShaderModuleDescriptor {
                label: Some("crowd draw"),
                source: wgpu::ShaderSource::Wgsl(fragment.compose(CROWD_WGSL).into()),
            });
        let frame_layout = ctx
            .device
            .create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
                label: None,
                entries: &[wgpu::BindGroupLayoutEntry {
                    binding: 0,
                    visibility: wgpu::ShaderStages::VERTEX,
                    ty: wgpu::BindingType::Buffer {
                        ty: wgpu::BufferBindingType::Uniform,
                        has_dynamic_offset: false,
                        min_binding_size: None,
                    },
                    count: None,
                }],
            });
        let skin_layout = fragment.create_bind_group_layout(ctx, wgpu::ShaderStages::VERTEX)?;
        let layout = ctx
            .device
            .create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                label: None,
                bind_group_layouts: &[Some(&frame_layout), Some(&skin_layout)],
                immediate_size: 0,
            });
        let float3 = |location| wgpu::VertexBufferLayout {
            array_stride: 12,
            step_mode: wgpu::VertexStepMode::Vertex,
            attributes: match location {
                0 => &[wgpu::VertexAttribute {
                    format: wgpu::VertexFormat::Float32x3,
                    offset: 0,
                    shader_location: 0,
                }],
                _ => &[wgpu::VertexAttribute {
                    format: wgpu::VertexFormat::Float32x3,
                    offset: 0,
                    shader_location: 1,
                }],
            },
        };
        let mut buffers = vec![float3(0), float3(1)];
        buffers.extend(fragment.influence_vertex_buffer_layouts());
        let all_buffers: Vec<_> = buffers.into_iter().map(Some).collect();
        let make_pipeline = |entry: &str, buffers: &[Option<wgpu::VertexBufferLayout<'_>>]| {
            ctx.device
                .create_render_pipeline(&wgpu::RenderPipelineDescriptor {
                    label: Some("crowd draw"),
                    layout: Some(&layout),
                    vertex: wgpu::VertexState {
                        module: &module,
                        entry_point: Some(entry),
                        compilation_options: wgpu::PipelineCompilationOptions::default(),
                        buffers,
                    },
                    primitive: wgpu::PrimitiveState {
                        cull_mode: None,
                        ..Default::default()
                    },
                    depth_stencil: Some(wgpu::DepthStencilState {
                        format: DEPTH_FORMAT,
                        depth_write_enabled: Some(true),
                        depth_compare: Some(wgpu::CompareFunction::Less),
                        stencil: wgpu::StencilState::default(),
                        bias: wgpu::DepthBiasState::default(),
                    }),
                    multisample: wgpu::MultisampleState::default(),
                    fragment: Some(wgpu::FragmentState {
                        module: &module,
                        entry_point: Some("fs_main"),
                        compilation_options: wgpu::PipelineCompilationOptions::default(),
                        targets: &[Some(COLOR_FORMAT.into())],
                    }),
                    multiview_mask: None,
                    cache: None,
                })
        };
        let pipeline = make_pipeline("vs_main", &all_buffers);
        let posed_pipeline = make_pipeline("vs_posed", &all_buffers[..2]);
        let frame_bind = ctx.device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: None,
            layout: &frame_layout,
            entries: &[wgpu::BindGroupEntry {
                binding: 0,
                resource: frame_uniform.as_entire_binding(),
            }],
        });
        let skin_bind = fragment.create_bind_group(ctx, &skin_layout, Some(skeleton), None)?;
        let target = |format, usage| {
            ctx.device
                .create_texture(&wgpu::TextureDescriptor {
                    label: None,
                    size: wgpu::Extent3d {
                        width: desc.width,
                        height: desc.height,
                        depth_or_array_layers: 1,
                    },
                    mip_level_count: 1,
                    sample_count: 1,
                    dimension: wgpu::TextureDimension::D2,
                    format,
                    usage,
                    view_formats: &[],
                })
                .create_view(&wgpu::TextureViewDescriptor::default())
        };
        let vertex = wgpu::BufferUsages::VERTEX;
        let queries = super::compute_timing::has_timestamps(ctx).then(|| {
            ctx.device.create_query_set(&wgpu::QuerySetDescriptor {
                label: None,
                ty: wgpu::QueryType::Timestamp,
                count: 2,
            })
        });
        Ok(Self {
            color: target(
                COLOR_FORMAT,
                wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC,
            ),
            depth: target(DEPTH_FORMAT, wgpu::TextureUsages::RENDER_ATTACHMENT),
            positions: filled(ctx, bytemuck::cast_slice(desc.positions), vertex),
            normals: filled(ctx, bytemuck::cast_slice(desc.normals), vertex),
            posed: filled(ctx, bytemuck::cast_slice(desc.posed), vertex),
            index_buffer: filled(
                ctx,
                bytemuck::cast_slice(desc.indices),
                wgpu::BufferUsages::INDEX,
            ),
            index_count: u32::try_from(desc.indices.len())?,
            characters: desc.characters,
            queries,
            resolve: ctx.device.create_buffer(&wgpu::BufferDescriptor {
                label: None,
                size: 16,
                usage: wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
                mapped_at_creation: false,
            }),
            fragment,
            pipeline,
            posed_pipeline,
            frame_bind,
            skin_bind,
        })
    }

    /// One frame: upload every character's bones (`atlas`, one batched write) and draw them
    /// skinned, or (`skinned` false) draw the pre-posed mesh alone; submit and wait. Returns
    /// (upload call, whole frame, GPU time of the render pass when `timed` and the device
    /// has timestamps), in seconds.
    ///
    /// # Errors
    /// A bone array of the wrong length, a failed wait or timestamp readback.
    pub(super) fn frame(
        &self,
        ctx: &GpuContext,
        skeleton: &SkeletonGpu,
        atlas: &[Mat4],
        (skinned, timed): (bool, bool),
    ) -> Result<(f64, f64, Option<f64>), Error> {
        let start = Instant::now();
        if skinned && !skeleton.write_bone_matrices(&ctx.queue, atlas) {
            return Err("the bone atlas has the wrong length".into());
        }
        let upload = start.elapsed().as_secs_f64();
        let queries = self.queries.as_ref().filter(|_| timed);
        let mut encoder = ctx.device.create_command_encoder(&Default::default());
        {
            let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
                label: Some("crowd draw"),
                color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                    view: &self.color,
                    depth_slice: None,
                    resolve_target: None,
                    ops: wgpu::Operations {
                        load: wgpu::LoadOp::Clear(wgpu::Color {
                            r: 0.2,
                            g: 0.25,
                            b: 0.3,
                            a: 1.0,
                        }),
                        store: wgpu::StoreOp::Store,
                    },
                })],
                depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
                    view: &self.depth,
                    depth_ops: Some(wgpu::Operations {
                        load: wgpu::LoadOp::Clear(1.0),
                        store: wgpu::StoreOp::Discard,
                    }),
                    stencil_ops: None,
                }),
                timestamp_writes: queries.map(|q| wgpu::RenderPassTimestampWrites {
                    query_set: q,
                    beginning_of_pass_write_index: Some(0),
                    end_of_pass_write_index: Some(1),
                }),
                occlusion_query_set: None,
                multiview_mask: None,
            });
            pass.set_bind_group(0, &self.frame_bind, &[]);
            pass.set_bind_group(1, &self.skin_bind, &[]);
            pass.set_vertex_buffer(1, self.normals.slice(..));
            if skinned {
                pass.set_pipeline(&self.pipeline);
                pass.set_vertex_buffer(0, self.positions.slice(..));
                self.fragment
                    .set_influence_vertex_buffers(&mut pass, 2, skeleton)?;
            } else {
                pass.set_pipeline(&self.posed_pipeline);
                pass.set_vertex_buffer(0, self.posed.slice(..));
            }
            pass.set_index_buffer(self.index_buffer.slice(..), wgpu::IndexFormat::Uint32);
            pass.draw_indexed(0..self.index_count, 0, 0..self.characters);
        }
        if let Some(q) = queries {
            encoder.resolve_query_set(q, 0..2, &self.resolve, 0);
        }
        ctx.queue.submit([encoder.finish()]);
        ctx.device.poll(wgpu::PollType::wait_indefinitely())?;
        let wall = start.elapsed().as_secs_f64();
        let gpu = match queries {
            Some(_) => {
                let t: Vec<u64> = skel::gpu::readback::read_buffer_as(ctx, &self.resolve, 0, 2)?;
                Some(
                    t[1].saturating_sub(t[0]) as f64
                        * f64::from(ctx.queue.get_timestamp_period())
                        * 1e-9,
                )
            }
            None => None,
        };
        Ok((upload, wall, gpu))
    }

    /// The pixels of the colour target (`Rgba8Unorm`, tightly packed rows).
    ///
    /// # Errors
    /// A failed readback.
    pub(super) fn pixels(&self, ctx: &GpuContext) -> Result<Vec<u8>, Error> {
        Ok(skel::gpu::readback::read_texture(
            ctx,
            self.color.texture(),
        )?)
    }
}
