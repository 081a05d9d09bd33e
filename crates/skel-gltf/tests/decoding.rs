//! What the loader makes of small hand-built files: every component type, sparse accessors,
//! quantized attributes, influence sets, node matrices, skins, clips and handedness.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

mod common;

use common::builder::{BYTE, Builder, SHORT, UNSIGNED_SHORT, two_bone_strip};
use serde_json::json;
use skel_anim::glam::{Mat4, Vec3};
use skel_anim::{ChannelPath, Handedness, Interpolation};
use skel_gltf::{
    CpuPoser, GltfAsset, LoadOptions, compute_bone_texture_data, extract_skin, load_slice,
};

fn rh() -> LoadOptions {
    LoadOptions::with_handedness(Handedness::RightHanded)
}

fn load(bytes: &[u8]) -> GltfAsset {
    load_slice(bytes, None, &rh()).unwrap()
}

fn close(a: &[f32], b: &[f32], eps: f32) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| (x - y).abs() <= eps)
}

#[test]
fn skinned_mesh_node_transform_is_ignored_and_joints_move_vertices() {
    let (b, doc) = two_bone_strip();
    let asset = load(&b.gltf(doc));
    let mut poser = CpuPoser::new(&asset).unwrap();
    // Rest: the mesh node's translation (10, 0, 0) must not move anything.
    poser.pose(&asset, None, 0.0).unwrap();
    let rest = [0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 2.0, 0.0, 1.0, 2.0, 0.0];
    assert!(close(
        bytemuck::cast_slice(poser.positions(0).unwrap()),
        &rest,
        1e-6
    ));
    // t = 1: the tip joint turned 90° about z around (0, 1, 0).
    poser.pose(&asset, Some(0), 1.0).unwrap();
    let bent = [0.0, 0.0, 0.0, 1.0, 0.0, 0.0, -1.0, 1.0, 0.0, -1.0, 2.0, 0.0];
    assert!(
        close(
            bytemuck::cast_slice(poser.positions(0).unwrap()),
            &bent,
            1e-6
        ),
        "{:?}",
        poser.positions(0)
    );
}

#[test]
fn left_handed_mode_mirrors_x_at_the_roots() {
    let (b, doc) = two_bone_strip();
    let bytes = b.gltf(doc);
    let lh = load_slice(&bytes, None, &LoadOptions::default()).unwrap();
    assert_eq!(lh.animation.handedness, Handedness::LeftHanded);
    let rh = load(&bytes);
    let mut p_lh = CpuPoser::new(&lh).unwrap();
    let mut p_rh = CpuPoser::new(&rh).unwrap();
    p_lh.pose(&lh, Some(0), 0.5).unwrap();
    p_rh.pose(&rh, Some(0), 0.5).unwrap();
    let mirror = Vec3::new(-1.0, 1.0, 1.0);
    for (a, b) in p_lh
        .positions(0)
        .unwrap()
        .iter()
        .zip(p_rh.positions(0).unwrap())
    {
        assert!(a.abs_diff_eq(*b * mirror, 1e-6), "{a} vs {b}");
    }
    // World matrices: C·M with C = diag(-1, 1, 1, 1).
    let c = Mat4::from_scale(mirror);
    for (l, r) in p_lh
        .node_world_matrices()
        .iter()
        .zip(p_rh.node_world_matrices())
    {
        assert!(l.abs_diff_eq(c * *r, 1e-6), "{l} vs {r}");
    }
}

#[test]
fn glb_and_embedded_gltf_load_the_same() {
    let (b, doc) = two_bone_strip();
    let from_gltf = load(&b.gltf(doc.clone()));
    let from_glb = load(&b.glb(doc));
    assert_eq!(from_gltf, from_glb);
}

