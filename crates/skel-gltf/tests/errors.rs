//! Malformed input built in code (the committed corpus is tested by `malformed.rs`): each
//! mistake gives its own error naming the place, and no mutated file panics.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

mod common;

use common::builder::{Builder, two_bone_strip};
use serde_json::{Value, json};
use skel_anim::Handedness;
use skel_gltf::{GltfAsset, GltfError, LoadOptions, load_slice};

fn load(bytes: &[u8]) -> Result<GltfAsset, GltfError> {
    load_slice(
        bytes,
        None,
        &LoadOptions::with_handedness(Handedness::RightHanded),
    )
}

/// The strip with `edit` applied to its accessors and JSON.
fn strip_with(edit: impl FnOnce(&mut Builder, &mut Value)) -> Result<GltfAsset, GltfError> {
    let (mut b, mut doc) = two_bone_strip();
    edit(&mut b, &mut doc);
    load(&b.gltf(doc))
}

#[test]
fn the_unedited_strip_loads() {
    strip_with(|_, _| {}).unwrap();
}

#[test]
fn missing_accessor() {
    let err = strip_with(|_, d| {
        d["meshes"][0]["primitives"][0]["attributes"]["POSITION"] = json!(99);
    })
    .unwrap_err();
    assert!(
        matches!(err, GltfError::MissingAccessor { accessor: 99, .. }),
        "{err}"
    );
    assert!(err.to_string().contains("POSITION"), "{err}");
}

#[test]
fn joint_index_past_the_skin() {
    let err = strip_with(|b, d| {
        let j = b.u8s(
            &[0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 7, 0, 0, 0],
            "VEC4",
            false,
        );
        d["meshes"][0]["primitives"][0]["attributes"]["JOINTS_0"] = json!(j);
    })
    .unwrap_err();
    assert!(
        matches!(
            err,
            GltfError::JointOutOfRange {
                vertex: 3,
                joint: 7,
                joint_count: 2,
                ..
            }
        ),
        "{err}"
    );
}

#[test]
fn key_times_not_increasing() {
    let err = strip_with(|b, d| {
        let t = b.floats(&[0.0, 0.0], "SCALAR");
        d["animations"][0]["samplers"][0]["input"] = json!(t);
    })
    .unwrap_err();
    assert!(
        matches!(err, GltfError::KeyTimesNotIncreasing { key: 1, .. }),
        "{err}"
    );
}

#[test]
fn nan_in_positions() {
    let err = strip_with(|b, d| {
        let p = b.floats(
            &[
                0.0,
                0.0,
                0.0,
                f32::NAN,
                0.0,
                0.0,
                0.0,
                2.0,
                0.0,
                1.0,
                2.0,
                0.0,
            ],
            "VEC3",
        );
        d["meshes"][0]["primitives"][0]["attributes"]["POSITION"] = json!(p);
    })
    .unwrap_err();
    assert!(
        matches!(err, GltfError::NotFinite { element: 1, .. }),
        "{err}"
    );
}

#[test]
fn nan_in_key_values() {
    let err = strip_with(|b, d| {
        let r = b.floats(&[0.0, 0.0, 0.0, 1.0, 0.0, 0.0, f32::INFINITY, 1.0], "VEC4");
        d["animations"][0]["samplers"][0]["output"] = json!(r);
    })
    .unwrap_err();
    assert!(
        matches!(err, GltfError::NotFinite { element: 1, .. }),
        "{err}"
    );
}

#[test]
fn wrong_accessor_type() {
    let err = strip_with(|b, d| {
        let j = b.floats(&[0.0; 12], "VEC3");
        d["meshes"][0]["primitives"][0]["attributes"]["JOINTS_0"] = json!(j);
    })
    .unwrap_err();
    match err {
        GltfError::AccessorType { expected, got, .. } => {
            assert!(expected.contains("VEC4"), "{expected}");
            assert_eq!(got, "VEC3 of FLOAT");
        }
        other => panic!("{other}"),
    }
}

