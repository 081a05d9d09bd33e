//! The offscreen framebuffer: a multisampled colour and depth pair, a single-sample resolve
//! texture, and a staging buffer to read the resolved pixels back to the CPU (headless
//! pictures, tests, `skel render`).

use std::sync::mpsc;

use super::{RenderError, RenderFormat};

/// The colour format frames are rendered and read back in: 8-bit sRGB, so the shader writes
/// linear colour and the readback bytes are ready for PNG and GIF.
pub const COLOR_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba8UnormSrgb;
/// Depth format: 32-bit float, supported everywhere wgpu runs.
pub const DEPTH_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Depth32Float;
/// Multisample count asked for; 4 is the count WebGPU guarantees for these formats.
pub const MSAA_SAMPLES: u32 = 4;

/// An offscreen colour ([`COLOR_FORMAT`]) + depth ([`DEPTH_FORMAT`]) target of one size, with
/// its readback buffer: render into it without a window, then read the pixels back.
#[derive(Debug)]
pub struct OffscreenTarget {
    width: u32,
    height: u32,
    sample_count: u32,
    /// The multisampled colour texture (absent when rendering single-sampled).
    msaa_view: Option<wgpu::TextureView>,
    resolve: wgpu::Texture,
    resolve_view: wgpu::TextureView,
    depth_view: wgpu::TextureView,
    readback: wgpu::Buffer,
    /// Bytes per row in the readback buffer: `width * 4` rounded up to 256, the alignment
    /// `copy_texture_to_buffer` demands.
    padded_row: u32,
}

/// `width * 4` rounded up to [`wgpu::COPY_BYTES_PER_ROW_ALIGNMENT`].
#[must_use]
pub fn padded_row_bytes(width: u32) -> u32 {
    let unpadded = width * 4;
    unpadded.div_ceil(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT) * wgpu::COPY_BYTES_PER_ROW_ALIGNMENT
}

