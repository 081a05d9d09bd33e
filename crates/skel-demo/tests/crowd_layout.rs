//! [`CrowdLayout::new`] on the built-in character's Walk (a real adapter, lavapipe in CI: a
//! container is made on a device): one character's box over the clip spaces and frames the
//! grid, within the library's conservative box of every pose it samples.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use glam::Vec3;
use skel::anim::{Handedness, LayerDesc, NullSink, Player};
use skel::gpu::GpuContext;
use skel::{LoadOptions, load_gltf};
use skel_demo::{CrowdLayout, crowd_spacing};

fn gpu(test: &str) -> Option<GpuContext> {
    skel_test_support::gpu(test, GpuContext::new_headless())
}

#[test]
fn the_clip_box_spaces_and_frames_the_grid() {
    let Some(ctx) = gpu("the_clip_box_spaces_and_frames_the_grid") else {
        return;
    };
    let options = LoadOptions::default();
    let handedness = options.handedness;
    assert_eq!(
        handedness,
        Handedness::LeftHanded,
        "the mirrored grid is the one tested"
    );
    let character = load_gltf(&ctx, skel::DEFAULT_CHARACTER, &options).unwrap();
    let walk = character
        .clip_index("Walk")
        .expect("the built-in character walks");
    let duration = character.animation.clips[walk].duration();
    let layout = CrowdLayout::new(&character, Some(walk), 9, handedness).unwrap();
    assert!(
        (layout.duration - duration).abs() < 1e-6,
        "{}",
        layout.duration
    );
    assert_eq!(layout.placements.len(), 9);
    assert_eq!(layout.corners.len(), 9 * 8);
    assert!(!layout.world.is_empty());

    // The library's box of a pose holds every vertex (joint spheres): the union over the clip
    // holds the sampled vertices' box, which is tighter but not by much (a person, not a bubble).
    let mut player = Player::new(&character.rig);
    player.add_layer(LayerDesc::new(walk)).unwrap();
    let (mut lo, mut hi) = (Vec3::INFINITY, Vec3::NEG_INFINITY);
    for i in 0..=48 {
        player.tick(if i == 0 { 0.0 } else { duration / 48.0 }, &mut NullSink);
        let (a, b) = character.world_box(&mut player).unwrap();
        (lo, hi) = (lo.min(a), hi.max(b));
    }
    let conservative = hi - lo;
    let slack = 1e-3 * conservative.length();
    assert!(
        layout.extent.cmple(conservative + slack).all(),
        "{} outside {conservative}",
        layout.extent
    );
    assert!(
        layout.extent.y > 0.7 * conservative.y && layout.extent.y > 0.5,
        "{} against {conservative}",
        layout.extent
    );

    // Character 4 stands in the middle of the 3 × 3 grid; its neighbour one cell to the side
    // is the spacing away; its 8 corners make the box of the clip, footprint centred on it.
    let middle = layout.placements[4].w_axis.truncate();
    let side = layout.placements[5].w_axis.truncate() - middle;
    assert!(
        (side.length() - crowd_spacing(layout.extent)).abs() < 1e-5,
        "{side}"
    );
    let own = &layout.corners[4 * 8..5 * 8];
    let (a, b) = own
        .iter()
        .fold((Vec3::INFINITY, Vec3::NEG_INFINITY), |(a, b), &p| {
            (a.min(p), b.max(p))
        });
    assert!(((b - a) - layout.extent).length() < 1e-5);
    assert!(
        (a.x + b.x).abs() < 1e-4 && (a.z + b.z).abs() < 1e-4,
        "{a} {b}"
    );
}

#[test]
fn a_clip_the_asset_lacks_is_refused_and_none_is_the_rest_pose() {
    let Some(ctx) = gpu("a_clip_the_asset_lacks_is_refused_and_none_is_the_rest_pose") else {
        return;
    };
    let character = load_gltf(&ctx, skel::DEFAULT_CHARACTER, &LoadOptions::default()).unwrap();
    let clips = character.animation.clips.len();
    let handedness = LoadOptions::default().handedness;
    assert!(CrowdLayout::new(&character, Some(clips), 4, handedness).is_err());
    let rest = CrowdLayout::new(&character, None, 4, handedness).unwrap();
    assert_eq!(rest.duration, 0.0);
    assert_eq!(rest.corners.len(), 4 * 8);
    // Standing still, the box is the rest box's size (the bind pose the mesh is modelled in).
    let (lo, hi) = skel::render::rest_bounds(&character);
    assert!(
        ((hi - lo) - rest.extent).abs().max_element() < 0.05 * (hi - lo).max_element(),
        "{} against {}",
        rest.extent,
        hi - lo
    );
}
