//! The `pointer` and `meshopt` targets: the two parsers of untrusted data that wave 4's
//! extensions added, each also wrapped into a small glTF file so that what the parser accepts
//! goes on through the whole loader ([`exercise_asset`](crate::exercise_asset)).
//!
//! - [`pointer_bytes`]: arbitrary text as a `KHR_animation_pointer` pointer, parsed alone and
//!   as the target of a channel of a file with a node, a material, a camera and a light.
//! - [`meshopt_bytes`]: arbitrary bytes as an `EXT_meshopt_compression` stream; the first
//!   bytes choose the mode, filter, stride and count, the rest is the stream, decoded as the
//!   positions of a mesh (with a fallback buffer, as gltfpack writes).

use std::fmt::Write as _;

use base64::Engine as _;

/// Parses `data` (lossily as UTF-8) as a pointer, then loads a file animating it.
pub fn pointer_bytes(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let _ = skel_gltf::parse_pointer(&text);
    crate::exercise_asset(pointer_file(&text).as_bytes());
}

/// A `.gltf` whose one channel animates `pointer` with a two-key VEC4 sampler (every property
/// kind reads its first components) over a node, a material with a texture transform, a
/// camera and a light.
#[must_use]
pub fn pointer_file(pointer: &str) -> String {
    // Times 0, 1; two VEC4 values; base64 of 40 bytes.
    let mut bytes = Vec::with_capacity(40);
    for v in [0.0_f32, 1.0, 0.5, 0.25, 1.0, 1.0, 1.0, 0.0, 0.5, 0.0] {
        bytes.extend(v.to_le_bytes());
    }
    let data = base64::engine::general_purpose::STANDARD.encode(&bytes);
    let pointer = serde_json::to_string(pointer).unwrap_or_else(|_| "\"\"".into());
    format!(
        r#"{{"asset":{{"version":"2.0"}},
  "extensionsUsed":["KHR_animation_pointer","KHR_texture_transform","KHR_lights_punctual","KHR_node_visibility"],
  "extensions":{{"KHR_lights_punctual":{{"lights":[{{"type":"spot","spot":{{}}}}]}}}},
  "nodes":[{{"name":"n","camera":0}}],"scenes":[{{"nodes":[0]}}],
  "cameras":[{{"type":"perspective","perspective":{{"yfov":1,"znear":0.1}}}}],
  "materials":[{{"pbrMetallicRoughness":{{"baseColorTexture":{{"index":0,"extensions":{{"KHR_texture_transform":{{}}}}}}}}}}],
  "textures":[{{}}],
  "buffers":[{{"byteLength":40,"uri":"data:application/octet-stream;base64,{data}"}}],
  "bufferViews":[{{"buffer":0,"byteLength":8}},{{"buffer":0,"byteOffset":8,"byteLength":32}}],
  "accessors":[{{"bufferView":0,"componentType":5126,"count":2,"type":"SCALAR","min":[0],"max":[1]}},
    {{"bufferView":1,"componentType":5126,"count":2,"type":"VEC4"}}],
  "animations":[{{"samplers":[{{"input":0,"output":1}},{{"input":0,"output":1,"interpolation":"STEP"}}],
    "channels":[{{"sampler":0,"target":{{"path":"pointer","extensions":{{"KHR_animation_pointer":{{"pointer":{pointer}}}}}}}}},
      {{"sampler":1,"target":{{"path":"pointer","extensions":{{"KHR_animation_pointer":{{"pointer":{pointer}}}}}}}}}]}}]}}"#
    )
}

/// The choices the first four bytes of a `meshopt` input make.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MeshoptHeader {
    /// `ATTRIBUTES`, `TRIANGLES` or `INDICES`.
    pub mode: &'static str,
    /// `NONE`, `OCTAHEDRAL`, `QUATERNION`, `EXPONENTIAL` or `COLOR`.
    pub filter: &'static str,
    /// `byteStride` of the decoded elements.
    pub stride: usize,
    /// Decoded elements.
    pub count: usize,
}

impl MeshoptHeader {
    /// Reads the header from the first four bytes (`None` when there are fewer).
    #[must_use]
    pub fn read(data: &[u8]) -> Option<Self> {
        let [m, f, s, c, ..] = *data else {
            return None;
        };
        let mode = ["ATTRIBUTES", "TRIANGLES", "INDICES"][usize::from(m % 3)];
        let filter =
            ["NONE", "OCTAHEDRAL", "QUATERNION", "EXPONENTIAL", "COLOR"][usize::from(f % 5)];
        // Attributes: 4..=64 bytes in steps of 4 (and 12, the positions' own); indices 2 or 4.
        let stride = match mode {
            "ATTRIBUTES" => 4 * (1 + usize::from(s % 16)),
            _ => 2 + 2 * usize::from(s % 2),
        };
        Some(Self {
            mode,
            filter,
            stride,
            count: usize::from(c) + 1,
        })
    }

