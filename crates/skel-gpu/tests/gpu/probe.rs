//! Running the skinning fragment through a real render pipeline and the compute pipeline, and
//! reading the results back.

use skel_gpu::{
    ComputeSkinning, ComputeSkinningConfig, ComputeSkinningInputs, FragmentBindings, GpuContext,
    MorphGpu, ShaderFragment, SkeletonGpu, SkinningVariant,
};

use crate::common::{output_buffer, read_f32, storage_buffer};

const PROBE_WGSL: &str = include_str!("../../shaders/skel_probe_points.wgsl");
/// Pixels per row of the probe targets.
const PROBE_WIDTH: u32 = 1024;

/// Skinned positions and normals, 3 floats per vertex.
pub struct Skinned {
    pub positions: Vec<f32>,
    pub normals: Vec<f32>,
}

/// Skins through the vertex stage: a point-list draw of every vertex, each to its own pixel of
/// two `Rgba32Float` targets, read back.
pub fn skin_vertex_path(
    ctx: &GpuContext,
    variant: SkinningVariant,
    positions: &[f32],
    normals: &[f32],
    skeleton: Option<&SkeletonGpu>,
    morph: Option<&MorphGpu>,
) -> Skinned {
    let n = (positions.len() / 3) as u32;
    let width = PROBE_WIDTH.min(n.max(1));
    let height = n.div_ceil(width).max(1);
    // The fragment reads the deltas where the morph targets keep them (buffer or texture).
    let fragment = ShaderFragment::with_morph_deltas(
        variant,
        FragmentBindings {
            group: 1,
            first_binding: 0,
            first_location: 4,
        },
        morph.map(MorphGpu::delta_storage).unwrap_or_default(),
    );
    let fragment_layout = fragment
        .create_bind_group_layout(ctx, wgpu::ShaderStages::VERTEX)
        .unwrap();
    let fragment_group = fragment
        .create_bind_group(ctx, &fragment_layout, skeleton, morph)
        .unwrap();
    let source = fragment.compose(PROBE_WGSL);
    let position_buffer = storage_buffer(ctx, bytemuck::cast_slice(positions));
    let normal_buffer = storage_buffer(ctx, bytemuck::cast_slice(normals));
    let uniform = ctx.device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("probe params"),
        size: 16,
        usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    ctx.queue
        .write_buffer(&uniform, 0, bytemuck::cast_slice(&[width, height, 0, 0]));
    let targets: Vec<wgpu::Texture> = (0..2)
        .map(|_| {
            ctx.device.create_texture(&wgpu::TextureDescriptor {
                label: Some("probe target"),
                size: wgpu::Extent3d {
                    width,
                    height,
                    depth_or_array_layers: 1,
                },
                mip_level_count: 1,
                sample_count: 1,
                dimension: wgpu::TextureDimension::D2,
                format: wgpu::TextureFormat::Rgba32Float,
                usage: wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC,
                view_formats: &[],
            })
        })
        .collect();
    let views: Vec<_> = targets
        .iter()
        .map(|t| t.create_view(&Default::default()))
        .collect();

    ctx.capture("probe render", || {
        let probe_layout = ctx
            .device
            .create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
                label: Some("probe"),
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
        let probe_group = ctx.device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("probe"),
            layout: &probe_layout,
            entries: &[wgpu::BindGroupEntry {
                binding: 0,
                resource: uniform.as_entire_binding(),
            }],
        });
        let module = ctx
            .device
            .create_shader_module(wgpu::ShaderModuleDescriptor {
                label: Some("probe"),
                source: wgpu::ShaderSource::Wgsl(source.into()),
            });
        let layout = ctx
            .device
            .create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                label: Some("probe"),
                bind_group_layouts: &[Some(&probe_layout), Some(&fragment_layout)],
                immediate_size: 0,
            });
        let position_attr = [wgpu::VertexAttribute {
            format: wgpu::VertexFormat::Float32x3,
            offset: 0,
            shader_location: 0,
        }];
        let normal_attr = [wgpu::VertexAttribute {
            format: wgpu::VertexFormat::Float32x3,
            offset: 0,
            shader_location: 1,
        }];
        let mut buffers = vec![
            Some(wgpu::VertexBufferLayout {
                array_stride: 12,
                step_mode: wgpu::VertexStepMode::Vertex,
                attributes: &position_attr,
            }),
            Some(wgpu::VertexBufferLayout {
                array_stride: 12,
                step_mode: wgpu::VertexStepMode::Vertex,
                attributes: &normal_attr,
            }),
        ];
        buffers.extend(
            fragment
                .influence_vertex_buffer_layouts()
                .into_iter()
                .map(Some),
        );
        let target = Some(wgpu::ColorTargetState {
            format: wgpu::TextureFormat::Rgba32Float,
            blend: None,
            write_mask: wgpu::ColorWrites::ALL,
        });
        let pipeline = ctx
            .device
            .create_render_pipeline(&wgpu::RenderPipelineDescriptor {
                label: Some("probe"),
                layout: Some(&layout),
                vertex: wgpu::VertexState {
                    module: &module,
                    entry_point: Some("skel_probe_vs"),
                    compilation_options: Default::default(),
                    buffers: &buffers,
                },
                primitive: wgpu::PrimitiveState {
                    topology: wgpu::PrimitiveTopology::PointList,
                    ..Default::default()
                },
                depth_stencil: None,
                multisample: Default::default(),
                fragment: Some(wgpu::FragmentState {
                    module: &module,
                    entry_point: Some("skel_probe_fs"),
                    compilation_options: Default::default(),
                    targets: &[target.clone(), target],
                }),
                multiview_mask: None,
                cache: None,
            });
        let mut encoder = ctx.device.create_command_encoder(&Default::default());
        {
            let attachments: Vec<_> = views
                .iter()
                .map(|view| {
                    Some(wgpu::RenderPassColorAttachment {
                        view,
                        depth_slice: None,
                        resolve_target: None,
                        ops: wgpu::Operations {
                            load: wgpu::LoadOp::Clear(wgpu::Color {
                                r: f64::NAN,
                                g: f64::NAN,
                                b: f64::NAN,
                                a: f64::NAN,
                            }),
                            store: wgpu::StoreOp::Store,
                        },
                    })
                })
                .collect();
            let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
                label: Some("probe"),
                color_attachments: &attachments,
                ..Default::default()
            });
            pass.set_pipeline(&pipeline);
            pass.set_bind_group(0, &probe_group, &[]);
            pass.set_bind_group(1, &fragment_group, &[]);
            pass.set_vertex_buffer(0, position_buffer.slice(..));
            pass.set_vertex_buffer(1, normal_buffer.slice(..));
            if let Some(skeleton) = skeleton {
                fragment
                    .set_influence_vertex_buffers(&mut pass, 2, skeleton)
                    .unwrap();
            }
            pass.draw(0..n, 0..1);
        }
        ctx.queue.submit([encoder.finish()]);
    })
    .unwrap();

    let texels = |t: &wgpu::Texture| -> Vec<f32> {
        let all = skel_gpu::readback::read_texture_rgba32float(ctx, t).unwrap();
        all.chunks_exact(4)
            .take(n as usize)
            .flat_map(|c| [c[0], c[1], c[2]])
            .collect()
    };
    Skinned {
        positions: texels(&targets[0]),
        normals: texels(&targets[1]),
    }
}

