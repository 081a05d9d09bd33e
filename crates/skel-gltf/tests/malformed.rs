//! The malformed corpus (`fixtures/malformed/`, written by `cargo xtask fixtures`, described
//! in its README.md): every file gives its own typed error — never a panic, never an
//! allocation sized by an unchecked header field — and the one repairable file loads with
//! its weights renormalised. A file in the corpus without a row here fails the suite.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};

use skel_gltf::{GltfAsset, GltfError, LoadOptions, load_path, load_slice};

fn corpus() -> PathBuf {
    PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../fixtures/malformed"
    ))
}

/// A corpus file and the error it must produce.
struct Case {
    file: &'static str,
    expected: fn(&GltfError) -> bool,
}

/// `Invalid` at a JSON path starting with `prefix`.
fn invalid_at(e: &GltfError, prefix: &str) -> bool {
    matches!(e, GltfError::Invalid { path, .. } if path.starts_with(prefix))
}

const CASES: &[Case] = &[
    Case {
        file: "truncated.glb",
        expected: |e| matches!(e, GltfError::Glb { .. }),
    },
    Case {
        file: "truncated_header.glb",
        expected: |e| matches!(e, GltfError::Glb { .. }),
    },
    Case {
        file: "bad_magic.glb",
        expected: |e| matches!(e, GltfError::Glb { reason } if reason.contains("magic")),
    },
    Case {
        file: "bad_version.glb",
        expected: |e| matches!(e, GltfError::Glb { reason } if reason.contains("version 1")),
    },
    Case {
        file: "bad_header_length.glb",
        expected: |e| matches!(e, GltfError::Glb { reason } if reason.contains("header length")),
    },
    Case {
        file: "bad_json_chunk_length.glb",
        expected: |e| matches!(e, GltfError::Glb { reason } if reason.contains("chunk at byte 12")),
    },
    Case {
        file: "bad_bin_chunk_length.glb",
        expected: |e| matches!(e, GltfError::Glb { reason } if reason.contains("chunk")),
    },
    Case {
        file: "not_json.gltf",
        expected: |e| matches!(e, GltfError::Parse { .. }),
    },
    Case {
        file: "buffer_view_out_of_range.gltf",
        expected: |e| matches!(e, GltfError::BufferViewOutOfRange { buffer: 0, .. }),
    },
    Case {
        file: "missing_buffer.gltf",
        expected: |e| {
            matches!(
                e,
                GltfError::BadReference {
                    kind: "buffer",
                    index: 7,
                    count: 1,
                    ..
                }
            )
        },
    },
    Case {
        file: "missing_external_buffer.gltf",
        expected: |e| matches!(e, GltfError::Io { path, .. } if path.ends_with("missing_external_buffer.bin")),
    },
    Case {
        file: "huge_buffer_length.gltf",
        expected: |e| {
            matches!(
                e,
                GltfError::BufferLength {
                    buffer: 0,
                    expected: 1_000_000_000_000,
                    ..
                }
            )
        },
    },
    Case {
        file: "missing_accessor.gltf",
        expected: |e| matches!(e, GltfError::MissingAccessor { accessor: 99, .. }),
    },
    Case {
        file: "mesh_without_positions.gltf",
        expected: |e| {
            matches!(
                e,
                GltfError::NoPositions {
                    mesh: 0,
                    primitive: 0
                }
            )
        },
    },
    Case {
        file: "joints_vec3.gltf",
        expected: |e| matches!(e, GltfError::AccessorType { used_as, .. } if used_as.ends_with("JOINTS_0")),
    },
    Case {
        file: "accessor_count_mismatch.gltf",
        expected: |e| matches!(e, GltfError::AccessorCount { used_as, expected: 6, got: 4, .. } if used_as.ends_with("WEIGHTS_0")),
    },
    Case {
        file: "ibm_count_mismatch.gltf",
        expected: |e| matches!(e, GltfError::AccessorCount { used_as, expected: 3, got: 2, .. } if used_as.contains("inverseBindMatrices")),
    },
    Case {
        file: "huge_accessor_count.glb",
        expected: |e| matches!(e, GltfError::AccessorOutOfRange { needed, .. } if *needed >= 1_000_000_000),
    },
    Case {
        file: "huge_keyframe_count.gltf",
        expected: |e| matches!(e, GltfError::AccessorOutOfRange { needed, .. } if *needed >= 2_000_000_000),
    },
    Case {
        file: "huge_sparse_count.gltf",
        expected: |e| invalid_at(e, "accessors[1].sparse"),
    },
    Case {
        file: "joint_index_out_of_range.gltf",
        expected: |e| {
            matches!(
                e,
                GltfError::JointOutOfRange {
                    vertex: 2,
                    joint: 7,
                    joint_count: 3,
                    ..
                }
            )
        },
    },
    Case {
        file: "weights_nan.gltf",
        expected: |e| matches!(e, GltfError::NotFinite { used_as, element: 1, .. } if used_as.ends_with("WEIGHTS_0")),
    },
    Case {
        file: "weights_negative.gltf",
        expected: |e| invalid_at(e, "meshes[0].primitives[0].attributes.WEIGHTS_0"),
    },
    Case {
        file: "keyframes_not_increasing.gltf",
        expected: |e| matches!(e, GltfError::KeyTimesNotIncreasing { key: 2, .. }),
    },
    Case {
        file: "keyframes_nan.gltf",
        expected: |e| matches!(e, GltfError::NotFinite { used_as, element: 1, .. } if used_as.contains("input")),
    },
    Case {
        file: "cubicspline_bad_count.gltf",
        expected: |e| {
            matches!(
                e,
                GltfError::SamplerOutputCount {
                    keys: 3,
                    expected: 9,
                    got: 3,
                    ..
                }
            )
        },
    },
    Case {
        file: "node_cycle.gltf",
        expected: |e| matches!(e, GltfError::NodeCycle { node } if *node <= 2),
    },
    Case {
        file: "node_self_parent.gltf",
        expected: |e| matches!(e, GltfError::NodeCycle { node: 2 }),
    },
    Case {
        file: "node_two_parents.gltf",
        expected: |e| matches!(e, GltfError::NodeHasTwoParents { node: 2, .. }),
    },
    Case {
        file: "skin_joints_not_one_tree.gltf",
        expected: |e| matches!(e, GltfError::Invalid { path, reason } if path == "skins[0].joints[3]" && reason.contains("common root")),
    },
    Case {
        file: "skin_zero_joints.gltf",
        expected: |e| matches!(e, GltfError::Invalid { path, .. } if path == "skins[0].joints"),
    },
    Case {
        file: "skin_100k_joints.glb",
        expected: |e| matches!(e, GltfError::Invalid { path, reason } if path == "skins[0].joints[3]" && reason.contains("unique")),
    },
];

