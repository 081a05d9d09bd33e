//! `skel::render` on a real adapter (lavapipe in CI): the renderer draws the character where
//! the camera looks, instances multiply it, no instances draw nothing, and the picture moves
//! with the animation. (`skel render`'s reference image, drawn by the same renderer, is
//! checked in `crates/skel-cli/tests/render.rs`.)
#![cfg(feature = "render")]
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use skel::gpu::GpuContext;
use skel::render::{AssetRenderer, BACKGROUND, Camera, Mat4, OffscreenTarget, Vec3, rest_bounds};
use skel::{AssetContainer, LoadOptions, load_gltf};

mod common;
use common::gpu;

const SIDE: u32 = 192;

/// Draws one frame and returns the pixels that are not background.
fn model_pixels(
    ctx: &GpuContext,
    c: &AssetContainer,
    r: &AssetRenderer,
    t: &OffscreenTarget,
) -> Vec<bool> {
    let mut encoder = ctx.device.create_command_encoder(&Default::default());
    {
        let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
            color_attachments: &[Some(t.color_attachment(BACKGROUND))],
            depth_stencil_attachment: Some(t.depth_attachment()),
            ..Default::default()
        });
        r.draw(c, &mut pass).unwrap();
    }
    t.encode_readback(&mut encoder);
    ctx.queue.submit([encoder.finish()]);
    let mut rgba = Vec::new();
    t.read_rgba(&ctx.device, &mut rgba).unwrap();
    // #262a34 on the sRGB target; anything clearly different is the model.
    rgba.chunks_exact(4)
        .map(|p| {
            p[0].abs_diff(38)
                .max(p[1].abs_diff(42))
                .max(p[2].abs_diff(52))
                > 16
        })
        .collect()
}

#[test]
fn instances_multiply_the_character_and_none_draw_nothing() {
    let Some(ctx) = gpu("instances_multiply_the_character_and_none_draw_nothing") else {
        return;
    };
    let options = LoadOptions::default();
    let mut character = load_gltf(&ctx, skel::DEFAULT_CHARACTER, &options).unwrap();
    let target = OffscreenTarget::new(&ctx.device, SIDE, SIDE, 1).unwrap();
    let mut renderer = AssetRenderer::new(&ctx, &character, &target.format()).unwrap();
    let (lo, hi) = rest_bounds(&character);
    let size = (hi - lo).max_element();
    let camera = Camera::orbit(
        (lo + hi) * 0.5,
        size * 4.0,
        0.0,
        0.0,
        1.0,
        options.handedness,
    );
    renderer.set_camera(&ctx.queue, &camera);
    character.animation_groups[0].play();
    character.tick_animation(0, 100.0, &ctx.queue);
    renderer.update_from_group(&ctx.queue, &mut character, 0);

    let one = model_pixels(&ctx, &character, &renderer, &target);
    let count = |p: &[bool]| p.iter().filter(|&&m| m).count();
    let n1 = count(&one);
    // The character fills part of the picture, not all of it.
    assert!(
        n1 > 200 && n1 < one.len() / 2,
        "one instance covers {n1} pixels"
    );

    // Two copies, most of a body height to either side: about twice the pixels.
    let side = Vec3::X * size * 0.7;
    renderer.set_instances(
        &ctx,
        &[Mat4::from_translation(-side), Mat4::from_translation(side)],
    );
    assert_eq!(renderer.instance_count(), 2);
    let two = model_pixels(&ctx, &character, &renderer, &target);
    let n2 = count(&two);
    assert!(
        n2 as f64 > 1.6 * n1 as f64,
        "two instances cover {n2} pixels, one {n1}"
    );

    renderer.set_instances(&ctx, &[]);
    assert_eq!(
        count(&model_pixels(&ctx, &character, &renderer, &target)),
        0
    );

    // Back to one at the origin: the first picture again, and a later pose differs from it.
    renderer.set_instances(&ctx, &[Mat4::IDENTITY]);
    assert_eq!(model_pixels(&ctx, &character, &renderer, &target), one);
    character.tick_animation(0, 300.0, &ctx.queue);
    renderer.update_from_group(&ctx.queue, &mut character, 0);
    assert_ne!(
        model_pixels(&ctx, &character, &renderer, &target),
        one,
        "the pose did not move"
    );
}
