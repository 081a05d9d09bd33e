//! `CrowdDispatch` writes each skinning chunk the grid the CPU's `workgroups_for` would give
//! for its share of the visible list's count: chunks before, across and past the count, a
//! count of zero, a mesh without vertices, and a chunk larger than one dimension allows.

use skel_gpu::{CROWD_WORKGROUP_SIZE, CrowdDispatch, DISPATCH_ARGS_BYTES, readback};

use crate::common::ctx;

/// The CPU's grid (`CrowdSkinning::workgroups_for`) for a chunk's share of `visible`.
fn expected(max: u32, (vertices, first, slots): (u32, u32, u32), visible: u32) -> [u32; 3] {
    let n = visible.saturating_sub(first).min(slots);
    if n == 0 || vertices == 0 {
        return [0; 3];
    }
    let y = n.min(max);
    [vertices.div_ceil(CROWD_WORKGROUP_SIZE), y, n.div_ceil(y)]
}

#[test]
fn dispatch_arguments_cover_the_visible_slots_of_each_chunk() {
    let Some(ctx) = ctx() else {
        return;
    };
    let max = ctx.limits.max_compute_workgroups_per_dimension;
    // Two meshes of three chunks of 1 000 slots each, one mesh without vertices, and one
    // chunk wider than a dimension.
    let chunks = [
        (3_000, 0, 1_000),
        (3_000, 1_000, 1_000),
        (3_000, 2_000, 1_000),
        (257, 0, 1_000),
        (257, 1_000, 1_000),
        (257, 2_000, 1_000),
        (0, 0, 3_000),
        (100, 0, max + 500),
    ];
    let list = ctx.device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("test list"),
        size: 4 * 64,
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let dispatch = CrowdDispatch::new(ctx, &list, &chunks);
    for visible in [
        0,
        1,
        999,
        1_000,
        1_500,
        2_999,
        3_000,
        10_000,
        max + 7,
        max + 600,
    ] {
        ctx.queue
            .write_buffer(&list, 0, bytemuck::bytes_of(&visible));
        let mut encoder = ctx.device.create_command_encoder(&Default::default());
        dispatch.encode(&mut encoder);
        ctx.queue.submit([encoder.finish()]);
        let args: Vec<u32> =
            readback::read_buffer_as(ctx, dispatch.args_buffer(), 0, 3 * chunks.len()).unwrap();
        for (i, &chunk) in chunks.iter().enumerate() {
            assert_eq!(
                args[3 * i..3 * i + 3],
                expected(max, chunk, visible),
                "chunk {i} {chunk:?}, {visible} visible"
            );
        }
    }
    assert_eq!(DISPATCH_ARGS_BYTES, 12);
}
