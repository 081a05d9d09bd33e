//! A GLB file with its JSON chunk edited: how the VRM tests make malformed extensions from a
//! fixture without writing a file of each.

use serde_json::Value;
use skel_gltf::pack_glb;

/// The GLB `bytes` with its JSON changed by `edit` (the binary chunk kept).
pub fn edited_glb(bytes: &[u8], edit: impl FnOnce(&mut Value)) -> Vec<u8> {
    let word = |i: usize| u32::from_le_bytes(bytes[i..i + 4].try_into().unwrap()) as usize;
    let json_len = word(12);
    let mut json: Value = serde_json::from_slice(&bytes[20..20 + json_len]).unwrap();
    let bin_at = 20 + json_len;
    let bin = &bytes[bin_at + 8..bin_at + 8 + word(bin_at)];
    edit(&mut json);
    pack_glb(&serde_json::to_vec(&json).unwrap(), bin).unwrap()
}
