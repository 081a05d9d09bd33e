//! Bone counts 1, 64, 2048 and 5000, on the shared device (the adapter's full texture width:
//! 4096 bones per row on lavapipe) and on a device with WebGPU's default limits (2048 bones per
//! row, so 5000 bones wrap into three rows, the last one partial), and on a device whose rows
//! are 1000 texels (16 000 bytes, not a multiple of 256: the initial copy's staging rows are
//! padded, see `staging.rs`). The texture is read back
//! texel by texel against the documented addressing, and every bone matrix is fetched through
//! the WGSL fragment's `skel_bone_matrix` in a real compute shader.

use skel_gpu::{
    BoneTextureLayout, FragmentBindings, GpuContext, Influences, JointIndices, ShaderFragment,
    SkeletonGpu, SkinningVariant, create_skeleton,
};

use crate::common::{
    ctx, default_limits_ctx, floats, narrow_rows_ctx, output_buffer, read_f32, tagged_bone_matrices,
};

const BONE_COUNTS: [u32; 4] = [1, 64, 2048, 5000];

/// Dumps `skel_bone_matrix(b)` for every bone into a storage buffer, 16 floats per bone.
const DUMP_WGSL: &str = r"
@group(0) @binding(0) var<storage, read_write> dump: array<f32>;
@group(0) @binding(1) var<uniform> bone_count: vec4<u32>;

@compute @workgroup_size(64)
fn dump_bones(@builtin(global_invocation_id) id: vec3<u32>) {
    let bone = id.x;
    if (bone >= bone_count.x) {
        return;
    }
    let m = skel_bone_matrix(bone);
    for (var c = 0u; c < 4u; c += 1u) {
        for (var r = 0u; r < 4u; r += 1u) {
            dump[bone * 16u + c * 4u + r] = m[c][r];
        }
    }
}
";

fn dump_through_shader(ctx: &GpuContext, skeleton: &SkeletonGpu) -> Vec<f32> {
    let fragment = ShaderFragment::new(
        SkinningVariant {
            influences: Influences::Four,
            morph: false,
        },
        FragmentBindings {
            group: 1,
            first_binding: 0,
            first_location: 0,
        },
    );
    let count = skeleton.bone_count();
    let out = output_buffer(ctx, u64::from(count) * 64);
    let uniform = ctx.device.create_buffer(&wgpu::BufferDescriptor {
        label: None,
        size: 16,
        usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    ctx.queue
        .write_buffer(&uniform, 0, bytemuck::cast_slice(&[count, 0, 0, 0]));
    let fragment_layout = fragment
        .create_bind_group_layout(ctx, wgpu::ShaderStages::COMPUTE)
        .unwrap();
    let fragment_group = fragment
        .create_bind_group(ctx, &fragment_layout, Some(skeleton), None)
        .unwrap();
    ctx.capture("dump bones", || {
        let module = ctx
            .device
            .create_shader_module(wgpu::ShaderModuleDescriptor {
                label: None,
                source: wgpu::ShaderSource::Wgsl(fragment.compose(DUMP_WGSL).into()),
            });
        let buffer_entry = |binding, ty| wgpu::BindGroupLayoutEntry {
            binding,
            visibility: wgpu::ShaderStages::COMPUTE,
            ty: wgpu::BindingType::Buffer {
                ty,
                has_dynamic_offset: false,
                min_binding_size: None,
            },
            count: None,
        };
        let layout0 = ctx
            .device
            .create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
                label: None,
                entries: &[
                    buffer_entry(0, wgpu::BufferBindingType::Storage { read_only: false }),
                    buffer_entry(1, wgpu::BufferBindingType::Uniform),
                ],
            });
        let pipeline_layout = ctx
            .device
            .create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                label: None,
                bind_group_layouts: &[Some(&layout0), Some(&fragment_layout)],
                immediate_size: 0,
            });
        let pipeline = ctx
            .device
            .create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                label: None,
                layout: Some(&pipeline_layout),
                module: &module,
                entry_point: Some("dump_bones"),
                compilation_options: Default::default(),
                cache: None,
            });
        let group0 = ctx.device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: None,
            layout: &layout0,
            entries: &[
                wgpu::BindGroupEntry {
                    binding: 0,
                    resource: out.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 1,
                    resource: uniform.as_entire_binding(),
                },
            ],
        });
        let mut encoder = ctx.device.create_command_encoder(&Default::default());
        {
            let mut pass = encoder.begin_compute_pass(&Default::default());
            pass.set_pipeline(&pipeline);
            pass.set_bind_group(0, &group0, &[]);
            pass.set_bind_group(1, &fragment_group, &[]);
            pass.dispatch_workgroups(count.div_ceil(64), 1, 1);
        }
        ctx.queue.submit([encoder.finish()]);
    })
    .unwrap();
    read_f32(ctx, &out, u64::from(count) * 64)
}

