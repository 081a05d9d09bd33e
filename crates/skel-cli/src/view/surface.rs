//! The window's GPU side: a device made for the window's surface, the surface configuration,
//! a depth texture of the window's size, and the read-back of a presented frame for
//! `--screenshot`.

use std::sync::Arc;

use skel::gpu::{GpuContext, HeadlessOptions};
use skel::render::{RenderFormat, SurfaceFrame, SurfaceTarget, padded_row_bytes};
use winit::window::Window;

/// Device, queue and surface of one window.
pub struct WindowGpu {
    /// The device and queue skel uses.
    pub ctx: GpuContext,
    /// The window's surface and depth, configured by the facade's sRGB rule.
    target: SurfaceTarget,
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
        // The adapter's own limits, as `skel render` asks for them: WebGPU's defaults (8
        // storage buffers a stage) are fewer than the baked pose pass binds.
        let ctx = pollster::block_on(GpuContext::from_adapter_async(
            &adapter,
            &HeadlessOptions::default(),
        ))
        .map_err(|e| format!("cannot open the GPU device: {e}"))?;
        let size = window.inner_size();
        let mut target =
            SurfaceTarget::new(surface, &adapter, &ctx.device, size.width, size.height)
                .map_err(|e| e.to_string())?;
        // The viewer shows its frame time: no waiting for vsync.
        target.set_present_mode(&ctx.device, wgpu::PresentMode::AutoNoVsync);
        Ok(Self { ctx, target })
    }

    /// The formats the renderer must be built for.
    pub fn format(&self) -> RenderFormat {
        self.target.format()
    }

    /// Width / height of the window.
    pub fn aspect(&self) -> f32 {
        self.target.aspect()
    }

    /// Follows a window resize.
    pub fn resize(&mut self, width: u32, height: u32) {
        self.target.resize(&self.ctx.device, width, height);
    }

    /// The next frame to draw into, reconfiguring once when the surface is outdated.
    pub fn acquire(&self) -> Option<SurfaceFrame> {
        self.target.acquire(&self.ctx.device)
    }

    /// `frame`'s colour attachment, cleared to `clear`.
    pub fn color_attachment<'a>(
        &self,
        frame: &'a SurfaceFrame,
        clear: wgpu::Color,
    ) -> wgpu::RenderPassColorAttachment<'a> {
        self.target.color_attachment(frame, clear)
    }

    /// The depth attachment, cleared to the far plane.
    pub fn depth_attachment(&self) -> wgpu::RenderPassDepthStencilAttachment<'_> {
        self.target.depth_attachment()
    }

    /// Records a copy of `texture` (the frame about to be presented) into a new buffer;
    /// [`read`](Self::read) turns it into an RGBA image after the submit.
    pub fn encode_capture(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        texture: &wgpu::Texture,
    ) -> Option<wgpu::Buffer> {
        if !self
            .target
            .config()
            .usage
            .contains(wgpu::TextureUsages::COPY_SRC)
        {
            return None;
        }
        let (w, h) = (self.target.config().width, self.target.config().height);
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
        let (w, h) = (self.target.config().width, self.target.config().height);
        let row = w as usize * 4;
        let mut rgba = Vec::with_capacity(row * h as usize);
        {
            let mapped = slice.get_mapped_range().map_err(|e| e.to_string())?;
            for chunk in mapped.chunks_exact(padded_row_bytes(w) as usize) {
                rgba.extend_from_slice(&chunk[..row]);
            }
        }
        let bgra = matches!(
            self.target.config().format,
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
