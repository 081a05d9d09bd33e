//! KHR_animation_pointer and untargeted channels: a file with them loads, pointer channels on
//! node transforms equal plain channels, every other known target becomes a property track,
//! and what skel does not apply is reported with its JSON path.

use base64::Engine;
use skel_anim::{PropertyKind, evaluate_sampler};
use skel_gltf::{LoadOptions, MaterialField, PropertyTarget, TextureSlot, UvField, load_slice};

/// Key times 0, 1; a rotation (2 × vec4), a colour (2 × vec4), visibility (2 × u8 → padded),
/// a UV offset (2 × vec2).
fn buffer() -> Vec<u8> {
    let mut f: Vec<f32> = vec![0.0, 1.0];
    f.extend([0.0, 0.0, 0.0, 1.0, 0.0, 0.70710677, 0.0, 0.70710677]); // rotation @8
    f.extend([1.0, 0.0, 0.0, 1.0, 0.0, 0.0, 1.0, 0.5]); // colour @40
    f.extend([0.0, 0.0, 0.5, 0.25]); // uv offset @72
    let mut bytes: Vec<u8> = f.iter().flat_map(|x| x.to_le_bytes()).collect();
    bytes.extend([1u8, 0, 0, 0]); // visibility @88
    bytes
}

fn file(pointer_rotation: bool) -> String {
    let data = base64::engine::general_purpose::STANDARD.encode(buffer());
    let rotation_channel = if pointer_rotation {
        r#"{"sampler":0,"target":{"path":"pointer","extensions":{"KHR_animation_pointer":{"pointer":"/nodes/0/rotation"}}}}"#
    } else {
        r#"{"sampler":0,"target":{"node":0,"path":"rotation"}}"#
    };
    format!(
        r#"{{"asset":{{"version":"2.0"}},
  "extensionsUsed":["KHR_animation_pointer","KHR_node_visibility","KHR_texture_transform"],
  "nodes":[{{"name":"cube"}}],"scenes":[{{"nodes":[0]}}],
  "images":[{{"uri":"missing.png"}}],"textures":[{{"source":0}}],
  "materials":[{{"pbrMetallicRoughness":{{"baseColorFactor":[0.5,0.5,0.5,1],"baseColorTexture":{{"index":0}}}}}}],
  "buffers":[{{"byteLength":92,"uri":"data:application/octet-stream;base64,{data}"}}],
  "bufferViews":[{{"buffer":0,"byteOffset":0,"byteLength":8}},{{"buffer":0,"byteOffset":8,"byteLength":32}},
    {{"buffer":0,"byteOffset":40,"byteLength":32}},{{"buffer":0,"byteOffset":72,"byteLength":16}},
    {{"buffer":0,"byteOffset":88,"byteLength":2}}],
  "accessors":[{{"bufferView":0,"componentType":5126,"count":2,"type":"SCALAR","min":[0],"max":[1]}},
    {{"bufferView":1,"componentType":5126,"count":2,"type":"VEC4"}},
    {{"bufferView":2,"componentType":5126,"count":2,"type":"VEC4"}},
    {{"bufferView":3,"componentType":5126,"count":2,"type":"VEC2"}},
    {{"bufferView":4,"componentType":5121,"count":2,"type":"SCALAR"}}],
  "animations":[{{"name":"All","samplers":[
      {{"input":0,"output":1}},{{"input":0,"output":2}},{{"input":0,"output":3}},
      {{"input":0,"output":4,"interpolation":"STEP"}},{{"input":0,"output":4}}],
    "channels":[{rotation_channel},
      {{"sampler":1,"target":{{"path":"pointer","extensions":{{"KHR_animation_pointer":{{"pointer":"/materials/0/pbrMetallicRoughness/baseColorFactor"}}}}}}}},
      {{"sampler":2,"target":{{"path":"pointer","extensions":{{"KHR_animation_pointer":{{"pointer":"/materials/0/pbrMetallicRoughness/baseColorTexture/extensions/KHR_texture_transform/offset"}}}}}}}},
      {{"sampler":3,"target":{{"path":"pointer","extensions":{{"KHR_animation_pointer":{{"pointer":"/nodes/0/extensions/KHR_node_visibility/visible"}}}}}}}},
      {{"sampler":4,"target":{{"path":"pointer","extensions":{{"KHR_animation_pointer":{{"pointer":"/nodes/0/extensions/KHR_node_visibility/visible"}}}}}}}},
      {{"sampler":1,"target":{{"path":"pointer","extensions":{{"KHR_animation_pointer":{{"pointer":"/materials/0/extensions/KHR_materials_volume/attenuationColor"}}}}}}}},
      {{"sampler":1,"target":{{"path":"pointer","extensions":{{"KHR_animation_pointer":{{"pointer":"/materials/7/emissiveFactor"}}}}}}}},
      {{"sampler":0,"target":{{"path":"translation"}}}}]}}]}}"#
    )
}

