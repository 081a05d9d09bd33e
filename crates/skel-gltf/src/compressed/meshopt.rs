//! `EXT_meshopt_compression` / `KHR_meshopt_compression`: one compressed buffer view decoded
//! with zeux's meshoptimizer (the `meshopt` crate), filters included.
//!
//! The C++ decoder asserts on parameters the format does not allow (a vertex size that is not
//! a multiple of 4, an index count that is not a multiple of 3), so every parameter is checked
//! here first: a malformed file gets an error naming its buffer view, never an abort.

use super::view_ext::{Filter, MeshoptView, Mode};

/// Decodes `stream` (the compressed bytes) as `view` describes: `count × stride` bytes.
///
/// # Errors
/// Why the stream or its parameters cannot be decoded, in words.
pub(super) fn decode_view(view: &MeshoptView, stream: &[u8]) -> Result<Vec<u8>, String> {
    let (count, stride) = (view.count, view.stride);
    match view.mode {
        Mode::Attributes => {
            if stride == 0 || stride > 256 || stride % 4 != 0 {
                return Err(format!(
                    "ATTRIBUTES byteStride {stride} is not a multiple of 4 in 4..=256"
                ));
            }
            let mut words = decode_vertices(stream, count, stride)?;
            apply_filter(view.filter, stride, &mut words)?;
            Ok(bytemuck::cast_slice(&words).to_vec())
        }
        Mode::Triangles | Mode::Indices => {
            if view.filter != Filter::None {
                return Err(format!(
                    "filter {:?} is only allowed with mode ATTRIBUTES",
                    view.filter
                ));
            }
            if view.mode == Mode::Triangles && count % 3 != 0 {
                return Err(format!("TRIANGLES count {count} is not a multiple of 3"));
            }
            let triangles = view.mode == Mode::Triangles;
            let failed = |e: meshopt::Error| format!("meshopt index decoder: {e}");
            match stride {
                2 => {
                    let indices: Vec<u16> = if triangles {
                        meshopt::decode_index_buffer(stream, count).map_err(failed)?
                    } else {
                        meshopt::decode_index_sequence(stream, count).map_err(failed)?
                    };
                    Ok(bytemuck::cast_slice(&indices).to_vec())
                }
                4 => {
                    let indices: Vec<u32> = if triangles {
                        meshopt::decode_index_buffer(stream, count).map_err(failed)?
                    } else {
                        meshopt::decode_index_sequence(stream, count).map_err(failed)?
                    };
                    Ok(bytemuck::cast_slice(&indices).to_vec())
                }
                _ => Err(format!("index byteStride {stride} is neither 2 nor 4")),
            }
        }
    }
}

/// One decoded vertex of `K` 32-bit words: the vertex decoder takes the vertex size from the
/// element type, and arrays past 32 elements have no `Default`.
#[derive(Clone, Copy)]
struct Vertex<const K: usize>([u32; K]);

impl<const K: usize> Default for Vertex<K> {
    fn default() -> Self {
        Self([0; K])
    }
}

fn decode_words<const K: usize>(stream: &[u8], count: usize) -> Result<Vec<u32>, String> {
    let vertices: Vec<Vertex<K>> = meshopt::decode_vertex_buffer(stream, count)
        .map_err(|e| format!("meshopt vertex decoder: {e}"))?;
    Ok(vertices.iter().flat_map(|v| v.0).collect())
}

/// The vertex decoder for a stride already checked to be a multiple of 4 in 4..=256, as
/// little-endian 32-bit words.
fn decode_vertices(stream: &[u8], count: usize, stride: usize) -> Result<Vec<u32>, String> {
    macro_rules! by_words {
        ($($k:literal)*) => {
            match stride / 4 {
                $($k => decode_words::<$k>(stream, count),)*
                _ => Err(format!("ATTRIBUTES byteStride {stride} out of range")),
            }
        };
    }
    by_words!(
        1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32
        33 34 35 36 37 38 39 40 41 42 43 44 45 46 47 48 49 50 51 52 53 54 55 56 57 58 59 60 61
        62 63 64
    )
}

/// Undoes the encoder's filter in place, on the decoded words.
fn apply_filter(filter: Filter, stride: usize, words: &mut [u32]) -> Result<(), String> {
    let bad = |allowed: &str| {
        Err(format!(
            "filter {filter:?} needs byteStride {allowed}, not {stride}"
        ))
    };
    match filter {
        Filter::None => {}
        Filter::Octahedral => match stride {
            4 => meshopt::decode_filter_oct::<i8>(bytemuck::cast_slice_mut(words)),
            8 => meshopt::decode_filter_oct::<i16>(bytemuck::cast_slice_mut(words)),
            _ => return bad("4 or 8"),
        },
        Filter::Quaternion => match stride {
            8 => meshopt::decode_filter_quat(bytemuck::cast_slice_mut(words)),
            _ => return bad("8"),
        },
        // Every 32-bit component is decoded on its own: the stride does not matter.
        Filter::Exponential => meshopt::decode_filter_exp::<1>(bytemuck::cast_slice_mut(words)),
        Filter::Color => match stride {
            4 => meshopt::decode_filter_color::<u8>(bytemuck::cast_slice_mut(words)),
            8 => meshopt::decode_filter_color::<u16>(bytemuck::cast_slice_mut(words)),
            _ => return bad("4 or 8"),
        },
    }
    Ok(())
}
