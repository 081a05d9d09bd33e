//! gltfpack's default and `-cc` outputs of `fixtures/textured_grid.glb` (`fixtures/peer/`)
//! store UVs as 16-bit integers and undo that with a `KHR_texture_transform` offset and scale:
//! the transform is read, and applied to the stored UVs it gives every vertex (matched by its
//! world position) the original's UV within one quantisation step.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use std::path::PathBuf;

use glam::{Vec2, Vec3};
use skel_anim::Handedness;
use skel_gltf::{CpuPoser, GltfAsset, LoadOptions, load_path};

fn load(name: &str) -> GltfAsset {
    let path = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures")).join(name);
    let opts = LoadOptions {
        handedness: Handedness::RightHanded,
        decode_images: true,
    };
    load_path(&path, &opts).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// Each vertex's world position and its UV after the base colour texture's transform.
fn drawn_uvs(asset: &GltfAsset) -> Vec<(Vec3, Vec2)> {
    let mut poser = CpuPoser::new(asset).unwrap();
    poser.pose(asset, None, 0.0).unwrap();
    let mut out = Vec::new();
    for (i, prim) in asset.primitives.iter().enumerate() {
        let texture = prim.material.base_color_texture.unwrap();
        let m = texture.transform.matrix();
        let uvs = prim.uvs.as_ref().unwrap();
        for (p, uv) in poser.positions(i).unwrap().iter().zip(uvs.chunks_exact(2)) {
            let t = m * Vec3::new(uv[0], uv[1], 1.0);
            out.push((*p, Vec2::new(t.x, t.y)));
        }
    }
    out
}

fn check(variant: &str) {
    let original = load("textured_grid.glb");
    let packed = load(variant);
    let texture = packed.primitives[0].material.base_color_texture.unwrap();
    assert!(
        !texture.transform.is_identity(),
        "{variant}: gltfpack writes a KHR_texture_transform, none was read"
    );
    assert!(matches!(
        packed.images[texture.image],
        skel_gltf::ImageSlot::Decoded(_)
    ));
    // One step of the stored 16-bit UVs, in texture space.
    let step = texture.transform.scale.max_element() / 65535.0;
    let want = drawn_uvs(&original);
    let got = drawn_uvs(&packed);
    assert_eq!(want.len(), got.len(), "{variant}: vertex count");
    let mut worst = 0.0_f32;
    for (p, uv) in &got {
        let (_, expect) = want
            .iter()
            .min_by(|a, b| {
                a.0.distance_squared(*p)
                    .total_cmp(&b.0.distance_squared(*p))
            })
            .unwrap();
        worst = worst.max((*uv - *expect).abs().max_element());
    }
    assert!(
        worst <= step,
        "{variant}: a UV is {worst} from the original's (one step: {step})"
    );
    // Without the transform the UVs would be far off (the test can fail).
    let raw = packed.primitives[0].uvs.as_ref().unwrap();
    let far = raw
        .chunks_exact(2)
        .map(|uv| uv[0].max(uv[1]))
        .fold(0.0_f32, f32::max);
    assert!(
        far < 0.1,
        "{variant}: stored UVs reach {far}, expected quantised to [0, 1/16]"
    );
}

#[test]
fn gltfpack_quantised_uvs_match_the_original_after_the_transform() {
    check("peer/textured_gltfpack.glb");
}

#[test]
fn gltfpack_meshopt_uvs_match_the_original_after_the_transform() {
    check("peer/textured_gltfpack_cc.glb");
}
