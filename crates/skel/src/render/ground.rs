//! [`GroundRenderer`]: a ground to stand a character on, drawn in the character's pass. It
//! takes triangles in world space (a [`plane_patch`](super::plane_patch), a terrain's mesh),
//! flat-shades them with the lights [`AssetRenderer`](super::AssetRenderer) uses
//! ([`frame_uniform`]) and a checker of world-space squares that makes a slope read as one,
//! and tests and writes the same depth attachment, so that feet on the ground look on it.

use glam::Vec3;
use skel_gpu::GpuContext;
use wgpu::util::DeviceExt as _;

use super::camera::Camera;
use super::material::FRAME_UNIFORM_SIZE;
use super::renderer::frame_uniform;
use super::{RenderError, RenderFormat};

/// The ground's WGSL (group 0: the `Frame` uniform of [`MESH_WGSL`](super::MESH_WGSL) and the
/// ground's look; entry points `vs_main` / `fs_main`).
pub const GROUND_WGSL: &str = include_str!("../../shaders/demo_ground.wgsl");

/// Bytes per vertex: position and its triangle's normal, three `f32` each.
const VERTEX_BYTES: u64 = 24;
/// Bytes of the `Ground` uniform: colour and checker, a `vec4` each.
const STYLE_BYTES: u64 = 32;

/// How the ground looks.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GroundStyle {
    /// Linear base colour.
    pub color: Vec3,
    /// Side of a checker square in world units, on the world x and z axes (0: plain).
    pub checker_side: f32,
    /// Brightness of the darker squares relative to the lighter ones (0..=1).
    pub checker_shade: f32,
}

impl Default for GroundStyle {
    /// A muted grey-green with half-unit squares (half a metre for a character in metres),
    /// the darker ones at 70 %: light enough to stand apart from
    /// [`BACKGROUND`](super::BACKGROUND), dark enough for a character to stand out on it
    /// under the key light.
    fn default() -> Self {
        Self {
            color: Vec3::new(0.085, 0.10, 0.08),
            checker_side: 0.5,
            checker_shade: 0.7,
        }
    }
}

impl GroundStyle {
    /// The `Ground` uniform's bytes; a style that is not finite, or a negative side, draws
    /// plain white-grey rather than garbage.
    fn uniform_bytes(&self) -> [u8; STYLE_BYTES as usize] {
        let ok = self.color.is_finite() && self.checker_side.is_finite();
        let color = if ok { self.color } else { Vec3::splat(0.5) };
        let side = if ok { self.checker_side.max(0.0) } else { 0.0 };
        let shade = if self.checker_shade.is_finite() {
            self.checker_shade.clamp(0.0, 1.0)
        } else {
            1.0
        };
        let floats = [color.x, color.y, color.z, 1.0, side, shade, 0.0, 0.0];
        let mut out = [0; STYLE_BYTES as usize];
        for (chunk, v) in out.chunks_exact_mut(4).zip(floats) {
            chunk.copy_from_slice(&v.to_le_bytes());
        }
        out
    }
}

/// Draws triangles in world space as the ground, lit as [`AssetRenderer`](super::AssetRenderer)
/// lights the character, into a render pass with the attachments of one [`RenderFormat`].
///
/// Make it once with the ground's triangles; each frame the camera moves, call
/// [`set_camera`](Self::set_camera) with the camera you give the character's renderer; in the
/// pass, [`draw`](Self::draw) before or after the character (depth sorts them). The ground is
/// pushed back by a small depth bias, so a sole resting exactly on it shows instead of
/// flickering into it. Both faces are drawn and lit on the side the camera sees.
///
/// ```
/// use skel::anim::GroundPlane;
/// use skel::render::{BACKGROUND, Camera, GroundRenderer, OffscreenTarget, Vec3, plane_patch};
/// use skel::gpu::GpuContext;
///
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let Ok(ctx) = GpuContext::new_headless() else { return Ok(()) }; // no adapter: nothing to draw
/// let target = OffscreenTarget::new(&ctx.device, 64, 64, 1)?;
/// let slope = GroundPlane::through(Vec3::ZERO, Vec3::new(-0.3, 1.0, 0.0))?;
/// let ground = GroundRenderer::new(&ctx, &target.format(), &plane_patch(&slope, Vec3::ZERO, 3.0))?;
/// let handedness = skel::LoadOptions::default().handedness;
/// ground.set_camera(&ctx.queue, &Camera::orbit(Vec3::ZERO, 5.0, 0.5, 0.4, 1.0, handedness));
/// let mut encoder = ctx.device.create_command_encoder(&Default::default());
/// {
///     let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
///         color_attachments: &[Some(target.color_attachment(BACKGROUND))],
///         depth_stencil_attachment: Some(target.depth_attachment()),
///         ..Default::default()
///     });
///     ground.draw(&mut pass); // and the character's renderer, in the same pass
/// }
/// ctx.queue.submit([encoder.finish()]);
/// assert_eq!(ground.triangle_count(), 2);
/// # Ok(())
/// # }
/// ```
#[derive(Debug)]
pub struct GroundRenderer {
    pipeline: wgpu::RenderPipeline,
    frame_uniform: wgpu::Buffer,
    style_uniform: wgpu::Buffer,
    bind_group: wgpu::BindGroup,
    vertices: wgpu::Buffer,
    vertex_count: u32,
}

