//! The per-asset GPU state of the demo renderer: one `Draw` uniform and bind group per
//! primitive, one skinning bind group per mesh, base colour textures, and the `Frame` uniform
//! with the camera and lights.

use std::collections::HashMap;
use std::collections::hash_map::Entry;

use glam::{Mat4, Vec3};
use image::{RgbaImage, imageops};
use skel::gltf::{AlphaMode, ImageSlot};
use skel::gpu::GpuContext;
use skel::{AssetContainer, Topology};
use wgpu::util::DeviceExt as _;

use super::RenderError;
use super::camera::Camera;
use super::pipeline::{FIRST_INFLUENCE_SLOT, PipelineKey, Pipelines};

/// Background colour (linear; sRGB #262a34).
pub const BACKGROUND: wgpu::Color = wgpu::Color {
    r: 0.019,
    g: 0.023,
    b: 0.033,
    a: 1.0,
};

/// One primitive's draw: its uniform, its group-1 bind group and its pipeline.
#[derive(Debug)]
struct DrawItem {
    mesh: usize,
    primitive: usize,
    key: PipelineKey,
    uniform: wgpu::Buffer,
    bind_group: wgpu::BindGroup,
}

/// Everything drawn for one asset.
#[derive(Debug)]
pub struct SceneGpu {
    pipelines: Pipelines,
    frame_uniform: wgpu::Buffer,
    frame_bind_group: wgpu::BindGroup,
    /// Per mesh: its skinning bind group (group 2).
    mesh_groups: Vec<wgpu::BindGroup>,
    draws: Vec<DrawItem>,
    /// Draws skipped because their topology has no pipeline here (kept for the report).
    skipped: usize,
}

/// `[f32; 16]` of a matrix, as bytes for a uniform.
fn mat_bytes(m: &Mat4) -> [u8; 64] {
    let mut out = [0; 64];
    for (chunk, v) in out.chunks_exact_mut(4).zip(m.to_cols_array()) {
        chunk.copy_from_slice(&v.to_le_bytes());
    }
    out
}

fn vec4_bytes(v: [f32; 4]) -> [u8; 16] {
    let mut out = [0; 16];
    for (chunk, x) in out.chunks_exact_mut(4).zip(v) {
        chunk.copy_from_slice(&x.to_le_bytes());
    }
    out
}

/// The `Frame` uniform for `camera`: view-projection, eye, and a key and fill light placed
/// relative to the camera (key from the upper left, fill from the right), so every model is
/// lit the same way in the picture whatever its orientation or the handedness.
#[must_use]
pub fn frame_uniform(camera: &Camera) -> Vec<u8> {
    let key = (-0.45 * camera.right + 0.75 * camera.up + 0.6 * camera.back).normalize();
    let fill = (0.8 * camera.right + 0.15 * camera.up + 0.5 * camera.back).normalize();
    let dir = |v: Vec3| [v.x, v.y, v.z, 0.0];
    let mut out = Vec::with_capacity(192);
    out.extend(mat_bytes(&camera.view_projection()));
    out.extend(vec4_bytes([camera.eye.x, camera.eye.y, camera.eye.z, 1.0]));
    out.extend(vec4_bytes(dir(key)));
    out.extend(vec4_bytes(dir(fill)));
    out.extend(vec4_bytes([1.55, 1.45, 1.3, 0.0])); // key: warm white
    out.extend(vec4_bytes([0.35, 0.42, 0.55, 0.0])); // fill: cool
    out.extend(vec4_bytes([0.30, 0.33, 0.38, 0.0])); // sky ambient
    out.extend(vec4_bytes([0.10, 0.09, 0.08, 0.0])); // ground ambient
    out.extend(vec4_bytes([0.0, 1.0, 0.0, 0.0])); // up
    out
}

