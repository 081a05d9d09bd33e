//! The binary glTF container (glTF 2.0 §4.4): a 12-byte header, a JSON chunk, an optional
//! BIN chunk. Parsed here with checked arithmetic so that no length field can make the loader
//! panic or read out of bounds.

use crate::GltfError;

/// The four bytes every GLB file starts with.
pub(crate) const GLB_MAGIC: &[u8; 4] = b"glTF";
const CHUNK_JSON: u32 = 0x4E4F_534A;
const CHUNK_BIN: u32 = 0x004E_4942;

/// The two chunks of a GLB file, borrowed from the input.
pub(crate) struct Glb<'a> {
    pub json: &'a [u8],
    pub bin: Option<&'a [u8]>,
}

fn read_u32(bytes: &[u8], at: usize) -> Option<u32> {
    let b = bytes.get(at..at.checked_add(4)?)?;
    Some(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

fn bad(reason: impl Into<String>) -> GltfError {
    GltfError::Glb {
        reason: reason.into(),
    }
}

/// Splits a GLB file into its JSON and BIN chunks. Unknown chunk types after the JSON chunk
/// are skipped, as the spec asks.
pub(crate) fn parse_glb(bytes: &[u8]) -> Result<Glb<'_>, GltfError> {
    if bytes.get(0..4) != Some(GLB_MAGIC.as_slice()) {
        return Err(bad("the file does not start with the magic `glTF`"));
    }
    let version = read_u32(bytes, 4).ok_or_else(|| bad("the 12-byte header is truncated"))?;
    if version != 2 {
        return Err(bad(format!("version {version}, only 2 is supported")));
    }
    let length = read_u32(bytes, 8).ok_or_else(|| bad("the 12-byte header is truncated"))? as usize;
    if length < 12 || length > bytes.len() {
        return Err(bad(format!(
            "header length {length} does not fit the file of {} bytes",
            bytes.len()
        )));
    }
    let bytes = &bytes[..length];
    let mut at = 12;
    let mut json = None;
    let mut bin = None;
    while at < bytes.len() {
        let (Some(chunk_len), Some(chunk_type)) = (read_u32(bytes, at), read_u32(bytes, at + 4))
        else {
            return Err(bad(format!("chunk header at byte {at} is truncated")));
        };
        let start = at + 8;
        let end = start
            .checked_add(chunk_len as usize)
            .filter(|&e| e <= bytes.len())
            .ok_or_else(|| {
                bad(format!(
                    "chunk at byte {at} declares {chunk_len} bytes, past the end of the file"
                ))
            })?;
        let data = &bytes[start..end];
        match chunk_type {
            CHUNK_JSON if json.is_none() && at == 12 => json = Some(data),
            CHUNK_JSON => return Err(bad("a second JSON chunk, or JSON not first")),
            CHUNK_BIN if json.is_some() && bin.is_none() => bin = Some(data),
            CHUNK_BIN => return Err(bad("a BIN chunk before the JSON chunk, or a second one")),
            _ if json.is_none() => return Err(bad("the first chunk is not JSON")),
            _ => {}
        }
        // Chunks are padded to 4-byte boundaries.
        at = end.div_ceil(4) * 4;
    }
    let json = json.ok_or_else(|| bad("no JSON chunk"))?;
    Ok(Glb { json, bin })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, reason = "tests")]
    use super::*;

    fn glb(json: &[u8], bin: Option<&[u8]>) -> Vec<u8> {
        let mut out = Vec::new();
        out.extend_from_slice(GLB_MAGIC);
        out.extend_from_slice(&2u32.to_le_bytes());
        out.extend_from_slice(&0u32.to_le_bytes());
        let mut json = json.to_vec();
        while !json.len().is_multiple_of(4) {
            json.push(b' ');
        }
        out.extend_from_slice(&u32::try_from(json.len()).unwrap().to_le_bytes());
        out.extend_from_slice(&CHUNK_JSON.to_le_bytes());
        out.extend_from_slice(&json);
        if let Some(bin) = bin {
            out.extend_from_slice(&u32::try_from(bin.len()).unwrap().to_le_bytes());
            out.extend_from_slice(&CHUNK_BIN.to_le_bytes());
            out.extend_from_slice(bin);
        }
        let len = u32::try_from(out.len()).unwrap();
        out[8..12].copy_from_slice(&len.to_le_bytes());
        out
    }

    #[test]
    fn splits_json_and_bin() {
        let file = glb(b"{}", Some(&[1, 2, 3, 4]));
        let g = parse_glb(&file).unwrap();
        assert_eq!(g.json, b"{}  ");
        assert_eq!(g.bin, Some(&[1u8, 2, 3, 4][..]));
    }

    #[test]
    fn rejects_lengths_that_do_not_fit() {
        let mut file = glb(b"{}", Some(&[1, 2, 3, 4]));
        // Header length below 12: would underflow a naive `length - 12`.
        file[8..12].copy_from_slice(&3u32.to_le_bytes());
        assert!(matches!(parse_glb(&file), Err(GltfError::Glb { .. })));
        let mut file = glb(b"{}", Some(&[1, 2, 3, 4]));
        // BIN chunk length far past the end.
        let bin_len_at = 12 + 8 + 4;
        file[bin_len_at..bin_len_at + 4].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(matches!(parse_glb(&file), Err(GltfError::Glb { .. })));
        assert!(matches!(parse_glb(b"glTF"), Err(GltfError::Glb { .. })));
        assert!(matches!(parse_glb(b"nope"), Err(GltfError::Glb { .. })));
    }
}
