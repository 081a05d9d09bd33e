//! Checks of the harness itself: every fixture runs clean through the loader pipeline, the
//! rigs build, and a known call sequence is decoded and checked.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use std::path::Path;

use skel_fuzz::api::{BlendOp, ControllerOp, FadeOp, Op, Step, World};
use skel_fuzz::num::{Index, Num};

/// Every file under `fixtures/` (valid and malformed) is a seed of `load_gltf`: each must run
/// clean, or the fuzzer would stop on its first input.
#[test]
fn every_fixture_runs_clean_through_the_loader_pipeline() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures");
    let mut stack = vec![root];
    let mut count = 0;
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else {
                skel_fuzz::exercise_asset(&std::fs::read(&path).unwrap());
                count += 1;
            }
        }
    }
    assert!(count > 10, "only {count} fixtures found");
}

#[test]
fn both_rigs_build() {
    let world = World::new();
    assert_eq!(world.rigs.len(), 2, "the fixture rig did not load");
}

/// The first crash the `controller_api` harness found (two layers at ~f32::MAX blended into
/// NaN bone matrices); the harness must run it clean now that weights are capped.
#[test]
fn huge_blend_weights_keep_the_pose_finite() {
    let steps = [
        Step {
            rig: 0,
            op: Op::Blend(BlendOp::AddLayer(Index(0), Num(3.0e38))),
        },
        Step {
            rig: 0,
            op: Op::Blend(BlendOp::AddLayer(Index(0), Num(f32::MAX))),
        },
        Step {
            rig: 0,
            op: Op::Blend(BlendOp::Tick(Num(16.0))),
        },
        Step {
            rig: 1,
            op: Op::Fade(FadeOp::Play(Index(0))),
        },
        Step {
            rig: 1,
            op: Op::Fade(FadeOp::FadeTo(Index(1), Num(0.5))),
        },
        Step {
            rig: 1,
            op: Op::Fade(FadeOp::Tick(Num(100.0))),
        },
        Step {
            rig: 1,
            op: Op::Controller(ControllerOp::SetClip(Some(Index(1)))),
        },
        Step {
            rig: 1,
            op: Op::Controller(ControllerOp::Tick(Num(f32::NAN))),
        },
    ];
    World::new().run(&steps);
}

/// The harness's own checks fire: a clip index past the end must come back as `NoSuchClip`, and
/// the harness asserts that it does (this sequence exercises the error path and must pass).
#[test]
fn out_of_range_calls_are_checked_for_their_error_kind() {
    let steps = [
        Step {
            rig: 0,
            op: Op::Controller(ControllerOp::SetClip(Some(Index(4)))),
        },
        Step {
            rig: 0,
            op: Op::Controller(ControllerOp::SetClip(Some(Index(255)))),
        },
        Step {
            rig: 0,
            op: Op::Blend(BlendOp::RemoveLayer(Index(0))),
        },
        Step {
            rig: 0,
            op: Op::Blend(BlendOp::SetWeight(Index(255), Num(1.0))),
        },
        Step {
            rig: 0,
            op: Op::Fade(FadeOp::FadeTo(Index(255), Num(1.0))),
        },
        Step {
            rig: 0,
            op: Op::TickAll(Num(16.0), 1),
        },
    ];
    World::new().run(&steps);
}

/// A finite world position far out, under a parent scaled down, must not be stored as an
/// infinite local translation.
#[test]
fn a_far_world_pose_under_a_shrunk_parent_stays_finite() {
    use skel_fuzz::api::BoneOp;
    let steps = [
        Step {
            rig: 0,
            op: Op::Bone(
                Index(0),
                Index(0),
                BoneOp::Scaling([Num(0.25), Num(0.25), Num(0.25)]),
            ),
        },
        Step {
            rig: 0,
            op: Op::Bone(
                Index(0),
                Index(1),
                BoneOp::WorldPoseDeferred(
                    [Num(3.0e38), Num(0.0), Num(0.0)],
                    [Num(0.0), Num(0.0), Num(0.0), Num(1.0)],
                ),
            ),
        },
        Step {
            rig: 0,
            op: Op::Bone(Index(0), Index(1), BoneOp::Read),
        },
    ];
    World::new().run(&steps);
}

