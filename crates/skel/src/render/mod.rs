//! Drawing an [`AssetContainer`](crate::AssetContainer) with wgpu (feature `render`, on by
//! default): the pipelines of every skinning and morph variant, their bind groups and vertex
//! layouts, and the draw calls, recorded into a render pass you own.
//!
//! [`AssetRenderer`] draws lit (key, fill and hemisphere lights placed relative to the
//! camera), textured (glTF base colour factor and texture with its `KHR_texture_transform`,
//! emission, alpha mask and blend), depth-tested, in any number of instances; animated
//! material factors, texture transforms and node visibility (`KHR_animation_pointer`) follow
//! [`AssetRenderer::set_properties`]. Your program keeps its device, its surface or
//! texture, its encoder and its pass; the renderer only needs to know their formats
//! ([`RenderFormat`]). [`OffscreenTarget`] is a ready-made colour + depth target with
//! readback for programs without a window, [`SurfaceTarget`] its on-screen counterpart over a
//! window's or a canvas's surface (one sRGB rule, [`surface_formats`]). [`GroundRenderer`] draws a ground under the
//! character (world-space triangles, such as a [`plane_patch`] of a slope) in the same pass,
//! lit by the same lights.
//!
//! ```
//! use skel::render::{AssetRenderer, BACKGROUND, Camera, OffscreenTarget};
//! use skel::{LoadOptions, gpu::GpuContext, load_gltf};
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let Ok(ctx) = GpuContext::new_headless() else { return Ok(()) }; // no adapter: nothing to draw
//! let mut character = load_gltf(&ctx, skel::DEFAULT_CHARACTER, &LoadOptions::default())?;
//! let target = OffscreenTarget::new(&ctx.device, 256, 256, 1)?;
//! let renderer = AssetRenderer::new(&ctx, &character, &target.format())?;
//! let handedness = LoadOptions::default().handedness;
//! renderer.set_camera(&ctx.queue, &Camera::orbit([0.0, 1.0, 0.0].into(), 4.0, 0.6, 0.2, 1.0, handedness));
//!
//! let walk = character.clip_index("Walk").unwrap_or(0);
//! character.animation_groups[walk].play();
//! let mut rgba = Vec::new();
//! for _frame in 0..3 {
//!     character.tick_animation(walk, 1000.0 / 60.0, &ctx.queue); // bones and morph weights
//!     renderer.update_from_group(&ctx.queue, &mut character, walk); // node transforms
//!     let mut encoder = ctx.device.create_command_encoder(&Default::default());
//!     {
//!         let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
//!             color_attachments: &[Some(target.color_attachment(BACKGROUND))],
//!             depth_stencil_attachment: Some(target.depth_attachment()),
//!             ..Default::default()
//!         });
//!         renderer.draw(&character, &mut pass)?;
//!     }
//!     target.encode_readback(&mut encoder);
//!     ctx.queue.submit([encoder.finish()]);
//!     target.read_rgba(&ctx.device, &mut rgba)?;
//! }
//! assert_eq!(rgba.len(), 256 * 256 * 4);
//! # Ok(())
//! # }
//! ```

mod bounds;
mod box_edges;
mod camera;
mod crowd;
mod crowd_place;
mod frame_view;
mod ground;
mod ground_patch;
mod look;
mod material;
mod pipeline;
mod renderer;
mod surface_target;
mod target;
mod texture;

pub use bounds::rest_bounds;
pub use box_edges::box_edges;
pub use camera::Camera;
pub use crowd::{CrowdRenderer, crowd_wgsl};
/// glam types the camera and instance API take (`skel::render::Vec3`, `skel::render::Mat4`).
pub use glam::{Mat4, Vec3};
pub use ground::{GROUND_WGSL, GroundRenderer, GroundStyle};
pub use ground_patch::plane_patch;
pub use look::MaterialLook;
pub use material::{
    base_color_sampler, base_color_texture, draw_bind_group, draw_layout_entries, draw_uniform,
    draw_uniform_with, frame_layout_entries,
};
pub use pipeline::{FRAGMENT_BINDINGS, INSTANCE_LOCATION, MESH_WGSL};
pub use renderer::{AssetRenderer, BACKGROUND, frame_uniform};
pub use surface_target::{SurfaceFrame, SurfaceTarget, surface_formats};
pub use target::{COLOR_FORMAT, DEPTH_FORMAT, MSAA_SAMPLES, OffscreenTarget, padded_row_bytes};
pub use texture::upload_texture;

/// The attachments an [`AssetRenderer`] draws into: its pipelines are built for exactly these
/// (wgpu checks that a pass's attachments match the pipeline).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct RenderFormat {
    /// The colour attachment's format (an sRGB format gives correct output: the shader writes
    /// linear colour).
    pub color: wgpu::TextureFormat,
    /// The depth attachment's format (depth is tested and written).
    pub depth: wgpu::TextureFormat,
    /// Samples per pixel of both attachments.
    pub sample_count: u32,
}

impl Default for RenderFormat {
    /// [`COLOR_FORMAT`], [`DEPTH_FORMAT`], one sample.
    fn default() -> Self {
        Self {
            color: COLOR_FORMAT,
            depth: DEPTH_FORMAT,
            sample_count: 1,
        }
    }
}

/// What drawing can fail with.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RenderError {
    /// A GPU operation failed (shader or pipeline validation, bind groups, device loss).
    #[error("GPU error while {context}: {source}")]
    Gpu {
        /// What the renderer was doing.
        context: &'static str,
        /// skel-gpu's error.
        #[source]
        source: skel_gpu::GpuError,
    },
    /// A target side is zero or larger than the device allows.
    #[error("image size {width}×{height} is not allowed (each side must be 1..={max})")]
    BadSize {
        /// Requested width.
        width: u32,
        /// Requested height.
        height: u32,
        /// The largest side the device allows.
        max: u32,
    },
    /// Reading a frame back from the GPU failed.
    #[error("reading the frame back from the GPU failed: {0}")]
    Readback(String),
    /// The adapter cannot present to the surface ([`SurfaceTarget::new`]).
    #[error("the adapter cannot present to this surface (no format in common)")]
    NoSurfaceFormat,
    /// A crowd could not be drawn (its meshes cannot be bound).
    #[error("crowd: {context}: {source}")]
    Crowd {
        /// What the renderer was doing.
        context: &'static str,
        /// The facade's error.
        #[source]
        source: Box<crate::SkelError>,
    },
}
