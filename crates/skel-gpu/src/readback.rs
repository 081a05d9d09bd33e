//! Reading GPU data back to the CPU: buffers as bytes or as any `Pod` type (skinned vertices
//! as `glam::Vec3`, timestamps as `u64`), textures as tightly packed rows. For tests, tools and
//! debugging, not the per-frame path: each call allocates a staging buffer and waits for the
//! device. The `_async` functions wait without blocking (a browser's only way); the others,
//! native only, block on them.

use crate::map_wait::MapWait;
use crate::{BONE_TEXTURE_FORMAT, GpuContext, GpuError};

/// Copies `size` bytes of `buffer` from `offset` into a fresh `Vec` and waits for the GPU
/// (blocking on [`read_buffer_async`]). `buffer` needs `COPY_SRC`; `offset` and `size` must be
/// multiples of 4.
///
/// # Errors
/// [`GpuError::Validation`] for a bad range or usage; [`GpuError::Readback`] when mapping or
/// waiting fails.
#[cfg(not(target_arch = "wasm32"))]
pub fn read_buffer(
    ctx: &GpuContext,
    buffer: &wgpu::Buffer,
    offset: u64,
    size: u64,
) -> Result<Vec<u8>, GpuError> {
    pollster::block_on(read_buffer_async(ctx, buffer, offset, size))
}

/// [`read_buffer`] waiting without blocking: on wasm32 the mapping resolves on the page's
/// event loop.
///
/// # Errors
/// As [`read_buffer`].
pub async fn read_buffer_async(
    ctx: &GpuContext,
    buffer: &wgpu::Buffer,
    offset: u64,
    size: u64,
) -> Result<Vec<u8>, GpuError> {
    let staging = ctx
        .capture_async("read_buffer", || {
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
        })
        .await?;
    map_and_read(ctx, &staging, size).await
}

/// Reads `count` values of `T` from `buffer`, starting `offset` bytes in, and waits for the GPU:
/// [`read_buffer`] with the bytes cast (copied, so any alignment of `T` is fine). `buffer`
/// needs `COPY_SRC`; `offset` and `count * size_of::<T>()` must be multiples of 4.
///
/// What a user reads skinned vertices back with, for instance: compute skinning writes tightly
/// packed `f32` triples, so
///
/// ```no_run
/// # fn f(ctx: &skel_gpu::GpuContext, out_positions: &wgpu::Buffer, n: usize)
/// # -> Result<(), skel_gpu::GpuError> {
/// let positions: Vec<glam::Vec3> = skel_gpu::readback::read_buffer_as(ctx, out_positions, 0, n)?;
/// # Ok(()) }
/// ```
///
/// # Errors
/// As [`read_buffer`].
#[cfg(not(target_arch = "wasm32"))]
pub fn read_buffer_as<T: bytemuck::Pod>(
    ctx: &GpuContext,
    buffer: &wgpu::Buffer,
    offset: u64,
    count: usize,
) -> Result<Vec<T>, GpuError> {
    let size = (count * size_of::<T>()) as u64;
    Ok(bytemuck::pod_collect_to_vec(&read_buffer(
        ctx, buffer, offset, size,
    )?))
}

/// Reads a whole texture (mip 0, layer 0) of an uncompressed colour format, rows in order with
/// the copy's 256-byte row padding removed: `width * height` texels of the format's size. The
/// texture needs `COPY_SRC`. Blocks until the GPU is done ([`read_texture_async`]).
///
/// # Errors
/// [`GpuError::Validation`] for a format with no per-texel copy size (depth-stencil,
/// block-compressed) or a missing usage; [`GpuError::Readback`].
#[cfg(not(target_arch = "wasm32"))]
pub fn read_texture(ctx: &GpuContext, texture: &wgpu::Texture) -> Result<Vec<u8>, GpuError> {
    pollster::block_on(read_texture_async(ctx, texture))
}

/// [`read_texture`] waiting without blocking.
///
/// # Errors
/// As [`read_texture`].
pub async fn read_texture_async(
    ctx: &GpuContext,
    texture: &wgpu::Texture,
) -> Result<Vec<u8>, GpuError> {
    let format = texture.format();
    let texel_bytes = match (format.block_copy_size(None), format.block_dimensions()) {
        (Some(bytes), (1, 1)) => bytes,
        _ => {
            return Err(GpuError::Validation {
                context: "read_texture",
                message: format!("{format:?} has no per-texel copy size"),
            });
        }
    };
    let size = texture.size();
    let row_bytes = size.width * texel_bytes;
    let padded_row = row_bytes.next_multiple_of(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT);
    let total = u64::from(padded_row) * u64::from(size.height);
    let staging = ctx
        .capture_async("read_texture", || {
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
        })
        .await?;
    let bytes = map_and_read(ctx, &staging, total).await?;
    let mut tight = Vec::with_capacity((row_bytes * size.height) as usize);
    for row in bytes.chunks_exact(padded_row as usize) {
        tight.extend_from_slice(&row[..row_bytes as usize]);
    }
    Ok(tight)
}

/// Reads a whole `Rgba32Float` texture (mip 0, layer 0) as its raw texel data, rows in order
/// without padding: `width * height * 4` floats (red, green, blue, alpha per texel; for a bone
/// texture, one matrix column per texel, see [`BoneTextureLayout`](crate::BoneTextureLayout)).
/// The texture needs `COPY_SRC`.
///
/// # Errors
/// [`GpuError::Validation`] for another format or a missing usage; [`GpuError::Readback`].
#[cfg(not(target_arch = "wasm32"))]
pub fn read_texture_rgba32float(
    ctx: &GpuContext,
    texture: &wgpu::Texture,
) -> Result<Vec<f32>, GpuError> {
    pollster::block_on(read_texture_rgba32float_async(ctx, texture))
}

/// [`read_texture_rgba32float`] waiting without blocking.
///
/// # Errors
/// As [`read_texture_rgba32float`].
pub async fn read_texture_rgba32float_async(
    ctx: &GpuContext,
    texture: &wgpu::Texture,
) -> Result<Vec<f32>, GpuError> {
    if texture.format() != BONE_TEXTURE_FORMAT {
        return Err(GpuError::Validation {
            context: "read_texture_rgba32float",
            message: format!("the texture is {:?}", texture.format()),
        });
    }
    Ok(bytemuck::pod_collect_to_vec(
        &read_texture_async(ctx, texture).await?,
    ))
}

/// Reads `size` bytes of a `MAP_READ` buffer once the device has mapped it.
async fn map_and_read(
    ctx: &GpuContext,
    staging: &wgpu::Buffer,
    size: u64,
) -> Result<Vec<u8>, GpuError> {
    let readback = |reason: String| GpuError::Readback { reason };
    let wait = MapWait::new();
    let done = wait.callback();
    staging.map_async(wgpu::MapMode::Read, .., done);
    wait.wait(&ctx.device)
        .await
        .map_err(readback)?
        .map_err(|e| readback(e.to_string()))?;
    let data = {
        let view = staging
            .get_mapped_range(..)
            .map_err(|e| readback(e.to_string()))?;
        view[..size as usize].to_vec()
    };
    staging.unmap();
    Ok(data)
}