/// Files the spec lets a loader repair; each has its own test below.
const REPAIRED: &[&str] = &["weights_not_normalized.gltf"];

/// Loads `path` by path and from bytes, catching panics.
fn load_both(path: &Path) -> (Result<GltfAsset, GltfError>, Result<GltfAsset, GltfError>) {
    let opts = LoadOptions::default();
    let by_path = catch_unwind(AssertUnwindSafe(|| load_path(path, &opts)))
        .unwrap_or_else(|_| panic!("{} panicked when loaded by path", path.display()));
    let bytes = std::fs::read(path).unwrap();
    let by_bytes = catch_unwind(AssertUnwindSafe(|| load_slice(&bytes, None, &opts)))
        .unwrap_or_else(|_| panic!("{} panicked when loaded from bytes", path.display()));
    (by_path, by_bytes)
}

#[test]
fn every_corpus_file_gives_its_specific_error() {
    let mut failures = Vec::new();
    for case in CASES {
        let (by_path, by_bytes) = load_both(&corpus().join(case.file));
        match by_path {
            Ok(_) => failures.push(format!("{}: loaded without error", case.file)),
            Err(e) if !(case.expected)(&e) => {
                failures.push(format!("{}: wrong error {e:?}", case.file));
            }
            Err(e) => println!("{}: {e}", case.file),
        }
        // From bytes (no directory) the same file must fail too; only the external-buffer
        // case fails differently there (the buffer cannot be looked for).
        match (case.file, by_bytes) {
            (_, Ok(_)) => failures.push(format!("{}: loaded from bytes", case.file)),
            ("missing_external_buffer.gltf", Err(e))
                if !matches!(e, GltfError::MissingBuffer { buffer: 0, .. }) =>
            {
                failures.push(format!("{}: from bytes gave {e:?}", case.file));
            }
            ("missing_external_buffer.gltf", Err(_)) => {}
            (_, Err(e)) if !(case.expected)(&e) => {
                failures.push(format!("{}: from bytes gave {e:?}", case.file));
            }
            _ => {}
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

#[test]
fn every_file_in_the_corpus_has_an_entry() {
    let mut on_disk: Vec<String> = std::fs::read_dir(corpus())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|name| name != "README.md")
        .collect();
    on_disk.sort();
    let listed: Vec<&str> = CASES
        .iter()
        .map(|c| c.file)
        .chain(REPAIRED.iter().copied())
        .collect();
    let unlisted: Vec<&String> = on_disk
        .iter()
        .filter(|f| !listed.contains(&f.as_str()))
        .collect();
    assert!(
        unlisted.is_empty(),
        "corpus files without a test entry: {unlisted:?}"
    );
    let missing: Vec<&&str> = listed
        .iter()
        .filter(|f| !on_disk.iter().any(|d| d == *f))
        .collect();
    assert!(
        missing.is_empty(),
        "entries without a corpus file: {missing:?}"
    );
    // The README documents every file too.
    let readme = std::fs::read_to_string(corpus().join("README.md")).unwrap();
    for file in &listed {
        assert!(
            readme.contains(&format!("`{file}`")),
            "README.md does not list {file}"
        );
    }
}

#[test]
fn weights_not_summing_to_one_are_renormalised() {
    let (by_path, by_bytes) = load_both(&corpus().join("weights_not_normalized.gltf"));
    for asset in [by_path.unwrap(), by_bytes.unwrap()] {
        let inf = asset.primitives[0].influences.as_ref().unwrap();
        // The file stores (0.5, 0, 0, 0) for every vertex.
        for (v, w) in inf.weights.chunks_exact(inf.per_vertex).enumerate() {
            assert_eq!(w, [1.0, 0.0, 0.0, 0.0], "vertex {v}");
        }
    }
}

#[test]
fn huge_declared_sizes_allocate_nothing_big() {
    // Peak heap while loading, against the gigabytes the headers declare.
    const LIMIT: u64 = 8 << 20;
    for file in [
        "huge_accessor_count.glb",
        "huge_keyframe_count.gltf",
        "huge_sparse_count.gltf",
        "huge_buffer_length.gltf",
        "skin_100k_joints.glb",
    ] {
        let bytes = std::fs::read(corpus().join(file)).unwrap();
        let opts = LoadOptions::default();
        let info = allocation_counter::measure(|| {
            assert!(load_slice(&bytes, None, &opts).is_err());
        });
        println!("{file}: peak {} bytes", info.bytes_max);
        assert!(
            info.bytes_max < LIMIT,
            "{file}: peak heap {} bytes",
            info.bytes_max
        );
    }
}

#[test]
fn the_corpus_errors_name_the_place() {
    let (by_path, _) = load_both(&corpus().join("joint_index_out_of_range.gltf"));
    let message = by_path.unwrap_err().to_string();
    for part in ["accessor 3", "vertex 2", "joint 7", "3 joints"] {
        assert!(message.contains(part), "{message:?} lacks {part:?}");
    }
    let (by_path, _) = load_both(&corpus().join("skin_joints_not_one_tree.gltf"));
    let message = by_path.unwrap_err().to_string();
    assert!(
        message.contains("skins[0].joints[3]") && message.contains("node 4"),
        "{message}"
    );
}
