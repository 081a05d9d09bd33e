//! The browser's GPU: instance (WebGPU detected, WebGL2 otherwise), the canvas surface, the
//! adapter made for it, skel's [`GpuContext`], and the surface configuration.

use skel::gpu::{GpuContext, HeadlessOptions};
use skel::render::{DEPTH_FORMAT, RenderFormat};

use crate::{Backend, WebError};

/// What drawing to the canvas needs.
pub(crate) struct CanvasGpu {
    /// skel's device and queue.
    pub(crate) ctx: GpuContext,
    /// The canvas's surface, configured.
    pub(crate) surface: wgpu::Surface<'static>,
    /// The surface's configuration (size, format).
    pub(crate) config: wgpu::SurfaceConfiguration,
    /// The format views of the surface's textures are made with (its sRGB variant).
    pub(crate) view_format: wgpu::TextureFormat,
    /// The depth attachment, the surface's size.
    pub(crate) depth: wgpu::TextureView,
    /// The backend the adapter is on.
    pub(crate) backend: Backend,
}

/// The instance's backends for a forced or detected backend.
fn backends(backend: Backend) -> wgpu::Backends {
    match backend {
        Backend::WebGpu => wgpu::Backends::BROWSER_WEBGPU,
        Backend::WebGl2 => wgpu::Backends::GL,
    }
}

/// Picks the backend: the forced one when it exists, else WebGPU where the browser has an
/// adapter, else WebGL2.
async fn choose(forced: Option<Backend>) -> Result<Backend, WebError> {
    if forced == Some(Backend::WebGl2) {
        return Ok(Backend::WebGl2);
    }
    let has_webgpu = wgpu::util::is_browser_webgpu_supported().await;
    match forced {
        Some(Backend::WebGpu) if !has_webgpu => Err(WebError::NoGraphics {
            wanted: "no WebGPU",
        }),
        Some(backend) => Ok(backend),
        None if has_webgpu => Ok(Backend::WebGpu),
        None => Ok(Backend::WebGl2),
    }
}

impl CanvasGpu {
    /// Makes the instance, the canvas's surface, the adapter compatible with it (WebGL2
    /// needs the canvas at adapter time) and the device, then configures the surface to the
    /// canvas's size.
    pub(crate) async fn new(
        canvas: web_sys::HtmlCanvasElement,
        forced: Option<Backend>,
    ) -> Result<Self, WebError> {
        let backend = choose(forced).await?;
        let name = backend.name();
        let mut descriptor = wgpu::InstanceDescriptor::new_without_display_handle();
        descriptor.backends = backends(backend);
        let instance = wgpu::util::new_instance_with_webgpu_detection(descriptor).await;
        let (width, height) = (canvas.width().max(1), canvas.height().max(1));
        let surface = instance
            .create_surface(wgpu::SurfaceTarget::Canvas(canvas))
            .map_err(|e| match backend {
                // No WebGL2 context on the canvas: the browser lacks it (or it is disabled).
                Backend::WebGl2 if forced.is_none() => WebError::NoGraphics {
                    wanted: "neither WebGPU nor WebGL2",
                },
                _ => WebError::Surface {
                    backend: name,
                    reason: e.to_string(),
                },
            })?;
        let adapter = instance
            .request_adapter(&wgpu::RequestAdapterOptions {
                power_preference: wgpu::PowerPreference::HighPerformance,
                compatible_surface: Some(&surface),
                ..Default::default()
            })
            .await
            .map_err(|e| WebError::Adapter {
                backend: name,
                reason: e.to_string(),
            })?;
        let ctx = GpuContext::from_adapter_async(&adapter, &HeadlessOptions::default()).await?;
        let config = surface
            .get_default_config(&adapter, width, height)
            .ok_or(WebError::NoSurfaceFormat { backend: name })?;
        let view_format = config.format.add_srgb_suffix();
        let mut config = config;
        if view_format != config.format {
            config.view_formats.push(view_format);
        }
        surface.configure(&ctx.device, &config);
        let depth = depth_view(&ctx.device, width, height);
        Ok(Self {
            ctx,
            surface,
            config,
            view_format,
            depth,
            backend,
        })
    }

    /// The attachments' formats, for [`skel::render::AssetRenderer::new`].
    pub(crate) fn render_format(&self) -> RenderFormat {
        RenderFormat {
            color: self.view_format,
            depth: DEPTH_FORMAT,
            sample_count: 1,
        }
    }

    /// Width over height of the canvas.
    pub(crate) fn aspect(&self) -> f32 {
        self.config.width as f32 / self.config.height as f32
    }
}

/// A depth attachment of `width`×`height`.
fn depth_view(device: &wgpu::Device, width: u32, height: u32) -> wgpu::TextureView {
    device
        .create_texture(&wgpu::TextureDescriptor {
            label: Some("skel-web depth"),
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
