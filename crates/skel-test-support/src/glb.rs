//! A GLB file taken apart into its JSON and binary chunks and put back together: how the tests
//! add a clip to a fixture, or break one of its extensions, without a file for each case.
//!
//! ```
//! use skel_test_support::glb::Glb;
//!
//! let mut glb = Glb {
//!     json: serde_json::json!({ "asset": { "version": "2.0" }, "buffers": [{ "byteLength": 0 }] }),
//!     bin: Vec::new(),
//! };
//! let times = glb.push_accessor(&[0.0, 1.0], "SCALAR");
//! let again = Glb::parse(&glb.to_bytes());
//! assert_eq!(again.json["accessors"][times]["max"][0], 1.0);
//! assert_eq!(again.json["buffers"][0]["byteLength"], 8);
//! assert_eq!(again.bin, glb.bin);
//! ```

use serde_json::{Value, json};

/// A GLB's two chunks: the glTF JSON, and the binary chunk that is its one buffer.
#[derive(Debug, Clone, PartialEq)]
pub struct Glb {
    /// The JSON chunk, parsed.
    pub json: Value,
    /// The binary chunk (with its padding), empty when the file has none.
    pub bin: Vec<u8>,
}

impl Glb {
    /// The chunks of the GLB `bytes`.
    ///
    /// # Panics
    /// When `bytes` are not a GLB whose first chunk is JSON: a test's own fixture is broken.
    #[must_use]
    pub fn parse(bytes: &[u8]) -> Self {
        let word = |at: usize| -> usize {
            let Some(&[a, b, c, d]) = bytes.get(at..at + 4) else {
                panic!("a GLB of {} bytes has no word at {at}", bytes.len());
            };
            u32::from_le_bytes([a, b, c, d]) as usize
        };
        let json_len = word(12);
        let Some(text) = bytes.get(20..20 + json_len) else {
            panic!(
                "a GLB of {} bytes has no JSON chunk of {json_len}",
                bytes.len()
            );
        };
        let json = serde_json::from_slice(text)
            .unwrap_or_else(|e| panic!("the GLB's JSON chunk does not parse: {e}"));
        let bin_at = 20 + json_len;
        let bin = if bytes.len() > bin_at {
            let Some(bin) = bytes.get(bin_at + 8..bin_at + 8 + word(bin_at)) else {
                panic!("a GLB of {} bytes has a short binary chunk", bytes.len());
            };
            bin.to_vec()
        } else {
            Vec::new()
        };
        Self { json, bin }
    }

    /// The GLB `bytes` with their JSON changed by `edit`, the binary chunk kept.
    ///
    /// # Panics
    /// As [`Glb::parse`].
    #[must_use]
    pub fn edited(bytes: &[u8], edit: impl FnOnce(&mut Value)) -> Vec<u8> {
        let mut glb = Self::parse(bytes);
        edit(&mut glb.json);
        glb.to_bytes()
    }

    /// The index of the node named `name`.
    ///
    /// # Panics
    /// When no node has that name: the test's fixture is not the one it expects.
    #[must_use]
    pub fn node(&self, name: &str) -> usize {
        self.json["nodes"]
            .as_array()
            .and_then(|nodes| nodes.iter().position(|n| n["name"] == name))
            .unwrap_or_else(|| panic!("the GLB has no node named {name}"))
    }

    /// Appends `data` to the binary chunk (from a 4-byte boundary) as a new float accessor of
    /// glTF type `kind` (`"SCALAR"`, `"VEC3"`, `"VEC4"`, …) with a buffer view of its own, and
    /// returns the accessor's index. A `SCALAR` accessor gets the `min` and `max` an animation
    /// input must have (its first and last values: the times are increasing). Buffer 0's
    /// `byteLength` follows the chunk.
    ///
    /// # Panics
    /// When `kind` is not a glTF accessor type, or the JSON has no buffer 0.
    pub fn push_accessor(&mut self, data: &[f32], kind: &str) -> usize {
        let width = match kind {
            "SCALAR" => 1,
            "VEC2" => 2,
            "VEC3" => 3,
            "VEC4" | "MAT2" => 4,
            "MAT3" => 9,
            "MAT4" => 16,
            _ => panic!("{kind} is not a glTF accessor type"),
        };
        pad(&mut self.bin, 0);
        let offset = self.bin.len();
        self.bin.extend(data.iter().flat_map(|x| x.to_le_bytes()));
        let view = push(
            &mut self.json["bufferViews"],
            json!({ "buffer": 0, "byteOffset": offset, "byteLength": data.len() * 4 }),
        );
        let mut accessor = json!({
            "bufferView": view, "componentType": 5126, "count": data.len() / width, "type": kind,
        });
        if let ("SCALAR", [first, .., last]) = (kind, data) {
            accessor["min"] = json!([first]);
            accessor["max"] = json!([last]);
        }
        let buffer = &mut self.json["buffers"][0];
        assert!(buffer.is_object(), "the GLB's JSON has no buffer 0");
        buffer["byteLength"] = json!(self.bin.len());
        push(&mut self.json["accessors"], accessor)
    }

