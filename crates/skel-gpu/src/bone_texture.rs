//! Where each bone lives in the bone texture, and how matrices get there.
//!
//! The bone texture is `rgba32float`, 4 texels per bone (one per matrix column, column-major
//! like glTF and WGSL). The seed lays it out as one row `bone_count * 4` texels wide; a device
//! caps a row at `max_texture_dimension_2d` texels (2048 bones at WebGPU's default 8192), so
//! wider skeletons wrap into more rows:
//!
//! - `width  = min(bone_count * 4, max_texture_dimension_2d rounded down to a multiple of 4)`
//! - `height = ceil(bone_count * 4 / width)`
//! - texel of (bone, col) = `((bone*4 + col) % width, (bone*4 + col) / width)`
//!
//! Because `width` is a multiple of 4, a bone's 4 texels never straddle two rows. Up to
//! `width / 4` bones this is exactly the seed's `[bone_count * 4, 1]` texture and its
//! `textureLoad(boneTex, vec2<i32>(boneIdx * 4 + col, 0), 0)`; the WGSL reads `width` from
//! `textureDimensions`, so shaders need no uniform for it.

use glam::Mat4;

use crate::GpuError;

/// The texture format of bone textures: four `f32` per texel, one matrix column.
pub const BONE_TEXTURE_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba32Float;

/// Bytes per texel of [`BONE_TEXTURE_FORMAT`].
pub const BONE_TEXEL_BYTES: u32 = 16;

/// The shape of a bone texture for a bone count on a device (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct BoneTextureLayout {
    /// Bones stored.
    pub bone_count: u32,
    /// Texels per row, a multiple of 4.
    pub width: u32,
    /// Rows.
    pub height: u32,
}

impl BoneTextureLayout {
    /// The layout for `bone_count` bones under `max_texture_dimension_2d`.
    ///
    /// # Errors
    /// [`GpuError::NoBones`] for 0 bones; [`GpuError::TooManyBones`] when even
    /// `max_texture_dimension_2d` rows cannot hold them (or the limit is below 4).
    pub fn new(bone_count: u32, max_texture_dimension_2d: u32) -> Result<Self, GpuError> {
        if bone_count == 0 {
            return Err(GpuError::NoBones);
        }
        let max_width = max_texture_dimension_2d / 4 * 4;
        let max_bones = u64::from(max_width / 4) * u64::from(max_texture_dimension_2d);
        let too_many = || GpuError::TooManyBones {
            got: bone_count,
            max: max_bones,
            max_texture_dimension_2d,
        };
        if u64::from(bone_count) > max_bones {
            return Err(too_many());
        }
        let texels = u64::from(bone_count) * 4;
        let width = texels.min(u64::from(max_width));
        let height = texels.div_ceil(width);
        Ok(Self {
            bone_count,
            width: u32::try_from(width).map_err(|_| too_many())?,
            height: u32::try_from(height).map_err(|_| too_many())?,
        })
    }

    /// Bones per full row.
    #[must_use]
    pub fn bones_per_row(&self) -> u32 {
        self.width / 4
    }

    /// The texel holding column `col` (0..4) of `bone`: `(x, y)`.
    #[must_use]
    pub fn texel(&self, bone: u32, col: u32) -> (u32, u32) {
        let index = bone * 4 + col;
        (index % self.width, index / self.width)
    }

    /// The texture's size.
    #[must_use]
    pub fn extent(&self) -> wgpu::Extent3d {
        wgpu::Extent3d {
            width: self.width,
            height: self.height,
            depth_or_array_layers: 1,
        }
    }

    /// Rows completely filled with bones (all but a partial last row).
    fn full_rows(&self) -> u32 {
        self.bone_count / self.bones_per_row()
    }

    /// Bones in the partial last row (0 when every row is full).
    fn bones_in_last_row(&self) -> u32 {
        self.bone_count % self.bones_per_row()
    }
}

impl BoneTextureLayout {
    /// Creates an empty bone texture of this layout's size ([`extent`](Self::extent)), format
    /// [`BONE_TEXTURE_FORMAT`], usage `TEXTURE_BINDING | COPY_DST` (the seed's) plus
    /// `COPY_SRC`, so that tools and tests can read back what was uploaded. Fill it with
    /// [`write_all`](Self::write_all) or [`write_bones`](Self::write_bones).
    #[must_use]
    pub fn create_texture(&self, device: &wgpu::Device) -> wgpu::Texture {
        device.create_texture(&wgpu::TextureDescriptor {
            label: Some("skel bone texture"),
            size: self.extent(),
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: BONE_TEXTURE_FORMAT,
            usage: wgpu::TextureUsages::TEXTURE_BINDING
                | wgpu::TextureUsages::COPY_DST
                | wgpu::TextureUsages::COPY_SRC,
            view_formats: &[],
        })
    }

