//! Buffer sizes: at least 4 bytes, as the seed pads them, and rounded up to the copy alignment.

use crate::staging::{Contents, InitialUpload};
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

/// One buffer of [`create_buffers_init`]: its label, usage and initial contents.
#[derive(Debug, Clone, Copy)]
pub struct BufferInit<'a> {
    /// The buffer's debug label.
    pub label: &'static str,
    /// Its usage; `COPY_DST` is added (the contents are copied in).
    pub usage: wgpu::BufferUsages,
    /// Its initial contents; the buffer is [`padded_buffer_size`] of their length, zero-padded.
    pub contents: &'a [u8],
}

/// Creates `buffers` and fills them all from one staging buffer mapped at creation, in one
/// submission: what [`create_skeleton`](crate::create_skeleton) and
/// [`create_morph`](crate::create_morph) do for their own buffers.
///
/// Prefer it to one `DeviceExt::create_buffer_init` per buffer when creating many meshes that
/// are then updated every frame with `Queue::write_buffer`/`write_texture`: each
/// `create_buffer_init` leaves a freed staging chunk between resident allocations where staging
/// and resident memory share a memory type (lavapipe, unified-memory GPUs), and wgpu's
/// allocator searches all of those on every later upload. This leaves at most one per call.
///
/// # Errors
/// [`GpuError::MissingLimit`] (`max_buffer_size`) for a buffer or the staging buffer;
/// [`GpuError::Validation`], [`GpuError::OutOfMemory`] from the device, tagged with `label`.
pub fn create_buffers_init(
    ctx: &GpuContext,
    label: &'static str,
    buffers: &[BufferInit<'_>],
) -> Result<Vec<wgpu::Buffer>, GpuError> {
    let contents: Vec<Contents<'_>> = buffers
        .iter()
        .map(|b| Contents::Bytes(b.contents))
        .collect();
    ctx.capture(label, || {
        let mut upload = InitialUpload::new(label, &contents);
        let mut created = Vec::with_capacity(buffers.len());
        for (i, b) in buffers.iter().enumerate() {
            let buffer = create_buffer_for(
                ctx,
                b.label,
                b.usage | wgpu::BufferUsages::COPY_DST,
                b.contents.len(),
            )?;
            upload.copy_to_buffer(i, &buffer);
            created.push(buffer);
        }
        upload.submit(ctx)?;
        Ok(created)
    })?
}

/// Creates an empty buffer with `usage` for `len` bytes of contents (at least
/// [`MIN_BUFFER_SIZE`]), after checking `max_buffer_size`. Fill it through
/// [`InitialUpload`](crate::staging::InitialUpload), which is why it is not mapped at creation
/// (see the `staging` module). Must run inside [`GpuContext::capture`] for wgpu's own validation
/// to become an error.
pub(crate) fn create_buffer_for(
    ctx: &GpuContext,
    label: &'static str,
    usage: wgpu::BufferUsages,
    len: usize,
) -> Result<wgpu::Buffer, GpuError> {
    let size = padded_buffer_size(len as u64);
    ctx.require_limit("max_buffer_size", size, |l| l.max_buffer_size)?;
    Ok(ctx.device.create_buffer(&wgpu::BufferDescriptor {
        label: Some(label),
        size,
        usage,
        mapped_at_creation: false,
    }))
}

/// Creates a buffer with `usage`, maps it at creation, copies `contents` in and unmaps it.
/// Checks `max_buffer_size` first. For one-off buffers (compute bindings); create calls that
/// fill several resources use [`create_buffer_for`] and one staging buffer instead. Must run
/// inside [`GpuContext::capture`] for wgpu's own validation to become an error.
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

/// The bind group of a skinning dispatch: a uniform buffer of `params` at binding 0 (returned
/// with the group, which the bindings keep beside it), and each storage entry `(binding, buffer, bytes the shader reads)` bound at offset 0 with
/// exactly that size (at least 4), so that the shader's `arrayLength` counts the vertices bound,
/// not the buffer. Used by [`ComputeSkinning`](crate::ComputeSkinning) and
/// [`CrowdSkinning`](crate::CrowdSkinning). Must run inside [`GpuContext::capture`].
///
/// # Errors
/// [`GpuError::MissingLimit`] / [`GpuError::Validation`] from the params buffer.
pub(crate) fn params_bind_group(
    ctx: &GpuContext,
    labels: (&'static str, &'static str),
    layout: &wgpu::BindGroupLayout,
    params: &[u8],
    entries: &[(u32, &wgpu::Buffer, u64)],
) -> Result<(wgpu::Buffer, wgpu::BindGroup), GpuError> {
    let ranged: Vec<(u32, &wgpu::Buffer, u64, u64)> = entries
        .iter()
        .map(|&(binding, buffer, needed)| (binding, buffer, 0, needed))
        .collect();
    params_bind_group_ranges(ctx, labels, layout, params, &ranged)
}

/// [`params_bind_group`] with each storage entry `(binding, buffer, offset, bytes)` bound at its
/// own offset (a chunk of a larger buffer). Must run inside [`GpuContext::capture`].
///
/// # Errors
/// As [`params_bind_group`].
pub(crate) fn params_bind_group_ranges(
    ctx: &GpuContext,
    (params_label, group_label): (&'static str, &'static str),
    layout: &wgpu::BindGroupLayout,
    params: &[u8],
    entries: &[(u32, &wgpu::Buffer, u64, u64)],
) -> Result<(wgpu::Buffer, wgpu::BindGroup), GpuError> {
    let params = create_filled_buffer(ctx, params_label, wgpu::BufferUsages::UNIFORM, params)?;
    let mut bind_entries = Vec::with_capacity(entries.len() + 1);
    bind_entries.push(wgpu::BindGroupEntry {
        binding: 0,
        resource: params.as_entire_binding(),
    });
    bind_entries.extend(entries.iter().map(|&(binding, buffer, offset, needed)| {
        wgpu::BindGroupEntry {
            binding,
            resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                buffer,
                offset,
                size: std::num::NonZeroU64::new(needed.max(4)),
            }),
        }
    }));
    let group = ctx.device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some(group_label),
        layout,
        entries: &bind_entries,
    });
    Ok((params, group))
}
