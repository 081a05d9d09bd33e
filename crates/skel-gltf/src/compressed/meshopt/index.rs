//! The two index codecs: triangle lists (mode `TRIANGLES`, headers `0xe0`/`0xe1`) and index
//! sequences (mode `INDICES`, headers `0xd0`/`0xd1`), as Appendix A of the
//! `KHR_meshopt_compression` README specifies them.
//!
//! Both read LEB128 varints without a length check of their own: the stream ends in a tail
//! (16 bytes of code table, or 4 bytes of padding) and a triangle or index only starts while
//! the data has not reached that tail, so every read stays inside the stream. Those checks,
//! and the exact-end check, are meshoptimizer's, so a stream is accepted exactly when it is.
//! Unwritten FIFO entries read as `u32::MAX`, as they do there.

/// Indices decoded as `u32`, written as `index_size`-byte little-endian values (`u16`s wrap).
struct Output {
    bytes: Vec<u8>,
    wide: bool,
}

impl Output {
    fn new(count: usize, index_size: usize) -> Result<Self, String> {
        match index_size {
            2 | 4 => Ok(Self {
                bytes: Vec::with_capacity(count * index_size),
                wide: index_size == 4,
            }),
            _ => Err(format!("index size {index_size} is neither 2 nor 4")),
        }
    }

    #[inline]
    fn push(&mut self, index: u32) {
        if self.wide {
            self.bytes.extend_from_slice(&index.to_le_bytes());
        } else {
            #[expect(
                clippy::cast_possible_truncation,
                reason = "16-bit indices wrap (spec)"
            )]
            self.bytes.extend_from_slice(&(index as u16).to_le_bytes());
        }
    }
}

/// Reads one LEB128 varint (1 to 5 bytes, 7 bits each, least significant first; bits past
/// 32 are dropped) at `*at`. The callers' tail checks keep the 5 bytes inside `data`; a read
/// past its end would still only give 0.
#[inline]
fn varint(data: &[u8], at: &mut usize) -> u32 {
    let mut value = 0_u32;
    for shift in [0, 7, 14, 21, 28] {
        let byte = data.get(*at).copied().unwrap_or(0);
        *at += 1;
        value |= u32::from(byte & 0x7f) << shift;
        if byte < 0x80 {
            break;
        }
    }
    value
}

/// `*next`, the next index not seen yet, moving it on.
#[inline]
fn take_next(next: &mut u32) -> u32 {
    let v = *next;
    *next = v.wrapping_add(1);
    v
}

/// Undoes the zigzag code of a 32-bit delta.
#[inline]
fn unzigzag32(v: u32) -> u32 {
    (v >> 1) ^ (v & 1).wrapping_neg()
}

/// The version nibble of a header byte whose high nibble must be `family`.
fn version(stream: &[u8], family: u8, what: &str) -> Result<(), String> {
    match stream.first() {
        Some(&h) if h & 0xf0 == family && h & 0x0f <= 1 => Ok(()),
        Some(&h) => Err(format!(
            "{what} header {h:#04x} is not {family:#04x} or {:#04x}",
            family | 1
        )),
        None => Err(format!("empty {what}")),
    }
}

/// A 16-entry ring of recent values: `get(0)` is the most recent.
struct Fifo<T: Copy> {
    items: [T; 16],
    /// Where the next push goes.
    head: usize,
}

impl<T: Copy> Fifo<T> {
    fn new(fill: T) -> Self {
        Self {
            items: [fill; 16],
            head: 0,
        }
    }

    /// The entry `back` pushes ago, counting the latest as 0 (wrapping at 16).
    #[inline]
    fn get(&self, back: usize) -> T {
        self.items[self.head.wrapping_sub(1 + back) & 15]
    }

    /// Writes `item` at the head; moves the head on only when `advance` (the codec pushes
    /// some vertices conditionally, and a skipped slot is overwritten by the next push).
    #[inline]
    fn push_if(&mut self, item: T, advance: bool) {
        self.items[self.head] = item;
        self.head = (self.head + usize::from(advance)) & 15;
    }
}

