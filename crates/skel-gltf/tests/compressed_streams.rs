//! meshopt streams made here with meshoptimizer's own encoder go through the loader: lossless
//! attributes and indices come back exactly, filtered ones within their quantisation step,
//! and a fallback buffer is read when a stream is broken. Truncated, garbage and
//! out-of-range streams (meshopt and Draco) give a typed error naming the buffer view or
//! primitive, never a panic or an abort of the C++ decoder.
#![cfg(feature = "meshopt")]
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use base64::Engine;
use serde_json::{Value, json};
use skel_anim::Handedness;
use skel_gltf::{GltfAsset, GltfError, LoadOptions, load_slice};

const POSITIONS: [[f32; 3]; 5] = [
    [0.0, 0.0, 0.0],
    [1.25, -0.5, 3.0e-7],
    [-2.0, 4.5, 0.125],
    [7.0, 1.0e3, -0.3],
    [0.1, 0.2, 0.3],
];
const TRIANGLES: [u16; 9] = [0, 1, 2, 2, 1, 3, 3, 4, 0];
const SEQUENCE: [u32; 6] = [4, 3, 2, 1, 0, 4];

fn normals() -> Vec<[f32; 4]> {
    POSITIONS
        .iter()
        .map(|p| {
            let v = glam::Vec3::from(*p) + glam::Vec3::new(0.3, -0.2, 0.9);
            let n = v.normalize();
            [n.x, n.y, n.z, 0.0]
        })
        .collect()
}

/// The streams, in one BIN: positions (no filter), normals (octahedral, 8-bit), triangle
/// indices (TRIANGLES, u16), an index sequence (INDICES, u32). Returns the BIN and each
/// stream's (offset, length).
fn streams() -> (Vec<u8>, Vec<(usize, usize)>) {
    let oct: Vec<[i8; 4]> = meshopt::encode_filter_oct(&normals(), 8);
    let parts = [
        meshopt::encode_vertex_buffer(&POSITIONS).unwrap(),
        meshopt::encode_vertex_buffer(&oct).unwrap(),
        meshopt::encode_index_buffer(&TRIANGLES.map(u32::from), POSITIONS.len()).unwrap(),
        meshopt::encode_index_sequence(&SEQUENCE, POSITIONS.len()).unwrap(),
    ];
    let mut bin = Vec::new();
    let mut ranges = Vec::new();
    for p in parts {
        ranges.push((bin.len(), p.len()));
        bin.extend_from_slice(&p);
        bin.resize(bin.len().next_multiple_of(4), 0);
    }
    (bin, ranges)
}

/// The glTF JSON over [`streams`]: buffer 0 is the GLB BIN, buffer 1 the fallback (no data
/// unless `fallback` is given, as a data URI).
fn document(ranges: &[(usize, usize)], bin_len: usize, fallback: Option<&[u8]>) -> Value {
    let n = POSITIONS.len();
    let layout = [
        (12, n, "ATTRIBUTES", "NONE"),
        (4, n, "ATTRIBUTES", "OCTAHEDRAL"),
        (2, TRIANGLES.len(), "TRIANGLES", "NONE"),
        (4, SEQUENCE.len(), "INDICES", "NONE"),
    ];
    let mut views = Vec::new();
    let mut fallback_offset = 0;
    for (&(offset, length), (stride, count, mode, filter)) in ranges.iter().zip(layout) {
        let mut view = json!({
            "buffer": 1, "byteOffset": fallback_offset, "byteLength": stride * count,
            "extensions": {"EXT_meshopt_compression": {
                "buffer": 0, "byteOffset": offset, "byteLength": length,
                "byteStride": stride, "count": count, "mode": mode, "filter": filter}}
        });
        if mode == "ATTRIBUTES" {
            view["byteStride"] = json!(stride);
        }
        views.push(view);
        fallback_offset += (stride * count).next_multiple_of(4);
    }
    let mut fallback_buffer = json!({"byteLength": fallback_offset,
        "extensions": {"EXT_meshopt_compression": {"fallback": true}}});
    if let Some(bytes) = fallback {
        let b64 = base64::engine::general_purpose::STANDARD.encode(bytes);
        fallback_buffer["uri"] = json!(format!("data:application/octet-stream;base64,{b64}"));
    }
    json!({
        "asset": {"version": "2.0"},
        "extensionsUsed": ["EXT_meshopt_compression"],
        "extensionsRequired": ["EXT_meshopt_compression"],
        "buffers": [{"byteLength": bin_len}, fallback_buffer],
        "bufferViews": views,
        "accessors": [
            {"bufferView": 0, "componentType": 5126, "count": n, "type": "VEC3",
             "min": [-2.0, -0.5, -0.3], "max": [7.0, 1000.0, 0.3]},
            {"bufferView": 1, "componentType": 5120, "normalized": true, "count": n, "type": "VEC3"},
            {"bufferView": 2, "componentType": 5123, "count": TRIANGLES.len(), "type": "SCALAR"},
            {"bufferView": 3, "componentType": 5125, "count": SEQUENCE.len(), "type": "SCALAR"}
        ],
        "meshes": [{"primitives": [
            {"attributes": {"POSITION": 0, "NORMAL": 1}, "indices": 2},
            {"attributes": {"POSITION": 0}, "indices": 3}
        ]}],
        "nodes": [{"mesh": 0}],
        "scenes": [{"nodes": [0]}],
        "scene": 0
    })
}

