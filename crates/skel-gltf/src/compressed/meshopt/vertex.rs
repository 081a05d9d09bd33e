//! The attribute codec (mode `ATTRIBUTES`): format versions 0 (`0xa0`, the bitstream of
//! `EXT_meshopt_compression`) and 1 (`0xa1`, `KHR_meshopt_compression`'s control modes and
//! channel modes), as Appendix A of the `KHR_meshopt_compression` README specifies them.
//!
//! A stream is a header byte, blocks of up to 256 elements, zero padding and a tail (the
//! baseline element, then in version 1 one channel-mode byte per 4 bytes of element). Within
//! a block each byte position of the element is a "byte plane" of per-element deltas, coded
//! in groups of 16; the channel mode then turns a channel's four planes back into values,
//! each relative to the element before it.
//!
//! Every length is checked against the stream before it is read, and the checks are the ones
//! meshoptimizer makes (24 bytes left before each group, exact stream end), so a stream is
//! accepted exactly when meshoptimizer accepts it — except channel-mode bytes the
//! specification calls invalid (a mode of 3 or more, or a rotation on a byte or 16-bit
//! mode), which meshoptimizer decodes anyway and this decoder refuses.

/// Elements a block holds at most; the element size narrows it (`block_len`).
const BLOCK_MAX_ELEMENTS: usize = 256;
/// Deltas per group, each group with its own bit width.
const GROUP: usize = 16;
/// The most bytes one group reads (a 4-bit group: 8 bytes of nibbles and 16 escapes).
/// meshoptimizer refuses to start a group with fewer bytes left in the stream than this.
const GROUP_MAX_BYTES: usize = 24;

/// The format versions this decoder reads, from the header byte's low nibble.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Version {
    /// `0xa0`: every byte plane chooses among bit widths 0, 2, 4, 8; byte deltas only.
    V0,
    /// `0xa1`: control modes per plane and channel modes per 4 bytes.
    V1,
}

impl Version {
    /// Zero padding makes the tail at least this long, so a group never reads past the end.
    fn tail_min(self) -> usize {
        match self {
            Self::V0 => 32,
            Self::V1 => 24,
        }
    }
}

/// How a channel (4 bytes of the element) turns its byte planes into values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Channel {
    /// Four zigzag byte deltas (channel mode 0; the only one of version 0).
    Bytes,
    /// Two zigzag little-endian 16-bit deltas (channel mode 1).
    Shorts,
    /// One 32-bit XOR delta, stored rotated left by the given bits (channel mode 2).
    Xor(u32),
}

impl Channel {
    /// Reads a version 1 channel-mode byte: the low nibble is the mode, the high one the
    /// rotation of mode 2 and zero otherwise (the README's "streams that use channel mode 3
    /// or above … are invalid").
    fn parse(byte: u8) -> Result<Self, String> {
        match (byte & 0x0f, byte >> 4) {
            (0, 0) => Ok(Self::Bytes),
            (1, 0) => Ok(Self::Shorts),
            (2, rotation) => Ok(Self::Xor(u32::from(rotation))),
            _ => Err(format!("invalid channel mode byte {byte:#04x} in the tail")),
        }
    }
}

/// Elements per block for `stride`-byte elements: 8 KiB of element data at most, rounded
/// down to whole groups, and never more than 256 (the format fixes it).
fn block_len(stride: usize) -> usize {
    ((8192 / stride) & !(GROUP - 1)).min(BLOCK_MAX_ELEMENTS)
}

/// Decodes `count` elements of `stride` bytes (a multiple of 4 in 4..=256) from `stream`.
///
/// # Errors
/// A bad stride, an unknown header, a stream shorter than its blocks and tail need, an
/// invalid channel mode, or bytes left between the last block and the tail padding.
pub fn decode_vertex_buffer(stream: &[u8], count: usize, stride: usize) -> Result<Vec<u8>, String> {
    if stride == 0 || stride > 256 || !stride.is_multiple_of(4) {
        return Err(format!(
            "vertex stride {stride} is not a multiple of 4 in 4..=256"
        ));
    }
    let version = match stream.first() {
        None => return Err("empty vertex stream".into()),
        Some(0xa0) => Version::V0,
        Some(0xa1) => Version::V1,
        Some(&h) => return Err(format!("vertex stream header {h:#04x} is not 0xa0 or 0xa1")),
    };
    let channel_bytes = if version == Version::V1 {
        stride / 4
    } else {
        0
    };
    let tail_len = stride + channel_bytes;
    let tail_padded = tail_len.max(version.tail_min());
    if stream.len() - 1 < tail_padded {
        return Err(format!(
            "vertex stream of {} bytes is shorter than its {tail_padded}-byte tail",
            stream.len()
        ));
    }
    let tail = &stream[stream.len() - tail_len..];
    let channels = tail[stride..]
        .iter()
        .map(|&b| Channel::parse(b))
        .collect::<Result<Vec<_>, _>>()?;
    let body_end = stream.len() - tail_padded;
    let per_block = block_len(stride);
    check_minimum_length(body_end - 1, count, stride, per_block, version)?;

    let size = count
        .checked_mul(stride)
        .ok_or_else(|| format!("{count} elements of {stride} bytes overflow"))?;
    let mut out = vec![0_u8; size];
    let mut decoder = Blocks {
        stream,
        at: 1,
        stride,
        version,
        channels,
        planes: [[0; BLOCK_MAX_ELEMENTS]; 4],
        last: [0; 256],
    };
    decoder.last[..stride].copy_from_slice(&tail[..stride]);
    for block in out.chunks_mut(per_block * stride) {
        decoder.decode_block(block)?;
    }
    if decoder.at < body_end {
        return Err(format!(
            "vertex stream has {} bytes left between its last block and its tail",
            body_end - decoder.at
        ));
    }
    if decoder.at > body_end {
        return Err(format!(
            "vertex stream's blocks run {} bytes into its tail",
            decoder.at - body_end
        ));
    }
    Ok(out)
}

