//! `skel::render` on a real adapter (lavapipe in CI): the renderer draws the character where
//! the camera looks, instances multiply it, no instances draw nothing, the picture moves with
//! the animation, and morph targets drawn from a texture (WebGL2's path) look as they do from
//! a storage buffer. (`skel render`'s reference image, drawn by the same renderer, is checked
//! in `crates/skel-cli/tests/render.rs`.)
#![cfg(feature = "render")]
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use skel::gpu::{GpuContext, HeadlessOptions, MorphDeltaStorage};
use skel::render::{AssetRenderer, Camera, Mat4, OffscreenTarget, Vec3, rest_bounds};
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
    let rgba = common::draw_rgba(ctx, r, c, t);
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

/// The built-in character in its Walk pose with every morph target at `weight`, drawn from the
/// front by a renderer made for `ctx`, as RGBA; and where its morph deltas were put.
fn morphed_picture(
    ctx: &GpuContext,
    options: &LoadOptions,
    weight: f32,
) -> (Vec<u8>, Vec<MorphDeltaStorage>) {
    let mut character = load_gltf(ctx, skel::DEFAULT_CHARACTER, options).unwrap();
    let target = OffscreenTarget::new(&ctx.device, SIDE, SIDE, 1).unwrap();
    let renderer = AssetRenderer::new(ctx, &character, &target.format()).unwrap();
    let (lo, hi) = rest_bounds(&character);
    let size = (hi - lo).max_element();
    let centre = (lo + hi) * 0.5;
    // Close on the upper body, where Breathe, Blink and Smile move the surface.
    let camera = Camera::orbit(centre, size * 2.0, 0.0, 0.0, 1.0, options.handedness);
    renderer.set_camera(&ctx.queue, &camera);
    let walk = character.clip_index("Walk").unwrap_or(0);
    character.animation_groups[walk].play();
    character.tick_animation(walk, 250.0, &ctx.queue);
    renderer.update_from_group(&ctx.queue, &mut character, walk);
    let mut storages = Vec::new();
    for mesh in &character.meshes {
        if let Some(morph) = &mesh.morph {
            let weights = vec![weight; morph.gpu.target_count()];
            morph.gpu.write_weights(&ctx.queue, &weights);
            storages.push(morph.gpu.delta_storage());
        }
    }
    let rgba = common::draw_rgba(ctx, &renderer, &character, &target);
    (rgba, storages)
}

/// Pixels whose channels differ by more than 2 (of 255).
fn differing_pixels(a: &[u8], b: &[u8]) -> usize {
    a.chunks_exact(4)
        .zip(b.chunks_exact(4))
        .filter(|(p, q)| p.iter().zip(*q).any(|(x, y)| x.abs_diff(*y) > 2))
        .count()
}

#[test]
fn morph_targets_from_a_texture_draw_as_from_a_storage_buffer() {
    let Some(ctx) = gpu("morph_targets_from_a_texture_draw_as_from_a_storage_buffer") else {
        return;
    };
    let options = LoadOptions::default();
    let (buffer, storages) = morphed_picture(&ctx, &options, 1.0);
    assert!(
        !storages.is_empty(),
        "the built-in character has morph targets"
    );
    assert!(storages.iter().all(|s| *s == MorphDeltaStorage::Buffer));
    // The comparison means something only if the morph targets move pixels.
    let (rest, _) = morphed_picture(&ctx, &options, 0.0);
    let moved = differing_pixels(&buffer, &rest);
    eprintln!(
        "morph targets at weight 1 move {moved} of {} pixels",
        SIDE * SIDE
    );
    assert!(moved > 20, "morph targets at weight 1 moved {moved} pixels");

    let forced = options.with_morph_deltas(Some(MorphDeltaStorage::Texture));
    let (texture, storages) = morphed_picture(&ctx, &forced, 1.0);
    assert!(storages.iter().all(|s| *s == MorphDeltaStorage::Texture));
    // The same deltas and the same arithmetic: lavapipe draws the same picture.
    assert_eq!(differing_pixels(&texture, &buffer), 0);
    assert!(
        texture == buffer,
        "texture and buffer pictures differ in some bits"
    );
}

#[test]
fn webgl2_limits_draw_the_character_with_morph_targets() {
    let Some(full) = gpu("webgl2_limits_draw_the_character_with_morph_targets") else {
        return;
    };
    // No storage buffers and 2048-texel textures, as a browser's WebGL2 device has: the
    // loader puts the deltas in a texture by itself (before, load_gltf failed here with
    // `max_storage_buffer_binding_size` 0).
    let webgl2 = GpuContext::new_headless_with(&HeadlessOptions {
        required_limits: Some(wgpu::Limits::downlevel_webgl2_defaults()),
        ..HeadlessOptions::default()
    })
    .unwrap();
    assert!(!webgl2.vertex_storage_buffers());
    let options = LoadOptions::default();
    let (picture, storages) = morphed_picture(&webgl2, &options, 1.0);
    assert!(!storages.is_empty());
    assert!(storages.iter().all(|s| *s == MorphDeltaStorage::Texture));
    let (reference, _) = morphed_picture(&full, &options, 1.0);
    assert_eq!(differing_pixels(&picture, &reference), 0);
}
