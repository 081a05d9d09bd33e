//! [`SurfaceTarget`]: the on-screen counterpart of [`OffscreenTarget`](super::OffscreenTarget),
//! a window's or a canvas's surface configured by one sRGB rule, with a depth attachment of
//! its size.

use super::target::DEPTH_FORMAT;
use super::{RenderError, RenderFormat};

/// The formats a surface is configured with and its frames are viewed in, by the one rule
/// every on-screen target follows: the shaders write linear colour, so the colour attachment
/// must be an sRGB view. A default format that is sRGB is kept; else the sRGB variant of the
/// default, or failing that the first sRGB format the surface offers, is configured (native
/// swapchains list both); else (a browser canvas, whose WebGPU formats are never sRGB) the
/// default is configured and its frames are viewed through its sRGB variant (a view format of
/// the configuration), or as it is when it has none. Returns `(configured, viewed)`.
#[must_use]
pub fn surface_formats(
    offered: &[wgpu::TextureFormat],
    default: wgpu::TextureFormat,
) -> (wgpu::TextureFormat, wgpu::TextureFormat) {
    if default.is_srgb() {
        return (default, default);
    }
    // A format without an sRGB variant (a float format) gives itself back.
    let srgb = default.add_srgb_suffix();
    if let Some(&f) = offered
        .iter()
        .find(|f| **f == srgb && f.is_srgb())
        .or_else(|| offered.iter().find(|f| f.is_srgb()))
    {
        return (f, f);
    }
    (default, srgb)
}

/// A frame of a [`SurfaceTarget`] to draw into: the surface's texture and its view in the
/// target's sRGB view format; [`present`](Self::present) it after submitting the draws.
#[derive(Debug)]
pub struct SurfaceFrame {
    texture: wgpu::SurfaceTexture,
    view: wgpu::TextureView,
}

impl SurfaceFrame {
    /// The frame's texture (to copy it for a screenshot).
    #[must_use]
    pub fn texture(&self) -> &wgpu::Texture {
        &self.texture.texture
    }

    /// Shows the frame (after `queue` received the frame's draws).
    pub fn present(self, queue: &wgpu::Queue) {
        queue.present(self.texture);
    }
}

/// A surface (a window's, a canvas's) and a depth texture of its size, configured so that an
/// [`AssetRenderer`](super::AssetRenderer) built for [`format`](Self::format) draws correct
/// colours on it: see [`surface_formats`] for the sRGB rule. Readable back (`COPY_SRC`) where
/// the surface allows it.
#[derive(Debug)]
pub struct SurfaceTarget {
    surface: wgpu::Surface<'static>,
    config: wgpu::SurfaceConfiguration,
    view_format: wgpu::TextureFormat,
    depth: wgpu::TextureView,
}

impl SurfaceTarget {
    /// Configures `surface` (created on `adapter`'s instance) for `device` at `width` ×
    /// `height` pixels (a zero side counts as 1).
    ///
    /// # Errors
    /// [`RenderError::NoSurfaceFormat`] when the adapter cannot present to the surface.
    pub fn new(
        surface: wgpu::Surface<'static>,
        adapter: &wgpu::Adapter,
        device: &wgpu::Device,
        width: u32,
        height: u32,
    ) -> Result<Self, RenderError> {
        let (width, height) = (width.max(1), height.max(1));
        let mut config = surface
            .get_default_config(adapter, width, height)
            .ok_or(RenderError::NoSurfaceFormat)?;
        let caps = surface.get_capabilities(adapter);
        let (format, view_format) = surface_formats(&caps.formats, config.format);
        config.format = format;
        if view_format != format {
            config.view_formats.push(view_format);
        }
        // Screenshots read back exactly what was presented.
        if caps.usages.contains(wgpu::TextureUsages::COPY_SRC) {
            config.usage |= wgpu::TextureUsages::COPY_SRC;
        }
        surface.configure(device, &config);
        let depth = depth_view(device, width, height);
        Ok(Self {
            surface,
            config,
            view_format,
            depth,
        })
    }

    /// Presents with `mode` from the next frame (a viewer measuring frame times turns vsync
    /// off with [`wgpu::PresentMode::AutoNoVsync`]).
    pub fn set_present_mode(&mut self, device: &wgpu::Device, mode: wgpu::PresentMode) {
        self.config.present_mode = mode;
        self.surface.configure(device, &self.config);
    }

    /// The attachments' formats, for the renderers.
    #[must_use]
    pub fn format(&self) -> RenderFormat {
        RenderFormat {
            color: self.view_format,
            depth: DEPTH_FORMAT,
            sample_count: 1,
        }
    }

    /// The surface's configuration (size, configured format, usage).
    #[must_use]
    pub fn config(&self) -> &wgpu::SurfaceConfiguration {
        &self.config
    }