/// Refuses, before the output is allocated, a `count` the stream is too short to hold even
/// at its most compact (every version 1 plane zero, every version 0 group zero-width): a
/// file cannot make the decoder allocate much more than its stream could describe.
fn check_minimum_length(
    body: usize,
    count: usize,
    stride: usize,
    per_block: usize,
    version: Version,
) -> Result<(), String> {
    let blocks = count.div_ceil(per_block);
    let per_full_block = match version {
        Version::V0 => stride * (per_block / GROUP).div_ceil(4),
        Version::V1 => stride / 4,
    };
    // The last block may be shorter; its cost is at least its control or header bytes.
    let last_block = match version {
        Version::V0 => stride,
        Version::V1 => stride / 4,
    };
    let need = blocks
        .saturating_sub(1)
        .saturating_mul(per_full_block)
        .saturating_add(usize::from(blocks > 0) * last_block);
    if body < need {
        return Err(format!(
            "vertex stream of {body} data bytes cannot hold {count} elements of {stride} bytes"
        ));
    }
    Ok(())
}

/// The state carried from block to block.
struct Blocks<'a> {
    /// The whole stream (lengths are checked against its end, as meshoptimizer does).
    stream: &'a [u8],
    /// Where the next block starts.
    at: usize,
    /// Bytes per element.
    stride: usize,
    version: Version,
    /// One per 4 bytes of element (none in version 0: every channel is [`Channel::Bytes`]).
    channels: Vec<Channel>,
    /// One block's four byte planes of the channel being decoded, padded to whole groups.
    planes: [[u8; BLOCK_MAX_ELEMENTS]; 4],
    /// The element the next block's first deltas are taken from: the tail's baseline, then
    /// the last element of each block.
    last: [u8; 256],
}

impl Blocks<'_> {
    /// Decodes the block that fills `block` (whole elements of `stride` bytes).
    fn decode_block(&mut self, block: &mut [u8]) -> Result<(), String> {
        let (stream, stride) = (self.stream, self.stride);
        let elements = block.len() / stride;
        let groups = elements.div_ceil(GROUP);
        let control = match self.version {
            Version::V0 => &[][..],
            Version::V1 => {
                let control = stream
                    .get(self.at..self.at + stride / 4)
                    .ok_or("vertex stream ends inside a block's control bytes")?;
                self.at += stride / 4;
                control
            }
        };
        for k in (0..stride).step_by(4) {
            for (j, plane) in self.planes.iter_mut().enumerate() {
                let plane = &mut plane[..groups * GROUP];
                let mode = control.get(k / 4).map_or(0, |c| (c >> (2 * j)) & 3);
                let at = self.at;
                self.at = match (self.version, mode) {
                    (Version::V0, _) => decode_plane(stream, at, plane, [0, 2, 4, 8])?,
                    (Version::V1, 0) => decode_plane(stream, at, plane, [0, 1, 2, 4])?,
                    (Version::V1, 1) => decode_plane(stream, at, plane, [1, 2, 4, 8])?,
                    (Version::V1, 2) => {
                        plane.fill(0);
                        at
                    }
                    _ => {
                        // Literal: the deltas stored as they are, one byte each.
                        let bytes = stream
                            .get(at..at + elements)
                            .ok_or("vertex stream ends inside a literal byte plane")?;
                        plane[..elements].copy_from_slice(bytes);
                        at + elements
                    }
                };
            }
            let channel = self.channels.get(k / 4).copied().unwrap_or(Channel::Bytes);
            let base: &mut [u8; 4] = (&mut self.last[k..k + 4])
                .try_into()
                .map_err(|_| "vertex stride out of range")?;
            undo_deltas(
                channel,
                &self.planes,
                elements,
                stride,
                base,
                &mut block[k..],
            );
        }
        Ok(())
    }
}

