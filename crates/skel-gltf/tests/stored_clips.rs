//! Files whose clips are stored compressed (`write_compressed_glb`, what `skel compress --out`
//! writes), for every shared asset: the file stands alone, is smaller wherever a clip's keys
//! outweigh the format's overheads, loads with everything the source had (nodes, meshes,
//! skins, images, markers, property tracks, every clip not stored as it was), and its stored
//! clips play bit for bit as the compressing rig played them, with their morph weights and
//! property tracks as the source had them; writing it again changes nothing that plays.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

mod common;

use std::path::Path;
use std::sync::Arc;

use skel_anim::{AnimationData, Compression, KeyFormat, NullSink, Player, Rig, RigOptions};
use skel_gltf::{
    COMPRESSED_ANIMATION, GltfAsset, ImageSlot, LoadOptions, load_path, load_slice,
    write_compressed_glb,
};

/// Every world matrix's bits, clip `clip`, at 61 times over its duration.
fn bits(rig: &Arc<Rig>, clip: usize) -> Vec<u32> {
    let duration = rig.data().clips[clip].duration();
    let mut player = Player::new(rig);
    let mut out = Vec::new();
    for k in 0..=60 {
        let t = duration * k as f32 / 60.0;
        player
            .evaluate_clip_at(Some(clip), t, &mut NullSink)
            .unwrap();
        out.extend(
            player
                .world_matrices()
                .iter()
                .flat_map(|m| m.to_cols_array().map(f32::to_bits)),
        );
    }
    out
}

/// Bytes of `path` and the files it names beside it.
fn source_bytes(path: &Path) -> usize {
    let doc = skel_gltf::GltfDocument::from_path(path).unwrap();
    let beside = doc
        .json()
        .buffers
        .iter()
        .filter_map(|b| b.uri.clone())
        .chain(doc.json().images.iter().filter_map(|i| i.uri.clone()))
        .filter(|u| !u.starts_with("data:"))
        .map(|u| std::fs::metadata(path.with_file_name(u)).map_or(0, |m| m.len()))
        .sum::<u64>();
    (std::fs::metadata(path).unwrap().len() + beside) as usize
}

/// Everything but the clips' samplers is as the source had it.
fn assert_same_asset(name: &str, want: &GltfAsset, got: &GltfAsset) {
    assert_eq!(got.nodes, want.nodes, "{name}: nodes");
    assert_eq!(got.skins, want.skins, "{name}: skins");
    assert_eq!(got.meshes, want.meshes, "{name}: meshes");
    assert_eq!(got.primitives, want.primitives, "{name}: primitives");
    // An image the source could not read (a file missing beside it) stays unreadable.
    assert_eq!(got.images.len(), want.images.len(), "{name}: images");
    for (a, b) in want.images.iter().zip(&got.images) {
        match a {
            ImageSlot::Failed { .. } => assert!(matches!(b, ImageSlot::Failed { .. }), "{name}"),
            _ => assert_eq!(b, a, "{name}: image"),
        }
    }
    assert_eq!(got.morph_names, want.morph_names, "{name}: morph names");
    assert_eq!(got.properties, want.properties, "{name}: property targets");
    let (a, b) = (&want.animation, &got.animation);
    assert_eq!(b.nodes, a.nodes, "{name}: rest poses");
    assert_eq!(b.skeletons, a.skeletons, "{name}: skeletons");
    assert_eq!(b.morph_bindings, a.morph_bindings, "{name}: morph bindings");
    assert_eq!(b.clips.len(), a.clips.len(), "{name}: clips");
    for (x, y) in a.clips.iter().zip(&b.clips) {
        assert_eq!(
            (&y.name, &y.channels, &y.markers, &y.properties),
            (&x.name, &x.channels, &x.markers, &x.properties),
            "{name}: clip {:?}",
            x.name
        );
        let times = |c: &skel_anim::Clip| {
            c.samplers
                .iter()
                .map(|s| s.input().to_vec())
                .collect::<Vec<_>>()
        };
        assert_eq!(times(y), times(x), "{name}: key times of {:?}", x.name);
        if y.stored_keys.is_none() {
            assert_eq!(
                y.samplers, x.samplers,
                "{name}: clip {:?} stays lossless",
                x.name
            );
        }
        // What stored keys do not hold plays from the file as before: morph weights and
        // property tracks.
        let unstored = x
            .channels
            .iter()
            .filter(|c| c.path == skel_anim::ChannelPath::Weights)
            .map(|c| c.sampler)
            .chain(x.properties.iter().map(|p| p.sampler));
        for s in unstored {
            assert_eq!(
                y.samplers[s], x.samplers[s],
                "{name}: clip {:?} sampler {s} (weights or a property)",
                x.name
            );
        }
    }
}