impl GroundRenderer {
    /// Builds the pipeline for passes whose attachments are `format`, and uploads `triangles`
    /// (world space; zero-area or non-finite ones are left out) in the default
    /// [`GroundStyle`].
    ///
    /// # Errors
    /// [`RenderError::Gpu`] when the shader or the pipeline does not build on this device.
    pub fn new(
        ctx: &GpuContext,
        format: &RenderFormat,
        triangles: &[[Vec3; 3]],
    ) -> Result<Self, RenderError> {
        let device = &ctx.device;
        let gpu_err = |context| move |source| RenderError::Gpu { context, source };
        let uniform = |binding, size| wgpu::BindGroupLayoutEntry {
            binding,
            visibility: wgpu::ShaderStages::VERTEX | wgpu::ShaderStages::FRAGMENT,
            ty: wgpu::BindingType::Buffer {
                ty: wgpu::BufferBindingType::Uniform,
                has_dynamic_offset: false,
                min_binding_size: wgpu::BufferSize::new(size),
            },
            count: None,
        };
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("skel ground"),
            entries: &[uniform(0, FRAME_UNIFORM_SIZE), uniform(1, STYLE_BYTES)],
        });
        let frame_uniform = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("skel ground frame"),
            size: FRAME_UNIFORM_SIZE,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let style_uniform = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("skel ground style"),
            contents: &GroundStyle::default().uniform_bytes(),
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
        });
        let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("skel ground"),
            layout: &layout,
            entries: &[
                wgpu::BindGroupEntry {
                    binding: 0,
                    resource: frame_uniform.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 1,
                    resource: style_uniform.as_entire_binding(),
                },
            ],
        });
        let module = ctx
            .capture("compiling the ground shader", || {
                device.create_shader_module(wgpu::ShaderModuleDescriptor {
                    label: Some("skel ground"),
                    source: wgpu::ShaderSource::Wgsl(GROUND_WGSL.into()),
                })
            })
            .map_err(gpu_err("compiling the ground shader"))?;
        let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("skel ground"),
            bind_group_layouts: &[Some(&layout)],
            immediate_size: 0,
        });
        let attributes = wgpu::vertex_attr_array![0 => Float32x3, 1 => Float32x3];
        let pipeline = ctx
            .capture("creating the ground pipeline", || {
                device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
                    label: Some("skel ground"),
                    layout: Some(&pipeline_layout),
                    vertex: wgpu::VertexState {
                        module: &module,
                        entry_point: Some("vs_main"),
                        compilation_options: wgpu::PipelineCompilationOptions::default(),
                        buffers: &[Some(wgpu::VertexBufferLayout {
                            array_stride: VERTEX_BYTES,
                            step_mode: wgpu::VertexStepMode::Vertex,
                            attributes: &attributes,
                        })],
                    },
                    primitive: wgpu::PrimitiveState {
                        // Both faces: a ground seen from below still draws (and occludes).
                        cull_mode: None,
                        ..wgpu::PrimitiveState::default()
                    },
                    depth_stencil: Some(wgpu::DepthStencilState {
                        format: format.depth,
                        depth_write_enabled: Some(true),
                        depth_compare: Some(wgpu::CompareFunction::LessEqual),
                        stencil: wgpu::StencilState::default(),
                        // Behind a sole that rests exactly on it (a few depth steps, more
                        // where the ground is seen at a grazing angle).
                        bias: wgpu::DepthBiasState {
                            constant: 4,
                            slope_scale: 1.0,
                            clamp: 0.0,
                        },
                    }),
                    multisample: wgpu::MultisampleState {
                        count: format.sample_count,
                        ..wgpu::MultisampleState::default()
                    },
                    fragment: Some(wgpu::FragmentState {
                        module: &module,
                        entry_point: Some("fs_main"),
                        compilation_options: wgpu::PipelineCompilationOptions::default(),
                        targets: &[Some(wgpu::ColorTargetState {
                            format: format.color,
                            blend: None,
                            write_mask: wgpu::ColorWrites::ALL,
                        })],
                    }),
                    multiview_mask: None,
                    cache: None,
                })
            })
            .map_err(gpu_err("creating the ground pipeline"))?;
        let (vertices, vertex_count) = vertex_buffer(ctx, triangles);
        Ok(Self {
            pipeline,
            frame_uniform,
            style_uniform,
            bind_group,
            vertices,
            vertex_count,
        })
    }

    /// Replaces the triangles (world space; zero-area or non-finite ones are left out). Makes
    /// a new vertex buffer: for a ground that changes now and then, not every frame.
    pub fn set_triangles(&mut self, ctx: &GpuContext, triangles: &[[Vec3; 3]]) {
        (self.vertices, self.vertex_count) = vertex_buffer(ctx, triangles);
    }

    /// Sets the colour and the checker.
    pub fn set_style(&self, queue: &wgpu::Queue, style: &GroundStyle) {
        queue.write_buffer(&self.style_uniform, 0, &style.uniform_bytes());
    }

    /// Writes the camera and the lights (the bytes
    /// [`AssetRenderer::set_camera`](super::AssetRenderer::set_camera) writes for the same
    /// camera).
    pub fn set_camera(&self, queue: &wgpu::Queue, camera: &Camera) {
        queue.write_buffer(&self.frame_uniform, 0, &frame_uniform(camera));
    }

    /// Triangles drawn (those given, less the degenerate ones).
    #[must_use]
    pub fn triangle_count(&self) -> usize {
        self.vertex_count as usize / 3
    }

    /// Records the ground's one draw into `pass`, whose attachments must have the
    /// [`RenderFormat`] this renderer was made for. Sets its own pipeline, bind group 0 and
    /// vertex buffer 0; nothing when there are no triangles.
    pub fn draw(&self, pass: &mut wgpu::RenderPass<'_>) {
        if self.vertex_count == 0 {
            return;
        }
        pass.set_pipeline(&self.pipeline);
        pass.set_bind_group(0, &self.bind_group, &[]);
        pass.set_vertex_buffer(0, self.vertices.slice(..));
        pass.draw(0..self.vertex_count, 0..1);
    }
}