fn glb(json: &Value, bin: &[u8]) -> Vec<u8> {
    skel_gltf::pack_glb(&serde_json::to_vec(json).unwrap(), bin).unwrap()
}

fn load(bytes: &[u8]) -> Result<GltfAsset, GltfError> {
    let opts = LoadOptions {
        handedness: Handedness::RightHanded,
        decode_images: false,
    };
    load_slice(bytes, None, &opts)
}

#[test]
fn meshopt_round_trip_returns_lossless_streams_exactly_and_filtered_within_a_step() {
    let (bin, ranges) = streams();
    let asset = load(&glb(&document(&ranges, bin.len(), None), &bin)).unwrap();
    let flat: Vec<f32> = POSITIONS.iter().flatten().copied().collect();
    assert_eq!(asset.primitives[0].positions, flat, "positions bit for bit");
    // The triangle codec may rotate a triangle's corners (winding kept): compare each
    // triangle from its smallest index.
    let got = asset.primitives[0].indices.clone().unwrap();
    assert_eq!(
        rotated(&got),
        rotated(&TRIANGLES.map(u32::from)),
        "TRIANGLES indices"
    );
    assert_eq!(
        asset.primitives[1].indices.as_deref(),
        Some(&SEQUENCE[..]),
        "INDICES sequence"
    );
    let got = asset.primitives[0].normals.as_ref().unwrap();
    for (i, n) in normals().iter().enumerate() {
        for k in 0..3 {
            // 8-bit octahedral: a component is off by at most a few 1/127 steps.
            let d = (got[i * 3 + k] - n[k]).abs();
            assert!(
                d <= 3.0 / 127.0,
                "normal {i}[{k}]: got {}, want {} ",
                got[i * 3 + k],
                n[k]
            );
        }
    }
}

/// Each triangle rotated to start at its smallest index.
fn rotated(indices: &[u32]) -> Vec<[u32; 3]> {
    indices
        .chunks_exact(3)
        .map(|t| {
            let k = (0..3).min_by_key(|&k| t[k]).unwrap();
            [t[k], t[(k + 1) % 3], t[(k + 2) % 3]]
        })
        .collect()
}

/// The loaded positions and indices, or the error.
fn positions_and_indices(bytes: &[u8]) -> Result<(Vec<f32>, Vec<u32>), GltfError> {
    let asset = load(bytes)?;
    let p = &asset.primitives[0];
    Ok((p.positions.clone(), p.indices.clone().unwrap_or_default()))
}

#[test]
fn a_truncated_stream_is_an_error_naming_its_buffer_view() {
    let (bin, ranges) = streams();
    for (view, &(offset, length)) in ranges.iter().enumerate() {
        for cut in [0, 1, length / 2, length - 1] {
            let mut ranges = ranges.clone();
            ranges[view] = (offset, cut);
            let err = positions_and_indices(&glb(&document(&ranges, bin.len(), None), &bin))
                .expect_err("a truncated stream must not load");
            match &err {
                GltfError::Compressed {
                    path, extension, ..
                } => {
                    assert_eq!(path, &format!("bufferViews[{view}]"), "{err}");
                    assert_eq!(extension, "EXT_meshopt_compression");
                }
                other => panic!("view {view} cut to {cut}: {other}"),
            }
        }
    }
}

#[test]
fn parameters_the_decoder_would_assert_on_are_errors() {
    let (bin, ranges) = streams();
    let cases: [(usize, &str, Value); 6] = [
        (0, "byteStride", json!(6)),
        (0, "byteStride", json!(260)),
        (2, "count", json!(8)),
        (2, "byteStride", json!(3)),
        (1, "filter", json!("QUATERNION")),
        (2, "filter", json!("OCTAHEDRAL")),
    ];
    for (view, key, value) in cases {
        let mut doc = document(&ranges, bin.len(), None);
        doc["bufferViews"][view]["extensions"]["EXT_meshopt_compression"][key] = value.clone();
        match load(&glb(&doc, &bin)) {
            Err(GltfError::Compressed { path, .. }) => {
                assert_eq!(path, format!("bufferViews[{view}]"), "{key} = {value}");
            }
            other => panic!("{key} = {value}: {:?}", other.map(|_| ())),
        }
    }
}

