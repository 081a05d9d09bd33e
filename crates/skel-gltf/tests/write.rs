//! The `.glb` writer: load → write → load gives the same asset and the same poses; external
//! images are packed; a failed write leaves no file.

use skel_anim::{AnimationData, Handedness, PoseScratch, apply_clip, compute_world_matrices};
use skel_gltf::{
    GltfDocument, GltfError, ImageSlot, LoadOptions, load_document, load_slice, write_glb,
    write_glb_file,
};

fn options() -> LoadOptions {
    LoadOptions {
        handedness: Handedness::RightHanded,
        decode_images: true,
    }
}

fn poses(data: &AnimationData, clip: usize, times: &[f32]) -> Vec<glam::Mat4> {
    let mut scratch = PoseScratch::new(data).unwrap_or_else(|e| panic!("{e}"));
    let mut out = Vec::new();
    for &t in times {
        apply_clip(data, clip, t, &mut scratch);
        compute_world_matrices(data, &mut scratch);
        out.extend_from_slice(&scratch.world);
    }
    out
}

fn round_trip(test: &str, rel: &str) {
    let Some(path) = skel_test_support::shared_asset(test, rel) else {
        return;
    };
    let doc = GltfDocument::from_path(&path).unwrap_or_else(|e| panic!("{e}"));
    let before = load_document(&doc, &options()).unwrap_or_else(|e| panic!("{e}"));
    let bytes = write_glb(&doc, &before.animation.clips).unwrap_or_else(|e| panic!("{e}"));
    let after =
        load_slice(&bytes, None, &options()).unwrap_or_else(|e| panic!("{rel} written: {e}"));
    assert_eq!(after.animation.nodes, before.animation.nodes);
    assert_eq!(after.animation.skeletons, before.animation.skeletons);
    assert_eq!(
        after.animation.morph_bindings,
        before.animation.morph_bindings
    );
    assert_eq!(after.primitives, before.primitives, "{rel}: vertex streams");
    // Every image decoded from the source decodes the same from the packed file.
    assert_eq!(after.images.len(), before.images.len());
    for (i, (b, a)) in before.images.iter().zip(&after.images).enumerate() {
        if matches!(b, ImageSlot::Decoded(_)) {
            assert_eq!(a, b, "{rel}: image {i}");
        }
    }
    assert_eq!(after.animation.clips.len(), before.animation.clips.len());
    for (i, (a, b)) in before
        .animation
        .clips
        .iter()
        .zip(&after.animation.clips)
        .enumerate()
    {
        assert_eq!(a.name, b.name);
        let times = [0.0, a.duration() * 0.37, a.duration()];
        for (x, y) in
            poses(&before.animation, i, &times)
                .iter()
                .zip(poses(&after.animation, i, &times))
        {
            let scale = x.to_cols_array().iter().fold(1.0f32, |m, v| m.max(v.abs()));
            assert!(
                x.abs_diff_eq(y, 1e-5 * scale),
                "{rel} clip {}: {x} vs {y}",
                a.name
            );
        }
    }
}

#[test]
fn robot_expressive_round_trips() {
    round_trip(
        "write::robot_expressive_round_trips",
        "RobotExpressive/RobotExpressive.glb",
    );
}

/// A `.gltf` with an external buffer and external PNGs becomes one file.
#[test]
fn superhero_gltf_becomes_one_glb() {
    round_trip(
        "write::superhero_gltf_becomes_one_glb",
        "Superhero_Male_FullBody/Superhero_Male_FullBody.gltf",
    );
}

#[test]
fn morph_and_cesium_round_trip() {
    round_trip(
        "write::morph_round_trips",
        "AnimatedMorphCube/AnimatedMorphCube.glb",
    );
    round_trip("write::cesium_round_trips", "CesiumMan/CesiumMan.glb");
}

#[test]
fn a_clip_naming_a_missing_node_writes_nothing() {
    let json = br#"{"asset":{"version":"2.0"},"nodes":[{"name":"root"}],"scenes":[{"nodes":[0]}]}"#;
    let doc = GltfDocument::from_slice(json, None).unwrap_or_else(|e| panic!("{e}"));
    let s = skel_anim::Sampler::new(
        vec![0.0],
        vec![0.0, 0.0, 0.0],
        skel_anim::Interpolation::Linear,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let clip = skel_anim::Clip::new(
        "bad",
        vec![s],
        vec![skel_anim::Channel {
            sampler: 0,
            node: 5,
            path: skel_anim::ChannelPath::Translation,
        }],
    );
    let out = std::env::temp_dir().join(format!("skel-write-{}.glb", std::process::id()));
    let e = write_glb_file(&doc, &[clip], &out).unwrap_err();
    assert!(matches!(e, GltfError::BadReference { index: 5, .. }), "{e}");
    assert!(!out.exists());
    // And a good write lands whole.
    write_glb_file(&doc, &[], &out).unwrap_or_else(|e| panic!("{e}"));
    let written = std::fs::read(&out).unwrap_or_else(|e| panic!("{e}"));
    let _ = std::fs::remove_file(&out);
    let back = load_slice(&written, None, &options()).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(back.animation.nodes[0].name, "root");
}
