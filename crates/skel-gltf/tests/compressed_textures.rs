//! Textures named only in an extension: a WebP image (`EXT_texture_webp`, no core `source`)
//! is decoded to its pixels; a KTX2-only texture (`KHR_texture_basisu`) loads with a warning
//! naming the extension.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use base64::Engine;
use image::ExtendedColorType;
use image::codecs::webp::WebPEncoder;
use serde_json::{Value, json};
use skel_anim::Handedness;
use skel_gltf::{GltfAsset, ImageSlot, LoadOptions, load_slice};

const PIXELS: [u8; 16] = [
    255, 0, 0, 255, 0, 255, 0, 255, 0, 0, 255, 255, 10, 20, 30, 255,
];

fn data_uri(mime: &str, bytes: &[u8]) -> String {
    let b64 = base64::engine::general_purpose::STANDARD.encode(bytes);
    format!("data:{mime};base64,{b64}")
}

/// A one-triangle file whose material's base colour texture is `texture`.
fn file(texture: Value, images: Value, extension: &str) -> Vec<u8> {
    let positions: Vec<u8> = [0.0f32, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    serde_json::to_vec(&json!({
        "asset": {"version": "2.0"},
        "extensionsUsed": [extension],
        "extensionsRequired": [extension],
        "buffers": [{"byteLength": 36, "uri": data_uri("application/octet-stream", &positions)}],
        "bufferViews": [{"buffer": 0, "byteLength": 36}],
        "accessors": [{"bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC3",
                       "min": [0.0, 0.0, 0.0], "max": [1.0, 1.0, 0.0]}],
        "images": images,
        "textures": [texture],
        "materials": [{"pbrMetallicRoughness": {"baseColorTexture": {"index": 0}}}],
        "meshes": [{"primitives": [{"attributes": {"POSITION": 0}, "material": 0}]}],
        "nodes": [{"mesh": 0}],
        "scenes": [{"nodes": [0]}],
        "scene": 0
    }))
    .unwrap()
}

fn load(bytes: &[u8]) -> GltfAsset {
    let opts = LoadOptions {
        handedness: Handedness::RightHanded,
        decode_images: true,
    };
    load_slice(bytes, None, &opts).unwrap()
}

#[test]
fn a_webp_only_texture_is_decoded_to_its_pixels() {
    let mut webp = Vec::new();
    WebPEncoder::new_lossless(&mut webp)
        .encode(&PIXELS, 2, 2, ExtendedColorType::Rgba8)
        .unwrap();
    let bytes = file(
        json!({"extensions": {"EXT_texture_webp": {"source": 0}}}),
        json!([{"uri": data_uri("image/webp", &webp)}]),
        "EXT_texture_webp",
    );
    let asset = load(&bytes);
    let tex = asset.primitives[0].material.base_color_texture.unwrap();
    assert_eq!(tex.image, 0);
    match &asset.images[0] {
        ImageSlot::Decoded(img) => {
            assert_eq!((img.width, img.height), (2, 2));
            assert_eq!(img.rgba8, PIXELS);
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_ktx2_texture_with_a_fallback_draws_the_fallback_and_says_so() {
    let mut png = Vec::new();
    let img = image::RgbaImage::from_raw(2, 2, PIXELS.to_vec()).unwrap();
    img.write_to(&mut std::io::Cursor::new(&mut png), image::ImageFormat::Png)
        .unwrap();
    let bytes = file(
        json!({"source": 1, "extensions": {"KHR_texture_basisu": {"source": 0}}}),
        json!([{"uri": "data:image/ktx2;base64,AAAA"}, {"uri": data_uri("image/png", &png)}]),
        "KHR_texture_basisu",
    );
    let asset = load(&bytes);
    match &asset.images[1] {
        ImageSlot::Decoded(img) => assert_eq!(img.rgba8, PIXELS),
        other => panic!("{other:?}"),
    }
    assert!(
        asset
            .warnings
            .iter()
            .any(|w| w.path == "textures[0]" && w.message.contains("KHR_texture_basisu")),
        "{:?}",
        asset.warnings
    );
}
