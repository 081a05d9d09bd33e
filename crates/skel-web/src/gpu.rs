//! The browser's GPU: instance (WebGPU detected, WebGL2 otherwise), the canvas surface, the
//! adapter made for it, skel's [`GpuContext`], and the surface configuration.

use skel::gpu::{GpuContext, HeadlessOptions};
use skel::render::{RenderFormat, SurfaceTarget};

use crate::{Backend, WebError};

/// What drawing to the canvas needs.
pub(crate) struct CanvasGpu {
    /// skel's device and queue.
    pub(crate) ctx: GpuContext,
    /// The canvas's surface and depth, configured by the facade's sRGB rule (a WebGPU
    /// canvas is viewed through its format's sRGB variant).
    pub(crate) target: SurfaceTarget,
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
        let target = SurfaceTarget::new(surface, &adapter, &ctx.device, width, height)
            .map_err(|_| WebError::NoSurfaceFormat { backend: name })?;
        Ok(Self {
            ctx,
            target,
            backend,
        })
    }

    /// The attachments' formats, for [`skel::render::AssetRenderer::new`].
    pub(crate) fn render_format(&self) -> RenderFormat {
        self.target.format()
    }

    /// Width over height of the canvas.
    pub(crate) fn aspect(&self) -> f32 {
        self.target.aspect()
    }
}
