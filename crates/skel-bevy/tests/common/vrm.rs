//! VRM fixtures edited for the tests (a clip added, a spring broken) and written where bevy's
//! glTF loader reads them.

use std::sync::atomic::{AtomicUsize, Ordering};

use bevy::prelude::*;
use serde_json::{Value, json};

/// A GLB's JSON and binary chunks.
pub fn split_glb(bytes: &[u8]) -> (Value, Vec<u8>) {
    let json_len = u32::from_le_bytes(bytes[12..16].try_into().unwrap()) as usize;
    let json = serde_json::from_slice(&bytes[20..20 + json_len]).unwrap();
    let bin_at = 20 + json_len;
    let bin = bytes
        .get(bin_at + 8..)
        .map(<[u8]>::to_vec)
        .unwrap_or_default();
    (json, bin)
}

/// A GLB of `json` and `bin` (the one buffer's length set to the binary chunk's).
pub fn join_glb(mut json: Value, mut bin: Vec<u8>) -> Vec<u8> {
    while !bin.len().is_multiple_of(4) {
        bin.push(0);
    }
    json["buffers"] = json!([{ "byteLength": bin.len() }]);
    let mut text = serde_json::to_vec(&json).unwrap();
    while !text.len().is_multiple_of(4) {
        text.push(b' ');
    }
    let total = 12 + 8 + text.len() + 8 + bin.len();
    let mut out = Vec::with_capacity(total);
    out.extend(b"glTF");
    out.extend(2u32.to_le_bytes());
    out.extend(u32::try_from(total).unwrap().to_le_bytes());
    out.extend(u32::try_from(text.len()).unwrap().to_le_bytes());
    out.extend(b"JSON");
    out.extend(&text);
    out.extend(u32::try_from(bin.len()).unwrap().to_le_bytes());
    out.extend(b"BIN\0");
    out.extend(&bin);
    out
}

/// Appends float data as an accessor; returns its index.
pub fn push_accessor(json: &mut Value, bin: &mut Vec<u8>, data: &[f32], kind: &str) -> usize {
    while !bin.len().is_multiple_of(4) {
        bin.push(0);
    }
    let offset = bin.len();
    for v in data {
        bin.extend(v.to_le_bytes());
    }
    let views = json["bufferViews"].as_array_mut().unwrap();
    views.push(json!({ "buffer": 0, "byteOffset": offset, "byteLength": data.len() * 4 }));
    let view = views.len() - 1;
    let width = if kind == "VEC4" { 4 } else { 1 };
    let mut accessor = json!({
        "bufferView": view, "componentType": 5126, "count": data.len() / width, "type": kind,
    });
    if kind == "SCALAR" {
        accessor["min"] = json!([data[0]]);
        accessor["max"] = json!([data[data.len() - 1]]);
    }
    let accessors = json["accessors"].as_array_mut().unwrap();
    accessors.push(accessor);
    accessors.len() - 1
}

/// `fixtures/vrm/<name>` with a one-second looping clip "Nod" that turns the head (node
/// `head`) left and right and nods it: the hair follows the head, so the springs move.
pub fn vrm_with_nod(name: &str) -> Vec<u8> {
    let bytes = std::fs::read(super::fixture("vrm").join(name)).unwrap();
    let (mut json, mut bin) = split_glb(&bytes);
    let head = json["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .position(|n| n["name"] == "head")
        .unwrap();
    let times = [0.0, 0.25, 0.5, 0.75, 1.0];
    let turns = [(0.0, 0.0), (0.7, 0.3), (0.0, -0.2), (-0.7, 0.3), (0.0, 0.0)];
    let rotations: Vec<f32> = turns
        .iter()
        .flat_map(|&(yaw, pitch)| {
            let q = Quat::from_rotation_y(yaw) * Quat::from_rotation_x(pitch);
            q.to_array()
        })
        .collect();
    let input = push_accessor(&mut json, &mut bin, &times, "SCALAR");
    let output = push_accessor(&mut json, &mut bin, &rotations, "VEC4");
    json["animations"] = json!([{
        "name": "Nod",
        "samplers": [{ "input": input, "output": output, "interpolation": "LINEAR" }],
        "channels": [{ "sampler": 0, "target": { "node": head, "path": "rotation" } }],
    }]);
    join_glb(json, bin)
}

/// The avatar's bytes written as a `.glb` (bevy's glTF loader knows no `.vrm`) in a fresh
/// folder, and an app over that folder.
pub fn app_with(bytes: &[u8], name: &str) -> (App, super::TempDir) {
    // Tests run in parallel: a folder per app.
    static APPS: AtomicUsize = AtomicUsize::new(0);
    let dir = super::TempDir::new(&format!("{name}-{}", APPS.fetch_add(1, Ordering::Relaxed)));
    std::fs::write(dir.0.join("avatar.glb"), bytes).unwrap();
    (super::app(&dir.0), dir)
}