/// Skins through [`ComputeSkinning`] with the skeleton's own buffers (or none, morph only).
pub fn skin_compute_path(
    ctx: &GpuContext,
    variant: SkinningVariant,
    positions: &[f32],
    normals: &[f32],
    skeleton: Option<&SkeletonGpu>,
    morph: Option<&MorphGpu>,
) -> Skinned {
    let n = (positions.len() / 3) as u32;
    let bytes = u64::from(n) * 12;
    let config = ComputeSkinningConfig {
        variant,
        normals: true,
        ..Default::default()
    };
    let pipeline = ComputeSkinning::new(ctx, config).unwrap();
    let rest_positions = storage_buffer(ctx, bytemuck::cast_slice(positions));
    let rest_normals = storage_buffer(ctx, bytemuck::cast_slice(normals));
    let out_positions = output_buffer(ctx, bytes);
    let out_normals = output_buffer(ctx, bytes);
    let inputs = match skeleton {
        Some(s) => ComputeSkinningInputs::from_skeleton(
            s,
            &rest_positions,
            Some(&rest_normals),
            &out_positions,
            Some(&out_normals),
        ),
        None => ComputeSkinningInputs {
            vertex_count: n,
            rest_positions: &rest_positions,
            rest_normals: Some(&rest_normals),
            joints: [None; 4],
            weights: [None; 4],
            out_positions: &out_positions,
            out_normals: Some(&out_normals),
        },
    };
    let bindings = pipeline.bind(ctx, &inputs, skeleton, morph).unwrap();
    ctx.capture("compute skinning", || {
        let mut encoder = ctx.device.create_command_encoder(&Default::default());
        pipeline.encode(&mut encoder, &bindings, None);
        ctx.queue.submit([encoder.finish()]);
    })
    .unwrap();
    Skinned {
        positions: read_f32(ctx, &out_positions, bytes),
        normals: read_f32(ctx, &out_normals, bytes),
    }
}

/// Largest absolute difference between two equally long slices; a NaN anywhere (e.g. a vertex
/// the probe never wrote) counts as infinitely far.
pub fn max_abs_diff(a: &[f32], b: &[f32]) -> f32 {
    assert_eq!(a.len(), b.len(), "lengths differ");
    a.iter()
        .zip(b)
        .map(|(x, y)| {
            let d = (x - y).abs();
            if d.is_nan() { f32::INFINITY } else { d }
        })
        .fold(0.0, f32::max)
}

/// The diagonal of the bounding box of 3-float points.
pub fn bbox_diagonal(points: &[f32]) -> f32 {
    let mut lo = [f32::INFINITY; 3];
    let mut hi = [f32::NEG_INFINITY; 3];
    for p in points.chunks_exact(3) {
        for k in 0..3 {
            lo[k] = lo[k].min(p[k]);
            hi[k] = hi[k].max(p[k]);
        }
    }
    ((hi[0] - lo[0]).powi(2) + (hi[1] - lo[1]).powi(2) + (hi[2] - lo[2]).powi(2)).sqrt()
}
