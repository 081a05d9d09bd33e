//! Base colour textures: decoded glTF images uploaded as sRGB with a full mip chain.

use image::{RgbaImage, imageops};
use skel_gpu::GpuContext;

/// Uploads an sRGB RGBA8 image with a full mip chain (box-filtered on the CPU), so small
/// renders of large textures do not shimmer: a base colour texture as [`AssetRenderer`]
/// binds it (`MESH_WGSL`'s group 1, binding 1).
///
/// [`AssetRenderer`]: super::AssetRenderer
#[must_use]
pub fn upload_texture(ctx: &GpuContext, image: &RgbaImage) -> wgpu::TextureView {
    let (w, h) = image.dimensions();
    let levels = 32 - w.max(h).max(1).leading_zeros();
    let texture = ctx.device.create_texture(&wgpu::TextureDescriptor {
        label: Some("skel base colour"),
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
