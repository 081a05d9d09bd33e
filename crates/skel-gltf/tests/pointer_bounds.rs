//! `KHR_animation_pointer` channels at the edges of the file: a pointer to the object one past
//! the last of its kind (material, camera, light, node) and a channel whose sampler is one past
//! the last are reported and skipped, while the last object and the last sampler are read; a
//! pointer to a node's morph `weights` drives that node's weights with one value per target.

use base64::Engine;
use skel_anim::{ChannelPath, evaluate_sampler};
use skel_gltf::{LoadOptions, PropertyTarget, load_slice};

/// Key times 0, 1 @0; two scalar keys 0.25, 0.75 @8; weights of two targets (0, 1), (1, 0)
/// @16; a triangle @32; two morph targets' displacements @68 and @104.
fn buffer() -> Vec<u8> {
    let mut f: Vec<f32> = vec![0.0, 1.0, 0.25, 0.75, 0.0, 1.0, 1.0, 0.0];
    f.extend([0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0]);
    f.extend([0.0, 0.0, 1.0, 0.0, 0.0, 1.0, 0.0, 0.0, 1.0]);
    f.extend([0.5, 0.0, 0.0, 0.5, 0.0, 0.0, 0.5, 0.0, 0.0]);
    f.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn pointer(sampler: usize, pointer: &str) -> String {
    format!(
        r#"{{"sampler":{sampler},"target":{{"path":"pointer","extensions":{{"KHR_animation_pointer":{{"pointer":"{pointer}"}}}}}}}}"#
    )
}

/// One material, one camera, one light, two nodes (node 0 with a two-target morph mesh), two
/// samplers; channels 0–4 name the last object of each kind or use the last sampler, 5–9 the
/// one past it, 10 drives the weights.
fn file() -> String {
    let data = base64::engine::general_purpose::STANDARD.encode(buffer());
    let channels = [
        pointer(0, "/materials/0/pbrMetallicRoughness/roughnessFactor"),
        pointer(0, "/cameras/0/perspective/yfov"),
        pointer(0, "/extensions/KHR_lights_punctual/lights/0/intensity"),
        pointer(1, "/nodes/1/extensions/KHR_node_visibility/visible"),
        pointer(0, "/materials/0/alphaCutoff"),
        pointer(0, "/materials/1/alphaCutoff"),
        pointer(0, "/cameras/1/perspective/yfov"),
        pointer(0, "/extensions/KHR_lights_punctual/lights/1/intensity"),
        pointer(1, "/nodes/2/extensions/KHR_node_visibility/visible"),
        pointer(3, "/materials/0/pbrMetallicRoughness/metallicFactor"),
        pointer(2, "/nodes/0/weights"),
    ]
    .join(",");
    format!(
        r#"{{"asset":{{"version":"2.0"}},
  "extensionsUsed":["KHR_animation_pointer","KHR_node_visibility","KHR_lights_punctual"],
  "extensions":{{"KHR_lights_punctual":{{"lights":[{{"type":"point"}}]}}}},
  "cameras":[{{"type":"perspective","perspective":{{"yfov":0.8,"znear":0.1}}}}],
  "materials":[{{}}],
  "meshes":[{{"primitives":[{{"attributes":{{"POSITION":3}},"material":0,
    "targets":[{{"POSITION":4}},{{"POSITION":5}}]}}],"weights":[0,0]}}],
  "nodes":[{{"mesh":0}},{{"name":"other"}}],"scenes":[{{"nodes":[0,1]}}],
  "buffers":[{{"byteLength":140,"uri":"data:application/octet-stream;base64,{data}"}}],
  "bufferViews":[{{"buffer":0,"byteOffset":0,"byteLength":8}},{{"buffer":0,"byteOffset":8,"byteLength":8}},
    {{"buffer":0,"byteOffset":16,"byteLength":16}},{{"buffer":0,"byteOffset":32,"byteLength":36}},
    {{"buffer":0,"byteOffset":68,"byteLength":36}},{{"buffer":0,"byteOffset":104,"byteLength":36}}],
  "accessors":[{{"bufferView":0,"componentType":5126,"count":2,"type":"SCALAR","min":[0],"max":[1]}},
    {{"bufferView":1,"componentType":5126,"count":2,"type":"SCALAR"}},
    {{"bufferView":2,"componentType":5126,"count":4,"type":"SCALAR"}},
    {{"bufferView":3,"componentType":5126,"count":3,"type":"VEC3","min":[0,0,0],"max":[1,1,0]}},
    {{"bufferView":4,"componentType":5126,"count":3,"type":"VEC3","min":[0,0,1],"max":[0,0,1]}},
    {{"bufferView":5,"componentType":5126,"count":3,"type":"VEC3","min":[0.5,0,0],"max":[0.5,0,0]}}],
  "animations":[{{"name":"Edges","samplers":[
      {{"input":0,"output":1}},{{"input":0,"output":1,"interpolation":"STEP"}},{{"input":0,"output":2}}],
    "channels":[{channels}]}}]}}"#
    )
}

#[test]
fn pointers_past_the_last_object_or_sampler_are_skipped_and_the_last_ones_read() {
    let asset = load_slice(file().as_bytes(), None, &LoadOptions::default()).unwrap();
    let skipped: Vec<&str> = asset.warnings.iter().map(|w| w.path.as_str()).collect();
    assert_eq!(
        skipped,
        (5..10)
            .map(|c| format!("animations[0].channels[{c}]"))
            .collect::<Vec<_>>(),
        "{:?}",
        asset.warnings
    );
    let messages: Vec<&str> = asset.warnings.iter().map(|w| w.message.as_str()).collect();
    assert!(
        messages[..4]
            .iter()
            .all(|m| m.contains("names no object of the file")),
        "{messages:?}"
    );
    assert!(messages[4].contains("no valid sampler"), "{messages:?}");
    // The last object of each kind is read.
    assert_eq!(asset.properties.len(), 5, "{:?}", asset.properties);
    assert!(
        asset
            .properties
            .contains(&PropertyTarget::NodeVisible { node: 1 })
    );
}

#[test]
fn a_weights_pointer_drives_the_nodes_morph_weights() {
    let asset = load_slice(file().as_bytes(), None, &LoadOptions::default()).unwrap();
    let clip = &asset.animation.clips[0];
    let weights: Vec<_> = clip
        .channels
        .iter()
        .filter(|c| c.path == ChannelPath::Weights)
        .collect();
    assert_eq!(weights.len(), 1, "{:?}", clip.channels);
    assert_eq!(weights[0].node, 0);
    let sampler = &clip.samplers[weights[0].sampler];
    assert_eq!(sampler.components(), 2, "one value per morph target");
    let mut v = [0.0_f32; 2];
    evaluate_sampler(sampler, 0.25, 2, false, &mut v, 0);
    assert_eq!(v, [0.25, 0.75]);
}