fn compressed_rig(data: &AnimationData) -> Arc<Rig> {
    let options = RigOptions {
        compression: Some(Compression {
            keys: KeyFormat::Variable,
            ..Compression::default()
        }),
        ..RigOptions::default()
    };
    Rig::with_options(Arc::new(data.clone()), &options).unwrap()
}

/// Writes `path` with every clip `compressed_rig` compresses stored, loads it back and checks
/// it (smaller than the source where `f32_keys`: the source stores f32 keys); the number of
/// clips stored.
fn check_file(path: &Path, f32_keys: bool) -> usize {
    let opts = LoadOptions::default();
    let name = path.file_stem().unwrap().to_string_lossy().into_owned();
    let source = load_path(path, &opts).unwrap();
    let rig = compressed_rig(&source.animation);
    let stored: Vec<_> = (0..source.animation.clips.len())
        .map(|c| rig.stored_keys(c).unwrap())
        .collect();
    let bytes = std::fs::read(path).unwrap();
    let written = write_compressed_glb(&bytes, path.parent(), &stored).unwrap();
    // No base directory: the file stands alone.
    let loaded = load_slice(&written, None, &opts)
        .unwrap_or_else(|e| panic!("{name}: the written file does not load: {e}"));
    assert_same_asset(&name, &source, &loaded);
    let again = Rig::new(Arc::new(loaded.animation.clone())).unwrap();
    let (mut raw, mut count) = (0, 0);
    for (clip, keys) in stored.iter().enumerate() {
        assert_eq!(
            loaded.animation.clips[clip].stored_keys.as_ref(),
            keys.as_ref(),
            "{name} {clip}"
        );
        if keys.is_some() {
            assert_eq!(bits(&again, clip), bits(&rig, clip), "{name}: clip {clip}");
            let (a, b) = (
                rig.clip_compression(clip).unwrap(),
                again.clip_compression(clip).unwrap(),
            );
            assert_eq!(
                b.max_error.to_bits(),
                a.max_error.to_bits(),
                "{name}: clip {clip}"
            );
            raw += a.raw_bytes;
            count += 1;
        }
    }
    let text = String::from_utf8_lossy(&written);
    assert_eq!(text.contains(COMPRESSED_ANIMATION), count > 0, "{name}");
    // Where the keys outweigh a file's few hundred bytes of overheads, the file shrinks.
    if f32_keys && raw > 8192 {
        assert!(
            written.len() < source_bytes(path),
            "{name}: {} bytes written from {}",
            written.len(),
            source_bytes(path)
        );
    }
    // Written again from the written file: the same clips play the same.
    let restored: Vec<_> = (0..stored.len())
        .map(|c| again.stored_keys(c).unwrap())
        .collect();
    assert_eq!(restored, stored, "{name}");
    let twice = write_compressed_glb(&written, None, &restored).unwrap();
    let reloaded = load_slice(&twice, None, &opts).unwrap();
    assert_same_asset(&name, &loaded, &reloaded);
    // Only alignment padding may differ.
    assert!(
        twice.len() <= written.len() + 64,
        "{name}: {} then {} bytes",
        written.len(),
        twice.len()
    );
    count
}

#[test]
fn stored_clips_of_every_shared_asset_load_whole_and_play_as_compressed() {
    let Some(shared) =
        common::shared_dir("stored_clips_of_every_shared_asset_load_whole_and_play_as_compressed")
    else {
        return;
    };
    let stored: usize = common::asset_files(&shared.join("assets"))
        .iter()
        .map(|p| check_file(p, true))
        .sum();
    // CesiumMan, Fox's 3, RobotExpressive's 14, RiggedFigure, RiggedSimple, SimpleSkin, …
    assert!(stored >= 20, "{stored} clips stored");
}

/// The repository's fixtures: meshopt and Draco from gltfpack, pointer channels, sparse and
/// quantised accessors, external buffers.
#[test]
fn stored_clips_of_the_fixtures_keep_every_extension() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures");
    let mut files: Vec<_> = [root.clone(), root.join("peer")]
        .iter()
        .flat_map(|d| std::fs::read_dir(d).unwrap().map(|e| e.unwrap().path()))
        .filter(|p| p.extension().is_some_and(|x| x == "glb" || x == "gltf"))
        .collect();
    files.sort();
    // gltfpack's keys are already quantised and resampled: no size is promised against them.
    let stored: usize = files.iter().map(|p| check_file(p, false)).sum();
    assert!(stored >= 5, "{stored} clips stored");
}