    /// The GLB file: the JSON padded with spaces and the binary chunk with zeros to 4 bytes
    /// (glTF 2.0, "GLB File Format Specification"); no binary chunk when it is empty.
    ///
    /// # Panics
    /// When the file would pass the 4 GiB a GLB's 32-bit lengths can say.
    #[must_use]
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut text = serde_json::to_vec(&self.json)
            .unwrap_or_else(|e| panic!("the GLB's JSON does not serialise: {e}"));
        pad(&mut text, b' ');
        let mut bin = self.bin.clone();
        pad(&mut bin, 0);
        let chunks = [(b"JSON", text)]
            .into_iter()
            .chain((!bin.is_empty()).then_some((b"BIN\0", bin)));
        let mut out = Vec::new();
        out.extend(b"glTF");
        out.extend(2_u32.to_le_bytes());
        out.extend([0; 4]);
        for (kind, chunk) in chunks {
            out.extend(word(chunk.len()));
            out.extend(kind);
            out.extend(chunk);
        }
        let total = word(out.len());
        out[8..12].copy_from_slice(&total);
        out
    }
}

/// Pads `bytes` with `with` to a multiple of 4.
fn pad(bytes: &mut Vec<u8>, with: u8) {
    while !bytes.len().is_multiple_of(4) {
        bytes.push(with);
    }
}

/// A GLB length field.
fn word(len: usize) -> [u8; 4] {
    u32::try_from(len)
        .unwrap_or_else(|_| panic!("a GLB of more than 4 GiB ({len} bytes)"))
        .to_le_bytes()
}

/// Appends `item` to the array `list` (made when absent); returns its index.
fn push(list: &mut Value, item: Value) -> usize {
    if list.is_null() {
        *list = json!([]);
    }
    let Some(list) = list.as_array_mut() else {
        panic!("{list} is not a JSON array");
    };
    list.push(item);
    list.len() - 1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_glb_comes_apart_and_back_byte_for_byte() {
        let glb = Glb {
            json: json!({ "asset": { "version": "2.0" }, "buffers": [{ "byteLength": 3 }] }),
            bin: vec![1, 2, 3, 0],
        };
        let bytes = glb.to_bytes();
        assert_eq!(&bytes[..4], b"glTF");
        assert_eq!(
            u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]) as usize,
            bytes.len()
        );
        assert!(bytes.len().is_multiple_of(4));
        assert_eq!(Glb::parse(&bytes), glb);
        assert_eq!(Glb::edited(&bytes, |_| {}), bytes);
        let edited = Glb::parse(&Glb::edited(&bytes, |j| j["asset"]["version"] = json!("3")));
        assert_eq!(edited.json["asset"]["version"], "3");
        assert_eq!(edited.bin, glb.bin);
    }

    #[test]
    fn accessors_start_on_four_bytes_and_the_buffer_follows() {
        let mut glb = Glb {
            json: json!({ "buffers": [{ "byteLength": 1 }] }),
            bin: vec![7],
        };
        let first = glb.push_accessor(&[0.0, 0.5, 2.0], "SCALAR");
        let second = glb.push_accessor(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0], "VEC3");
        assert_eq!((first, second), (0, 1));
        assert_eq!(glb.bin.len(), 4 + 12 + 24);
        assert_eq!(glb.json["bufferViews"][0]["byteOffset"], 4);
        assert_eq!(glb.json["bufferViews"][1]["byteOffset"], 16);
        assert_eq!(glb.json["accessors"][0]["min"], json!([0.0]));
        assert_eq!(glb.json["accessors"][0]["max"], json!([2.0]));
        assert_eq!(glb.json["accessors"][1]["count"], 2);
        assert!(glb.json["accessors"][1].get("min").is_none());
        assert_eq!(glb.json["buffers"][0]["byteLength"], 40);
        glb.json["nodes"] = json!([{ "name": "hips" }, { "name": "head" }]);
        assert_eq!(glb.node("head"), 1);
        assert_eq!(&glb.bin[16..20], &1.0_f32.to_le_bytes());
    }
}
