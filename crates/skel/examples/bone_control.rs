//! Bone control: hides a bone (and everything under it) while a clip plays, and saves the
//! character before and after, side by side.
//!
//! ```text
//! cargo run -p skel --features bone-control --example bone_control -- [OUT.png]
//! ```
//!
//! Uses the built-in character (`Head` hidden) and writes
//! `target/bone_control.png` by default. Overrides go through `container.skeletons`; every
//! animation group applies them after its channels, so a hidden bone stays hidden while the
//! clip plays.

use skel::render::{AssetRenderer, BACKGROUND, Camera, OffscreenTarget, rest_bounds};
use skel::{AssetContainer, LoadOptions, gpu::GpuContext, load_gltf};

const SIDE: u32 = 320;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let out = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "target/bone_control.png".into());
    let ctx = GpuContext::new_headless()?;
    let options = LoadOptions::default().with_bone_control(true);
    let mut character = load_gltf(&ctx, skel::DEFAULT_CHARACTER, &options)?;
    let walk = character.clip_index("Walk").unwrap_or(0);
    character.animation_groups[walk].play();

    let target = OffscreenTarget::new(&ctx.device, SIDE, SIDE, 1)?;
    let renderer = AssetRenderer::new(&ctx, &character, &target.format())?;
    let (lo, hi) = rest_bounds(&character);
    let size = (hi - lo).max_element();
    let camera = Camera::orbit(
        (lo + hi) * 0.5,
        size * 2.2,
        0.5,
        0.2,
        1.0,
        options.handedness,
    );
    renderer.set_camera(&ctx.queue, &camera);

    let before = frame(&ctx, &mut character, &renderer, &target, walk)?;
    let skeleton = character
        .skeletons
        .first()
        .ok_or("the character has no skin")?
        .clone();
    let head = skeleton
        .get_bone_by_name("Head")
        .ok_or("no bone named Head")?;
    let mut sink = character.pose_sink(&ctx.queue);
    skeleton.set_bone_visible(head, false, &mut sink)?;
    let after = frame(&ctx, &mut character, &renderer, &target, walk)?;

    let mut sheet = image::RgbaImage::new(SIDE * 2, SIDE);
    image::imageops::replace(&mut sheet, &before, 0, 0);
    image::imageops::replace(&mut sheet, &after, i64::from(SIDE), 0);
    if let Some(dir) = std::path::Path::new(&out).parent() {
        std::fs::create_dir_all(dir)?;
    }
    sheet.save(&out)?;
    let changed = before
        .pixels()
        .zip(after.pixels())
        .filter(|(a, b)| a != b)
        .count();
    println!("wrote {out}: {changed} pixels differ between before (left) and after (right)");
    Ok(())
}

/// Ticks a frame of `group`, draws it and reads it back.
fn frame(
    ctx: &GpuContext,
    character: &mut AssetContainer,
    renderer: &AssetRenderer,
    target: &OffscreenTarget,
    group: usize,
) -> Result<image::RgbaImage, Box<dyn std::error::Error>> {
    character.tick_animation(group, 1000.0 / 60.0, &ctx.queue);
    renderer.update_from_group(&ctx.queue, character, group);
    let mut encoder = ctx.device.create_command_encoder(&Default::default());
    {
        let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
            color_attachments: &[Some(target.color_attachment(BACKGROUND))],
            depth_stencil_attachment: Some(target.depth_attachment()),
            ..Default::default()
        });
        renderer.draw(character, &mut pass)?;
    }
    target.encode_readback(&mut encoder);
    ctx.queue.submit([encoder.finish()]);
    let mut rgba = Vec::new();
    target.read_rgba(&ctx.device, &mut rgba)?;
    Ok(image::RgbaImage::from_raw(SIDE, SIDE, rgba).ok_or("short readback")?)
}