/// Malformed sources are errors, never panics: every malformed fixture, and a file whose
/// view names a buffer it does not have.
#[test]
fn malformed_sources_are_errors_not_panics() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/malformed");
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let bytes = std::fs::read(&path).unwrap();
        let _ = write_compressed_glb(&bytes, Some(&dir), &[]);
    }
    for (name, what) in [
        ("missing_external_buffer.gltf", "buffer"),
        ("buffer_view_out_of_range.gltf", "buffer view"),
        ("bad_magic.glb", ""),
    ] {
        let bytes = std::fs::read(dir.join(name)).unwrap();
        let e = write_compressed_glb(&bytes, Some(&dir), &[]).unwrap_err();
        assert!(e.to_string().contains(what), "{name}: {e}");
    }
    let json = br#"{"asset": {"version": "2.0"}, "buffers": [{"byteLength": 4, "uri": "data:application/octet-stream;base64,AAAAAA=="}],
        "bufferViews": [{"buffer": 3, "byteLength": 4}], "accessors": [{"bufferView": 0, "count": 1, "type": "SCALAR", "componentType": 5126}]}"#;
    let e = write_compressed_glb(json, None, &[]).unwrap_err();
    assert!(e.to_string().contains("buffer"), "{e}");
}

/// The fuzzer's finds (`fixtures/fuzz-regressions/stored_keys/`): stored keys whose
/// rotations decode to quaternions of length ~10³⁵, and stored keys that give a lane the clip
/// does not key a value of its own (its samplers have none, so the clip would play two
/// things), are refused, not played, and leave the data as it was.
#[test]
fn stored_keys_that_play_other_than_their_samplers_are_refused() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures");
    let source = load_path(&root.join("default_character.glb"), &LoadOptions::default()).unwrap();
    // The first is refused before its rotations are read (its corruption reaches an
    // untracked lane too); `compile/stored/tests.rs` has a rotation far from unit alone.
    for (file, why) in [
        ("rotation_far_from_unit.bin", "stored compressed keys"),
        ("untracked_lane_value.bin", "does not key"),
    ] {
        let bytes = std::fs::read(root.join("fuzz-regressions/stored_keys").join(file)).unwrap();
        let mut data = source.animation.clone();
        let e = data
            .attach_stored_keys(0, skel_anim::StoredKeys::from_bytes(bytes))
            .unwrap_err();
        assert!(e.to_string().contains(why), "{file}: {e}");
        assert_eq!(data, source.animation, "{file}: nothing attached");
    }
}

/// The JSON chunk of a GLB.
fn glb_json(glb: &[u8]) -> serde_json::Value {
    let len = u32::from_le_bytes(glb[12..16].try_into().unwrap()) as usize;
    serde_json::from_slice(&glb[20..20 + len]).unwrap()
}

/// How many times `name` is in the string array `list` of `root`.
fn count(root: &serde_json::Value, list: &str, name: &str) -> usize {
    root[list]
        .as_array()
        .map_or(0, |a| a.iter().filter(|n| *n == name).count())
}

