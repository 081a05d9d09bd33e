//! Buffers filled at creation, the seed's way: `mapped_at_creation`, at least 4 bytes.

use crate::{GpuContext, GpuError};

/// WebGPU refuses zero-sized buffers; the seed pads every buffer to at least this many bytes.
pub const MIN_BUFFER_SIZE: u64 = 4;

/// The size a buffer holding `len` bytes gets: rounded up to `COPY_BUFFER_ALIGNMENT` (4) and at
/// least [`MIN_BUFFER_SIZE`].
#[must_use]
pub fn padded_buffer_size(len: u64) -> u64 {
    len.next_multiple_of(wgpu::COPY_BUFFER_ALIGNMENT)
        .max(MIN_BUFFER_SIZE)
}

/// Creates a buffer with `usage`, maps it at creation, copies `contents` in and unmaps it.
/// Checks `max_buffer_size` first. Must run inside [`GpuContext::capture`] for wgpu's own
/// validation to become an error.
pub(crate) fn create_filled_buffer(
    ctx: &GpuContext,
    label: &'static str,
    usage: wgpu::BufferUsages,
    contents: &[u8],
) -> Result<wgpu::Buffer, GpuError> {
    let size = padded_buffer_size(contents.len() as u64);
    ctx.require_limit("max_buffer_size", size, |l| l.max_buffer_size)?;
    let buffer = ctx.device.create_buffer(&wgpu::BufferDescriptor {
        label: Some(label),
        size,
        usage,
        mapped_at_creation: true,
    });
    if !contents.is_empty() {
        let mut view = buffer
            .get_mapped_range_mut(..)
            .map_err(|e| GpuError::Validation {
                context: label,
                message: e.to_string(),
            })?;
        view.slice(..contents.len()).copy_from_slice(contents);
    }
    buffer.unmap();
    Ok(buffer)
}