/// Decodes a triangle list of `count` indices (a multiple of 3) of `index_size` bytes.
///
/// Each triangle is one code byte; most reuse an edge of a recent triangle (the edge FIFO)
/// and a recent or new vertex (the vertex FIFO, or `next`, the next unseen index); the rest
/// read a byte and varint deltas from the data after the codes. The stream ends with the
/// 16-byte table of the `0xf0..=0xfd` codes.
///
/// # Errors
/// A bad header or index size, a count not a multiple of 3, a stream shorter than one byte
/// per triangle and the table, data running into the table, or bytes left before it.
pub fn decode_index_buffer(
    stream: &[u8],
    count: usize,
    index_size: usize,
) -> Result<Vec<u8>, String> {
    if !count.is_multiple_of(3) {
        return Err(format!(
            "triangle index count {count} is not a multiple of 3"
        ));
    }
    let triangles = count / 3;
    if stream.len() < 1 + triangles + 16 {
        return Err(format!(
            "index stream of {} bytes is shorter than its {triangles} codes and 16-byte table",
            stream.len()
        ));
    }
    version(stream, 0xe0, "index stream")?;
    let v1 = stream[0] & 0x0f == 1;
    let mut out = Output::new(count, index_size)?;
    let table_at = stream.len() - 16;
    let (codes, table) = (&stream[1..=triangles], &stream[table_at..]);
    // Version 1 codes 13 and 14 of the low nibble as `last ∓ 1`; version 0 as FIFO entries.
    let fifo_codes = if v1 { 13 } else { 15 };

    let mut edges = Fifo::new((u32::MAX, u32::MAX));
    let mut vertices = Fifo::new(u32::MAX);
    let (mut next, mut last) = (0_u32, 0_u32);
    let mut at = 1 + triangles;
    for &code in codes {
        if code < 0xf0 {
            // An edge from the FIFO and a third vertex.
            let (a, b) = edges.get(usize::from(code >> 4));
            let low = code & 15;
            let c = if low == 0 {
                let c = take_next(&mut next);
                vertices.push_if(c, true);
                c
            } else if low < fifo_codes {
                vertices.get(usize::from(low))
            } else {
                if at > table_at {
                    return Err("index stream data runs into its code table".into());
                }
                last = if low == 15 {
                    last.wrapping_add(unzigzag32(varint(stream, &mut at)))
                } else {
                    // 13 and 14 (version 1): one below or above the last free index.
                    last.wrapping_add(u32::from(low) * 2).wrapping_sub(27)
                };
                vertices.push_if(last, true);
                last
            };
            edges.push_if((c, b), true);
            edges.push_if((a, c), true);
            for v in [a, b, c] {
                out.push(v);
            }
        } else {
            let (a, b, c, b_pushed, c_pushed) = if code < 0xfe {
                // Three vertices from the table entry: `next`, then FIFO or `next` twice.
                let aux = table[usize::from(code & 15)];
                let (fb, fc) = (usize::from(aux >> 4), usize::from(aux & 15));
                let a = take_next(&mut next);
                let b = if fb == 0 {
                    take_next(&mut next)
                } else {
                    vertices.get(fb - 1)
                };
                let c = if fc == 0 {
                    take_next(&mut next)
                } else {
                    vertices.get(fc - 1)
                };
                (a, b, c, fb == 0, fc == 0)
            } else {
                if at > table_at {
                    return Err("index stream data runs into its code table".into());
                }
                let aux = stream[at];
                at += 1;
                if aux == 0 {
                    // A restart: independent triangle lists concatenated.
                    next = 0;
                }
                let (fb, fc) = (usize::from(aux >> 4), usize::from(aux & 15));
                let mut a = if code == 0xfe {
                    take_next(&mut next)
                } else {
                    0
                };
                let mut b = if fb == 0 {
                    take_next(&mut next)
                } else {
                    vertices.get(fb - 1)
                };
                let mut c = if fc == 0 {
                    take_next(&mut next)
                } else {
                    vertices.get(fc - 1)
                };
                for (free, slot) in [
                    (code == 0xff, &mut a),
                    (fb == 15, &mut b),
                    (fc == 15, &mut c),
                ] {
                    if free {
                        last = last.wrapping_add(unzigzag32(varint(stream, &mut at)));
                        *slot = last;
                    }
                }
                (a, b, c, fb == 0 || fb == 15, fc == 0 || fc == 15)
            };
            for v in [a, b, c] {
                out.push(v);
            }
            vertices.push_if(a, true);
            vertices.push_if(b, b_pushed);
            vertices.push_if(c, c_pushed);
            edges.push_if((b, a), true);
            edges.push_if((c, b), true);
            edges.push_if((a, c), true);
        }
    }
    if at != table_at {
        return Err(format!(
            "index stream has {} bytes of data unread before its code table",
            table_at.abs_diff(at)
        ));
    }
    Ok(out.bytes)
}

/// Decodes a sequence of `count` indices of `index_size` bytes: each a varint whose low bit
/// picks one of two running baselines and whose other bits are a zigzag delta from it. The
/// stream ends with 4 bytes of padding.
///
/// # Errors
/// A bad header or index size, a stream shorter than one byte per index and the padding,
/// data running into the padding, or bytes left before it.
pub fn decode_index_sequence(
    stream: &[u8],
    count: usize,
    index_size: usize,
) -> Result<Vec<u8>, String> {
    if stream.len() < count.saturating_add(5) {
        return Err(format!(
            "index sequence of {} bytes is shorter than its {count} indices and 4-byte tail",
            stream.len()
        ));
    }
    version(stream, 0xd0, "index sequence")?;
    let mut out = Output::new(count, index_size)?;
    let tail_at = stream.len() - 4;
    let mut baselines = [0_u32; 2];
    let mut at = 1;
    for _ in 0..count {
        if at >= tail_at {
            return Err("index sequence data runs into its tail".into());
        }
        let v = varint(stream, &mut at);
        let baseline = &mut baselines[(v & 1) as usize];
        *baseline = baseline.wrapping_add(unzigzag32(v >> 1));
        out.push(*baseline);
    }
    if at != tail_at {
        return Err(format!(
            "index sequence has {} bytes unread before its tail",
            tail_at.abs_diff(at)
        ));
    }
    Ok(out.bytes)
}
