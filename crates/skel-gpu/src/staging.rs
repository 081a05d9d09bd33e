//! Initial contents of the resources one create call makes, copied from one staging buffer.
//!
//! Why not `mapped_at_creation` on each buffer and a `write_texture` for the bone texture, as
//! before: wgpu implements both with a temporary staging buffer per resource, allocated right
//! after the resource by wgpu-hal's allocator (gpu-allocator). Once freed, each one left a free
//! chunk between two resident allocations, and where resident and staging memory share one
//! memory type (lavapipe, and unified-memory devices generally) those chunks stay: five per
//! character with a skeleton and morph targets. gpu-allocator's free list searches *every*
//! free chunk of a block for the best fit on each allocation, and every per-frame
//! `write_buffer`/`write_texture` allocates a staging buffer, so each upload cost time
//! proportional to the number of resources created before it: `skel bench --characters
//! 1000` on lavapipe spent 160–240 µs per character per frame uploading, 86 % of the whole run
//! in that search (perf). The 16-byte morph-weight upload suffered most (~3× a bone upload,
//! `skel bench gpu upload --targets 3`): it fits every hole, so each one is examined in full.
//!
//! Here a create call makes its resources empty, then stages all their contents in one buffer
//! that is itself mapped at creation (`MAP_WRITE | COPY_SRC`, which wgpu maps directly: the
//! seed's "data is copied via mappedAtCreation", once per call) and copies them out in one
//! submission. That is one temporary allocation per call, placed after the call's resources,
//! so once freed it joins the free space behind them unless a later call has allocated there
//! meanwhile: the allocator report shows 0.1–0.4 gaps per character instead of 5 (how many
//! depends on when the GPU finishes each copy, so it varies between runs), and the same bench
//! uploads in 8–36 µs per character.

use glam::Mat4;

use crate::bone_texture::{copy_staged_bone_matrices, stage_bone_matrices, staged_bone_bytes};
use crate::{BoneTextureLayout, GpuContext, GpuError};

/// Offset alignment of every region in the staging buffer: `COPY_BYTES_PER_ROW_ALIGNMENT`
/// (256), which satisfies buffer copies (4) and the bone texture's texel size (16) alike.
const REGION_ALIGNMENT: u64 = wgpu::COPY_BYTES_PER_ROW_ALIGNMENT as u64;

/// The contents of one resource.
pub(crate) enum Contents<'a> {
    /// The start of a buffer (nothing is copied for none). The copy is rounded up to 4 bytes
    /// with zeros, so the buffer must be [`padded_buffer_size`](crate::padded_buffer_size) of
    /// it.
    Bytes(&'a [u8]),
    /// A bone texture laid out as the layout says: `bone_count` matrices.
    BoneMatrices(BoneTextureLayout, &'a [Mat4]),
}

/// Where one resource's contents sit in the staging buffer.
enum Region {
    Bytes {
        offset: u64,
        len: u64,
    },
    BoneMatrices {
        offset: u64,
        layout: BoneTextureLayout,
    },
}

/// Where a region goes.
enum Destination {
    Buffer(wgpu::Buffer),
    BoneTexture(wgpu::Texture),
    /// A whole texture whose rows are `bytes_per_row` apart in the region.
    Texture {
        texture: wgpu::Texture,
        bytes_per_row: u32,
    },
}

/// One create call's initial contents and the resources they go to (see the module docs).
pub(crate) struct InitialUpload<'a> {
    label: &'static str,
    contents: &'a [Contents<'a>],
    regions: Vec<Region>,
    size: u64,
    copies: Vec<(usize, Destination)>,
}