#[test]
fn a_blender_shaped_file_with_pointer_channels_loads_and_reports_what_it_skips() {
    let asset = load_slice(file(true).as_bytes(), None, &LoadOptions::default()).unwrap();
    let colour = PropertyTarget::Material {
        material: 0,
        field: MaterialField::BaseColorFactor,
    };
    let offset = PropertyTarget::Material {
        material: 0,
        field: MaterialField::TextureTransform(TextureSlot::BaseColor, UvField::Offset),
    };
    let visible = PropertyTarget::NodeVisible { node: 0 };
    assert_eq!(asset.properties, vec![colour, offset, visible]);
    let clip = &asset.animation.clips[0];
    let tracks: Vec<_> = clip
        .properties
        .iter()
        .map(|p| (p.slot, p.kind, p.rest))
        .collect();
    assert_eq!(
        tracks,
        vec![
            (0, PropertyKind::Float(4), [0.5, 0.5, 0.5, 1.0]),
            (1, PropertyKind::Float(2), [0.0, 0.0, 0.0, 0.0]),
            (2, PropertyKind::Bool, [1.0, 0.0, 0.0, 0.0]),
        ]
    );
    // The colour at half time is the mid point of its keys.
    let mut v = [0.0f32; 4];
    evaluate_sampler(
        &clip.samplers[clip.properties[0].sampler],
        0.5,
        4,
        false,
        &mut v,
        0,
    );
    assert_eq!(v, [0.5, 0.0, 0.5, 0.75]);
    let paths: Vec<&str> = asset.warnings.iter().map(|w| w.path.as_str()).collect();
    // Visibility with LINEAR, an unknown pointer, a missing material, an untargeted channel.
    for want in [
        "animations[0].channels[4]",
        "animations[0].channels[5]",
        "animations[0].channels[6]",
        "animations[0].channels[7]",
    ] {
        assert!(paths.contains(&want), "{want} not in {paths:?}");
    }
    assert_eq!(asset.warnings.len(), 4, "{:?}", asset.warnings);
}

#[test]
fn a_pointer_to_a_node_rotation_is_the_plain_rotation_channel() {
    let pointer = load_slice(file(true).as_bytes(), None, &LoadOptions::default()).unwrap();
    let plain = load_slice(file(false).as_bytes(), None, &LoadOptions::default()).unwrap();
    let (a, b) = (&pointer.animation.clips[0], &plain.animation.clips[0]);
    assert_eq!(a.channels.len(), 1);
    assert_eq!(a.channels, b.channels);
    assert_eq!(
        a.samplers[a.channels[0].sampler],
        b.samplers[b.channels[0].sampler]
    );
}

/// `fixtures/animation_pointer.gltf` (written by `cargo xtask fixtures`): every target kind
/// skel reads becomes a property slot, node TRS pointers become joint channels, and the
/// untargeted channel and the unknown pointer are the only things skipped.
#[test]
fn the_pointer_fixture_has_every_target_kind() {
    use skel_gltf::{CameraField, LightField};
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../fixtures/animation_pointer.gltf"
    );
    let asset = skel_gltf::load_path(std::path::Path::new(path), &LoadOptions::default()).unwrap();
    let has = |t: PropertyTarget| asset.properties.contains(&t);
    let m = |field| PropertyTarget::Material { material: 0, field };
    let uv = |f| PropertyTarget::Material {
        material: 1,
        field: MaterialField::TextureTransform(TextureSlot::BaseColor, f),
    };
    for t in [
        m(MaterialField::BaseColorFactor),
        m(MaterialField::EmissiveFactor),
        m(MaterialField::EmissiveStrength),
        m(MaterialField::MetallicFactor),
        m(MaterialField::RoughnessFactor),
        m(MaterialField::AlphaCutoff),
        m(MaterialField::NormalScale),
        m(MaterialField::OcclusionStrength),
        uv(UvField::Offset),
        uv(UvField::Rotation),
        uv(UvField::Scale),
        PropertyTarget::NodeVisible { node: 1 },
    ] {
        assert!(has(t), "{t:?} missing");
    }
    for field in [CameraField::Yfov, CameraField::Znear, CameraField::Zfar] {
        assert!(has(PropertyTarget::Camera { camera: 0, field }));
    }
    for field in [CameraField::Xmag, CameraField::Ymag] {
        assert!(has(PropertyTarget::Camera { camera: 1, field }));
    }
    for field in [
        LightField::Color,
        LightField::Intensity,
        LightField::Range,
        LightField::InnerConeAngle,
        LightField::OuterConeAngle,
    ] {
        assert!(has(PropertyTarget::Light { light: 0, field }));
    }
    assert_eq!(asset.properties.len(), 22);
    let clip = &asset.animation.clips[0];
    assert_eq!(clip.properties.len(), 22);
    // Translation, rotation and scale of node 0 through pointers.
    assert_eq!(clip.channels.iter().filter(|c| c.node == 0).count(), 3);
    let skipped: Vec<&str> = asset.warnings.iter().map(|w| w.path.as_str()).collect();
    assert_eq!(
        skipped,
        ["animations[0].channels[24]", "animations[0].channels[26]"]
    );
    // Static values come from the file: material 1's texture scale is ½.
    let scale = clip
        .properties
        .iter()
        .find(|p| asset.properties[p.slot] == uv(UvField::Scale))
        .unwrap();
    assert_eq!(&scale.rest[..2], &[0.5, 0.5]);
}