impl OffscreenTarget {
    /// Creates the textures and the readback buffer for `width × height` pixels rendered with
    /// `sample_count` samples.
    ///
    /// # Errors
    /// [`RenderError::BadSize`] when a side is 0 or above the device's
    /// `max_texture_dimension_2d`.
    pub fn new(
        device: &wgpu::Device,
        width: u32,
        height: u32,
        sample_count: u32,
    ) -> Result<Self, RenderError> {
        let max = device.limits().max_texture_dimension_2d;
        if width == 0 || height == 0 || width > max || height > max {
            return Err(RenderError::BadSize { width, height, max });
        }
        let size = wgpu::Extent3d {
            width,
            height,
            depth_or_array_layers: 1,
        };
        let texture = |label, samples, format, usage| {
            device.create_texture(&wgpu::TextureDescriptor {
                label: Some(label),
                size,
                mip_level_count: 1,
                sample_count: samples,
                dimension: wgpu::TextureDimension::D2,
                format,
                usage,
                view_formats: &[],
            })
        };
        let msaa_view = (sample_count > 1).then(|| {
            texture(
                "skel render msaa colour",
                sample_count,
                COLOR_FORMAT,
                wgpu::TextureUsages::RENDER_ATTACHMENT,
            )
            .create_view(&wgpu::TextureViewDescriptor::default())
        });
        let resolve = texture(
            "skel render colour",
            1,
            COLOR_FORMAT,
            wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC,
        );
        let resolve_view = resolve.create_view(&wgpu::TextureViewDescriptor::default());
        let depth_view = texture(
            "skel render depth",
            sample_count,
            DEPTH_FORMAT,
            wgpu::TextureUsages::RENDER_ATTACHMENT,
        )
        .create_view(&wgpu::TextureViewDescriptor::default());
        let padded_row = padded_row_bytes(width);
        let readback = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("skel render readback"),
            size: u64::from(padded_row) * u64::from(height),
            usage: wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::MAP_READ,
            mapped_at_creation: false,
        });
        Ok(Self {
            width,
            height,
            sample_count,
            msaa_view,
            resolve,
            resolve_view,
            depth_view,
            readback,
            padded_row,
        })
    }

    /// Samples per pixel the pipelines must be built for.
    #[must_use]
    pub fn sample_count(&self) -> u32 {
        self.sample_count
    }

    /// The formats an [`AssetRenderer`](super::AssetRenderer) drawing here must be made for.
    #[must_use]
    pub fn format(&self) -> RenderFormat {
        RenderFormat {
            color: COLOR_FORMAT,
            depth: DEPTH_FORMAT,
            sample_count: self.sample_count,
        }
    }

    /// Width and height in pixels.
    #[must_use]
    pub fn size(&self) -> (u32, u32) {
        (self.width, self.height)
    }

    /// The colour attachment: clears to `clear`, renders into the multisampled texture and
    /// resolves into the readable one (or renders straight into it when single-sampled).
    #[must_use]
    pub fn color_attachment(&self, clear: wgpu::Color) -> wgpu::RenderPassColorAttachment<'_> {
        let ops = wgpu::Operations {
            load: wgpu::LoadOp::Clear(clear),
            store: wgpu::StoreOp::Store,
        };
        match &self.msaa_view {
            Some(msaa) => wgpu::RenderPassColorAttachment {
                view: msaa,
                depth_slice: None,
                resolve_target: Some(&self.resolve_view),
                ops: wgpu::Operations {
                    load: ops.load,
                    // The multisampled samples are not needed after the resolve.
                    store: wgpu::StoreOp::Discard,
                },
            },
            None => wgpu::RenderPassColorAttachment {
                view: &self.resolve_view,
                depth_slice: None,
                resolve_target: None,
                ops,
            },
        }
    }

    /// The depth attachment, cleared to the far plane (1.0) each frame.
    #[must_use]
    pub fn depth_attachment(&self) -> wgpu::RenderPassDepthStencilAttachment<'_> {
        wgpu::RenderPassDepthStencilAttachment {
            view: &self.depth_view,
            depth_ops: Some(wgpu::Operations {
                load: wgpu::LoadOp::Clear(1.0),
                store: wgpu::StoreOp::Discard,
            }),
            stencil_ops: None,
        }
    }

    /// Records the copy of the resolved frame into the readback buffer.
    pub fn encode_readback(&self, encoder: &mut wgpu::CommandEncoder) {
        encoder.copy_texture_to_buffer(
            wgpu::TexelCopyTextureInfo {
                texture: &self.resolve,
                mip_level: 0,
                origin: wgpu::Origin3d::ZERO,
                aspect: wgpu::TextureAspect::All,
            },
            wgpu::TexelCopyBufferInfo {
                buffer: &self.readback,
                layout: wgpu::TexelCopyBufferLayout {
                    offset: 0,
                    bytes_per_row: Some(self.padded_row),
                    rows_per_image: Some(self.height),
                },
            },
            wgpu::Extent3d {
                width: self.width,
                height: self.height,
                depth_or_array_layers: 1,
            },
        );
    }

    /// Waits for the copy recorded by [`encode_readback`](Self::encode_readback) (already
    /// submitted) and writes the frame into `rgba` as tightly packed RGBA8 rows, top row first.
    ///
    /// # Errors
    /// [`RenderError::Readback`] when mapping the buffer fails or the device is lost.
    pub fn read_rgba(&self, device: &wgpu::Device, rgba: &mut Vec<u8>) -> Result<(), RenderError> {
        let slice = self.readback.slice(..);
        let (tx, rx) = mpsc::channel();
        slice.map_async(wgpu::MapMode::Read, move |result| {
            // The receiver outlives the poll below; a send error cannot happen.
            let _ = tx.send(result);
        });
        device
            .poll(wgpu::PollType::wait_indefinitely())
            .map_err(|e| RenderError::Readback(e.to_string()))?;
        rx.recv()
            .map_err(|e| RenderError::Readback(e.to_string()))?
            .map_err(|e| RenderError::Readback(e.to_string()))?;
        {
            let mapped = slice
                .get_mapped_range()
                .map_err(|e| RenderError::Readback(e.to_string()))?;
            let row = self.width as usize * 4;
            rgba.clear();
            rgba.reserve(row * self.height as usize);
            for chunk in mapped.chunks_exact(self.padded_row as usize) {
                rgba.extend_from_slice(&chunk[..row]);
            }
        }
        self.readback.unmap();
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::padded_row_bytes;

    #[test]
    fn rows_are_padded_to_256_bytes() {
        assert_eq!(padded_row_bytes(1), 256);
        assert_eq!(padded_row_bytes(64), 256);
        assert_eq!(padded_row_bytes(65), 512);
        assert_eq!(padded_row_bytes(500), 2048);
        assert_eq!(padded_row_bytes(512), 2048);
    }
}