/// Each usable triangle's three corners with its unit normal (flat shading), as vertex bytes,
/// and the vertex count. An empty ground still gets a one-vertex buffer (never drawn).
fn vertex_buffer(ctx: &GpuContext, triangles: &[[Vec3; 3]]) -> (wgpu::Buffer, u32) {
    let mut bytes = Vec::with_capacity(triangles.len() * 3 * VERTEX_BYTES as usize);
    let mut count = 0_u32;
    for &[a, b, c] in triangles {
        let normal = (b - a).cross(c - a).normalize_or_zero();
        if normal == Vec3::ZERO || !(a.is_finite() && b.is_finite() && c.is_finite()) {
            continue;
        }
        for p in [a, b, c] {
            for v in [p.x, p.y, p.z, normal.x, normal.y, normal.z] {
                bytes.extend_from_slice(&v.to_le_bytes());
            }
        }
        count = count.saturating_add(3);
    }
    if bytes.is_empty() {
        bytes.resize(VERTEX_BYTES as usize, 0);
    }
    let buffer = ctx
        .device
        .create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("skel ground vertices"),
            contents: &bytes,
            usage: wgpu::BufferUsages::VERTEX,
        });
    (buffer, count)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The shader parses and validates (naga, no GPU needed).
    #[test]
    fn the_ground_shader_validates() {
        let module = naga::front::wgsl::parse_str(GROUND_WGSL)
            .unwrap_or_else(|e| panic!("{}", e.emit_to_string(GROUND_WGSL)));
        naga::valid::Validator::new(
            naga::valid::ValidationFlags::all(),
            naga::valid::Capabilities::default(),
        )
        .validate(&module)
        .unwrap();
    }

    #[test]
    fn a_bad_style_writes_finite_plain_bytes() {
        let floats = |s: GroundStyle| -> Vec<f32> {
            s.uniform_bytes()
                .chunks_exact(4)
                .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect()
        };
        let good = floats(GroundStyle::default());
        assert_eq!(&good[4..6], &[0.5, 0.7]);
        let bad = floats(GroundStyle {
            color: Vec3::NAN,
            checker_side: f32::INFINITY,
            checker_shade: f32::NAN,
        });
        assert!(bad.iter().all(|v| v.is_finite()), "{bad:?}");
        assert_eq!(&bad[4..6], &[0.0, 1.0]);
    }
}
