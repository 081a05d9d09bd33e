//! `create_buffers_init`: several buffers filled from one staging buffer, whatever their sizes.

use skel_gpu::{BufferInit, create_buffers_init, padded_buffer_size, readback};

use crate::common::ctx;

#[test]
fn create_buffers_init_fills_every_buffer_and_zero_pads_to_the_copy_alignment() {
    let Some(ctx) = ctx() else { return };
    let floats: Vec<f32> = (0..300).map(|i| i as f32 * 0.5).collect();
    let odd = [1u8, 2, 3, 4, 5, 6]; // 6 bytes: buffer and copy padded to 8
    let usage = wgpu::BufferUsages::VERTEX | wgpu::BufferUsages::COPY_SRC;
    let inits = [
        BufferInit {
            label: "floats",
            usage,
            contents: bytemuck::cast_slice(&floats),
        },
        BufferInit {
            label: "odd",
            usage,
            contents: &odd,
        },
        BufferInit {
            label: "empty",
            usage,
            contents: &[],
        },
    ];
    let buffers = create_buffers_init(ctx, "test buffers", &inits).unwrap();
    assert_eq!(buffers.len(), 3);
    for (buffer, init) in buffers.iter().zip(&inits) {
        assert_eq!(
            buffer.size(),
            padded_buffer_size(init.contents.len() as u64)
        );
        assert!(
            buffer
                .usage()
                .contains(usage | wgpu::BufferUsages::COPY_DST)
        );
    }
    let read = |i: usize| readback::read_buffer(ctx, &buffers[i], 0, buffers[i].size()).unwrap();
    assert_eq!(read(0), bytemuck::cast_slice::<f32, u8>(&floats));
    assert_eq!(read(1), [1, 2, 3, 4, 5, 6, 0, 0]);
    assert_eq!(read(2), [0, 0, 0, 0]);
}
