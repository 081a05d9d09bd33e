//! [`AssetRenderer`]: the per-asset GPU state (one `Draw` uniform and bind group per
//! primitive, one skinning bind group per mesh, base colour textures, the instance buffer, and
//! the `Frame` uniform with the camera and lights) and the draw calls.

use std::collections::HashMap;

use glam::{Mat4, Vec3};
use image::RgbaImage;
use skel_anim::PropertyPose;
use skel_gltf::{AlphaMode, PropertyTarget};
use skel_gpu::GpuContext;
use wgpu::util::DeviceExt as _;

use super::camera::Camera;
use super::look::{LOOK_BYTES, MaterialLook};
use super::material::{base_color_sampler, base_color_texture, draw_bind_group, draw_uniform};
use super::pipeline::{FIRST_INFLUENCE_SLOT, FragmentKey, PipelineKey, Pipelines};
use super::texture::upload_texture;
use super::{RenderError, RenderFormat};
use crate::{AssetContainer, Topology};

/// A dark blue-grey background to clear to (linear; sRGB #262a34), the one `skel render` uses.
pub const BACKGROUND: wgpu::Color = wgpu::Color {
    r: 0.019,
    g: 0.023,
    b: 0.033,
    a: 1.0,
};

/// One primitive's draw: its uniform, its group-1 bind group and its pipeline, and the
/// material look its uniform holds.
#[derive(Debug)]
struct DrawItem {
    mesh: usize,
    primitive: usize,
    key: PipelineKey,
    uniform: wgpu::Buffer,
    bind_group: wgpu::BindGroup,
    /// Whether the base colour texture is bound.
    textured: bool,
    /// The look in the file, and the one written to `uniform` last.
    rest: MaterialLook,
    shown: MaterialLook,
}

/// Draws one [`AssetContainer`] into a render pass: lit (a key, a fill and a hemisphere
/// light placed relative to the camera), textured (glTF base colour factor and texture, alpha
/// mask and blend), depth-tested, skinned and morphed on the GPU, in any number of instances.
///
/// It holds the pipelines of every skinning variant the asset uses, built for one
/// [`RenderFormat`], and one uniform per primitive; the vertex, bone and morph buffers stay in
/// the container, which every call takes by reference. Morph targets are read where the loader
/// put their deltas: a storage buffer, or a texture where vertex shaders have no storage
/// buffers (WebGL2; [`LoadOptions::morph_deltas`](crate::LoadOptions::morph_deltas)), so the
/// same asset draws on both. Each frame: hand the renderer to
/// [`Frame::advance`](crate::Frame::advance) (it writes the pose's world matrices, animated
/// properties and root-motion instance here), then [`draw`](Self::draw) inside your render
/// pass; or tick the animation into the container yourself and call
/// [`set_world_matrices`](Self::set_world_matrices) (or
/// [`update_from_group`](Self::update_from_group)) and
/// [`set_properties`](Self::set_properties).
#[derive(Debug)]
pub struct AssetRenderer {
    pipelines: Pipelines,
    frame_uniform: wgpu::Buffer,
    frame_bind_group: wgpu::BindGroup,
    /// Per mesh: its skinning bind group (group 2).
    mesh_groups: Vec<wgpu::BindGroup>,
    /// Per mesh: hidden by `KHR_node_visibility` (its node's or an ancestor's), as in the file
    /// or as the last [`AssetRenderer::set_properties`] said.
    mesh_hidden: Vec<bool>,
    draws: Vec<DrawItem>,
    /// Draws skipped because their topology has no pipeline here (kept for the report).
    skipped: usize,
    /// One model matrix (16 floats) per instance.
    instances: wgpu::Buffer,
    instance_count: u32,
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

/// The bytes of [`MESH_WGSL`](super::MESH_WGSL)'s `Frame` uniform (group 0) for `camera`:
/// view-projection, eye, and a key and fill light placed relative to the camera (key from the
/// upper left, fill from the right), so every model is lit the same way in the picture
/// whatever its orientation or the handedness. For pipelines of your own around `MESH_WGSL`
/// (a crowd's instanced draw) that should look as [`AssetRenderer`] draws.
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

fn instance_buffer(ctx: &GpuContext, instances: &[Mat4]) -> wgpu::Buffer {
    let mut bytes = Vec::with_capacity(instances.len().max(1) * 64);
    for m in instances {
        bytes.extend(mat_bytes(m));
    }
    if bytes.is_empty() {
        bytes.extend(mat_bytes(&Mat4::IDENTITY));
    }
    ctx.device
        .create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("skel instances"),
            contents: &bytes,
            usage: wgpu::BufferUsages::VERTEX | wgpu::BufferUsages::COPY_DST,
        })
}