    /// Width over height.
    #[must_use]
    #[expect(
        clippy::cast_precision_loss,
        reason = "surface sides are far below 2^24"
    )]
    pub fn aspect(&self) -> f32 {
        self.config.width as f32 / self.config.height as f32
    }

    /// Follows a resize; a zero side (a minimised window) is ignored.
    pub fn resize(&mut self, device: &wgpu::Device, width: u32, height: u32) {
        if width == 0 || height == 0 {
            return;
        }
        self.config.width = width;
        self.config.height = height;
        self.surface.configure(device, &self.config);
        self.depth = depth_view(device, width, height);
    }

    /// The next frame to draw into; `None` this time when the surface had none (an outdated
    /// or lost surface is configured again for the next try).
    #[must_use]
    pub fn acquire(&self, device: &wgpu::Device) -> Option<SurfaceFrame> {
        let texture = match self.surface.get_current_texture() {
            wgpu::CurrentSurfaceTexture::Success(t)
            | wgpu::CurrentSurfaceTexture::Suboptimal(t) => t,
            wgpu::CurrentSurfaceTexture::Outdated | wgpu::CurrentSurfaceTexture::Lost => {
                self.surface.configure(device, &self.config);
                return None;
            }
            _ => return None,
        };
        let view = texture.texture.create_view(&wgpu::TextureViewDescriptor {
            format: Some(self.view_format),
            ..Default::default()
        });
        Some(SurfaceFrame { texture, view })
    }

    /// `frame`'s colour attachment, cleared to `clear`.
    #[must_use]
    pub fn color_attachment<'a>(
        &self,
        frame: &'a SurfaceFrame,
        clear: wgpu::Color,
    ) -> wgpu::RenderPassColorAttachment<'a> {
        wgpu::RenderPassColorAttachment {
            view: &frame.view,
            depth_slice: None,
            resolve_target: None,
            ops: wgpu::Operations {
                load: wgpu::LoadOp::Clear(clear),
                store: wgpu::StoreOp::Store,
            },
        }
    }

    /// The depth attachment, cleared to the far plane (1.0) each frame.
    #[must_use]
    pub fn depth_attachment(&self) -> wgpu::RenderPassDepthStencilAttachment<'_> {
        wgpu::RenderPassDepthStencilAttachment {
            view: &self.depth,
            depth_ops: Some(wgpu::Operations {
                load: wgpu::LoadOp::Clear(1.0),
                store: wgpu::StoreOp::Discard,
            }),
            stencil_ops: None,
        }
    }
}

fn depth_view(device: &wgpu::Device, width: u32, height: u32) -> wgpu::TextureView {
    device
        .create_texture(&wgpu::TextureDescriptor {
            label: Some("skel surface depth"),
            size: wgpu::Extent3d {
                width,
                height,
                depth_or_array_layers: 1,
            },
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: DEPTH_FORMAT,
            usage: wgpu::TextureUsages::RENDER_ATTACHMENT,
            view_formats: &[],
        })
        .create_view(&wgpu::TextureViewDescriptor::default())
}

#[cfg(test)]
mod tests {
    use super::surface_formats;
    use wgpu::TextureFormat as F;

    #[test]
    fn the_colour_attachment_is_always_an_srgb_view_when_one_exists() {
        // A native swapchain offering both: the sRGB one is configured.
        assert_eq!(
            surface_formats(&[F::Bgra8Unorm, F::Bgra8UnormSrgb], F::Bgra8Unorm),
            (F::Bgra8UnormSrgb, F::Bgra8UnormSrgb)
        );
        // Already sRGB: kept.
        assert_eq!(
            surface_formats(&[F::Rgba8UnormSrgb], F::Rgba8UnormSrgb),
            (F::Rgba8UnormSrgb, F::Rgba8UnormSrgb)
        );
        // Another sRGB format than the default's variant.
        assert_eq!(
            surface_formats(&[F::Rgba16Float, F::Rgba8UnormSrgb], F::Rgba16Float),
            (F::Rgba8UnormSrgb, F::Rgba8UnormSrgb)
        );
        // Nothing sRGB anywhere: a linear float surface, drawn as it is.
        assert_eq!(
            surface_formats(&[F::Rgba16Float], F::Rgba16Float),
            (F::Rgba16Float, F::Rgba16Float)
        );
        // A WebGPU canvas: no sRGB format, viewed through the default's sRGB variant.
        assert_eq!(
            surface_formats(
                &[F::Bgra8Unorm, F::Rgba8Unorm, F::Rgba16Float],
                F::Bgra8Unorm
            ),
            (F::Bgra8Unorm, F::Bgra8UnormSrgb)
        );
    }
}