/// The written file declares the extension once in `extensionsUsed` and
/// `extensionsRequired` beside what the source declared, also when written again from
/// itself; an animation's own other extensions stay; and `write_compressed_glb_file` writes
/// what `write_compressed_glb` returns.
#[test]
fn the_extension_is_declared_once_and_other_extensions_stay() {
    use base64::Engine;
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/default_character.glb");
    let glb = std::fs::read(&path).unwrap();
    let source = load_path(&path, &LoadOptions::default()).unwrap();
    let rig = compressed_rig(&source.animation);
    let stored: Vec<_> = (0..source.animation.clips.len())
        .map(|c| rig.stored_keys(c).unwrap())
        .collect();
    assert!(stored.iter().any(Option::is_some), "nothing stored");
    // The same file as .gltf with an extension of its own on every animation and declared.
    let mut json = glb_json(&glb);
    let json_len = u32::from_le_bytes(glb[12..16].try_into().unwrap()) as usize;
    let bin_at = 20 + json_len;
    let bin_len = u32::from_le_bytes(glb[bin_at..bin_at + 4].try_into().unwrap()) as usize;
    let bin = &glb[bin_at + 8..bin_at + 8 + bin_len];
    json["buffers"][0]["uri"] = format!(
        "data:application/octet-stream;base64,{}",
        base64::engine::general_purpose::STANDARD.encode(bin)
    )
    .into();
    json["extensionsUsed"] = serde_json::json!(["EXT_skel_test"]);
    for anim in json["animations"].as_array_mut().unwrap() {
        anim["extensions"] = serde_json::json!({"EXT_skel_test": {"kept": true}});
    }
    let text = serde_json::to_vec(&json).unwrap();
    let written = write_compressed_glb(&text, None, &stored).unwrap();
    let again = write_compressed_glb(&written, None, &stored).unwrap();
    for (what, file) in [("written", &written), ("written again", &again)] {
        let root = glb_json(file);
        assert_eq!(
            count(&root, "extensionsUsed", COMPRESSED_ANIMATION),
            1,
            "{what}"
        );
        assert_eq!(
            count(&root, "extensionsRequired", COMPRESSED_ANIMATION),
            1,
            "{what}"
        );
        assert_eq!(count(&root, "extensionsUsed", "EXT_skel_test"), 1, "{what}");
        for (ai, keys) in stored.iter().enumerate() {
            let exts = &root["animations"][ai]["extensions"];
            assert_eq!(
                exts["EXT_skel_test"],
                serde_json::json!({"kept": true}),
                "{what} {ai}"
            );
            assert_eq!(
                exts.get(COMPRESSED_ANIMATION).is_some(),
                keys.is_some(),
                "{what} {ai}"
            );
        }
    }
    let out = skel_test_support::TempFile::new("stored.glb", "");
    skel_gltf::write_compressed_glb_file(&path, &stored, &out).unwrap();
    assert_eq!(
        std::fs::read(&*out).unwrap(),
        write_compressed_glb(&glb, path.parent(), &stored).unwrap()
    );
}

/// A GLB of `json` and `bin` (each padded to 4 bytes).
fn glb_of(json: &serde_json::Value, bin: &[u8]) -> Vec<u8> {
    skel_gltf::pack_glb(&serde_json::to_vec(json).unwrap(), bin).unwrap()
}

/// Meshopt fallback buffers (no data of their own) keep their entries after the BIN buffer,
/// each view still naming its own: gltfpack `-cc`'s character with its one fallback buffer
/// split in two (the second named, every other view moved onto it).
#[test]
fn each_meshopt_fallback_buffer_keeps_its_views() {
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/peer/character_gltfpack_cc.glb");
    let glb = std::fs::read(&path).unwrap();
    let mut json = glb_json(&glb);
    let json_len = u32::from_le_bytes(glb[12..16].try_into().unwrap()) as usize;
    let bin_at = 20 + json_len;
    let bin_len = u32::from_le_bytes(glb[bin_at..bin_at + 4].try_into().unwrap()) as usize;
    let bin = &glb[bin_at + 8..bin_at + 8 + bin_len];
    let fallback = json["buffers"][1].clone();
    assert_eq!(
        fallback["extensions"]["EXT_meshopt_compression"]["fallback"],
        true
    );
    let mut second = fallback;
    second["name"] = "second fallback".into();
    json["buffers"].as_array_mut().unwrap().push(second);
    let mut moved = 0;
    for (i, view) in json["bufferViews"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .enumerate()
    {
        if view["buffer"] == 1 && i % 2 == 1 {
            view["buffer"] = 2.into();
            moved += 1;
        }
    }
    assert!(moved > 0);
    let source_bytes = glb_of(&json, bin);
    let source = load_slice(&source_bytes, None, &LoadOptions::default()).unwrap();
    let rig = compressed_rig(&source.animation);
    let stored: Vec<_> = (0..source.animation.clips.len())
        .map(|c| rig.stored_keys(c).unwrap())
        .collect();
    let written = write_compressed_glb(&source_bytes, None, &stored).unwrap();
    let root = glb_json(&written);
    let buffers = root["buffers"].as_array().unwrap();
    let is_fallback =
        |b: &serde_json::Value| b["extensions"]["EXT_meshopt_compression"]["fallback"] == true;
    let mut on_second = 0;
    for view in root["bufferViews"].as_array().unwrap() {
        if view.get("extensions").is_none() {
            continue;
        }
        let b = &buffers[view["buffer"].as_u64().unwrap() as usize];
        assert!(is_fallback(b), "a meshopt view on {b}");
        on_second += usize::from(b["name"] == "second fallback");
    }
    assert!(on_second > 0, "no view kept the second fallback buffer");
    let loaded = load_slice(&written, None, &LoadOptions::default()).unwrap();
    assert_eq!(loaded.primitives, source.primitives);
}
