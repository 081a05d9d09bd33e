//! A pure-Rust decoder of `EXT_meshopt_compression` / `KHR_meshopt_compression` buffer views,
//! the one the loader uses on every target (wasm32 included: meshoptimizer itself is C++).
//!
//! - [`decode_vertex_buffer`] (`vertex.rs`): mode `ATTRIBUTES`, format versions 0 and 1;
//! - [`decode_index_buffer`], [`decode_index_sequence`] (`index.rs`): modes `TRIANGLES` and
//!   `INDICES`;
//! - [`decode_filter_oct`], [`decode_filter_quat`], [`decode_filter_exp`],
//!   [`decode_filter_color`] (`filters.rs`): the filters, undone in place.
//!
//! The bitstreams are those of Appendix A of the `KHR_meshopt_compression` README (version 0
//! of the attribute codec is `EXT_meshopt_compression`'s). Every length is checked before it
//! is read and every count against the stream before the output is allocated, so a malformed
//! stream is an error, never a panic. skel-gltf's tests decode every meshopt view of the
//! repository's fixtures and random streams of meshoptimizer's own encoder with both decoders
//! and compare them byte for byte (`tests/meshopt_oracle.rs`), and feed both truncated and
//! corrupted streams.
//!
//! ```
//! // Two 4-byte elements, version 0: header, one block (4 planes, each a header byte whose
//! // group is all-zero deltas), zero padding, the baseline element as the tail.
//! let mut stream = vec![0xa0, 0, 0, 0, 0];
//! stream.extend([0; 28]);
//! stream.extend([1, 2, 3, 4]);
//! let decoded = skel_gltf::meshopt::decode_vertex_buffer(&stream, 2, 4).unwrap();
//! assert_eq!(decoded, [1, 2, 3, 4, 1, 2, 3, 4]);
//! ```

mod filters;
mod index;
mod vertex;

pub use filters::{decode_filter_color, decode_filter_exp, decode_filter_oct, decode_filter_quat};
pub use index::{decode_index_buffer, decode_index_sequence};
pub use vertex::decode_vertex_buffer;

use super::view_ext::{Filter, MeshoptView, Mode};

/// Decodes `stream` (the compressed bytes) as `view` describes: `count × stride` bytes.
///
/// # Errors
/// Why the stream or its parameters cannot be decoded, in words (the caller names the view).
pub(in crate::compressed) fn decode_view(
    view: &MeshoptView,
    stream: &[u8],
) -> Result<Vec<u8>, String> {
    let (count, stride) = (view.count, view.stride);
    match view.mode {
        Mode::Attributes => {
            if stride == 0 || stride > 256 || !stride.is_multiple_of(4) {
                return Err(format!(
                    "ATTRIBUTES byteStride {stride} is not a multiple of 4 in 4..=256"
                ));
            }
            let mut bytes = decode_vertex_buffer(stream, count, stride)?;
            match view.filter {
                Filter::None => {}
                Filter::Octahedral => decode_filter_oct(&mut bytes, stride)?,
                Filter::Quaternion => decode_filter_quat(&mut bytes, stride)?,
                Filter::Exponential => decode_filter_exp(&mut bytes, stride)?,
                Filter::Color => decode_filter_color(&mut bytes, stride)?,
            }
            Ok(bytes)
        }
        Mode::Triangles | Mode::Indices => {
            if view.filter != Filter::None {
                return Err(format!(
                    "filter {:?} is only allowed with mode ATTRIBUTES",
                    view.filter
                ));
            }
            if stride != 2 && stride != 4 {
                return Err(format!("index byteStride {stride} is neither 2 nor 4"));
            }
            if view.mode == Mode::Triangles {
                decode_index_buffer(stream, count, stride)
            } else {
                decode_index_sequence(stream, count, stride)
            }
        }
    }
}