impl AssetRenderer {
    /// Creates pipelines, textures, uniforms and bind groups for every primitive of
    /// `container`, for passes whose attachments are `format`. Draws one instance at the
    /// origin until [`set_instances`](Self::set_instances) says otherwise.
    ///
    /// Base colour textures are drawn only when the asset was loaded with
    /// `LoadOptions::decode_images`; otherwise primitives show their base colour factor.
    ///
    /// # Errors
    /// [`RenderError::Gpu`] when a pipeline, bind group or texture cannot be created (a
    /// triangle primitive's pipeline must build; line and point primitives an adapter cannot
    /// draw are left out and counted by [`skipped`](Self::skipped)).
    pub fn new(
        ctx: &GpuContext,
        container: &AssetContainer,
        format: &RenderFormat,
    ) -> Result<Self, RenderError> {
        let device = &ctx.device;
        let mut pipelines = Pipelines::new(ctx, *format);
        let frame_uniform = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("skel render frame"),
            size: super::material::FRAME_UNIFORM_SIZE,
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
        let sampler = base_color_sampler(device);
        let white = upload_texture(ctx, &RgbaImage::from_pixel(1, 1, image::Rgba([255; 4])));
        let mut textures: HashMap<usize, wgpu::TextureView> = HashMap::new();

        let mut mesh_groups = Vec::with_capacity(container.meshes.len());
        let mut draws = Vec::new();
        let mut skipped = 0;
        for (mi, mesh) in container.meshes.iter().enumerate() {
            // The mesh's variant, reading morph deltas where its MorphGpu keeps them (a texture
            // on WebGL2).
            let fragment_key = FragmentKey::of(mesh);
            let (fragment, layout) = pipelines.fragment(ctx, fragment_key)?;
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
                let texture = base_color_texture(ctx, container, primitive, &mut textures);
                let textured = texture.is_some();
                let rest = MaterialLook::rest(material);
                let blend = material.alpha_mode == AlphaMode::Blend;
                let uniform = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                    label: Some("skel render draw"),
                    contents: &draw_uniform(&Mat4::IDENTITY, primitive, textured),
                    usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
                });
                let bind_group = draw_bind_group(
                    device,
                    &pipelines.draw_layout,
                    &uniform,
                    texture.unwrap_or(&white),
                    &sampler,
                );
                let key = PipelineKey {
                    fragment: fragment_key,
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
                    textured,
                    rest,
                    shown: rest,
                });
            }
        }
        let mesh_hidden = container
            .meshes
            .iter()
            .map(|m| !node_shown(container, m.node, None))
            .collect();
        // Opaque first, then blended ones (drawn over them without writing depth).
        draws.sort_by_key(|d| d.key.blend);
        Ok(Self {
            pipelines,
            frame_uniform,
            frame_bind_group,
            mesh_groups,
            mesh_hidden,
            draws,
            skipped,
            instances: instance_buffer(ctx, &[Mat4::IDENTITY]),
            instance_count: 1,
        })
    }

    /// Draws `instances.len()` copies of the asset, each moved by its model matrix (applied
    /// after the nodes' world matrices; all copies share the current pose). An empty slice
    /// draws nothing.
    pub fn set_instances(&mut self, ctx: &GpuContext, instances: &[Mat4]) {
        let count = u32::try_from(instances.len()).unwrap_or(u32::MAX);
        if count <= self.instance_count && count > 0 {
            let mut bytes = Vec::with_capacity(instances.len() * 64);
            for m in instances {
                bytes.extend(mat_bytes(m));
            }
            ctx.queue.write_buffer(&self.instances, 0, &bytes);
        } else if count > 0 {
            self.instances = instance_buffer(ctx, instances);
        }
        self.instance_count = count;
    }

    /// How many instances [`draw`](Self::draw) draws.
    #[must_use]
    pub fn instance_count(&self) -> u32 {
        self.instance_count
    }

    /// Writes the world matrices of the pose `group` of `container` last computed (after
    /// `container.tick_animation(group, …)`), resolving them first.
    ///
    /// Does nothing when `group` is out of range.
    pub fn update_from_group(
        &self,
        queue: &wgpu::Queue,
        container: &mut AssetContainer,
        group: usize,
    ) {
        let AssetContainer {
            animation_groups,
            meshes,
            ..
        } = container;
        if let Some(g) = animation_groups.get_mut(group) {
            self.write_world_matrices(queue, meshes, g.world_matrices());
        }
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

    /// Writes every primitive's world matrix from `world` (the pose's world matrices, by node
    /// index). A skinned mesh uses its node's world matrix too (the bone matrices hold
    /// its inverse, so the two cancel), or the identity when that matrix is singular (the
    /// pose pipeline then used the identity as its inverse).
    pub fn set_world_matrices(
        &self,
        queue: &wgpu::Queue,
        container: &AssetContainer,
        world: &[Mat4],
    ) {
        self.write_world_matrices(queue, &container.meshes, world);
    }

    fn write_world_matrices(&self, queue: &wgpu::Queue, meshes: &[crate::Mesh], world: &[Mat4]) {
        for draw in &self.draws {
            let Some(mesh) = meshes.get(draw.mesh) else {
                continue;
            };
            let m = world.get(mesh.node).copied().unwrap_or(Mat4::IDENTITY);
            let det = m.determinant();
            let m = if mesh.skeleton.is_some() && !(det != 0.0 && det.is_finite()) {
                Mat4::IDENTITY
            } else {
                m
            };
            queue.write_buffer(&draw.uniform, 0, &mat_bytes(&m));
        }
    }

    /// Shows the animated properties of `pose` (sampled by
    /// [`Player::sample_properties`](skel_anim::Player::sample_properties) over `container`'s
    /// clips): material base colour, alpha cutoff, emission and emission strength, the base
    /// colour texture's `KHR_texture_transform`, and `KHR_node_visibility` (a hidden node hides
    /// its mesh and its descendants'). Slots `pose` does not animate keep the file's values.
    /// Other properties (metallic, roughness, cameras, lights) have no term in this renderer
    /// and are left to yours. Writes only the uniforms that changed; allocates nothing.
    pub fn set_properties(
        &mut self,
        queue: &wgpu::Queue,
        container: &AssetContainer,
        pose: &PropertyPose,
    ) {
        for draw in &mut self.draws {
            let Some(primitive) = container
                .meshes
                .get(draw.mesh)
                .and_then(|m| m.primitives.get(draw.primitive))
            else {
                continue;
            };
            let Some(material) = primitive.material.index else {
                continue;
            };
            let look = draw.rest.posed(material, &container.properties, pose);
            if look != draw.shown {
                let bytes: [u8; LOOK_BYTES] = look.uniform_bytes(primitive, draw.textured);
                queue.write_buffer(&draw.uniform, 64, &bytes);
                draw.shown = look;
            }
        }
        for (hidden, mesh) in self.mesh_hidden.iter_mut().zip(&container.meshes) {
            *hidden = !node_shown(container, mesh.node, Some(pose));
        }
    }

    /// Records the draws of every visible mesh into `pass`, whose attachments must have the
    /// [`RenderFormat`] this renderer was made for. Sets its own pipelines, bind groups 0..=2
    /// and vertex buffers; anything else in the pass is the caller's.
    ///
    /// # Errors
    /// [`RenderError::Gpu`] when a mesh's influence buffers do not fit its pipeline (the
    /// container is not the one this renderer was made for).
    pub fn draw(
        &self,
        container: &AssetContainer,
        pass: &mut wgpu::RenderPass<'_>,
    ) -> Result<(), RenderError> {
        if self.instance_count == 0 {
            return Ok(());
        }
        let instances = 0..self.instance_count;
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
            if !mesh.visible || self.mesh_hidden.get(draw.mesh).copied().unwrap_or(false) {
                continue;
            }
            let (Some(pipeline), Some((fragment, _))) = (
                self.pipelines.made(&draw.key),
                self.pipelines.fragment_made(draw.key.fragment),
            ) else {
                continue;
            };
            pass.set_pipeline(pipeline);
            pass.set_bind_group(1, &draw.bind_group, &[]);
            pass.set_bind_group(2, mesh_group, &[]);
            set_vertex_streams(pass, mesh);
            let influence_slots = fragment.influence_vertex_buffer_layouts().len();
            let instance_slot =
                FIRST_INFLUENCE_SLOT + u32::try_from(influence_slots).unwrap_or(u32::MAX);
            pass.set_vertex_buffer(instance_slot, self.instances.slice(..));
            if let Some(skeleton) = &mesh.skeleton {
                fragment
                    .set_influence_vertex_buffers(pass, FIRST_INFLUENCE_SLOT, &skeleton.gpu)
                    .map_err(|source| RenderError::Gpu {
                        context: "binding influence buffers",
                        source,
                    })?;
            }
            draw_primitive(pass, mesh, primitive, instances.clone());
        }
        Ok(())
    }
}