#[test]
fn wrong_accessor_count() {
    let err = strip_with(|b, d| {
        let w = b.floats(&[1.0, 0.0, 0.0, 0.0], "VEC4");
        d["meshes"][0]["primitives"][0]["attributes"]["WEIGHTS_0"] = json!(w);
    })
    .unwrap_err();
    assert!(
        matches!(
            err,
            GltfError::AccessorCount {
                expected: 4,
                got: 1,
                ..
            }
        ),
        "{err}"
    );
}

#[test]
fn too_few_inverse_bind_matrices() {
    let err = strip_with(|b, d| {
        let m = b.floats(&skel_math::IDENTITY, "MAT4");
        d["skins"][0]["inverseBindMatrices"] = json!(m);
    })
    .unwrap_err();
    assert!(
        matches!(
            err,
            GltfError::AccessorCount {
                expected: 2,
                got: 1,
                ..
            }
        ),
        "{err}"
    );
}

#[test]
fn node_cycles() {
    let err = strip_with(|_, d| d["nodes"][2]["children"] = json!([1])).unwrap_err();
    assert!(matches!(err, GltfError::NodeCycle { .. }), "{err}");
    let err = strip_with(|_, d| d["nodes"][2]["children"] = json!([2])).unwrap_err();
    assert!(matches!(err, GltfError::NodeCycle { node: 2 }), "{err}");
    let err = strip_with(|_, d| d["nodes"][0]["children"] = json!([2])).unwrap_err();
    assert!(
        matches!(err, GltfError::NodeHasTwoParents { node: 2, .. }),
        "{err}"
    );
}

#[test]
fn header_counts_larger_than_the_data_do_not_allocate() {
    // A count of four billion over a 48-byte view: rejected before anything is allocated.
    let (mut b, doc) = two_bone_strip();
    b.accessors[0]["count"] = json!(4_000_000_000u64);
    let err = load(&b.gltf(doc)).unwrap_err();
    assert!(
        matches!(err, GltfError::AccessorOutOfRange { accessor: 0, .. }),
        "{err}"
    );
    // No buffer view at all and a huge count: a zero-filled accessor is capped.
    let (mut b, doc) = two_bone_strip();
    b.accessors[0] = json!({"componentType": 5126, "type": "VEC3", "count": 1u64 << 40});
    let err = load(&b.gltf(doc)).unwrap_err();
    assert!(
        matches!(err, GltfError::AccessorTooLarge { accessor: 0, .. }),
        "{err}"
    );
}

#[test]
fn cubic_spline_output_count() {
    let err = strip_with(|_, d| {
        d["animations"][0]["samplers"][0]["interpolation"] = json!("CUBICSPLINE");
    })
    .unwrap_err();
    assert!(
        matches!(
            err,
            GltfError::SamplerOutputCount {
                keys: 2,
                expected: 6,
                got: 2,
                ..
            }
        ),
        "{err}"
    );
}

