//! Renders one frame of an animated character without a window and saves it as a PNG.
//!
//! ```text
//! cargo run -p skel --example headless_png -- [ASSET.glb] [OUT.png] [SECONDS]
//! ```
//!
//! Defaults: the built-in character, `target/headless.png`, 0.3 s into the first clip. Three
//! copies stand side by side (instancing: one pose, three model matrices). Runs on any wgpu
//! adapter, Mesa's software Vulkan (lavapipe) included.

use std::path::PathBuf;

use skel::render::{
    AssetRenderer, BACKGROUND, Camera, MSAA_SAMPLES, Mat4, OffscreenTarget, Vec3, rest_bounds,
};
use skel::{LoadOptions, Source, gpu::GpuContext, load_gltf};

const SIZE: (u32, u32) = (640, 360);

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let asset = args.next().filter(|a| a != "-").map(PathBuf::from);
    let out = PathBuf::from(args.next().unwrap_or_else(|| "target/headless.png".into()));
    let seconds: f32 = args.next().map_or(Ok(0.3), |s| s.parse())?;

    let ctx = GpuContext::new_headless()?;
    let mut options = LoadOptions::default();
    options.decode_images = true; // base colour textures
    let source = match &asset {
        Some(path) => Source::Path(path),
        None => Source::from(skel::DEFAULT_CHARACTER),
    };
    let mut character = load_gltf(&ctx, source, &options)?;

    let target = OffscreenTarget::new(&ctx.device, SIZE.0, SIZE.1, MSAA_SAMPLES)?;
    let mut renderer = AssetRenderer::new(&ctx, &character, &target.format())?;
    // Three copies, each a model height apart (the size comes from the asset's bounds).
    let (lo, hi) = rest_bounds(&character);
    let height = (hi - lo).max_element().max(1e-3);
    let spacing = Vec3::X * height * 0.8;
    renderer.set_instances(
        &ctx,
        &[-1.0, 0.0, 1.0].map(|k| Mat4::from_translation(spacing * k)),
    );
    let aspect = SIZE.0 as f32 / SIZE.1 as f32;
    let centre = (lo + hi) * 0.5;
    let camera = Camera::orbit(centre, height * 2.6, 0.35, 0.25, aspect, options.handedness);
    renderer.set_camera(&ctx.queue, &camera);

    if !character.animation_groups.is_empty() {
        character.animation_groups[0].play();
        character.tick_animation(0, seconds * 1000.0, &ctx.queue);
        renderer.update_from_group(&ctx.queue, &mut character, 0);
    }
    let mut encoder = ctx.device.create_command_encoder(&Default::default());
    {
        let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
            color_attachments: &[Some(target.color_attachment(BACKGROUND))],
            depth_stencil_attachment: Some(target.depth_attachment()),
            ..Default::default()
        });
        renderer.draw(&character, &mut pass)?;
    }
    target.encode_readback(&mut encoder);
    ctx.queue.submit([encoder.finish()]);
    let mut rgba = Vec::new();
    target.read_rgba(&ctx.device, &mut rgba)?;

    if let Some(dir) = out.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let image = image::RgbaImage::from_raw(SIZE.0, SIZE.1, rgba).ok_or("short readback")?;
    image.save(&out)?;
    println!(
        "wrote {} ({}×{}, 3 instances)",
        out.display(),
        SIZE.0,
        SIZE.1
    );
    Ok(())
}