/// Binds `mesh`'s positions, normals and UVs to vertex slots 0, 1 and 2 (the mesh shader's
/// locations 0–2).
pub(super) fn set_vertex_streams(pass: &mut wgpu::RenderPass<'_>, mesh: &crate::Mesh) {
    pass.set_vertex_buffer(0, mesh.positions.slice(..));
    pass.set_vertex_buffer(1, mesh.normals.slice(..));
    pass.set_vertex_buffer(2, mesh.uvs.slice(..));
}

/// Draws `primitive` of `mesh` over `instances`: indexed when it has indices (already offset by
/// its base vertex, see [`Primitive`](crate::Primitive)), else its vertex range.
pub(super) fn draw_primitive(
    pass: &mut wgpu::RenderPass<'_>,
    mesh: &crate::Mesh,
    primitive: &crate::Primitive,
    instances: std::ops::Range<u32>,
) {
    let base = primitive.base_vertex;
    match (&primitive.indices, &mesh.indices) {
        (Some(range), Some(indices)) => {
            pass.set_index_buffer(indices.slice(..), wgpu::IndexFormat::Uint32);
            pass.draw_indexed(range.clone(), 0, instances);
        }
        _ => pass.draw(base..base + primitive.vertex_count, instances),
    }
}

/// Whether `node` is shown: it and every ancestor visible, each by `pose` where it animates
/// the node's `KHR_node_visibility`, else by the file.
fn node_shown(container: &AssetContainer, node: usize, pose: Option<&PropertyPose>) -> bool {
    let animated = |n: usize| {
        let pose = pose?;
        container
            .properties
            .iter()
            .enumerate()
            .find_map(|(slot, t)| {
                (*t == PropertyTarget::NodeVisible { node: n } && pose.kind(slot).is_some())
                    .then(|| pose.bool(slot))
                    .flatten()
            })
    };
    let mut at = Some(node);
    // The loader checked the hierarchy is a forest; the bound only guards a hand-made one.
    for _ in 0..=container.nodes.len() {
        let Some(n) = at else { return true };
        let Some(info) = container.nodes.get(n) else {
            return true;
        };
        if !animated(n).unwrap_or(info.visible) {
            return false;
        }
        at = info.parent;
    }
    true
}