    /// Writes `matrices` into `texture` (one of this layout) as every bone from bone 0: the
    /// full rows with one `Queue::write_texture`, the partial last row with another. Allocates
    /// nothing. Matrices past [`bone_count`](Self::bone_count) are not written; fewer leave
    /// the rest of the texture as it was. Returns the `write_texture` calls made (0 to 2).
    ///
    /// This is what every skeleton upload does ([`SkeletonGpu::write_bone_matrices`](crate::SkeletonGpu::write_bone_matrices),
    /// [`GpuPoseSink`](crate::GpuPoseSink)).
    pub fn write_all(
        &self,
        queue: &wgpu::Queue,
        texture: &wgpu::Texture,
        matrices: &[Mat4],
    ) -> u32 {
        let per_row = self.bones_per_row();
        let count = self.clamped(0, matrices.len());
        let full_rows = count / per_row;
        let mut calls = 0;
        if full_rows > 0 {
            let end = (full_rows * per_row) as usize;
            write_rows(
                queue,
                texture,
                (0, 0),
                self.width,
                full_rows,
                &matrices[..end],
            );
            calls += 1;
        }
        let written = full_rows * per_row;
        calls
            + self.write_bones(
                queue,
                texture,
                written,
                &matrices[written as usize..count as usize],
            )
    }

    /// Writes `matrices` into `texture` (one of this layout) as bones `first..first + len`,
    /// one `Queue::write_texture` per texture row they touch (a run of bones that straddles a
    /// row takes two). Allocates nothing. Matrices past [`bone_count`](Self::bone_count) are
    /// not written. Returns the `write_texture` calls made.
    pub fn write_bones(
        &self,
        queue: &wgpu::Queue,
        texture: &wgpu::Texture,
        first: u32,
        matrices: &[Mat4],
    ) -> u32 {
        let per_row = self.bones_per_row();
        let end = first + self.clamped(first, matrices.len());
        let mut bone = first;
        let mut calls = 0;
        while bone < end {
            let run = (per_row - bone % per_row).min(end - bone);
            let from = (bone - first) as usize;
            let texel = self.texel(bone, 0);
            write_rows(
                queue,
                texture,
                texel,
                run * 4,
                1,
                &matrices[from..from + run as usize],
            );
            bone += run;
            calls += 1;
        }
        calls
    }

    /// How many of `len` matrices starting at bone `first` fit below `bone_count`.
    fn clamped(&self, first: u32, len: usize) -> u32 {
        let room = self.bone_count.saturating_sub(first);
        u32::try_from(len).map_or(room, |len| len.min(room))
    }
}

/// One `write_texture` of `rows` rows of `width` texels at texel `(x, y)`, from `matrices`
/// (4 texels each, rows back to back).
fn write_rows(
    queue: &wgpu::Queue,
    texture: &wgpu::Texture,
    (x, y): (u32, u32),
    width: u32,
    rows: u32,
    matrices: &[Mat4],
) {
    queue.write_texture(
        wgpu::TexelCopyTextureInfo {
            texture,
            mip_level: 0,
            origin: wgpu::Origin3d { x, y, z: 0 },
            aspect: wgpu::TextureAspect::All,
        },
        bytemuck::cast_slice(matrices),
        wgpu::TexelCopyBufferLayout {
            offset: 0,
            bytes_per_row: Some(width * BONE_TEXEL_BYTES),
            rows_per_image: Some(rows),
        },
        wgpu::Extent3d {
            width,
            height: rows,
            depth_or_array_layers: 1,
        },
    );
}

/// Bytes per full row of bone texels in a staging buffer: `copy_buffer_to_texture` needs rows
/// that start 256 bytes apart (`COPY_BYTES_PER_ROW_ALIGNMENT`), `write_texture` did not.
fn staged_row_bytes(layout: &BoneTextureLayout) -> u64 {
    u64::from(layout.width * BONE_TEXEL_BYTES)
        .next_multiple_of(u64::from(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT))
}

/// Bytes [`stage_bone_matrices`] writes: the full rows at their padded stride, then the
/// partial last row.
pub(crate) fn staged_bone_bytes(layout: &BoneTextureLayout) -> u64 {
    staged_row_bytes(layout) * u64::from(layout.full_rows())
        + u64::from(layout.bones_in_last_row() * 4 * BONE_TEXEL_BYTES)
}