#[test]
fn structural_errors_name_the_place() {
    let err = strip_with(|_, d| d["skins"][0]["joints"] = json!([1, 42])).unwrap_err();
    assert!(
        matches!(
            err,
            GltfError::BadReference {
                kind: "node",
                index: 42,
                ..
            }
        ),
        "{err}"
    );
    // A channel path skel does not animate is skipped and reported, not fatal (glTF 2.0 and
    // KHR_animation_pointer: such channels SHOULD be ignored).
    let asset = strip_with(|_, d| {
        d["animations"][0]["channels"][0]["target"]["path"] = json!("colour");
    })
    .unwrap();
    assert!(
        asset
            .warnings
            .iter()
            .any(|w| w.path == "animations[0].channels[0]" && w.message.contains("colour")),
        "{:?}",
        asset.warnings
    );
    let err =
        strip_with(|_, d| d["extensionsRequired"] = json!(["EXT_not_an_extension"])).unwrap_err();
    assert!(
        matches!(err, GltfError::UnsupportedExtension { .. }),
        "{err}"
    );
    let err = strip_with(|_, d| {
        let attributes = d["meshes"][0]["primitives"][0]["attributes"].as_object_mut();
        attributes.unwrap().remove("POSITION");
    })
    .unwrap_err();
    assert!(
        matches!(
            err,
            GltfError::NoPositions {
                mesh: 0,
                primitive: 0
            }
        ),
        "{err}"
    );
    let err = strip_with(|b, d| {
        let i = b.u16s(&[0, 1, 9], "SCALAR", false);
        d["meshes"][0]["primitives"][0]["indices"] = json!(i);
    })
    .unwrap_err();
    assert!(
        matches!(
            err,
            GltfError::IndexOutOfRange {
                position: 2,
                index: 9,
                vertex_count: 4,
                ..
            }
        ),
        "{err}"
    );
    let err = load(b"{ not json").unwrap_err();
    assert!(matches!(err, GltfError::Parse { .. }), "{err}");
    let err = load(b"glTF\x02\0\0\0\x08\0\0\0").unwrap_err();
    assert!(matches!(err, GltfError::Glb { .. }), "{err}");
}

#[test]
fn buffer_errors() {
    let (b, doc) = two_bone_strip();
    let mut json: Value = serde_json::from_slice(&b.gltf(doc)).unwrap();
    json["bufferViews"][0]["byteOffset"] = json!(1_000_000);
    let err = load(&serde_json::to_vec(&json).unwrap()).unwrap_err();
    assert!(
        matches!(err, GltfError::BufferViewOutOfRange { view: 0, .. }),
        "{err}"
    );
    json["buffers"][0]["byteLength"] = json!(1_000_000);
    let err = load(&serde_json::to_vec(&json).unwrap()).unwrap_err();
    assert!(
        matches!(err, GltfError::BufferLength { buffer: 0, .. }),
        "{err}"
    );
    json["buffers"][0]["uri"] = json!("data:application/octet-stream;base64,@@@");
    let err = load(&serde_json::to_vec(&json).unwrap()).unwrap_err();
    assert!(matches!(err, GltfError::DataUri { .. }), "{err}");
}

/// Deterministic byte mutations of a valid GLB: every one loads or fails with an error; a
/// panic would fail the test.
#[test]
fn mutated_files_never_panic() {
    let (b, doc) = two_bone_strip();
    let glb = b.glb(doc);
    let mut state = 0x2545_f491_4f6c_dd1d_u64;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut rejected = 0;
    for _ in 0..3000 {
        let mut bytes = glb.clone();
        for _ in 0..1 + next() % 4 {
            let at = usize::try_from(next() % bytes.len() as u64).unwrap();
            bytes[at] = next().to_le_bytes()[0];
        }
        if load(&bytes).is_err() {
            rejected += 1;
        }
    }
    // Most mutations hit the JSON or the header and are rejected; some only change vertex data.
    assert!(rejected > 100, "{rejected}");
}

/// One delta accessor named by 5 000 morph targets of a 10 000-vertex mesh would decode to
/// 150 million floats from a file of a few hundred kilobytes: refused before allocating.
#[test]
fn reuse_amplification_hits_the_asset_budget() {
    let mut b = Builder::default();
    let pos = b.floats(&vec![0.0; 30_000], "VEC3");
    let delta = b.floats(&vec![0.0; 30_000], "VEC3");
    let targets: Vec<Value> = (0..5000).map(|_| json!({"POSITION": delta})).collect();
    let doc = json!({
        "scenes": [{"nodes": [0]}],
        "nodes": [{"mesh": 0}],
        "meshes": [{"primitives": [{"attributes": {"POSITION": pos}, "targets": targets}]}]
    });
    let err = load(&b.gltf(doc)).unwrap_err();
    assert!(matches!(err, GltfError::TooLarge { .. }), "{err}");
    assert!(err.to_string().contains("targets"), "{err}");
}
