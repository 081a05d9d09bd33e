//! RobotExpressive's "Yes" on a copy of itself whose Head mesh lists its targets as Sad,
//! Angry, Other (the file's order is Angry, Surprised, Sad): each target takes the weights of
//! the source target of its name, Other keeps its default, and the `.glb` written with the
//! result loads back with the same weights. The file's face weights are all zero, so the
//! source's are replaced by distinct values on the same key times first.

use skel_anim::{ChannelPath, Sampler};
use skel_gltf::{GltfAsset, GltfDocument, LoadOptions, load_document, load_path, write_glb};
use skel_retarget::{MorphTargetNames, NodeMap, RetargetOptions, retarget, with_clips};

/// `glb` with its JSON chunk edited by `edit` (the BIN chunk kept as it is).
fn edit_glb(glb: &[u8], edit: impl FnOnce(&mut serde_json::Value)) -> Vec<u8> {
    let word = |at: usize| u32::from_le_bytes([glb[at], glb[at + 1], glb[at + 2], glb[at + 3]]);
    let json_len = word(12) as usize;
    let mut json: serde_json::Value =
        serde_json::from_slice(&glb[20..20 + json_len]).unwrap_or_else(|e| panic!("{e}"));
    edit(&mut json);
    let mut text = serde_json::to_vec(&json).unwrap_or_else(|e| panic!("{e}"));
    while !text.len().is_multiple_of(4) {
        text.push(b' ');
    }
    let bin = &glb[20 + json_len..];
    let total = 12 + 8 + text.len() + bin.len();
    let mut out = Vec::with_capacity(total);
    out.extend_from_slice(&glb[..8]);
    out.extend_from_slice(&u32::try_from(total).unwrap_or(u32::MAX).to_le_bytes());
    out.extend_from_slice(&u32::try_from(text.len()).unwrap_or(u32::MAX).to_le_bytes());
    out.extend_from_slice(&glb[16..20]);
    out.extend_from_slice(&text);
    out.extend_from_slice(bin);
    out
}

fn head(asset: &GltfAsset) -> (usize, usize) {
    let data = &asset.animation;
    let b = data
        .morph_bindings
        .iter()
        .position(|m| data.nodes[m.node].name == "Head")
        .unwrap_or_else(|| panic!("no Head mesh"));
    (b, data.morph_bindings[b].node)
}

/// The "Yes" clip's weights sampler on the Head node.
fn yes_weights(asset: &mut GltfAsset) -> &mut Sampler {
    let node = head(asset).1;
    let data = &mut asset.animation;
    let yes = data.clip_index("Yes").unwrap_or_else(|| panic!("no Yes"));
    let clip = &mut data.clips[yes];
    let ch = clip
        .channels
        .iter()
        .find(|c| c.path == ChannelPath::Weights && c.node == node)
        .map(|c| c.sampler)
        .unwrap_or_else(|| panic!("no weights channel on Head"));
    &mut clip.samplers[ch]
}

#[test]
fn robot_face_weights_land_on_targets_of_the_same_name() {
    let test = "robot_face_weights_land_on_targets_of_the_same_name";
    let Some(path) = skel_test_support::shared_asset(test, "RobotExpressive/RobotExpressive.glb")
    else {
        return;
    };
    let opts = LoadOptions {
        decode_images: false,
        ..LoadOptions::default()
    };
    let mut source = load_path(&path, &opts).unwrap_or_else(|e| panic!("{e}"));
    let weights = yes_weights(&mut source);
    let times = weights.input().to_vec();
    let distinct = (0..times.len() * 3).map(|i| i as f32 / 1000.0).collect();
    *weights =
        Sampler::new(times, distinct, weights.interpolation()).unwrap_or_else(|e| panic!("{e}"));
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{e}"));
    let edited = edit_glb(&bytes, |json| {
        for mesh in json["meshes"].as_array_mut().into_iter().flatten() {
            if mesh["name"] == "Head" {
                mesh["extras"]["targetNames"] = serde_json::json!(["Sad", "Angry", "Other"]);
                mesh["weights"] = serde_json::json!([0.0, 0.0, 0.75]);
            }
        }
    });
    let doc = GltfDocument::from_slice(&edited, None).unwrap_or_else(|e| panic!("{e}"));
    let target = load_document(&doc, &opts).unwrap_or_else(|e| panic!("{e}"));
    let names = |a: &GltfAsset| a.morph_names.iter().map(|m| m.targets.clone()).collect();
    let options = RetargetOptions {
        fix_root_position: false,
        clips: Some(vec!["Yes".into()]),
        morph_names: Some(MorphTargetNames {
            source: names(&source),
            target: names(&target),
        }),
        ..RetargetOptions::default()
    };
    let (s, t) = (&source.animation, &target.animation);
    let map = NodeMap::same_names(s, t);
    let baked = retarget(s, t, &map, &options).unwrap_or_else(|e| panic!("{e}"));

    // Per key (the source's order Angry, Surprised, Sad): Sad, Angry, Other's default.
    let from = yes_weights(&mut source).output().to_vec();
    let expected: Vec<f32> = from
        .chunks_exact(3)
        .flat_map(|k| [k[2], k[0], 0.75])
        .collect();
    let all = with_clips(t, baked);
    let mut retargeted = target.clone();
    retargeted.animation = all.clone();
    assert_eq!(yes_weights(&mut retargeted).output(), expected);

    // Written and loaded back: the same weights on the same named targets.
    let glb = write_glb(&doc, &all.clips).unwrap_or_else(|e| panic!("{e}"));
    let mut back = skel_gltf::load_slice(&glb, None, &opts).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(yes_weights(&mut back).output(), expected);
    assert_eq!(
        back.morph_names[head(&back).0],
        target.morph_names[head(&target).0]
    );
}