fn check_bone_count(ctx: &GpuContext, count: u32) {
    let bones = tagged_bone_matrices(count);
    // One vertex per bone, fully weighted to it: the joint range check sees every index.
    let joints: Vec<u32> = (0..count).flat_map(|b| [b, 0, 0, 0]).collect();
    let weights: Vec<f32> = (0..count).flat_map(|_| [1.0, 0.0, 0.0, 0.0]).collect();
    let skeleton = create_skeleton(
        ctx,
        JointIndices::U32(&joints),
        &weights,
        count,
        &bones,
        None,
        None,
    )
    .unwrap();
    let layout = skeleton.bone_texture_layout();
    let max = ctx.limits.max_texture_dimension_2d;
    assert_eq!(layout, BoneTextureLayout::new(count, max).unwrap());
    let size = skeleton.bone_texture_size();
    assert_eq!((size.width, size.height), (layout.width, layout.height));
    assert!(layout.width <= max && layout.width.is_multiple_of(4));
    if count * 4 <= max {
        assert_eq!(
            (layout.width, layout.height),
            (count * 4, 1),
            "the seed's single row"
        );
    } else {
        assert_eq!(layout.height, (count * 4).div_ceil(layout.width));
    }

    // Texel (x, y) of the readback holds bone b's column c exactly where `texel` says.
    let texels = skeleton.read_bone_texture(ctx).unwrap();
    assert_eq!(texels.len(), (layout.width * layout.height * 4) as usize);
    for b in 0..count {
        for c in 0..4 {
            let (x, y) = layout.texel(b, c);
            let at = ((y * layout.width + x) * 4) as usize;
            let want = &floats(&bones)[(b * 16 + c * 4) as usize..][..4];
            assert_eq!(
                &texels[at..at + 4],
                want,
                "bone {b} column {c} at texel ({x}, {y})"
            );
        }
    }
    // And the WGSL fragment finds every bone.
    let dumped = dump_through_shader(ctx, &skeleton);
    for b in 0..count as usize {
        assert_eq!(
            &dumped[b * 16..b * 16 + 16],
            &floats(&bones)[b * 16..b * 16 + 16],
            "shader fetch of bone {b}"
        );
    }
    eprintln!(
        "bone count {count}: texture {}x{} (max_texture_dimension_2d {max}), texels and shader fetch match",
        layout.width, layout.height
    );
}

#[test]
fn bone_counts_on_the_adapter_limits() {
    let Some(ctx) = ctx() else { return };
    for count in BONE_COUNTS {
        check_bone_count(ctx, count);
    }
}

#[test]
fn bone_counts_on_webgpu_default_limits_wrap_into_rows() {
    let Some(ctx) = default_limits_ctx() else {
        return;
    };
    assert_eq!(ctx.limits.max_texture_dimension_2d, 8192);
    for count in BONE_COUNTS {
        check_bone_count(ctx, count);
    }
    let layout = BoneTextureLayout::new(5000, 8192).unwrap();
    assert_eq!((layout.width, layout.height), (8192, 3));
}

#[test]
fn bone_counts_on_rows_that_are_not_a_multiple_of_256_bytes() {
    // The initial contents are copied from a staging buffer, whose rows must start 256 bytes
    // apart: 16 000-byte rows are staged 16 128 bytes apart. 251 bones wrap into a second,
    // one-bone row; 1000 bones fill four rows.
    let Some(ctx) = narrow_rows_ctx() else {
        return;
    };
    assert_eq!(ctx.limits.max_texture_dimension_2d, 1000);
    for count in [1, 64, 250, 251, 1000] {
        check_bone_count(ctx, count);
    }
}