impl SceneGpu {
    /// Creates pipelines, textures, uniforms and bind groups for every primitive of
    /// `container`.
    ///
    /// # Errors
    /// [`RenderError::Gpu`] when a pipeline, bind group or texture cannot be created.
    pub fn new(
        ctx: &GpuContext,
        container: &AssetContainer,
        sample_count: u32,
    ) -> Result<Self, RenderError> {
        let device = &ctx.device;
        let mut pipelines = Pipelines::new(ctx, sample_count);
        let frame_uniform = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("skel render frame"),
            size: super::pipeline::FRAME_UNIFORM_SIZE,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let frame_bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("skel render frame"),
            layout: &pipelines.frame_layout,
            entries: &[wgpu::BindGroupEntry {
                binding: 0,
                resource: frame_uniform.as_entire_binding(),
            }],
        });
        let sampler = device.create_sampler(&wgpu::SamplerDescriptor {
            label: Some("skel render base colour"),
            address_mode_u: wgpu::AddressMode::Repeat,
            address_mode_v: wgpu::AddressMode::Repeat,
            mag_filter: wgpu::FilterMode::Linear,
            min_filter: wgpu::FilterMode::Linear,
            mipmap_filter: wgpu::MipmapFilterMode::Linear,
            ..wgpu::SamplerDescriptor::default()
        });
        let white = upload_texture(ctx, &RgbaImage::from_pixel(1, 1, image::Rgba([255; 4])));
        let mut textures: HashMap<usize, wgpu::TextureView> = HashMap::new();

        let mut mesh_groups = Vec::with_capacity(container.meshes.len());
        let mut draws = Vec::new();
        let mut skipped = 0;
        for (mi, mesh) in container.meshes.iter().enumerate() {
            let variant = mesh.skinning_variant();
            let (fragment, layout) = pipelines.fragment(ctx, variant)?;
            let group = fragment
                .create_bind_group(
                    ctx,
                    layout,
                    mesh.skeleton.as_ref().map(|s| &*s.gpu),
                    mesh.morph.as_ref().map(|m| &*m.gpu),
                )
                .map_err(|source| RenderError::Gpu {
                    context: "binding a mesh's skeleton and morph targets",
                    source,
                })?;
            mesh_groups.push(group);
            for (pi, primitive) in mesh.primitives.iter().enumerate() {
                let material = &primitive.material;
                let texture = match material.base_color_texture {
                    Some(tex) if primitive.has_uvs => match container.images.get(tex.image) {
                        Some(ImageSlot::Decoded(image)) => {
                            if let Entry::Vacant(slot) = textures.entry(tex.image)
                                && let Some(rgba) = RgbaImage::from_raw(
                                    image.width,
                                    image.height,
                                    image.rgba8.clone(),
                                )
                            {
                                slot.insert(upload_texture(ctx, &rgba));
                            }
                            textures.get(&tex.image)
                        }
                        _ => None,
                    },
                    _ => None,
                };
                let (mask, cutoff, blend) = match material.alpha_mode {
                    AlphaMode::Opaque => (0, 0.0, false),
                    AlphaMode::Mask { cutoff } => (1, cutoff, false),
                    AlphaMode::Blend => (0, 0.0, true),
                };
                let c = material.base_color_factor;
                // Saturating float → int conversion of a cutoff in [0, 1].
                let cutoff_micros = (cutoff.clamp(0.0, 1.0) * 1e6) as u32;
                let material_words = [
                    c[0].to_bits(),
                    c[1].to_bits(),
                    c[2].to_bits(),
                    c[3].to_bits(),
                    u32::from(primitive.has_normals),
                    u32::from(texture.is_some()),
                    mask,
                    cutoff_micros,
                ];
                let uniform = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                    label: Some("skel render draw"),
                    contents: &draw_bytes(&Mat4::IDENTITY, &material_words),
                    usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
                });
                let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
                    label: Some("skel render draw"),
                    layout: &pipelines.draw_layout,
                    entries: &[
                        wgpu::BindGroupEntry {
                            binding: 0,
                            resource: uniform.as_entire_binding(),
                        },
                        wgpu::BindGroupEntry {
                            binding: 1,
                            resource: wgpu::BindingResource::TextureView(texture.unwrap_or(&white)),
                        },
                        wgpu::BindGroupEntry {
                            binding: 2,
                            resource: wgpu::BindingResource::Sampler(&sampler),
                        },
                    ],
                });
                let key = PipelineKey {
                    variant,
                    topology: primitive.topology,
                    blend,
                };
                // Make the pipeline now so that shader errors surface before frame 0.
                if let Err(e) = pipelines.get(ctx, key) {
                    if primitive.topology == Topology::Triangles {
                        return Err(e);
                    }
                    // Lines and points are optional on some adapters; leave them out.
                    skipped += 1;
                    continue;
                }
                draws.push(DrawItem {
                    mesh: mi,
                    primitive: pi,
                    key,
                    uniform,
                    bind_group,
                });
            }
        }
        // Opaque first, then blended ones (drawn over them without writing depth).
        draws.sort_by_key(|d| d.key.blend);
        Ok(Self {
            pipelines,
            frame_uniform,
            frame_bind_group,
            mesh_groups,
            draws,
            skipped,
        })
    }

    /// Primitives that cannot be drawn here (a topology without a pipeline).
    #[must_use]
    pub fn skipped(&self) -> usize {
        self.skipped
    }

    /// Number of draw calls per frame.
    #[must_use]
    pub fn draw_count(&self) -> usize {
        self.draws.len()
    }

    /// Writes the camera and lights.
    pub fn set_camera(&self, queue: &wgpu::Queue, camera: &Camera) {
        queue.write_buffer(&self.frame_uniform, 0, &frame_uniform(camera));
    }

    /// Writes every primitive's world matrix from `world` (16 floats per node, the pose's
    /// world matrices). A skinned mesh uses its node's world matrix too (the bone matrices hold
    /// its inverse, so the two cancel), or the identity when that matrix is singular (the
    /// pose pipeline then used the identity as its inverse).
    pub fn set_world_matrices(
        &self,
        queue: &wgpu::Queue,
        container: &AssetContainer,
        world: &[f32],
    ) {
        for draw in &self.draws {
            let Some(mesh) = container.meshes.get(draw.mesh) else {
                continue;
            };
            let m = world
                .get(mesh.node * 16..mesh.node * 16 + 16)
                .map_or(Mat4::IDENTITY, Mat4::from_cols_slice);
            let det = m.determinant();
            let m = if mesh.skeleton.is_some() && !(det != 0.0 && det.is_finite()) {
                Mat4::IDENTITY
            } else {
                m
            };
            queue.write_buffer(&draw.uniform, 0, &mat_bytes(&m));
        }
    }

    /// Records the draws of every visible mesh into `pass`.
    ///
    /// # Errors
    /// [`RenderError::Gpu`] when a mesh's influence buffers do not fit its pipeline.
    pub fn draw(
        &mut self,
        ctx: &GpuContext,
        container: &AssetContainer,
        pass: &mut wgpu::RenderPass<'_>,
    ) -> Result<(), RenderError> {
        pass.set_bind_group(0, &self.frame_bind_group, &[]);
        for draw in &self.draws {
            let (Some(mesh), Some(mesh_group)) = (
                container.meshes.get(draw.mesh),
                self.mesh_groups.get(draw.mesh),
            ) else {
                continue;
            };
            let Some(primitive) = mesh.primitives.get(draw.primitive) else {
                continue;
            };
            if !mesh.visible {
                continue;
            }
            let pipeline = self.pipelines.get(ctx, draw.key)?;
            pass.set_pipeline(pipeline);
            pass.set_bind_group(1, &draw.bind_group, &[]);
            pass.set_bind_group(2, mesh_group, &[]);
            pass.set_vertex_buffer(0, mesh.positions.slice(..));
            pass.set_vertex_buffer(1, mesh.normals.slice(..));
            pass.set_vertex_buffer(2, mesh.uvs.slice(..));
            if let Some(skeleton) = &mesh.skeleton {
                let (fragment, _) = self.pipelines.fragment(ctx, draw.key.variant)?;
                fragment
                    .set_influence_vertex_buffers(pass, FIRST_INFLUENCE_SLOT, &skeleton.gpu)
                    .map_err(|source| RenderError::Gpu {
                        context: "binding influence buffers",
                        source,
                    })?;
            }
            let base = primitive.base_vertex;
            match (&primitive.indices, &mesh.indices) {
                (Some(range), Some(indices)) => {
                    pass.set_index_buffer(indices.slice(..), wgpu::IndexFormat::Uint32);
                    let base = i32::try_from(base).unwrap_or(i32::MAX);
                    pass.draw_indexed(range.clone(), base, 0..1);
                }
                _ => pass.draw(base..base + primitive.vertex_count, 0..1),
            }
        }
        Ok(())
    }
}

