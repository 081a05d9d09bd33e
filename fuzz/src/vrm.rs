//! The `vrm` target: arbitrary text as one VRM extension of a real avatar. The first byte
//! picks the file (`fixtures/vrm/v1_everything.vrm` or `v0_branching.vrm`) and the extension
//! it replaces (`VRMC_springBone`, `VRMC_vrm`, a node's `VRMC_node_constraint`, or VRM 0.x's
//! `VRM`); the rest is that extension's JSON (a string when it is not JSON). What the loader
//! accepts goes on through the whole loader pipeline ([`exercise_asset`](crate::exercise_asset))
//! and through the spring bones and node constraints: made, started and stepped, at 1/60 s and
//! 1 s, under a moving root. Nothing may panic; a bad extension is a typed error.

use serde_json::Value;
use skel_anim::constraint::NodeConstraints;
use skel_anim::glam::{Affine3A, Vec3};
use skel_anim::spring::{SpringBones, SpringOptions};
use skel_gltf::{LoadOptions, load_slice};

const V1: &[u8] = include_bytes!("../../fixtures/vrm/v1_everything.vrm");
const V0: &[u8] = include_bytes!("../../fixtures/vrm/v0_branching.vrm");

/// Loads the avatar with the extension the input gives, then springs and constrains it.
pub fn vrm_bytes(data: &[u8]) {
    let Some((&choice, rest)) = data.split_first() else {
        return;
    };
    let Some(file) = vrm_file(choice, rest) else {
        return;
    };
    crate::exercise_asset(&file);
    let Ok(asset) = load_slice(&file, None, &LoadOptions::default()) else {
        return;
    };
    let Some(vrm) = asset.vrm() else {
        return;
    };
    let nodes = &asset.animation.nodes;
    if let Some(springs) = &vrm.spring_bones {
        if let Ok(bones) = SpringBones::new(&springs.desc, nodes, SpringOptions::default()) {
            let mut state = bones.new_state();
            let rest = bones.rest_trs();
            let mut pose = rest.clone();
            for k in 0..20_u8 {
                let root = Affine3A::from_translation(Vec3::new(f32::from(k) * 0.3, 0.0, 0.0));
                let dt = if k % 5 == 4 { 1.0 } else { 1.0 / 60.0 };
                pose.copy_from_slice(&rest);
                bones.step(&mut state, &mut pose, root, dt);
            }
        }
    }
    if let Ok(constraints) = NodeConstraints::new(&vrm.constraints, nodes) {
        let mut pose = vec![0.0; nodes.len() * skel_anim::TRS_STRIDE];
        constraints.apply(&mut pose, Affine3A::IDENTITY);
    }
}

/// The avatar chosen by `choice` with the extension it names replaced by `text`'s JSON, as a
/// GLB (`None` when the file cannot be rebuilt).
#[must_use]
pub fn vrm_file(choice: u8, text: &[u8]) -> Option<Vec<u8>> {
    let v0 = choice % 2 == 1;
    let glb = if v0 { V0 } else { V1 };
    let json_len = u32::from_le_bytes(glb.get(12..16)?.try_into().ok()?) as usize;
    let mut json: Value = serde_json::from_slice(glb.get(20..20 + json_len)?).ok()?;
    let value = serde_json::from_slice(text)
        .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(text).into_owned()));
    match (v0, (choice / 2) % 3) {
        (true, _) => json["extensions"]["VRM"] = value,
        (false, 0) => json["extensions"]["VRMC_springBone"] = value,
        (false, 1) => json["extensions"]["VRMC_vrm"] = value,
        (false, _) => {
            let nodes = json["nodes"].as_array_mut()?;
            let at = usize::from(choice) % nodes.len().max(1);
            nodes.get_mut(at)?["extensions"]["VRMC_node_constraint"] = value;
        }
    }
    let mut chunk = serde_json::to_vec(&json).ok()?;
    while chunk.len() % 4 != 0 {
        chunk.push(b' ');
    }
    let bin = glb.get(20 + json_len..)?;
    let total = 12 + 8 + chunk.len() + bin.len();
    let mut out = Vec::with_capacity(total);
    out.extend_from_slice(b"glTF");
    out.extend_from_slice(&2_u32.to_le_bytes());
    out.extend_from_slice(&u32::try_from(total).ok()?.to_le_bytes());
    out.extend_from_slice(&u32::try_from(chunk.len()).ok()?.to_le_bytes());
    out.extend_from_slice(b"JSON");
    out.extend_from_slice(&chunk);
    out.extend_from_slice(bin);
    Some(out)
}