    /// The four bytes that [`read`](Self::read) turns into this header's mode and filter
    /// indices, stride code and count (for building inputs by hand).
    #[must_use]
    pub fn bytes(mode: u8, filter: u8, stride_code: u8, count: u8) -> [u8; 4] {
        [mode, filter, stride_code, count]
    }
}

/// Decodes `data` (a [`MeshoptHeader`], then the stream) through the loader.
pub fn meshopt_bytes(data: &[u8]) {
    let Some(header) = MeshoptHeader::read(data) else {
        return;
    };
    crate::exercise_asset(&meshopt_file(header, &data[4..]));
}

/// A `.glb` whose buffer view 0 is `stream` compressed as `header` says (buffer 1 is the
/// fallback buffer, without data), used as the positions of a triangle list (attributes) or
/// as its indices over three fixed vertices (index modes).
#[must_use]
pub fn meshopt_file(header: MeshoptHeader, stream: &[u8]) -> Vec<u8> {
    let MeshoptHeader {
        mode,
        filter,
        stride,
        count,
    } = header;
    let decoded = stride * count;
    let mut bin = stream.to_vec();
    while bin.len() % 4 != 0 {
        bin.push(0);
    }
    // Three plain vertices after the stream, for the index modes.
    let plain_at = bin.len();
    for v in [0.0_f32, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0] {
        bin.extend(v.to_le_bytes());
    }
    let mut json = String::new();
    let _ = write!(
        json,
        r#"{{"asset":{{"version":"2.0"}},"extensionsUsed":["EXT_meshopt_compression"],
  "extensionsRequired":["EXT_meshopt_compression"],
  "buffers":[{{"byteLength":{bin_len}}},{{"byteLength":{decoded},"extensions":{{"EXT_meshopt_compression":{{"fallback":true}}}}}}],
  "bufferViews":[{{"buffer":1,"byteLength":{decoded},"byteStride":{stride_field},
      "extensions":{{"EXT_meshopt_compression":{{"buffer":0,"byteOffset":0,"byteLength":{stream_len},
        "byteStride":{stride},"count":{count},"mode":"{mode}","filter":"{filter}"}}}}}},
    {{"buffer":0,"byteOffset":{plain_at},"byteLength":36}}],"#,
        bin_len = bin.len(),
        stream_len = stream.len(),
        stride_field = if mode == "ATTRIBUTES" {
            stride.max(4)
        } else {
            4
        },
    );
    let (accessor, primitive) = if mode == "ATTRIBUTES" {
        // Positions: as many whole VEC3 floats as fit the stride (at least one).
        (
            format!(
                r#""accessors":[{{"bufferView":0,"componentType":5126,"count":{count},"type":"VEC3","min":[-1e9,-1e9,-1e9],"max":[1e9,1e9,1e9]}}],"#
            ),
            r#"{"attributes":{"POSITION":0}}"#.to_owned(),
        )
    } else {
        let ty = if stride == 2 { 5123 } else { 5125 };
        (
            format!(
                r#""accessors":[{{"bufferView":0,"componentType":{ty},"count":{count},"type":"SCALAR"}},
  {{"bufferView":1,"componentType":5126,"count":3,"type":"VEC3","min":[0,0,0],"max":[1,1,0]}}],"#
            ),
            r#"{"attributes":{"POSITION":1},"indices":0}"#.to_owned(),
        )
    };
    let _ = write!(
        json,
        r#"{accessor}"meshes":[{{"primitives":[{primitive}]}}],"nodes":[{{"mesh":0}}],"scenes":[{{"nodes":[0]}}]}}"#
    );
    glb(&json, &bin)
}

fn glb(json: &str, bin: &[u8]) -> Vec<u8> {
    let mut j = json.as_bytes().to_vec();
    while j.len() % 4 != 0 {
        j.push(b' ');
    }
    let total = 12 + 8 + j.len() + 8 + bin.len();
    let mut out = Vec::with_capacity(total);
    out.extend(b"glTF");
    out.extend(2_u32.to_le_bytes());
    out.extend(u32::try_from(total).unwrap_or(u32::MAX).to_le_bytes());
    out.extend(u32::try_from(j.len()).unwrap_or(u32::MAX).to_le_bytes());
    out.extend(b"JSON");
    out.extend(j);
    out.extend(u32::try_from(bin.len()).unwrap_or(u32::MAX).to_le_bytes());
    out.extend(b"BIN\0");
    out.extend(bin);
    out
}
