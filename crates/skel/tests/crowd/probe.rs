//! The crowd's vertex-shader path through a real render pipeline, read back.

use skel::gpu::{GpuContext, readback::read_texture_rgba32float};
use skel::{AssetContainer, Crowd};

/// Pixels per row of the probe targets.
const PROBE_WIDTH: u32 = 256;

/// Skins through the user's vertex stage: a point per vertex per instance, vertex `v` of
/// draw instance `s` on pixel `(v % W, s * rows + v / W)` of two float targets. With
/// `from_compute`, the shader reads the compute output instead of skinning; with `dq`, it skins
/// with dual quaternions.
pub fn vertex_path(
    ctx: &GpuContext,
    asset: &AssetContainer,
    crowd: &Crowd,
    mesh: usize,
    from_compute: bool,
    dq: bool,
) -> (Vec<f32>, Vec<f32>) {
    let cm = &crowd.meshes()[mesh];
    let m = &asset.meshes[cm.mesh];
    let sets = cm.influences / 4;
    let rows = cm.vertex_count.div_ceil(PROBE_WIDTH);
    let height = rows * crowd.visible_count();
    let (params, call) = match (from_compute, sets) {
        (true, _) => ("", "skel_crowd_skinned(ii, vi)"),
        (false, 4) => (
            ", @location(2) j0: vec4<u32>, @location(3) w0: vec4<f32>, @location(4) j1: vec4<u32>, @location(5) w1: vec4<f32>, @location(6) j2: vec4<u32>, @location(7) w2: vec4<f32>, @location(8) j3: vec4<u32>, @location(9) w3: vec4<f32>",
            if dq {
                "skel_crowd_skin16_dq(ii, p, n, j0, w0, j1, w1, j2, w2, j3, w3)"
            } else {
                "skel_crowd_skin16(ii, p, n, j0, w0, j1, w1, j2, w2, j3, w3)"
            },
        ),
        (false, 1) => (
            ", @location(2) j0: vec4<u32>, @location(3) w0: vec4<f32>",
            if dq {
                "skel_crowd_skin4_dq(ii, p, n, j0, w0)"
            } else {
                "skel_crowd_skin4(ii, p, n, j0, w0)"
            },
        ),
        (false, _) => (
            ", @location(2) j0: vec4<u32>, @location(3) w0: vec4<f32>, @location(4) j1: vec4<u32>, @location(5) w1: vec4<f32>",
            if dq {
                "skel_crowd_skin8_dq(ii, p, n, j0, w0, j1, w1)"
            } else {
                "skel_crowd_skin8(ii, p, n, j0, w0, j1, w1)"
            },
        ),
    };
    let source = format!(
        "{}
struct Out {{
    @builtin(position) clip: vec4<f32>,
    @location(0) @interpolate(flat) position: vec4<f32>,
    @location(1) @interpolate(flat) normal: vec4<f32>,
}}
@vertex
fn vs(@builtin(vertex_index) vi: u32, @builtin(instance_index) ii: u32,
      @location(0) p: vec3<f32>, @location(1) n: vec3<f32>{params}) -> Out {{
    let v = {call};
    let x = f32(vi % {PROBE_WIDTH}u) + 0.5;
    let y = f32(ii * {rows}u + vi / {PROBE_WIDTH}u) + 0.5;
    let clip = vec4<f32>(x / {PROBE_WIDTH}.0 * 2.0 - 1.0, 1.0 - y / {height}.0 * 2.0, 0.0, 1.0);
    return Out(clip, vec4<f32>(v.position, 1.0), vec4<f32>(v.normal, 0.0));
}}
struct Targets {{ @location(0) position: vec4<f32>, @location(1) normal: vec4<f32> }}
@fragment
fn fs(input: Out) -> Targets {{ return Targets(input.position, input.normal); }}
",
        skel::gpu::crowd_vertex_wgsl(0)
    );
    let layout = ctx
        .device
        .create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: None,
            entries: &skel::gpu::crowd_vertex_layout_entries(wgpu::ShaderStages::VERTEX),
        });
    let group = crowd.vertex_bind_group(ctx, &layout, mesh).unwrap();
    let module = ctx
        .device
        .create_shader_module(wgpu::ShaderModuleDescriptor {
            label: None,
            source: wgpu::ShaderSource::Wgsl(source.into()),
        });
    let attr = |location, format| wgpu::VertexAttribute {
        format,
        offset: 0,
        shader_location: location,
    };
    // Positions, normals, then joints/weights of every set (4 sets: 10 vertex buffers, within
    // lavapipe's limit of 16; the library's own 16-influence fragment reads sets 2 and 3
    // from storage instead).
    let attrs: Vec<[wgpu::VertexAttribute; 1]> = (0..10u32)
        .map(|i| {
            let format = match i {
                0 | 1 => wgpu::VertexFormat::Float32x3,
                _ if i % 2 == 0 => wgpu::VertexFormat::Uint32x4,
                _ => wgpu::VertexFormat::Float32x4,
            };
            [attr(i, format)]
        })
        .collect();
    let streams = if from_compute {
        2
    } else {
        2 + 2 * sets as usize
    };
    let layouts: Vec<Option<wgpu::VertexBufferLayout<'_>>> = attrs[..streams]
        .iter()
        .map(|a| {
            Some(wgpu::VertexBufferLayout {
                array_stride: a[0].format.size(),
                step_mode: wgpu::VertexStepMode::Vertex,
                attributes: a,
            })
        })
        .collect();
    let pipeline_layout = ctx
        .device
        .create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: None,
            bind_group_layouts: &[Some(&layout)],
            immediate_size: 0,
        });
    let target = Some(wgpu::ColorTargetState {
        format: wgpu::TextureFormat::Rgba32Float,
        blend: None,
        write_mask: wgpu::ColorWrites::ALL,
    });
    let pipeline = ctx
        .capture("crowd probe pipeline", || {
            ctx.device
                .create_render_pipeline(&wgpu::RenderPipelineDescriptor {
                    label: None,
                    layout: Some(&pipeline_layout),
                    vertex: wgpu::VertexState {
                        module: &module,
                        entry_point: Some("vs"),
                        compilation_options: Default::default(),
                        buffers: &layouts,
                    },
                    primitive: wgpu::PrimitiveState {
                        topology: wgpu::PrimitiveTopology::PointList,
                        ..Default::default()
                    },
                    depth_stencil: None,
                    multisample: Default::default(),
                    fragment: Some(wgpu::FragmentState {
                        module: &module,
                        entry_point: Some("fs"),
                        compilation_options: Default::default(),
                        targets: &[target.clone(), target],
                    }),
                    multiview_mask: None,
                    cache: None,
                })
        })
        .unwrap();
    let targets: Vec<wgpu::Texture> = (0..2)
        .map(|_| {
            ctx.device.create_texture(&wgpu::TextureDescriptor {
                label: None,
                size: wgpu::Extent3d {
                    width: PROBE_WIDTH,
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
    let views: Vec<wgpu::TextureView> = targets
        .iter()
        .map(|t| t.create_view(&Default::default()))
        .collect();
    let mut encoder = ctx.device.create_command_encoder(&Default::default());
    {
        let attachments: Vec<Option<wgpu::RenderPassColorAttachment<'_>>> = views
            .iter()
            .map(|view| {
                Some(wgpu::RenderPassColorAttachment {
                    view,
                    depth_slice: None,
                    resolve_target: None,
                    ops: wgpu::Operations {
                        load: wgpu::LoadOp::Clear(wgpu::Color::TRANSPARENT),
                        store: wgpu::StoreOp::Store,
                    },
                })
            })
            .collect();
        let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
            label: None,
            color_attachments: &attachments,
            depth_stencil_attachment: None,
            timestamp_writes: None,
            occlusion_query_set: None,
            multiview_mask: None,
        });
        pass.set_pipeline(&pipeline);
        pass.set_bind_group(0, &group, &[]);
        let skeleton = &m.skeleton.as_ref().unwrap().gpu;
        let mut buffers = vec![Some(&m.positions), Some(&m.normals)];
        for set in 0..4 {
            let pair = skeleton.influence_buffers(set);
            buffers.extend([pair.map(|(j, _)| j), pair.map(|(_, w)| w)]);
        }
        for (slot, buffer) in buffers[..streams].iter().enumerate() {
            pass.set_vertex_buffer(slot as u32, buffer.unwrap().slice(..));
        }
        pass.draw(0..cm.vertex_count, 0..crowd.visible_count());
    }
    ctx.queue.submit([encoder.finish()]);
    if let Some(error) = ctx.take_uncaptured_error() {
        panic!("vertex path (from compute: {from_compute}): {error}");
    }
    // Back to slot-major float triples.
    let unpack = |texels: Vec<f32>| {
        let mut out = Vec::with_capacity(texels.len());
        for slot in 0..crowd.visible_count() {
            for v in 0..cm.vertex_count {
                let pixel =
                    ((slot * rows + v / PROBE_WIDTH) * PROBE_WIDTH + v % PROBE_WIDTH) as usize;
                out.extend_from_slice(&texels[pixel * 4..pixel * 4 + 3]);
            }
        }
        out
    };
    (
        unpack(read_texture_rgba32float(ctx, &targets[0]).unwrap()),
        unpack(read_texture_rgba32float(ctx, &targets[1]).unwrap()),
    )
}
