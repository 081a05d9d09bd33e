//! What a draw of `MESH_WGSL` binds besides the mesh: the bind group layouts of its frame
//! (group 0) and draw (group 1) groups, the base colour sampler, each primitive's base colour
//! texture (decoded images uploaded once each) and its `Draw` uniform. [`AssetRenderer`] uses
//! them, and so can a renderer of its own that draws with `MESH_WGSL` (the CLI's crowd render
//! does), so that both bind the same layouts and material words.
//!
//! [`AssetRenderer`]: crate::render::AssetRenderer

use std::collections::HashMap;
use std::collections::hash_map::Entry;

use glam::Mat4;
use image::RgbaImage;
use skel_gltf::ImageSlot;
use skel_gpu::GpuContext;

use super::look::{LOOK_BYTES, MaterialLook};
use super::texture::upload_texture;
use crate::{AssetContainer, Primitive};

/// Size of the `Frame` uniform (one mat4 and eight vec4).
pub(crate) const FRAME_UNIFORM_SIZE: u64 = 64 + 8 * 16;
/// Size of the `Draw` uniform (one mat4, then the material's five vec4).
pub(crate) const DRAW_UNIFORM_SIZE: u64 = 64 + LOOK_BYTES as u64;

fn uniform_entry(binding: u32, size: u64) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility: wgpu::ShaderStages::VERTEX | wgpu::ShaderStages::FRAGMENT,
        ty: wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Uniform,
            has_dynamic_offset: false,
            min_binding_size: wgpu::BufferSize::new(size),
        },
        count: None,
    }
}

/// Group 0 of `MESH_WGSL`: the `Frame` uniform ([`frame_uniform`](super::frame_uniform)).
#[must_use]
pub fn frame_layout_entries() -> [wgpu::BindGroupLayoutEntry; 1] {
    [uniform_entry(0, FRAME_UNIFORM_SIZE)]
}

/// Group 1 of `MESH_WGSL`: the `Draw` uniform ([`draw_uniform`]), the base colour texture and
/// its sampler ([`base_color_sampler`]).
#[must_use]
pub fn draw_layout_entries() -> [wgpu::BindGroupLayoutEntry; 3] {
    [
        uniform_entry(0, DRAW_UNIFORM_SIZE),
        wgpu::BindGroupLayoutEntry {
            binding: 1,
            visibility: wgpu::ShaderStages::FRAGMENT,
            ty: wgpu::BindingType::Texture {
                sample_type: wgpu::TextureSampleType::Float { filterable: true },
                view_dimension: wgpu::TextureViewDimension::D2,
                multisampled: false,
            },
            count: None,
        },
        wgpu::BindGroupLayoutEntry {
            binding: 2,
            visibility: wgpu::ShaderStages::FRAGMENT,
            ty: wgpu::BindingType::Sampler(wgpu::SamplerBindingType::Filtering),
            count: None,
        },
    ]
}

/// The base colour sampler: repeating, linearly filtered (glTF's default sampler).
#[must_use]
pub fn base_color_sampler(device: &wgpu::Device) -> wgpu::Sampler {
    device.create_sampler(&wgpu::SamplerDescriptor {
        label: Some("skel render base colour"),
        address_mode_u: wgpu::AddressMode::Repeat,
        address_mode_v: wgpu::AddressMode::Repeat,
        mag_filter: wgpu::FilterMode::Linear,
        min_filter: wgpu::FilterMode::Linear,
        mipmap_filter: wgpu::MipmapFilterMode::Linear,
        ..wgpu::SamplerDescriptor::default()
    })
}

/// `primitive`'s decoded base colour texture (`None` without one, without UVs, or with an
/// image that was not decoded), uploaded once per image into `textures`.
pub fn base_color_texture<'a>(
    ctx: &GpuContext,
    container: &AssetContainer,
    primitive: &Primitive,
    textures: &'a mut HashMap<usize, wgpu::TextureView>,
) -> Option<&'a wgpu::TextureView> {
    let tex = primitive
        .material
        .base_color_texture
        .filter(|_| primitive.has_uvs)?;
    match textures.entry(tex.image) {
        Entry::Occupied(view) => Some(view.into_mut()),
        Entry::Vacant(slot) => {
            let ImageSlot::Decoded(image) = container.images.get(tex.image)? else {
                return None;
            };
            let rgba = RgbaImage::from_raw(image.width, image.height, image.rgba8.clone())?;
            Some(slot.insert(upload_texture(ctx, &rgba)))
        }
    }
}

/// `MESH_WGSL`'s `Draw` uniform for `primitive` drawn with model matrix `world`, showing its
/// material as the file gives it ([`MaterialLook::rest`]): the matrix, the base colour factor,
/// the flags (has normals, `textured`, alpha mask, its cutoff × 10⁶), the base colour
/// texture's UV transform and the emission. [`draw_uniform_with`] draws another look (an
/// animated one).
#[must_use]
pub fn draw_uniform(world: &Mat4, primitive: &Primitive, textured: bool) -> Vec<u8> {
    draw_uniform_with(
        world,
        primitive,
        textured,
        &MaterialLook::rest(&primitive.material),
    )
}

/// [`draw_uniform`] with the material values of `look`.
#[must_use]
pub fn draw_uniform_with(
    world: &Mat4,
    primitive: &Primitive,
    textured: bool,
    look: &MaterialLook,
) -> Vec<u8> {
    let mut bytes = Vec::with_capacity(DRAW_UNIFORM_SIZE as usize);
    bytes.extend_from_slice(bytemuck::cast_slice(&world.to_cols_array()));
    bytes.extend_from_slice(&look.uniform_bytes(primitive, textured));
    bytes
}

/// Group 1 of `MESH_WGSL` for one primitive: its `Draw` uniform buffer, its base colour
/// texture (a white one when it has none) and the sampler, in `layout`
/// ([`draw_layout_entries`]).
#[must_use]
pub fn draw_bind_group(
    device: &wgpu::Device,
    layout: &wgpu::BindGroupLayout,
    uniform: &wgpu::Buffer,
    texture: &wgpu::TextureView,
    sampler: &wgpu::Sampler,
) -> wgpu::BindGroup {
    device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some("skel render draw"),
        layout,
        entries: &[
            wgpu::BindGroupEntry {
                binding: 0,
                resource: uniform.as_entire_binding(),
            },
            wgpu::BindGroupEntry {
                binding: 1,
                resource: wgpu::BindingResource::TextureView(texture),
            },
            wgpu::BindGroupEntry {
                binding: 2,
                resource: wgpu::BindingResource::Sampler(sampler),
            },
        ],
    })
}
