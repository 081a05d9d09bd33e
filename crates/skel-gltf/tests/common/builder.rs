//! A tiny glTF writer for tests: accessors over one embedded buffer, JSON assembled with
//! `serde_json::json!`, output as `.gltf` (data URI) or `.glb`.

use base64::Engine as _;
use serde_json::{Value, json};

/// glTF component type codes.
pub const BYTE: u32 = 5120;
pub const UNSIGNED_BYTE: u32 = 5121;
pub const SHORT: u32 = 5122;
pub const UNSIGNED_SHORT: u32 = 5123;
pub const UNSIGNED_INT: u32 = 5125;
pub const FLOAT: u32 = 5126;

/// Builds one buffer and its views/accessors.
#[derive(Debug, Default)]
pub struct Builder {
    pub bin: Vec<u8>,
    pub views: Vec<Value>,
    pub accessors: Vec<Value>,
}

impl Builder {
    /// Appends raw bytes as a new buffer view (4-byte aligned); returns the view index.
    pub fn view(&mut self, bytes: &[u8]) -> usize {
        while !self.bin.len().is_multiple_of(4) {
            self.bin.push(0);
        }
        self.views.push(json!({
            "buffer": 0, "byteOffset": self.bin.len(), "byteLength": bytes.len()
        }));
        self.bin.extend_from_slice(bytes);
        self.views.len() - 1
    }

    /// An accessor over a new view holding `bytes`.
    pub fn accessor(
        &mut self,
        bytes: &[u8],
        component: u32,
        ty: &str,
        count: usize,
        normalized: bool,
    ) -> usize {
        let view = self.view(bytes);
        self.accessors.push(json!({
            "bufferView": view, "componentType": component, "type": ty, "count": count,
            "normalized": normalized
        }));
        self.accessors.len() - 1
    }

    /// A float accessor.
    pub fn floats(&mut self, values: &[f32], ty: &str) -> usize {
        let n = match ty {
            "SCALAR" => 1,
            "VEC2" => 2,
            "VEC3" => 3,
            "VEC4" => 4,
            "MAT4" => 16,
            _ => panic!("type {ty}"),
        };
        let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        let acc = self.accessor(&bytes, FLOAT, ty, values.len() / n, false);
        if ty == "VEC3" && values.len() >= 3 {
            // POSITION needs min/max in valid files; the loader does not rely on them.
            let mut lo = [f32::INFINITY; 3];
            let mut hi = [f32::NEG_INFINITY; 3];
            for v in values.chunks(3) {
                for c in 0..3 {
                    lo[c] = lo[c].min(v[c]);
                    hi[c] = hi[c].max(v[c]);
                }
            }
            if lo.iter().chain(&hi).all(|v| v.is_finite()) {
                self.accessors[acc]["min"] = json!(lo);
                self.accessors[acc]["max"] = json!(hi);
            }
        }
        acc
    }

    /// A `u8` accessor (joints or normalized weights).
    pub fn u8s(&mut self, values: &[u8], ty: &str, normalized: bool) -> usize {
        let n = if ty == "VEC4" { 4 } else { 1 };
        self.accessor(values, UNSIGNED_BYTE, ty, values.len() / n, normalized)
    }

    /// A `u16` accessor.
    pub fn u16s(&mut self, values: &[u16], ty: &str, normalized: bool) -> usize {
        let n = if ty == "VEC4" { 4 } else { 1 };
        let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        self.accessor(&bytes, UNSIGNED_SHORT, ty, values.len() / n, normalized)
    }

    /// The `buffers` entry with the data as a base64 data URI.
    pub fn buffer_json(&self) -> Value {
        let b64 = base64::engine::general_purpose::STANDARD.encode(&self.bin);
        json!([{
            "byteLength": self.bin.len(),
            "uri": format!("data:application/octet-stream;base64,{b64}")
        }])
    }

    /// Completes `doc` (which holds nodes, meshes …) with asset, buffers, views and accessors,
    /// as `.gltf` bytes with an embedded buffer.
    pub fn gltf(&self, mut doc: Value) -> Vec<u8> {
        doc["asset"] = json!({"version": "2.0"});
        doc["buffers"] = self.buffer_json();
        doc["bufferViews"] = json!(self.views);
        doc["accessors"] = json!(self.accessors);
        serde_json::to_vec(&doc).unwrap()
    }

    /// The same as a `.glb` with the buffer in the BIN chunk.
    pub fn glb(&self, mut doc: Value) -> Vec<u8> {
        doc["asset"] = json!({"version": "2.0"});
        doc["buffers"] = json!([{ "byteLength": self.bin.len() }]);
        doc["bufferViews"] = json!(self.views);
        doc["accessors"] = json!(self.accessors);
        skel_gltf::pack_glb(&serde_json::to_vec(&doc).unwrap(), &self.bin).unwrap()
    }
}

/// A skinned two-joint strip: 4 vertices, joints on nodes 1 (root) and 2 (child, 1 up in y),
/// mesh on node 0; one LINEAR rotation clip on joint 2. Returns the builder and the document.
pub fn two_bone_strip() -> (Builder, Value) {
    let mut b = Builder::default();
    let pos = b.floats(
        &[0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 2.0, 0.0, 1.0, 2.0, 0.0],
        "VEC3",
    );
    let joints = b.u8s(
        &[0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0],
        "VEC4",
        false,
    );
    let weights = b.floats(
        &[
            1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0,
        ],
        "VEC4",
    );
    // Inverse bind matrices: joint 1 at the origin (identity), joint 2 at y = 1.
    let mut ibm = vec![
        1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0,
    ];
    ibm.extend_from_slice(&[
        1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, -1.0, 0.0, 1.0,
    ]);
    let ibm = b.floats(&ibm, "MAT4");
    let times = b.floats(&[0.0, 1.0], "SCALAR");
    let s = std::f32::consts::FRAC_1_SQRT_2;
    let rots = b.floats(&[0.0, 0.0, 0.0, 1.0, 0.0, 0.0, s, s], "VEC4");
    let doc = json!({
        "scene": 0,
        "scenes": [{"nodes": [0, 1]}],
        "nodes": [
            {"name": "mesh", "mesh": 0, "skin": 0, "translation": [10.0, 0.0, 0.0]},
            {"name": "root", "children": [2]},
            {"name": "tip", "translation": [0.0, 1.0, 0.0]}
        ],
        "meshes": [{"primitives": [{"attributes": {
            "POSITION": pos, "JOINTS_0": joints, "WEIGHTS_0": weights
        }}]}],
        "skins": [{"joints": [1, 2], "inverseBindMatrices": ibm}],
        "animations": [{
            "name": "bend",
            "samplers": [{"input": times, "output": rots, "interpolation": "LINEAR"}],
            "channels": [{"sampler": 0, "target": {"node": 2, "path": "rotation"}}]
        }]
    });
    (b, doc)
}
