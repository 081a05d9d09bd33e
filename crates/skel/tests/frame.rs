//! The facade's frame ([`skel::Frame::advance`]): one call per frame leaves the property
//! pose, the renderer's material uniforms, the root-motion instance and the fired markers
//! consistent with the player's new time. Real adapter (lavapipe in CI).
#![cfg(feature = "render")]
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use std::path::PathBuf;

use skel::anim::{LayerDesc, Player, RootMotion};
use skel::gltf::{MaterialField, PropertyTarget};
use skel::gpu::GpuContext;
use skel::render::{AssetRenderer, Camera, OffscreenTarget, rest_bounds};
use skel::{AssetContainer, Frame, FrameError, LoadOptions, load_gltf};

mod common;
use common::gpu;

const SIDE: u32 = 96;

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures")
        .join(name)
}

fn load(ctx: &GpuContext, name: &str) -> AssetContainer {
    let mut options = LoadOptions::default();
    options.decode_images = true;
    load_gltf(ctx, fixture(name).as_path(), &options).unwrap()
}

/// The property slot of material 0's base colour, which `animation_pointer.gltf` animates.
fn colour_slot(character: &AssetContainer) -> usize {
    character
        .properties
        .iter()
        .position(|t| {
            *t == PropertyTarget::Material {
                material: 0,
                field: MaterialField::BaseColorFactor,
            }
        })
        .expect("the fixture animates material 0's base colour")
}

/// Pixels of `rgba` whose channel `c` is clearly above the other two.
fn dominated_by(rgba: &[u8], c: usize) -> usize {
    rgba.chunks_exact(4)
        .filter(|p| (0..3).all(|k| k == c || i32::from(p[c]) > i32::from(p[k]) + 60))
        .count()
}

/// `fixtures/animation_pointer.gltf` turns material 0's base colour red (0 s) → blue (1 s) →
/// red (2 s), linearly. Through the frame alone (no call to the property API), the property
/// pose follows the clip's time and the renderer draws the colour of that time.
#[test]
fn the_frame_blends_and_draws_the_pointer_animated_colour() {
    let Some(ctx) = gpu("the_frame_blends_and_draws_the_pointer_animated_colour") else {
        return;
    };
    let mut character = load(&ctx, "animation_pointer.gltf");
    let slot = colour_slot(&character);
    let target = OffscreenTarget::new(&ctx.device, SIDE, SIDE, 1).unwrap();
    let mut renderer = AssetRenderer::new(&ctx, &character, &target.format()).unwrap();
    let (min, max) = rest_bounds(&character);
    let camera = Camera::framing(&[min, max], 1.0, LoadOptions::default().handedness);
    renderer.set_camera(&ctx.queue, &camera);
    let mut player = Player::new(&character.rig);
    player.add_layer(LayerDesc::new(0)).unwrap();
    let mut frame = Frame::new(&character);

    let mut seen = Vec::new();
    for (step, expected) in [
        (0.0, [1.0, 0.0, 0.0, 1.0]),
        (0.5, [0.5, 0.0, 0.5, 1.0]),
        (0.5, [0.0, 0.0, 1.0, 1.0]),
    ] {
        frame
            .advance(&ctx, &mut character, &mut player, step, &mut renderer)
            .unwrap();
        let value = frame.properties().value(slot).unwrap();
        let off = value
            .iter()
            .zip(expected)
            .map(|(a, b)| (a - b).abs())
            .fold(0.0, f32::max);
        assert!(
            off < 1e-5,
            "at {} s the base colour is {value:?}, expected {expected:?}",
            player.layers()[0].clock().time()
        );
        seen.push(common::draw_rgba(&ctx, &renderer, &character, &target));
    }
    let (start, end) = (&seen[0], &seen[2]);
    // At 0 s the tile is red (the cell texture has red cells too: a lower bound), no blue.
    assert!(
        dominated_by(start, 0) > 200,
        "red pixels at 0 s: {}",
        dominated_by(start, 0)
    );
    // At 1 s it is blue, and the textured group is hidden, so nothing red is left.
    assert!(
        dominated_by(end, 2) > 200 && dominated_by(end, 0) == 0,
        "at 1 s: {} blue and {} red pixels",
        dominated_by(end, 2),
        dominated_by(end, 0)
    );
    assert_eq!(frame.skipped_uploads(), 0);
}