#[test]
fn external_buffers_are_read_relative_to_the_base_dir() {
    let (b, doc) = two_bone_strip();
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("skel-gltf-ext-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("strip data.bin"), &b.bin).unwrap();
    let mut doc = doc;
    doc["asset"] = json!({"version": "2.0"});
    doc["buffers"] = json!([{"byteLength": b.bin.len(), "uri": "strip%20data.bin"}]);
    doc["bufferViews"] = json!(b.views);
    doc["accessors"] = json!(b.accessors);
    let bytes = serde_json::to_vec(&doc).unwrap();
    std::fs::write(dir.join("strip.gltf"), &bytes).unwrap();
    let asset = skel_gltf::load_path(&dir.join("strip.gltf"), &rh()).unwrap();
    assert_eq!(asset.primitives[0].vertex_count(), 4);
    // Without a base directory the external buffer cannot be found: a typed error.
    let err = load_slice(&bytes, None, &rh()).unwrap_err();
    assert!(
        matches!(err, skel_gltf::GltfError::MissingBuffer { buffer: 0, .. }),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn extract_skin_and_rest_bone_texture() {
    let (b, doc) = two_bone_strip();
    let asset = load(&b.gltf(doc));
    let skin = extract_skin(&asset, 0, 0).unwrap();
    assert_eq!(skin.joint_nodes, [1, 2]);
    // Mesh node world: translation 10 in x.
    assert_eq!(
        skin.mesh_world_matrix.w_axis.truncate(),
        Vec3::new(10.0, 0.0, 0.0)
    );
    assert_eq!(skin.joint_world_matrices[1].w_axis.truncate(), Vec3::Y);
    // bone = invMeshWorld · jointWorld · IBM: the IBMs undo the joints, leaving invMeshWorld,
    // which the GPU's mesh.world cancels.
    let bones = compute_bone_texture_data(&skin);
    assert_eq!(bones.len(), 2);
    for bone in bones {
        assert!(bone.abs_diff_eq(Mat4::from_translation(Vec3::new(-10.0, 0.0, 0.0)), 1e-6));
    }
    assert!(matches!(
        extract_skin(&asset, 0, 1),
        Err(skel_gltf::GltfError::NoMesh { node: 1 })
    ));
    assert!(matches!(
        extract_skin(&asset, 3, 0),
        Err(skel_gltf::GltfError::BadReference {
            kind: "skin",
            index: 3,
            ..
        })
    ));
}

#[test]
fn missing_inverse_bind_matrices_are_identity() {
    let (b, mut doc) = two_bone_strip();
    doc["skins"][0]
        .as_object_mut()
        .unwrap()
        .remove("inverseBindMatrices");
    let asset = load(&b.gltf(doc));
    let ibm = &asset.skins[0].inverse_bind_matrices;
    assert_eq!(ibm.len(), 32);
    assert_eq!(&ibm[..16], &skel_math::IDENTITY);
    assert_eq!(&ibm[16..], &skel_math::IDENTITY);
}

#[test]
fn node_matrix_is_decomposed_into_rest_trs() {
    let mut b = Builder::default();
    let pos = b.floats(&[0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0], "VEC3");
    // Rotation 90° about z, scale 2, translation (1, 2, 3), column-major.
    let m = [
        0.0, 2.0, 0.0, 0.0, -2.0, 0.0, 0.0, 0.0, 0.0, 0.0, 2.0, 0.0, 1.0, 2.0, 3.0, 1.0,
    ];
    let doc = json!({
        "scenes": [{"nodes": [0]}],
        "nodes": [{"matrix": m, "mesh": 0}],
        "meshes": [{"primitives": [{"attributes": {"POSITION": pos}}]}]
    });
    let asset = load(&b.gltf(doc));
    let rest = &asset.animation.nodes[0];
    assert!(close(&rest.translation, &[1.0, 2.0, 3.0], 1e-6));
    assert!(close(&rest.scale, &[2.0, 2.0, 2.0], 1e-6));
    let s = std::f32::consts::FRAC_1_SQRT_2;
    assert!(
        close(&rest.rotation, &[0.0, 0.0, s, s], 1e-6),
        "{:?}",
        rest.rotation
    );
    let mut poser = CpuPoser::new(&asset).unwrap();
    poser.pose(&asset, None, 0.0).unwrap();
    assert!(close(
        bytemuck::cast_slice(poser.node_world_matrices()),
        &m,
        1e-6
    ));
    // Rigid mesh: vertex (1, 0, 0) → (1, 4, 3).
    assert!(poser.positions(0).unwrap()[1].abs_diff_eq(Vec3::new(1.0, 4.0, 3.0), 1e-6));
}

#[test]
fn quantized_attributes_and_morph_deltas_decode() {
    let mut b = Builder::default();
    // KHR_mesh_quantization: SHORT positions (not normalized), BYTE normalized normals,
    // normalized UNSIGNED_SHORT texcoords, BYTE normalized morph position deltas.
    let pos: Vec<u8> = [100i16, 0, -200, 0, 0, 0, 0, 300, 0, 0, 0, 0]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    let pos = b.accessor(&pos, SHORT, "VEC3", 3, false);
    let nrm: Vec<u8> = [0i8, 127, 0, 0, 0, -127, 0, 0, 0, 0, 127, 0]
        .iter()
        .map(|v| v.to_le_bytes()[0])
        .collect();
    let nrm = b.view(&nrm);
    b.accessors.push(
        json!({"bufferView": nrm, "byteOffset": 0, "componentType": BYTE,
        "type": "VEC3", "count": 3, "normalized": true}),
    );
    // byteStride 4 for the padded BYTE normals.
    b.views[nrm]["byteStride"] = json!(4);
    let nrm = b.accessors.len() - 1;
    let uv: Vec<u8> = [0u16, 65535, 65535, 0, 32768, 32768]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    let uv = b.accessor(&uv, UNSIGNED_SHORT, "VEC2", 3, true);
    let delta: Vec<u8> = [127i8, 0, 0, 0, 0, -127, 0, 0, 0, 64, 0, 0]
        .iter()
        .map(|v| v.to_le_bytes()[0])
        .collect();
    let delta_view = b.view(&delta);
    b.accessors.push(
        json!({"bufferView": delta_view, "componentType": BYTE, "type": "VEC3",
        "count": 3, "normalized": true}),
    );
    b.views[delta_view]["byteStride"] = json!(4);
    let delta = b.accessors.len() - 1;
    let doc = json!({
        "extensionsUsed": ["KHR_mesh_quantization"],
        "extensionsRequired": ["KHR_mesh_quantization"],
        "scenes": [{"nodes": [0]}],
        "nodes": [{"mesh": 0, "weights": [0.5]}],
        "meshes": [{"primitives": [{
            "attributes": {"POSITION": pos, "NORMAL": nrm, "TEXCOORD_0": uv},
            "targets": [{"POSITION": delta}]
        }], "weights": [0.25]}]
    });
    let asset = load(&b.gltf(doc));
    let p = &asset.primitives[0];
    assert_eq!(
        p.positions,
        [100.0, 0.0, -200.0, 0.0, 0.0, 0.0, 0.0, 300.0, 0.0]
    );
    assert_eq!(
        p.normals.as_deref().unwrap(),
        &[0.0, 1.0, 0.0, 0.0, -1.0, 0.0, 0.0, 0.0, 1.0]
    );
    let uv = p.uvs.as_deref().unwrap();
    assert!(close(
        uv,
        &[0.0, 1.0, 1.0, 0.0, 32768.0 / 65535.0, 32768.0 / 65535.0],
        1e-7
    ));
    let t = p.morph_targets.as_ref().unwrap();
    assert_eq!(t.target_count, 1);
    assert!(close(
        &t.positions,
        &[1.0, 0.0, 0.0, 0.0, -1.0, 0.0, 0.0, 64.0 / 127.0, 0.0],
        1e-7
    ));
    // The node's weights override the mesh's.
    let mb = p.morph_binding.unwrap();
    assert_eq!(asset.animation.morph_bindings[mb].default_weights, [0.5]);
    let mut poser = CpuPoser::new(&asset).unwrap();
    poser.pose(&asset, None, 0.0).unwrap();
    assert!(poser.positions(0).unwrap()[0].abs_diff_eq(Vec3::new(100.5, 0.0, -200.0), 1e-5));
}

#[test]
fn sparse_accessors_replace_elements() {
    let mut b = Builder::default();
    let pos = b.floats(&[0.0; 9], "VEC3");
    let idx = b.view(&[2u16.to_le_bytes(), 0u16.to_le_bytes()].concat());
    let vals: Vec<u8> = [5.0f32, 6.0, 7.0, 1.0, 2.0, 3.0]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    let vals = b.view(&vals);
    b.accessors[pos]["sparse"] = json!({
        "count": 2,
        "indices": {"bufferView": idx, "componentType": UNSIGNED_SHORT},
        "values": {"bufferView": vals}
    });
    // A morph target without a buffer view: zeros plus one sparse delta.
    let didx = b.view(&[1u8, 0, 0, 0]);
    let dval = b.view(
        &[0.0f32, 0.0, 4.0]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect::<Vec<_>>(),
    );
    b.accessors
        .push(json!({"componentType": 5126, "type": "VEC3", "count": 3,
        "sparse": {"count": 1, "indices": {"bufferView": didx, "componentType": 5121},
                   "values": {"bufferView": dval}}}));
    let delta = b.accessors.len() - 1;
    let doc = json!({
        "scenes": [{"nodes": [0]}],
        "nodes": [{"mesh": 0}],
        "meshes": [{"primitives": [{"attributes": {"POSITION": pos}, "targets": [{"POSITION": delta}]}]}]
    });
    let asset = load(&b.gltf(doc));
    let p = &asset.primitives[0];
    assert_eq!(p.positions, [1.0, 2.0, 3.0, 0.0, 0.0, 0.0, 5.0, 6.0, 7.0]);
    assert_eq!(
        p.morph_targets.as_ref().unwrap().positions,
        [0.0, 0.0, 0.0, 0.0, 0.0, 4.0, 0.0, 0.0, 0.0]
    );
}

/// One vertex with two influence sets in the integer types glTF allows.
fn two_set_doc() -> Vec<u8> {
    let mut b = Builder::default();
    let pos = b.floats(&[0.0, 1.0, 0.0, 1.0, 1.0, 0.0], "VEC3");
    let j0 = b.u8s(&[0, 1, 2, 3, 0, 1, 2, 3], "VEC4", false);
    let j1 = b.u16s(&[4, 5, 6, 7, 4, 5, 6, 7], "VEC4", false);
    // Normalized u8 weights (51/255 = 0.2) in the first set, normalized u16 (13107/65535 =
    // 0.2) in the second: vertex 0's weights sum to 0.4.
    let w0 = b.u8s(&[51, 0, 0, 0, 255, 0, 0, 0], "VEC4", true);
    let w1 = b.u16s(&[0, 0, 0, 13107, 0, 0, 0, 0], "VEC4", true);
    let ibm: Vec<f32> = (0..8).flat_map(|_| skel_math::IDENTITY).collect();
    let ibm = b.floats(&ibm, "MAT4");
    let doc = json!({
        "scenes": [{"nodes": [0, 1]}],
        "nodes": [
            {"mesh": 0, "skin": 0},
            {"children": [2, 3, 4, 5, 6, 7, 8, 9]},
            {"translation": [1.0, 0.0, 0.0]}, {}, {}, {}, {}, {}, {},
            {"translation": [0.0, 0.0, 4.0]}
        ],
        "meshes": [{"primitives": [{"attributes": {
            "POSITION": pos, "JOINTS_0": j0, "WEIGHTS_0": w0, "JOINTS_1": j1, "WEIGHTS_1": w1
        }}]}],
        "skins": [{"joints": [2, 3, 4, 5, 6, 7, 8, 9], "inverseBindMatrices": ibm}]
    });
    b.gltf(doc)
}

#[test]
fn all_influence_sets_count_and_weights_are_renormalised() {
    let asset = load(&two_set_doc());
    let p = &asset.primitives[0];
    assert_eq!(p.influence_sets, 2);
    let inf = p.influences.as_ref().unwrap();
    assert_eq!(inf.per_vertex, 8);
    assert_eq!(&inf.joints[..8], &[0, 1, 2, 3, 4, 5, 6, 7]);
    // Vertex 0: 0.2 on joint 0 and 0.2 on joint 7 → 0.5 each after renormalisation.
    assert!((inf.weights[0] - 0.5).abs() < 1e-6 && (inf.weights[7] - 0.5).abs() < 1e-6);
    // Vertex 1: 1.0 on joint 0 only.
    assert!((inf.weights[8] - 1.0).abs() < 1e-6);
    let mut poser = CpuPoser::new(&asset).unwrap();
    poser.pose(&asset, None, 0.0).unwrap();
    // Vertex 0 = 0.5·(1, 1, 0) + 0.5·(0, 1, 4) = (0.5, 1, 2): joint 7 from JOINTS_1 counts.
    assert!(poser.positions(0).unwrap()[0].abs_diff_eq(Vec3::new(0.5, 1.0, 2.0), 1e-5));
    let gpu = p.gpu_influences().unwrap();
    assert_eq!(gpu.per_vertex(), 8);
    assert_eq!(gpu.joints1.as_deref().unwrap()[..4], [4, 5, 6, 7]);
}

#[test]
fn clips_read_every_path_and_interpolation_with_unit_rotation_keys() {
    let (mut b, mut doc) = two_bone_strip();
    // Rotation keys stored at twice unit length, CUBICSPLINE translation, STEP scale.
    let times = b.floats(&[0.0, 2.0], "SCALAR");
    let rots = b.floats(&[0.0, 0.0, 0.0, 2.0, 0.0, 0.0, 2.0, 0.0], "VEC4");
    let cubic = b.floats(
        // Per key: in-tangent, value, out-tangent; values 1 and 2 in x, tangents zero.
        &[
            0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 2.0, 0.0, 0.0, 0.0, 0.0,
            0.0,
        ],
        "VEC3",
    );
    let scales = b.floats(&[1.0, 1.0, 1.0, 3.0, 3.0, 3.0], "VEC3");
    doc["animations"].as_array_mut().unwrap().push(json!({
        "name": "mixed",
        "samplers": [
            {"input": times, "output": rots},
            {"input": times, "output": cubic, "interpolation": "CUBICSPLINE"},
            {"input": times, "output": scales, "interpolation": "STEP"}
        ],
        "channels": [
            {"sampler": 0, "target": {"node": 1, "path": "rotation"}},
            {"sampler": 1, "target": {"node": 1, "path": "translation"}},
            {"sampler": 2, "target": {"node": 2, "path": "scale"}}
        ]
    }));
    let asset = load(&b.gltf(doc));
    assert_eq!(asset.clip_index("mixed"), Some(1));
    let clip = &asset.animation.clips[1];
    assert_eq!(clip.duration(), 2.0);
    assert_eq!(clip.channels.len(), 3);
    let rot = &clip.samplers[clip.channels[0].sampler];
    assert_eq!(rot.output(), &[0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 1.0, 0.0]);
    assert_eq!(clip.channels[1].path, ChannelPath::Translation);
    assert_eq!(
        clip.samplers[clip.channels[1].sampler].interpolation(),
        Interpolation::CubicSpline
    );
    let mut poser = CpuPoser::new(&asset).unwrap();
    // Hermite with zero tangents at s = 0.5: halfway, 1.5 in x.
    poser.pose(&asset, Some(1), 1.0).unwrap();
    let w = poser.node_world_matrices();
    assert!((w[1].w_axis.x - 1.5).abs() < 1e-6, "{}", w[1].w_axis.x);
    // STEP holds the first key's scale until t = 2.
    let scale_x = w[2].x_axis.truncate().length();
    assert!((scale_x - 1.0).abs() < 1e-6);
    poser.pose(&asset, Some(1), 2.0).unwrap();
    let scale_x = poser.node_world_matrices()[2].x_axis.truncate().length();
    assert!((scale_x - 3.0).abs() < 1e-5);
}

#[test]
fn a_skin_shared_by_two_meshes_gets_one_binding_per_mesh() {
    let (b, mut doc) = two_bone_strip();
    doc["nodes"]
        .as_array_mut()
        .unwrap()
        .push(json!({"mesh": 0, "skin": 0}));
    doc["scenes"][0]["nodes"] = json!([0, 1, 3]);
    let asset = load(&b.gltf(doc));
    assert_eq!(asset.animation.skeletons.len(), 2);
    assert_eq!(asset.animation.skeletons[0].skin, 0);
    assert_eq!(asset.animation.skeletons[1].skin, 0);
    assert_eq!(asset.animation.skeletons[1].mesh_node, 3);
    let keys: Vec<_> = asset.primitives.iter().map(|p| p.key.as_str()).collect();
    assert_eq!(keys, ["n0/p0", "n3/p0"]);
    assert_eq!(asset.primitives[1].skeleton_binding, Some(1));
}

#[test]
fn joints_out_of_hierarchy_order_with_a_non_joint_between() {
    let (b, mut doc) = two_bone_strip();
    // root(1) → spacer(3, not a joint) → tip(2); joints listed tip first.
    doc["nodes"][1]["children"] = json!([3]);
    doc["nodes"]
        .as_array_mut()
        .unwrap()
        .push(json!({"name": "spacer", "children": [2]}));
    doc["skins"][0]["joints"] = json!([2, 1]);
    let asset = load(&b.gltf(doc));
    assert_eq!(asset.skins[0].root_joints, [1]);
    assert_eq!(asset.nodes[2].parent, Some(3));
    assert_eq!(asset.animation.nodes[3].parent, Some(1));
}

#[test]
fn normalized_integer_rotation_keys_decode() {
    let (mut b, mut doc) = two_bone_strip();
    // Rotation keys as normalized SHORT: (0, 0, 0, 32767) = identity, (0, 0, 32767, 0) = 180°
    // about z.
    let rot: Vec<u8> = [0i16, 0, 0, 32767, 0, 0, 32767, 0]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    let rot = b.accessor(&rot, SHORT, "VEC4", 2, true);
    doc["animations"][0]["samplers"][0]["output"] = json!(rot);
    let asset = load(&b.gltf(doc));
    let sampler = &asset.animation.clips[0].samplers[0];
    assert_eq!(sampler.output(), &[0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 1.0, 0.0]);
}
