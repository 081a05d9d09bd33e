//! Reading GPU data back to the CPU, for tests and debugging tools (blocking).

use std::sync::mpsc;

use crate::{BONE_TEXEL_BYTES, GpuContext, GpuError};

/// Copies `size` bytes of `buffer` from `offset` into a fresh `Vec` and waits for the GPU.
/// `buffer` needs `COPY_SRC`; `offset` and `size` must be multiples of 4.
///
/// # Errors
/// [`GpuError::Validation`] for a bad range or usage; [`GpuError::Readback`] when mapping or
/// waiting fails.
pub fn read_buffer(
    ctx: &GpuContext,
    buffer: &wgpu::Buffer,
    offset: u64,
    size: u64,
) -> Result<Vec<u8>, GpuError> {
    let staging = ctx.capture("read_buffer", || {
        let staging = ctx.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("skel readback"),
            size: size.max(4),
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let mut encoder = ctx
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor::default());
        encoder.copy_buffer_to_buffer(buffer, offset, &staging, 0, size);
        ctx.queue.submit([encoder.finish()]);
        staging
    })?;
    map_and_read(ctx, &staging, size)
}

/// Reads a whole `Rgba32Float` texture (mip 0, layer 0) as floats, rows in order without padding:
/// `width * height * 4` floats. The texture needs `COPY_SRC`.
///
/// # Errors
/// [`GpuError::Validation`] for a wrong format or usage; [`GpuError::Readback`].
pub fn read_texture_rgba32float(
    ctx: &GpuContext,
    texture: &wgpu::Texture,
) -> Result<Vec<f32>, GpuError> {
    let size = texture.size();
    let row_bytes = size.width * BONE_TEXEL_BYTES;
    let padded_row = row_bytes.next_multiple_of(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT);
    let total = u64::from(padded_row) * u64::from(size.height);
    let staging = ctx.capture("read_texture", || {
        let staging = ctx.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("skel texture readback"),
            size: total,
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let mut encoder = ctx
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor::default());
        encoder.copy_texture_to_buffer(
            texture.as_image_copy(),
            wgpu::TexelCopyBufferInfo {
                buffer: &staging,
                layout: wgpu::TexelCopyBufferLayout {
                    offset: 0,
                    bytes_per_row: Some(padded_row),
                    rows_per_image: Some(size.height),
                },
            },
            wgpu::Extent3d {
                depth_or_array_layers: 1,
                ..size
            },
        );
        ctx.queue.submit([encoder.finish()]);
        staging
    })?;
    let bytes = map_and_read(ctx, &staging, total)?;
    let mut floats = Vec::with_capacity((row_bytes / 4 * size.height) as usize);
    for row in bytes.chunks_exact(padded_row as usize) {
        floats.extend_from_slice(bytemuck::cast_slice(&row[..row_bytes as usize]));
    }
    Ok(floats)
}

/// Reads `size` bytes of a `MAP_READ` buffer.
fn map_and_read(ctx: &GpuContext, staging: &wgpu::Buffer, size: u64) -> Result<Vec<u8>, GpuError> {
    let (sender, receiver) = mpsc::channel();
    staging.map_async(wgpu::MapMode::Read, .., move |result| {
        // The receiver outlives the poll below; a failed send only means it gave up.
        let _ = sender.send(result);
    });
    ctx.device
        .poll(wgpu::PollType::wait_indefinitely())
        .map_err(|e| GpuError::Readback {
            reason: e.to_string(),
        })?;
    receiver
        .recv()
        .map_err(|e| GpuError::Readback {
            reason: e.to_string(),
        })?
        .map_err(|e| GpuError::Readback {
            reason: e.to_string(),
        })?;
    let data = {
        let view = staging
            .get_mapped_range(..)
            .map_err(|e| GpuError::Readback {
                reason: e.to_string(),
            })?;
        view[..size as usize].to_vec()
    };
    staging.unmap();
    Ok(data)
}