/// `fixtures/root_motion_walk.gltf`: `hips` walks 1.5 along +z per 1 s loop of `Walk`, with
/// markers `step_l` at 0.25 s and `step_r` at 0.75 s. The frame's root-motion instance carries
/// the in-place character along, and each marker is reported in the frame its playhead
/// passes it.
#[test]
fn the_frame_carries_root_motion_and_reports_markers() {
    let Some(ctx) = gpu("the_frame_carries_root_motion_and_reports_markers") else {
        return;
    };
    let mut character = load(&ctx, "root_motion_walk.gltf");
    let walk = character.clip_index("Walk").unwrap();
    let mut player = Player::new(&character.rig);
    player.add_layer(LayerDesc::new(walk)).unwrap();
    player
        .set_root_motion(Some(RootMotion {
            node: 0,
            translation: [true, false, true],
            yaw: false,
        }))
        .unwrap();
    let mut frame = Frame::new(&character);
    let mut fired = Vec::new();
    // Nine frames of 0.1 s: 0.9 s, short of the loop's end.
    for i in 0..9 {
        frame
            .advance(&ctx, &mut character, &mut player, 0.1, &mut ())
            .unwrap();
        for e in frame.events() {
            fired.push((i, e.name(&character.animation).unwrap().to_owned()));
        }
    }
    // Frame i covers (0.1 i, 0.1 (i + 1)]: 0.25 s lies in frame 2, 0.75 s in frame 7.
    assert_eq!(
        fired,
        vec![(2, "step_l".to_owned()), (7, "step_r".to_owned())]
    );
    // At 0.9 s: 1.35 along z (the pose stays in place).
    let moved = frame.root_instance().expect("root motion is on");
    assert_eq!(Some(moved), skel::root_motion_instance(&player));
    let t = moved.w_axis;
    assert!(
        (t.z - 1.35).abs() < 1e-3 && t.x.abs() < 1e-4,
        "root instance translation {t:?}"
    );
}

/// A step that is not a number, or a player of another asset, is refused with a typed error
/// and moves nothing.
#[test]
fn the_frame_refuses_bad_steps_and_other_assets() {
    let Some(ctx) = gpu("the_frame_refuses_bad_steps_and_other_assets") else {
        return;
    };
    let mut character = load(&ctx, "root_motion_walk.gltf");
    let mut player = Player::new(&character.rig);
    player.add_layer(LayerDesc::new(0)).unwrap();
    let mut frame = Frame::new(&character);
    frame
        .advance(&ctx, &mut character, &mut player, 0.25, &mut ())
        .unwrap();
    for bad in [f32::NAN, f32::INFINITY, f32::NEG_INFINITY] {
        let err = frame
            .advance(&ctx, &mut character, &mut player, bad, &mut ())
            .unwrap_err();
        assert!(matches!(err, FrameError::BadStep { .. }), "{err}");
    }
    assert!((player.layers()[0].clock().time() - 0.25).abs() < 1e-6);

    let mut other = load_gltf(&ctx, skel::DEFAULT_CHARACTER, &LoadOptions::default()).unwrap();
    let err = frame
        .advance(&ctx, &mut other, &mut player, 0.1, &mut ())
        .unwrap_err();
    assert!(
        matches!(err, FrameError::OtherAsset { .. }),
        "a frame and player of another asset: {err}"
    );
    let mut other_player = Player::new(&other.rig);
    let err = frame
        .advance(&ctx, &mut character, &mut other_player, 0.1, &mut ())
        .unwrap_err();
    assert!(matches!(err, FrameError::OtherAsset { .. }), "{err}");
    assert!((player.layers()[0].clock().time() - 0.25).abs() < 1e-6);
}

/// The seed's animation group (whose own `tick` takes milliseconds) goes through the frame in
/// seconds like a player: half a second of `animation_pointer.gltf` is half-way from red to
/// blue.
#[test]
fn an_animation_group_goes_through_the_frame_in_seconds() {
    let Some(ctx) = gpu("an_animation_group_goes_through_the_frame_in_seconds") else {
        return;
    };
    let mut character = load(&ctx, "animation_pointer.gltf");
    let slot = colour_slot(&character);
    let mut groups = std::mem::take(&mut character.animation_groups);
    let group = &mut groups[0];
    group.play();
    let mut frame = Frame::new(&character);
    frame
        .advance(&ctx, &mut character, group, 0.5, &mut ())
        .unwrap();
    assert!(
        (group.time() - 0.5).abs() < 1e-6,
        "group at {} s",
        group.time()
    );
    let value = frame.properties().value(slot).unwrap();
    assert!(
        value
            .iter()
            .zip([0.5, 0.0, 0.5, 1.0])
            .all(|(a, b)| (a - b).abs() < 1e-5),
        "base colour {value:?} at 0.5 s"
    );
}