#[test]
fn a_broken_stream_with_fallback_data_reads_the_fallback() {
    let (bin, ranges) = streams();
    // The fallback holds the plain data, laid out as the views say.
    let mut plain = Vec::new();
    plain.extend(POSITIONS.iter().flatten().flat_map(|v| v.to_le_bytes()));
    let oct: Vec<[i8; 4]> = meshopt::encode_filter_oct(&normals(), 8);
    plain.extend(oct.iter().flatten().map(|&b| b.to_le_bytes()[0]));
    plain.extend(TRIANGLES.iter().flat_map(|v| v.to_le_bytes()));
    plain.resize(plain.len().next_multiple_of(4), 0);
    plain.extend(SEQUENCE.iter().flat_map(|v| v.to_le_bytes()));
    let mut broken = ranges.clone();
    broken[0].1 = 3;
    let doc = document(&broken, bin.len(), Some(&plain));
    let asset = load(&glb(&doc, &bin)).unwrap();
    let flat: Vec<f32> = POSITIONS.iter().flatten().copied().collect();
    assert_eq!(asset.primitives[0].positions, flat);
    assert!(
        asset.warnings.iter().any(|w| w.path == "bufferViews[0]"),
        "the fallback is reported: {:?}",
        asset.warnings
    );
}

/// xorshift64: the same garbage on every run.
fn garbage(seed: u64, len: usize) -> Vec<u8> {
    let mut x = seed | 1;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x.to_le_bytes()[0]
        })
        .collect()
}

#[test]
fn garbage_and_bit_flipped_meshopt_streams_never_panic() {
    let (bin, ranges) = streams();
    for seed in 0..300u64 {
        let mut bytes = bin.clone();
        let (offset, length) = ranges[usize::try_from(seed % 4).unwrap()];
        if seed % 2 == 0 {
            bytes[offset..offset + length].copy_from_slice(&garbage(seed, length));
        } else {
            let g = garbage(seed, 2);
            let at = offset + usize::from(g[0]) % length;
            bytes[at] ^= 1 << (g[1] % 8);
        }
        // Garbage may decode to garbage values (meshopt has no checksum) or fail; either way
        // the loader answers.
        if let Err(e) = load(&glb(&document(&ranges, bin.len(), None), &bytes)) {
            assert!(!e.to_string().is_empty());
        }
    }
}

/// The Draco fixture with its compressed bytes replaced: every primitive's stream garbage.
#[test]
fn garbage_draco_streams_are_errors_naming_the_primitive() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../fixtures/peer/character_gltfpack_draco.glb"
    );
    let file = std::fs::read(path).unwrap();
    let json_len = usize::try_from(u32::from_le_bytes(file[12..16].try_into().unwrap())).unwrap();
    let doc: Value = serde_json::from_slice(&file[20..20 + json_len]).unwrap();
    let bin_start = 20 + json_len + 8;
    let draco_view = doc["meshes"][0]["primitives"][0]["extensions"]["KHR_draco_mesh_compression"]
        ["bufferView"]
        .as_u64()
        .unwrap();
    let view = &doc["bufferViews"][usize::try_from(draco_view).unwrap()];
    let offset = bin_start + usize::try_from(view["byteOffset"].as_u64().unwrap_or(0)).unwrap();
    let length = usize::try_from(view["byteLength"].as_u64().unwrap()).unwrap();
    for seed in 0..40u64 {
        let mut bytes = file.clone();
        let keep = usize::try_from(seed).unwrap() * length / 40;
        let tail = garbage(seed, length - keep);
        bytes[offset + keep..offset + length].copy_from_slice(&tail);
        // A stream whose garbage tail happens to decode is still a loaded asset; a failure
        // names the primitive.
        if let Err(GltfError::Compressed {
            path, extension, ..
        }) = load(&bytes)
        {
            assert_eq!(path, "meshes[0].primitives[0]");
            assert_eq!(extension, "KHR_draco_mesh_compression");
        }
    }
    // All garbage from the first byte: the header is wrong, so it must fail, by name.
    let mut bytes = file.clone();
    bytes[offset..offset + length].copy_from_slice(&garbage(7, length));
    match load(&bytes) {
        Err(GltfError::Compressed { path, .. }) => assert_eq!(path, "meshes[0].primitives[0]"),
        other => panic!("{:?}", other.map(|_| ())),
    }
}
