//! `skel::render::GroundRenderer` on a real adapter (lavapipe in CI): a plane patch fills the
//! view from above and shows its checker, and it shares the character's depth attachment: a
//! character under the ground is hidden by it, one standing on it is drawn over it.
#![cfg(feature = "render")]
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use skel::anim::GroundPlane;
use skel::gpu::GpuContext;
use skel::render::{
    AssetRenderer, BACKGROUND, Camera, GroundRenderer, GroundStyle, Mat4, OffscreenTarget, Vec3,
    plane_patch, rest_bounds,
};
use skel::{AssetContainer, LoadOptions, load_gltf};

mod common;
use common::gpu;

const SIDE: u32 = 128;

/// Draws the ground, then the character when given, into `target` and reads it back.
fn draw(
    ctx: &GpuContext,
    target: &OffscreenTarget,
    ground: &GroundRenderer,
    character: Option<(&AssetRenderer, &AssetContainer)>,
) -> Vec<u8> {
    let mut encoder = ctx.device.create_command_encoder(&Default::default());
    {
        let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
            color_attachments: &[Some(target.color_attachment(BACKGROUND))],
            depth_stencil_attachment: Some(target.depth_attachment()),
            ..Default::default()
        });
        ground.draw(&mut pass);
        if let Some((renderer, container)) = character {
            renderer.draw(container, &mut pass).unwrap();
        }
    }
    target.encode_readback(&mut encoder);
    ctx.queue.submit([encoder.finish()]);
    let mut rgba = Vec::new();
    target.read_rgba(&ctx.device, &mut rgba).unwrap();
    rgba
}

/// The pixel `camera` projects `p` to, as RGB.
fn pixel_at(rgba: &[u8], camera: &Camera, p: Vec3) -> [u8; 3] {
    let clip = camera.view_projection() * p.extend(1.0);
    let ndc = clip.truncate() / clip.w;
    let x = (((ndc.x + 1.0) * 0.5 * SIDE as f32) as u32).min(SIDE - 1);
    let y = (((1.0 - ndc.y) * 0.5 * SIDE as f32) as u32).min(SIDE - 1);
    let i = ((y * SIDE + x) * 4) as usize;
    [rgba[i], rgba[i + 1], rgba[i + 2]]
}

fn is_background(p: &[u8]) -> bool {
    // #262a34 on the sRGB target.
    p[0].abs_diff(38)
        .max(p[1].abs_diff(42))
        .max(p[2].abs_diff(52))
        <= 8
}

#[test]
fn a_plane_patch_fills_the_view_with_its_checker() {
    let Some(ctx) = gpu("a_plane_patch_fills_the_view_with_its_checker") else {
        return;
    };
    let target = OffscreenTarget::new(&ctx.device, SIDE, SIDE, 1).unwrap();
    let floor = GroundPlane::new(Vec3::Y, 0.0).unwrap();
    let ground = GroundRenderer::new(
        &ctx,
        &target.format(),
        &plane_patch(&floor, Vec3::ZERO, 4.0),
    )
    .unwrap();
    assert_eq!(ground.triangle_count(), 2);
    let handedness = LoadOptions::default().handedness;
    // Straight down from 3 units: the 8 × 8 patch covers the whole picture.
    let camera = Camera::orbit(Vec3::ZERO, 3.0, 0.0, 1.5, 1.0, handedness);
    ground.set_camera(&ctx.queue, &camera);
    let rgba = draw(&ctx, &target, &ground, None);
    let drawn = rgba.chunks_exact(4).filter(|p| !is_background(p)).count();
    assert_eq!(drawn, (SIDE * SIDE) as usize, "the ground left background");
    // Neighbouring squares of the checker: the darker is at about 70 % of the lighter (in
    // linear light; less apart after tone mapping and sRGB).
    let light = pixel_at(&rgba, &camera, Vec3::new(0.25, 0.0, 0.25));
    let dark = pixel_at(&rgba, &camera, Vec3::new(0.75, 0.0, 0.25));
    let sum = |p: [u8; 3]| p.iter().map(|&c| u32::from(c)).sum::<u32>();
    assert!(
        sum(dark) < sum(light) * 95 / 100 && sum(dark) > sum(light) / 2,
        "checker squares {light:?} and {dark:?}"
    );
    // A plain style: the two squares are the same colour.
    ground.set_style(
        &ctx.queue,
        &GroundStyle {
            checker_side: 0.0,
            ..GroundStyle::default()
        },
    );
    let plain = draw(&ctx, &target, &ground, None);
    let (a, b) = (
        pixel_at(&plain, &camera, Vec3::new(0.25, 0.0, 0.25)),
        pixel_at(&plain, &camera, Vec3::new(0.75, 0.0, 0.25)),
    );
    assert!(
        sum(a).abs_diff(sum(b)) <= 6,
        "plain squares {a:?} and {b:?}"
    );
}

#[test]
fn the_ground_and_the_character_share_depth() {
    let Some(ctx) = gpu("the_ground_and_the_character_share_depth") else {
        return;
    };
    let options = LoadOptions::default();
    let mut character = load_gltf(&ctx, skel::DEFAULT_CHARACTER, &options).unwrap();
    let target = OffscreenTarget::new(&ctx.device, SIDE, SIDE, 1).unwrap();
    let mut renderer = AssetRenderer::new(&ctx, &character, &target.format()).unwrap();
    let (lo, hi) = rest_bounds(&character);
    let height = hi.y - lo.y;
    let floor = GroundPlane::new(Vec3::Y, -lo.y).unwrap();
    let ground = GroundRenderer::new(
        &ctx,
        &target.format(),
        &plane_patch(&floor, Vec3::ZERO, height * 3.0),
    )
    .unwrap();
    // From above and in front: the ground fills the picture behind the character.
    let camera = Camera::orbit(
        (lo + hi) * 0.5,
        height * 2.5,
        0.3,
        0.9,
        1.0,
        options.handedness,
    );
    ground.set_camera(&ctx.queue, &camera);
    renderer.set_camera(&ctx.queue, &camera);
    character.animation_groups[0].play();
    character.tick_animation(0, 100.0, &ctx.queue);
    renderer.update_from_group(&ctx.queue, &mut character, 0);

    let alone = draw(&ctx, &target, &ground, None);
    let standing = draw(&ctx, &target, &ground, Some((&renderer, &character)));
    let changed = |a: &[u8], b: &[u8]| {
        a.chunks_exact(4)
            .zip(b.chunks_exact(4))
            .filter(|(p, q)| p.iter().zip(q.iter()).any(|(x, y)| x.abs_diff(*y) > 16))
            .count()
    };
    let shown = changed(&alone, &standing);
    assert!(
        shown > 300,
        "the character on the ground covers {shown} pixels"
    );
    // Sunk a body height and a half under the ground: the ground hides all of it.
    renderer.set_instances(
        &ctx,
        &[Mat4::from_translation(Vec3::new(0.0, -1.5 * height, 0.0))],
    );
    let buried = draw(&ctx, &target, &ground, Some((&renderer, &character)));
    assert_eq!(
        changed(&alone, &buried),
        0,
        "a character under the ground shows through it"
    );
}