impl<'a> InitialUpload<'a> {
    /// Plans where `contents` go in the staging buffer (region `i` holds `contents[i]`).
    pub(crate) fn new(label: &'static str, contents: &'a [Contents<'a>]) -> Self {
        let mut size = 0;
        let regions = contents
            .iter()
            .map(|c| {
                let offset = size;
                let region = match c {
                    Contents::Bytes(bytes) => Region::Bytes {
                        offset,
                        len: (bytes.len() as u64).next_multiple_of(wgpu::COPY_BUFFER_ALIGNMENT),
                    },
                    Contents::BoneMatrices(layout, _) => Region::BoneMatrices {
                        offset,
                        layout: *layout,
                    },
                };
                size = (offset + region.len()).next_multiple_of(REGION_ALIGNMENT);
                region
            })
            .collect();
        Self {
            label,
            contents,
            regions,
            size: size.max(wgpu::COPY_BUFFER_ALIGNMENT),
            copies: Vec::with_capacity(contents.len()),
        }
    }

    /// Region `region` (a [`Contents::Bytes`]) goes to the start of `dst`.
    pub(crate) fn copy_to_buffer(&mut self, region: usize, dst: &wgpu::Buffer) {
        self.copies.push((region, Destination::Buffer(dst.clone())));
    }

    /// Region `region` (a [`Contents::BoneMatrices`]) goes into the bone texture `dst`.
    pub(crate) fn copy_to_bone_texture(&mut self, region: usize, dst: &wgpu::Texture) {
        self.copies
            .push((region, Destination::BoneTexture(dst.clone())));
    }

    /// Region `region` (a [`Contents::Bytes`] of the whole texture, rows `bytes_per_row` apart,
    /// a multiple of `COPY_BYTES_PER_ROW_ALIGNMENT`) fills `dst`.
    pub(crate) fn copy_to_texture(
        &mut self,
        region: usize,
        dst: &wgpu::Texture,
        bytes_per_row: u32,
    ) {
        self.copies.push((
            region,
            Destination::Texture {
                texture: dst.clone(),
                bytes_per_row,
            },
        ));
    }

    /// Allocates the staging buffer mapped at creation (after the resources), writes every
    /// region, unmaps it and submits the copies. The staging buffer is released once they have
    /// run. Must run inside [`GpuContext::capture`] for wgpu's own validation to become an
    /// error.
    ///
    /// # Errors
    /// [`GpuError::MissingLimit`] (`max_buffer_size`) when the staging buffer would be too
    /// large; [`GpuError::Validation`] when it cannot be mapped.
    pub(crate) fn submit(self, ctx: &GpuContext) -> Result<(), GpuError> {
        ctx.require_limit("max_buffer_size", self.size, |l| l.max_buffer_size)?;
        let staging = ctx.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some(self.label),
            size: self.size,
            usage: wgpu::BufferUsages::MAP_WRITE | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: true,
        });
        {
            let mut view = staging
                .get_mapped_range_mut(..)
                .map_err(|e| GpuError::Validation {
                    context: self.label,
                    message: e.to_string(),
                })?;
            for (region, contents) in self.regions.iter().zip(self.contents) {
                let start = to_usize(region.offset());
                let range = start..start + to_usize(region.len());
                match contents {
                    // Mapped-at-creation memory starts zeroed: the rounding stays 0.
                    Contents::Bytes(bytes) => view
                        .slice(start..start + bytes.len())
                        .copy_from_slice(bytes),
                    Contents::BoneMatrices(layout, matrices) => {
                        stage_bone_matrices(layout, matrices, view.slice(range));
                    }
                }
            }
        }
        staging.unmap();
        let mut encoder = ctx
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some(self.label),
            });
        for (region, dst) in &self.copies {
            match (self.regions.get(*region), dst) {
                (Some(&Region::Bytes { offset, len }), Destination::Buffer(dst)) if len > 0 => {
                    encoder.copy_buffer_to_buffer(&staging, offset, dst, 0, Some(len));
                }
                (Some(Region::BoneMatrices { offset, layout }), Destination::BoneTexture(dst)) => {
                    copy_staged_bone_matrices(&mut encoder, &staging, *offset, dst, layout);
                }
                (
                    Some(&Region::Bytes { offset, .. }),
                    Destination::Texture {
                        texture,
                        bytes_per_row,
                    },
                ) => {
                    let size = texture.size();
                    encoder.copy_buffer_to_texture(
                        wgpu::TexelCopyBufferInfo {
                            buffer: &staging,
                            layout: wgpu::TexelCopyBufferLayout {
                                offset,
                                bytes_per_row: Some(*bytes_per_row),
                                rows_per_image: Some(size.height),
                            },
                        },
                        texture.as_image_copy(),
                        size,
                    );
                }
                _ => {}
            }
        }
        ctx.queue.submit([encoder.finish()]);
        Ok(())
    }
}

impl Region {
    fn offset(&self) -> u64 {
        match self {
            Self::Bytes { offset, .. } | Self::BoneMatrices { offset, .. } => *offset,
        }
    }

    fn len(&self) -> u64 {
        match self {
            Self::Bytes { len, .. } => *len,
            Self::BoneMatrices { layout, .. } => staged_bone_bytes(layout),
        }
    }
}

/// A staging offset as an index: the staging buffer was created at this size, so it fits.
fn to_usize(offset: u64) -> usize {
    usize::try_from(offset).unwrap_or(usize::MAX)
}