/// Every seed of `graph_json` compiles against the harness's rig and plays clean (a seed that
/// did not compile would only exercise the reader).
#[test]
fn every_graph_seed_compiles_and_plays_clean() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("seeds/graph_json");
    let rig = skel_fuzz::graph::rig().unwrap();
    let mut count = 0;
    for entry in std::fs::read_dir(&dir).unwrap().flatten() {
        let text = std::fs::read_to_string(entry.path()).unwrap();
        if let Err(e) = skel_graph::Graph::from_json(&text, &rig) {
            panic!("{}: {e}", entry.path().display());
        }
        skel_fuzz::graph::run_bytes(text.as_bytes());
        count += 1;
    }
    assert!(count >= 2, "only {count} seeds");
    // Text that is not a graph is refused without a panic.
    skel_fuzz::graph::run_bytes(b"{\"layers\": [{\"name\": 1}]}");
    skel_fuzz::graph::run_bytes(&[0xff, 0x00, b'{']);
}

/// The `pointer` target's file is valid glTF: a known pointer becomes a property track, an
/// unknown one a warning, and neither is a load error (else the fuzzer would only ever reach
/// the JSON parser).
#[test]
fn pointer_inputs_reach_the_channel_reader() {
    let opts = skel_gltf::LoadOptions::default();
    let file =
        skel_fuzz::extensions::pointer_file("/materials/0/pbrMetallicRoughness/baseColorFactor");
    let asset = skel_gltf::load_slice(file.as_bytes(), None, &opts).unwrap();
    assert_eq!(asset.properties.len(), 1);
    assert_eq!(asset.animation.clips[0].properties.len(), 2);
    let file = skel_fuzz::extensions::pointer_file("/nodes/~9/\u{0}\"\\");
    let asset = skel_gltf::load_slice(file.as_bytes(), None, &opts).unwrap();
    assert!(asset.properties.is_empty());
    assert_eq!(asset.warnings.len(), 2, "{:?}", asset.warnings);
    skel_fuzz::extensions::pointer_bytes(b"/cameras/0/perspective/yfov");
}

/// The `meshopt` target's file decodes a real stream: three positions encoded by
/// meshoptimizer come back exactly, and the same stream cut short is an error, not a panic.
#[test]
fn meshopt_inputs_reach_the_decoder() {
    use skel_fuzz::extensions::{MeshoptHeader, meshopt_file};
    let positions: [[f32; 3]; 3] = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.5]];
    let stream = meshopt::encode_vertex_buffer(&positions).unwrap();
    let header = MeshoptHeader {
        mode: "ATTRIBUTES",
        filter: "NONE",
        stride: 12,
        count: 3,
    };
    let opts = skel_gltf::LoadOptions::with_handedness(skel_anim::Handedness::RightHanded);
    let asset = skel_gltf::load_slice(&meshopt_file(header, &stream), None, &opts).unwrap();
    let got: Vec<f32> = asset.primitives[0].positions.clone();
    assert_eq!(got, positions.concat());
    assert!(
        skel_gltf::load_slice(
            &meshopt_file(header, &stream[..stream.len() / 2]),
            None,
            &opts
        )
        .is_err()
    );
    // The header bytes read back as the header (mode 0, filter 0, stride code 2 → 12, count 2 → 3).
    assert_eq!(
        MeshoptHeader::read(&MeshoptHeader::bytes(0, 0, 2, 2)),
        Some(header)
    );
    let mut input = MeshoptHeader::bytes(0, 0, 2, 2).to_vec();
    input.extend(&stream);
    skel_fuzz::extensions::meshopt_bytes(&input);
}

#[test]
fn vrm_inputs_reach_the_extension_readers_and_the_springs() {
    // The fixture as it is (its own springBone JSON) rebuilds into a file that loads and
    // springs; a wrong type comes back as the loader's typed error.
    let glb = skel_fuzz::vrm::vrm_file(0, br#"{"specVersion":"1.0","springs":[]}"#).unwrap();
    let asset = skel_gltf::load_slice(&glb, None, &skel_gltf::LoadOptions::default()).unwrap();
    assert!(asset.vrm().unwrap().spring_bones.is_some());
    let bad = skel_fuzz::vrm::vrm_file(
        0,
        br#"{"specVersion":"1.0","springs":[{"joints":[{"node":-3}]}]}"#,
    )
    .unwrap();
    let err = skel_gltf::load_slice(&bad, None, &skel_gltf::LoadOptions::default()).unwrap_err();
    assert!(
        err.to_string().contains("springs[0].joints[0].node"),
        "{err}"
    );
    for choice in 0..6 {
        for text in [&b"{}"[..], b"[1,2", b"null", b"{\"specVersion\":\"1.0\"}"] {
            skel_fuzz::vrm::vrm_bytes(&[&[choice][..], text].concat());
        }
    }
}