fn draw_bytes(world: &Mat4, material: &[u32; 8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(96);
    out.extend(mat_bytes(world));
    for w in material {
        out.extend(w.to_le_bytes());
    }
    out
}

/// Uploads an sRGB RGBA8 image with a full mip chain (box-filtered on the CPU), so small
/// renders of large textures do not shimmer.
fn upload_texture(ctx: &GpuContext, image: &RgbaImage) -> wgpu::TextureView {
    let (w, h) = image.dimensions();
    let levels = 32 - w.max(h).max(1).leading_zeros();
    let texture = ctx.device.create_texture(&wgpu::TextureDescriptor {
        label: Some("skel render base colour"),
        size: wgpu::Extent3d {
            width: w,
            height: h,
            depth_or_array_layers: 1,
        },
        mip_level_count: levels,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format: wgpu::TextureFormat::Rgba8UnormSrgb,
        usage: wgpu::TextureUsages::TEXTURE_BINDING | wgpu::TextureUsages::COPY_DST,
        view_formats: &[],
    });
    let mut level_image = image.clone();
    for level in 0..levels {
        let (lw, lh) = level_image.dimensions();
        ctx.queue.write_texture(
            wgpu::TexelCopyTextureInfo {
                texture: &texture,
                mip_level: level,
                origin: wgpu::Origin3d::ZERO,
                aspect: wgpu::TextureAspect::All,
            },
            level_image.as_raw(),
            wgpu::TexelCopyBufferLayout {
                offset: 0,
                bytes_per_row: Some(lw * 4),
                rows_per_image: Some(lh),
            },
            wgpu::Extent3d {
                width: lw,
                height: lh,
                depth_or_array_layers: 1,
            },
        );
        if level + 1 < levels {
            let (nw, nh) = ((lw / 2).max(1), (lh / 2).max(1));
            level_image = imageops::resize(&level_image, nw, nh, imageops::FilterType::Triangle);
        }
    }
    texture.create_view(&wgpu::TextureViewDescriptor::default())
}