/// Decodes one byte plane (a header of 2 bits per group, then each group) from
/// `stream[at..]` into `plane`, the header's 2 bits choosing among the plane's `widths`.
fn decode_plane(
    stream: &[u8],
    at: usize,
    plane: &mut [u8],
    widths: [u8; 4],
) -> Result<usize, String> {
    let groups = plane.len() / GROUP;
    let header_len = groups.div_ceil(4);
    let header = stream
        .get(at..at + header_len)
        .ok_or("vertex stream ends inside a byte plane's header")?;
    let mut at = at + header_len;
    for (g, out) in plane.chunks_exact_mut(GROUP).enumerate() {
        let src: &[u8; GROUP_MAX_BYTES] = stream
            .get(at..at + GROUP_MAX_BYTES)
            .and_then(|s| s.try_into().ok())
            .ok_or("vertex stream ends inside a group of deltas")?;
        let out: &mut [u8; GROUP] = out.try_into().map_err(|_| "group length")?;
        let width = widths[usize::from((header[g / 4] >> (2 * (g % 4))) & 3)];
        at += match width {
            0 => {
                out.fill(0);
                0
            }
            1 => decode_group::<1>(src, out),
            2 => decode_group::<2>(src, out),
            4 => decode_group::<4>(src, out),
            _ => {
                out.copy_from_slice(&src[..GROUP]);
                GROUP
            }
        };
    }
    Ok(at)
}

/// Decodes 16 deltas of `BITS` bits (1, 2 or 4) from `src`: `2 × BITS` bytes of packed
/// values, then one whole byte for each value with every bit set (the escape). Values are
/// packed from the high bits down, except 1-bit ones, packed from the low bit up. Returns the
/// bytes used (at most 24).
#[inline]
fn decode_group<const BITS: usize>(src: &[u8; GROUP_MAX_BYTES], out: &mut [u8; GROUP]) -> usize {
    let per_byte = 8 / BITS;
    let escape = (1_u8 << BITS) - 1;
    let mut next = 2 * BITS;
    for (i, slot) in out.iter_mut().enumerate() {
        let byte = src[i / per_byte];
        let shift = if BITS == 1 {
            i % 8
        } else {
            8 - BITS * (1 + i % per_byte)
        };
        let value = (byte >> shift) & escape;
        // Branch-free: read the next escape byte always, keep and consume it only on escape.
        let escaped = value == escape;
        let whole = src[next.min(GROUP_MAX_BYTES - 1)];
        *slot = if escaped { whole } else { value };
        next += usize::from(escaped);
    }
    next
}

/// Turns one channel's four byte planes of deltas into the block's values, each relative to
/// the element before it (`base`, the previous block's last element, for the first), and
/// writes them to bytes `0..4` of each `stride`-byte element of `out`. `base` ends as the
/// block's last element.
fn undo_deltas(
    channel: Channel,
    planes: &[[u8; BLOCK_MAX_ELEMENTS]; 4],
    elements: usize,
    stride: usize,
    base: &mut [u8; 4],
    out: &mut [u8],
) {
    let rows = out.chunks_mut(stride).take(elements);
    match channel {
        Channel::Bytes => {
            let mut prev = *base;
            for (i, row) in rows.enumerate() {
                for j in 0..4 {
                    prev[j] = prev[j].wrapping_add(unzigzag8(planes[j][i]));
                }
                row[..4].copy_from_slice(&prev);
            }
            *base = prev;
        }
        Channel::Shorts => {
            let mut lo = u16::from_le_bytes([base[0], base[1]]);
            let mut hi = u16::from_le_bytes([base[2], base[3]]);
            for (i, row) in rows.enumerate() {
                lo = lo.wrapping_add(unzigzag16(u16::from_le_bytes([planes[0][i], planes[1][i]])));
                hi = hi.wrapping_add(unzigzag16(u16::from_le_bytes([planes[2][i], planes[3][i]])));
                row[..2].copy_from_slice(&lo.to_le_bytes());
                row[2..4].copy_from_slice(&hi.to_le_bytes());
            }
            base[..2].copy_from_slice(&lo.to_le_bytes());
            base[2..].copy_from_slice(&hi.to_le_bytes());
        }
        Channel::Xor(rotation) => {
            let mut prev = u32::from_le_bytes(*base);
            for (i, row) in rows.enumerate() {
                let stored =
                    u32::from_le_bytes([planes[0][i], planes[1][i], planes[2][i], planes[3][i]]);
                prev ^= stored.rotate_right(rotation);
                row[..4].copy_from_slice(&prev.to_le_bytes());
            }
            *base = prev.to_le_bytes();
        }
    }
}

/// Undoes the zigzag code of a byte delta: even codes are `+v/2`, odd ones `-(v+1)/2`.
#[inline]
fn unzigzag8(v: u8) -> u8 {
    (v >> 1) ^ (v & 1).wrapping_neg()
}

/// Undoes the zigzag code of a 16-bit delta.
#[inline]
fn unzigzag16(v: u16) -> u16 {
    (v >> 1) ^ (v & 1).wrapping_neg()
}
