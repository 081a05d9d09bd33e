//! The morph delta texture (WebGL2's place for morph deltas, see
//! [`MorphDeltaStorage::Texture`](crate::MorphDeltaStorage::Texture)): its format and layout.
//!
//! It keeps the storage buffer's indexing with one texel per delta (`xyz`, `w` = 0): position
//! deltas target-major at texel `t * vertex_count + v`, then the normal deltas in the same
//! layout from texel `target_count * vertex_count`. Texel `i` sits at `(i % width, i / width)`
//! ([`MorphTextureLayout`]).

use skel_anim::MorphTargets;

use crate::GpuError;

/// The format of morph delta textures: one delta per texel, `w` unused.
pub const MORPH_TEXTURE_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba32Float;

/// Bytes per texel of [`MORPH_TEXTURE_FORMAT`].
pub const MORPH_TEXEL_BYTES: u32 = 16;

/// The narrowest morph texture: 16 texels are 256 bytes, `COPY_BYTES_PER_ROW_ALIGNMENT`, so
/// every (power-of-two) width is copied from the staging buffer in whole rows.
pub const MORPH_TEXTURE_MIN_WIDTH: u32 = wgpu::COPY_BYTES_PER_ROW_ALIGNMENT / MORPH_TEXEL_BYTES;

/// The shape of a morph delta texture for a number of texels on a device.
///
/// - `width` = the smallest power of two whose square holds every texel, at least
///   [`MORPH_TEXTURE_MIN_WIDTH`] and at most the largest power of two within
///   `max_texture_dimension_2d` (2048 on WebGL2's defaults);
/// - `height = ceil(texels / width)`, at least 1 and at most `max_texture_dimension_2d`.
///
/// A near-square texture wastes at most one row, and a power-of-two width keeps every row a
/// multiple of the 256-byte copy alignment.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct MorphTextureLayout {
    /// Texels holding deltas (the rest of the last row is zero).
    pub texels: u32,
    /// Texels per row: a power of two, at least [`MORPH_TEXTURE_MIN_WIDTH`].
    pub width: u32,
    /// Rows.
    pub height: u32,
}

impl MorphTextureLayout {
    /// The layout for `texels` deltas under `max_texture_dimension_2d`.
    ///
    /// # Errors
    /// [`GpuError::MissingLimit`] naming `max_texture_dimension_2d` when the texels do not fit
    /// (`needed` is the side of the smallest square power-of-two texture that holds them), or
    /// when the limit is below [`MORPH_TEXTURE_MIN_WIDTH`].
    pub fn new(texels: u64, max_texture_dimension_2d: u32) -> Result<Self, GpuError> {
        let max = u64::from(max_texture_dimension_2d);
        let mut side = u64::from(MORPH_TEXTURE_MIN_WIDTH);
        while side * side < texels {
            side *= 2;
        }
        let too_small = || GpuError::MissingLimit {
            name: "max_texture_dimension_2d",
            needed: side,
            available: max,
        };
        // The largest power of two within the limit (0 for a limit of 0).
        let widest = if max == 0 {
            0
        } else {
            1u64 << (63 - max.leading_zeros())
        };
        let width = side.min(widest);
        if width < u64::from(MORPH_TEXTURE_MIN_WIDTH) {
            return Err(too_small());
        }
        let height = texels.div_ceil(width).max(1);
        if height > max {
            return Err(too_small());
        }
        Ok(Self {
            // Shaders index texels with u32; past u32::MAX no device's limit holds them.
            texels: u32::try_from(texels).map_err(|_| too_small())?,
            width: u32::try_from(width).map_err(|_| too_small())?,
            height: u32::try_from(height).map_err(|_| too_small())?,
        })
    }

    /// The texel holding delta `index`: `(x, y)`.
    #[must_use]
    pub fn texel(&self, index: u32) -> (u32, u32) {
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

    /// Bytes per row of texels: a multiple of `COPY_BYTES_PER_ROW_ALIGNMENT`.
    #[must_use]
    pub fn bytes_per_row(&self) -> u32 {
        self.width * MORPH_TEXEL_BYTES
    }

    /// The whole texture's bytes.
    pub(crate) fn bytes(&self) -> usize {
        self.bytes_per_row() as usize * self.height as usize
    }
}

/// The texture's floats, every row whole: position deltas then normal deltas as
/// `(x, y, z, 0)` texels, zeros after the last.
pub(crate) fn texels(targets: &MorphTargets, layout: &MorphTextureLayout) -> Vec<f32> {
    let mut floats = vec![0.0; layout.bytes() / 4];
    let deltas = targets.positions.chunks_exact(3);
    let deltas = deltas.chain(targets.normals.chunks_exact(3));
    for (texel, delta) in floats.chunks_exact_mut(4).zip(deltas) {
        texel[..3].copy_from_slice(delta);
    }
    floats
}

/// An empty delta texture of `layout`'s size, usage `TEXTURE_BINDING | COPY_DST` plus
/// `COPY_SRC` so that tools and tests can read back what was uploaded.
pub(crate) fn create_texture(device: &wgpu::Device, layout: &MorphTextureLayout) -> wgpu::Texture {
    device.create_texture(&wgpu::TextureDescriptor {
        label: Some("skel morph deltas"),
        size: layout.extent(),
        mip_level_count: 1,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format: MORPH_TEXTURE_FORMAT,
        usage: wgpu::TextureUsages::TEXTURE_BINDING
            | wgpu::TextureUsages::COPY_DST
            | wgpu::TextureUsages::COPY_SRC,
        view_formats: &[],
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, reason = "tests")]
    use super::*;

    #[test]
    fn layout_is_near_square_with_power_of_two_rows() {
        let l = MorphTextureLayout::new(100, 2048).unwrap();
        assert_eq!((l.width, l.height), (16, 7));
        assert_eq!(l.texel(17), (1, 1));
        let l = MorphTextureLayout::new(8709, 2048).unwrap();
        assert_eq!((l.width, l.height), (128, 69));
        assert_eq!(l.bytes_per_row() % wgpu::COPY_BYTES_PER_ROW_ALIGNMENT, 0);
        let empty = MorphTextureLayout::new(0, 2048).unwrap();
        assert_eq!((empty.width, empty.height), (16, 1));
    }

    #[test]
    fn layout_wraps_at_the_limit_and_refuses_past_it() {
        // Exactly full at WebGL2's 2048: 2048 × 2048 texels.
        let full = MorphTextureLayout::new(2048 * 2048, 2048).unwrap();
        assert_eq!((full.width, full.height), (2048, 2048));
        assert_eq!(
            MorphTextureLayout::new(2048 * 2048 + 1, 2048).unwrap_err(),
            GpuError::MissingLimit {
                name: "max_texture_dimension_2d",
                needed: 4096,
                available: 2048
            }
        );
        // A limit that is no power of two: rows of 512, up to 1000 of them.
        let l = MorphTextureLayout::new(512 * 1000, 1000).unwrap();
        assert_eq!((l.width, l.height), (512, 1000));
        assert!(MorphTextureLayout::new(512 * 1000 + 1, 1000).is_err());
        assert!(MorphTextureLayout::new(1, 8).is_err());
    }
}
