//! The window's GPU side: a device made for the window's surface, the surface configuration,
//! a depth texture of the window's size, and the read-back of a presented frame for
//! `--screenshot`.

use std::sync::Arc;

use skel::gpu::GpuContext;
use skel::render::{DEPTH_FORMAT, RenderFormat, padded_row_bytes};
use winit::window::Window;

/// Device, queue and surface of one window.
pub struct WindowGpu {
    /// The device and queue skel uses.
    pub ctx: GpuContext,
    surface: wgpu::Surface<'static>,
    config: wgpu::SurfaceConfiguration,
    depth: wgpu::TextureView,
}

impl WindowGpu {
    /// A device that can present to `window`.
    pub fn new(window: &Arc<Window>) -> Result<Self, String> {
        let descriptor = wgpu::InstanceDescriptor::new_with_display_handle_from_env(Box::new(
            Arc::clone(window),
        ));
        let instance = wgpu::Instance::new(descriptor);
        let surface = instance
            .create_surface(Arc::clone(window))
            .map_err(|e| format!("cannot create a surface for the window: {e}"))?;
        let adapter = pollster::block_on(instance.request_adapter(&wgpu::RequestAdapterOptions {
            compatible_surface: Some(&surface),
            ..Default::default()
        }))
        .map_err(|e| format!("{} (wgpu said: {e})", crate::render::NO_ADAPTER_HINT))?;
        let (device, queue) = pollster::block_on(adapter.request_device(&Default::default()))
            .map_err(|e| format!("cannot open the GPU device: {e}"))?;
        let size = window.inner_size();
        let mut config = surface
            .get_default_config(&adapter, size.width.max(1), size.height.max(1))
            .ok_or("the adapter cannot present to this window")?;
        let caps = surface.get_capabilities(&adapter);
        // An sRGB format: the shader writes linear colour.
        if let Some(srgb) = caps.formats.iter().find(|f| f.is_srgb()) {
            config.format = *srgb;
        }
        // COPY_SRC lets --screenshot read back exactly what was presented.
        if caps.usages.contains(wgpu::TextureUsages::COPY_SRC) {
            config.usage |= wgpu::TextureUsages::COPY_SRC;
        }
        config.present_mode = wgpu::PresentMode::AutoNoVsync;
        surface.configure(&device, &config);
        let depth = depth_view(&device, config.width, config.height);
        let ctx = GpuContext::from_device(device, queue, adapter.get_info());
        Ok(Self {
            ctx,
            surface,
            config,
            depth,
        })
    }

    /// The formats the renderer must be built for.
    pub fn format(&self) -> RenderFormat {
        RenderFormat {
            color: self.config.format,
            depth: DEPTH_FORMAT,
            sample_count: 1,
        }
    }

    /// Width / height of the window.
    pub fn aspect(&self) -> f32 {
        self.config.width as f32 / self.config.height as f32
    }

    /// Follows a window resize.
    pub fn resize(&mut self, width: u32, height: u32) {
        if width == 0 || height == 0 {
            return;
        }
        self.config.width = width;
        self.config.height = height;
        self.surface.configure(&self.ctx.device, &self.config);
        self.depth = depth_view(&self.ctx.device, width, height);
    }

    /// The next frame to draw into, reconfiguring once when the surface is outdated.
    pub fn acquire(&self) -> Option<wgpu::SurfaceTexture> {
        match self.surface.get_current_texture() {
            wgpu::CurrentSurfaceTexture::Success(t)
            | wgpu::CurrentSurfaceTexture::Suboptimal(t) => Some(t),
            _ => {
                self.surface.configure(&self.ctx.device, &self.config);
                None
            }
        }
    }

    /// The depth attachment, cleared to the far plane.
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

    /// Records a copy of `texture` (the frame about to be presented) into a new buffer;
    /// [`read`](Self::read) turns it into an RGBA image after the submit.
    pub fn encode_capture(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        texture: &wgpu::Texture,
    ) -> Option<wgpu::Buffer> {
        if !self.config.usage.contains(wgpu::TextureUsages::COPY_SRC) {
            return None;
        }
        let (w, h) = (self.config.width, self.config.height);
        let buffer = self.ctx.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("skel view screenshot"),
            size: u64::from(padded_row_bytes(w)) * u64::from(h),
            usage: wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::MAP_READ,
            mapped_at_creation: false,
        });
        encoder.copy_texture_to_buffer(
            texture.as_image_copy(),
            wgpu::TexelCopyBufferInfo {
                buffer: &buffer,
                layout: wgpu::TexelCopyBufferLayout {
                    offset: 0,
                    bytes_per_row: Some(padded_row_bytes(w)),
                    rows_per_image: Some(h),
                },
            },
            wgpu::Extent3d {
                width: w,
                height: h,
                depth_or_array_layers: 1,
            },
        );
        Some(buffer)
    }

    /// Maps a buffer from [`encode_capture`](Self::encode_capture) (already submitted) into
    /// an RGBA image (BGRA surfaces are swizzled).
    pub fn read(&self, buffer: &wgpu::Buffer) -> Result<image::RgbaImage, String> {
        let slice = buffer.slice(..);
        let (tx, rx) = std::sync::mpsc::channel();
        slice.map_async(wgpu::MapMode::Read, move |r| {
            let _ = tx.send(r);
        });
        self.ctx
            .device
            .poll(wgpu::PollType::wait_indefinitely())
            .map_err(|e| e.to_string())?;
        rx.recv()
            .map_err(|e| e.to_string())?
            .map_err(|e| e.to_string())?;
        let (w, h) = (self.config.width, self.config.height);
        let row = w as usize * 4;
        let mut rgba = Vec::with_capacity(row * h as usize);
        {
            let mapped = slice.get_mapped_range().map_err(|e| e.to_string())?;
            for chunk in mapped.chunks_exact(padded_row_bytes(w) as usize) {
                rgba.extend_from_slice(&chunk[..row]);
            }
        }
        let bgra = matches!(
            self.config.format,
            wgpu::TextureFormat::Bgra8Unorm | wgpu::TextureFormat::Bgra8UnormSrgb
        );
        if bgra {
            for px in rgba.chunks_exact_mut(4) {
                px.swap(0, 2);
            }
        }
        // Surfaces are opaque on screen whatever alpha the frame holds.
        for px in rgba.chunks_exact_mut(4) {
            px[3] = 255;
        }
        image::RgbaImage::from_raw(w, h, rgba).ok_or_else(|| "short screenshot".to_owned())
    }
}

fn depth_view(device: &wgpu::Device, width: u32, height: u32) -> wgpu::TextureView {
    device
        .create_texture(&wgpu::TextureDescriptor {
            label: Some("skel view depth"),
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
