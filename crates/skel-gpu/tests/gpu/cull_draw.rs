//! `CrowdCull`'s indirect arguments drive a real draw: a one-triangle mesh drawn with
//! `draw_indexed_indirect` over the culled list covers a one-pixel target once per drawn
//! instance, and its fragment marks the crowd instance it was drawn for. The marked set must be
//! the CPU frustum test's visible set: not every instance, not the stale tail of the list.

use glam::Vec3;
use skel_gpu::{CrowdCull, CrowdCullDescriptor};

use crate::common::{ctx, read_u32};
use crate::cull::{character, cpu_boxes, cpu_visible, frustum, gpu_posed, placements};

const SHADER: &str = r"
struct Out {
    @builtin(position) position: vec4<f32>,
    @location(0) @interpolate(flat) instance: u32,
}
@group(0) @binding(0) var<storage, read> visible: array<u32>;
@group(0) @binding(1) var<storage, read_write> drawn: array<atomic<u32>>;

@vertex
fn vs(@builtin(vertex_index) v: u32, @builtin(instance_index) i: u32) -> Out {
    // A triangle over the whole target.
    let xy = vec2<f32>(f32((v << 1u) & 2u), f32(v & 2u)) * 2.0 - 1.0;
    return Out(vec4<f32>(xy, 0.0, 1.0), visible[1u + i]);
}

@fragment
fn fs(input: Out) -> @location(0) vec4<f32> {
    atomicOr(&drawn[input.instance / 32u], 1u << (input.instance % 32u));
    return vec4<f32>(1.0);
}
";

#[test]
fn an_indirect_draw_draws_the_visible_instances() {
    let Some(ctx) = ctx() else { return };
    let Some(ch) = character("CesiumMan/CesiumMan.glb") else {
        return;
    };
    let n = 160;
    let (crowd, skins) = gpu_posed(ctx, &ch, n);
    let placements = placements(n as usize);
    let planes = frustum(Vec3::NEG_Z);
    let desc = CrowdCullDescriptor {
        parts: &ch.parts,
        bones: &ch.bones,
        index_count: 3,
        first_index: 0,
        base_vertex: 0,
        max_chunk_bytes: None,
    };
    let pass = CrowdCull::new(ctx, &crowd, &desc).unwrap();
    pass.set_placements(ctx, &placements).unwrap();
    let device = &ctx.device;
    let storage = |size, usage| {
        device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("cull draw test"),
            size,
            usage,
            mapped_at_creation: false,
        })
    };
    let drawn = storage(
        u64::from(n.div_ceil(32)) * 4,
        wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST,
    );
    let indices = storage(12, wgpu::BufferUsages::INDEX | wgpu::BufferUsages::COPY_DST);
    ctx.queue
        .write_buffer(&indices, 0, bytemuck::cast_slice(&[0u32, 1, 2]));
    let entry = |binding, visibility, read_only| wgpu::BindGroupLayoutEntry {
        binding,
        visibility,
        ty: wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Storage { read_only },
            has_dynamic_offset: false,
            min_binding_size: None,
        },
        count: None,
    };
    let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: None,
        entries: &[
            entry(0, wgpu::ShaderStages::VERTEX, true),
            entry(1, wgpu::ShaderStages::FRAGMENT, false),
        ],
    });
    let group = device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: None,
        layout: &layout,
        entries: &[
            wgpu::BindGroupEntry {
                binding: 0,
                resource: pass.visible_buffer().as_entire_binding(),
            },
            wgpu::BindGroupEntry {
                binding: 1,
                resource: drawn.as_entire_binding(),
            },
        ],
    });
    let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: None,
        source: wgpu::ShaderSource::Wgsl(SHADER.into()),
    });
    let format = wgpu::TextureFormat::Rgba8Unorm;
    let pipeline = device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
        label: None,
        layout: Some(
            &device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                label: None,
                bind_group_layouts: &[Some(&layout)],
                immediate_size: 0,
            }),
        ),
        vertex: wgpu::VertexState {
            module: &module,
            entry_point: Some("vs"),
            compilation_options: Default::default(),
            buffers: &[],
        },
        primitive: Default::default(),
        depth_stencil: None,
        multisample: Default::default(),
        fragment: Some(wgpu::FragmentState {
            module: &module,
            entry_point: Some("fs"),
            compilation_options: Default::default(),
            targets: &[Some(format.into())],
        }),
        multiview_mask: None,
        cache: None,
    });
    let target = device.create_texture(&wgpu::TextureDescriptor {
        label: None,
        size: wgpu::Extent3d::default(),
        mip_level_count: 1,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format,
        usage: wgpu::TextureUsages::RENDER_ATTACHMENT,
        view_formats: &[],
    });
    let view = target.create_view(&Default::default());
    let mut encoder = device.create_command_encoder(&Default::default());
    encoder.clear_buffer(&drawn, 0, None);
    pass.encode(ctx, &mut encoder, &planes).unwrap();
    {
        let mut render = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
            color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                view: &view,
                depth_slice: None,
                resolve_target: None,
                ops: Default::default(),
            })],
            ..Default::default()
        });
        render.set_pipeline(&pipeline);
        render.set_bind_group(0, &group, &[]);
        render.set_index_buffer(indices.slice(..), wgpu::IndexFormat::Uint32);
        render.draw_indexed_indirect(pass.indirect_buffer(), 0);
    }
    ctx.queue.submit([encoder.finish()]);
    let bits = read_u32(ctx, &drawn, u64::from(n.div_ceil(32)) * 4);
    let marked: Vec<u32> = (0..n)
        .filter(|i| bits[*i as usize / 32] >> (i % 32) & 1 == 1)
        .collect();
    let expected: Vec<u32> = cpu_boxes(&ch, &skins, &placements)
        .iter()
        .enumerate()
        .filter(|(_, b)| cpu_visible(&planes, b.unwrap()).0)
        .map(|(i, _)| i as u32)
        .collect();
    assert!(!expected.is_empty() && expected.len() < n as usize / 2);
    assert_eq!(marked, expected);
}