/// Writes `matrices` (exactly `layout.bone_count`, checked by the caller) into a mapped
/// staging range of [`staged_bone_bytes`], one texture row per padded stride.
pub(crate) fn stage_bone_matrices(
    layout: &BoneTextureLayout,
    matrices: &[Mat4],
    mut out: wgpu::WriteOnly<'_, [u8]>,
) {
    let bytes: &[u8] = bytemuck::cast_slice(matrices);
    let row = (layout.width * BONE_TEXEL_BYTES) as usize;
    let stride = usize::try_from(staged_row_bytes(layout)).unwrap_or(usize::MAX);
    for (r, chunk) in bytes.chunks(row).enumerate() {
        out.slice(r * stride..r * stride + chunk.len())
            .copy_from_slice(chunk);
    }
}

/// Records the copies of a range staged by [`stage_bone_matrices`] at `offset` of `staging`
/// into `texture`: the full rows, then the partial last row.
pub(crate) fn copy_staged_bone_matrices(
    encoder: &mut wgpu::CommandEncoder,
    staging: &wgpu::Buffer,
    offset: u64,
    texture: &wgpu::Texture,
    layout: &BoneTextureLayout,
) {
    let stride = u32::try_from(staged_row_bytes(layout)).unwrap_or(u32::MAX);
    let full_rows = layout.full_rows();
    let copy = |encoder: &mut wgpu::CommandEncoder, offset: u64, y: u32, width: u32, rows: u32| {
        encoder.copy_buffer_to_texture(
            wgpu::TexelCopyBufferInfo {
                buffer: staging,
                layout: wgpu::TexelCopyBufferLayout {
                    offset,
                    bytes_per_row: Some(stride),
                    rows_per_image: Some(rows),
                },
            },
            wgpu::TexelCopyTextureInfo {
                texture,
                mip_level: 0,
                origin: wgpu::Origin3d { x: 0, y, z: 0 },
                aspect: wgpu::TextureAspect::All,
            },
            wgpu::Extent3d {
                width,
                height: rows,
                depth_or_array_layers: 1,
            },
        );
    };
    if full_rows > 0 {
        copy(encoder, offset, 0, layout.width, full_rows);
    }
    let rest = layout.bones_in_last_row();
    if rest > 0 {
        let start = offset + u64::from(stride) * u64::from(full_rows);
        copy(encoder, start, full_rows, rest * 4, 1);
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, reason = "tests")]
    use super::*;

    #[test]
    fn small_skeletons_are_the_seed_single_row() {
        for bones in [1, 64, 2048] {
            let l = BoneTextureLayout::new(bones, 8192).unwrap();
            assert_eq!((l.width, l.height), (bones * 4, 1));
            assert_eq!(l.texel(bones - 1, 3), (bones * 4 - 1, 0));
        }
    }

    #[test]
    fn wide_skeletons_wrap_into_rows_of_whole_bones() {
        let l = BoneTextureLayout::new(5000, 8192).unwrap();
        assert_eq!((l.width, l.height), (8192, 3));
        assert_eq!(l.texel(2047, 3), (8191, 0));
        assert_eq!(l.texel(2048, 0), (0, 1));
        assert_eq!(l.texel(4999, 2), ((4999 * 4 + 2) % 8192, 2));
        assert_eq!((l.full_rows(), l.bones_in_last_row()), (2, 5000 - 4096));
        // A limit that is not a multiple of 4 rounds the row down to whole bones.
        let odd = BoneTextureLayout::new(10, 15).unwrap();
        assert_eq!((odd.width, odd.height), (12, 4));
        assert_eq!(odd.texel(3, 0), (0, 1));
    }

    #[test]
    fn staged_rows_start_256_bytes_apart() {
        // 64 bones: one row of 256 texels, 4096 bytes, already aligned.
        let one_row = BoneTextureLayout::new(64, 8192).unwrap();
        assert_eq!(staged_bone_bytes(&one_row), 64 * 64);
        // Rows of 12 texels (192 bytes) pad to 256; 10 bones = 3 full rows + 1 bone.
        let odd = BoneTextureLayout::new(10, 15).unwrap();
        assert_eq!(staged_row_bytes(&odd), 256);
        assert_eq!(staged_bone_bytes(&odd), 3 * 256 + 64);
    }

    #[test]
    fn limits_are_reported_with_numbers() {
        assert_eq!(BoneTextureLayout::new(0, 8192), Err(GpuError::NoBones));
        assert_eq!(
            BoneTextureLayout::new(17, 8),
            Err(GpuError::TooManyBones {
                got: 17,
                max: 16,
                max_texture_dimension_2d: 8
            })
        );
        assert!(BoneTextureLayout::new(16, 8).is_ok());
        assert!(BoneTextureLayout::new(1, 3).is_err());
    }
}
