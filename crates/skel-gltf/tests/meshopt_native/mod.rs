//! The oracle of the meshopt tests: zeux's meshoptimizer (the `meshopt` crate, C++), called
//! on byte buffers of any stride as the Rust decoder is, and its encoders for the test data.
#![allow(dead_code, reason = "each test file uses a different part")]

/// One element of `K` 32-bit words: meshoptimizer's vertex codec takes the element size from
/// the element type, and arrays past 32 elements have no `Default`.
#[derive(Clone, Copy)]
struct Words<const K: usize>([u32; K]);

impl<const K: usize> Default for Words<K> {
    fn default() -> Self {
        Self([0; K])
    }
}

fn to_words<const K: usize>(bytes: &[u8]) -> Vec<Words<K>> {
    bytes
        .chunks_exact(4 * K)
        .map(|c| {
            let mut w = [0_u32; K];
            for (i, v) in w.iter_mut().enumerate() {
                *v = u32::from_le_bytes([c[4 * i], c[4 * i + 1], c[4 * i + 2], c[4 * i + 3]]);
            }
            Words(w)
        })
        .collect()
}

fn to_bytes<const K: usize>(words: &[Words<K>]) -> Vec<u8> {
    words
        .iter()
        .flat_map(|w| w.0)
        .flat_map(u32::to_le_bytes)
        .collect()
}

fn decode_k<const K: usize>(stream: &[u8], count: usize) -> Result<Vec<u8>, meshopt::Error> {
    meshopt::decode_vertex_buffer::<Words<K>>(stream, count).map(|v| to_bytes(&v))
}

fn encode_k<const K: usize>(data: &[u8], level: i32, version: i32) -> Vec<u8> {
    meshopt::encode_vertex_buffer_level(&to_words::<K>(data), level, Some(version)).unwrap()
}

/// Runs `$f::<K>$args` for the stride's word count `K` (1..=64).
macro_rules! by_words {
    ($stride:expr, $f:ident $args:tt) => {
        by_words!(@ $stride, $f $args;
            1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31
            32 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47 48 49 50 51 52 53 54 55 56 57 58 59
            60 61 62 63 64)
    };
    (@ $stride:expr, $f:ident $args:tt; $($k:literal)*) => {
        match $stride / 4 {
            $($k => by_words!(@call $f, $k, $args),)*
            _ => panic!("stride {} out of range", $stride),
        }
    };
    (@call $f:ident, $k:literal, ($($arg:expr),*)) => {
        $f::<$k>($($arg),*)
    };
}

/// meshoptimizer's vertex decoder on `count` elements of `stride` bytes (a multiple of 4 in
/// 4..=256: it asserts otherwise).
pub fn decode_vertices(
    stream: &[u8],
    count: usize,
    stride: usize,
) -> Result<Vec<u8>, meshopt::Error> {
    by_words!(stride, decode_k(stream, count))
}

/// meshoptimizer's vertex encoder at `level` (0..=3) and format `version` (0 or 1).
pub fn encode_vertices(data: &[u8], stride: usize, level: i32, version: i32) -> Vec<u8> {
    by_words!(stride, encode_k(data, level, version))
}

/// meshoptimizer's triangle decoder (`count` a multiple of 3: it asserts otherwise).
pub fn decode_triangles(
    stream: &[u8],
    count: usize,
    index_size: usize,
) -> Result<Vec<u8>, meshopt::Error> {
    if index_size == 2 {
        meshopt::decode_index_buffer::<u16>(stream, count)
            .map(|v| v.iter().flat_map(|i| i.to_le_bytes()).collect())
    } else {
        meshopt::decode_index_buffer::<u32>(stream, count)
            .map(|v| v.iter().flat_map(|i| i.to_le_bytes()).collect())
    }
}

/// meshoptimizer's index sequence decoder.
pub fn decode_sequence(
    stream: &[u8],
    count: usize,
    index_size: usize,
) -> Result<Vec<u8>, meshopt::Error> {
    if index_size == 2 {
        meshopt::decode_index_sequence::<u16>(stream, count)
            .map(|v| v.iter().flat_map(|i| i.to_le_bytes()).collect())
    } else {
        meshopt::decode_index_sequence::<u32>(stream, count)
            .map(|v| v.iter().flat_map(|i| i.to_le_bytes()).collect())
    }
}

/// A filter of the meshopt extensions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Filter {
    Oct,
    Quat,
    Exp,
    Color,
}

impl Filter {
    /// From the extension JSON's name (`None` for `NONE` or no filter).
    pub fn from_name(name: Option<&str>) -> Option<Self> {
        match name? {
            "OCTAHEDRAL" => Some(Self::Oct),
            "QUATERNION" => Some(Self::Quat),
            "EXPONENTIAL" => Some(Self::Exp),
            "COLOR" => Some(Self::Color),
            _ => None,
        }
    }

    /// The most a filtered component of the Rust decoder may differ from meshoptimizer's, in
    /// units of its last place: one where meshoptimizer's SSE decoder uses an approximate
    /// reciprocal square root (8-bit octahedral) or reciprocal (8-bit colour), which the
    /// README allows ("specified to one unit in last place"); none elsewhere.
    pub fn tolerance(self, stride: usize) -> i32 {
        match (self, stride) {
            (Self::Oct | Self::Color, 4) => 1,
            _ => 0,
        }
    }

    /// The Rust decoder's filter, in place.
    pub fn rust(self, data: &mut [u8], stride: usize) -> Result<(), String> {
        use skel_gltf::meshopt as m;
        match self {
            Self::Oct => m::decode_filter_oct(data, stride),
            Self::Quat => m::decode_filter_quat(data, stride),
            Self::Exp => m::decode_filter_exp(data, stride),
            Self::Color => m::decode_filter_color(data, stride),
        }
    }

    /// meshoptimizer's filter, in place (`stride` one it accepts for the filter).
    pub fn native(self, data: &mut [u8], stride: usize) {
        match (self, stride) {
            (Self::Oct, 4) => via::<[i8; 4]>(data, meshopt::decode_filter_oct::<i8>),
            (Self::Oct, _) => via::<[i16; 4]>(data, meshopt::decode_filter_oct::<i16>),
            (Self::Quat, _) => via::<[i16; 4]>(data, meshopt::decode_filter_quat),
            (Self::Exp, _) => via::<[u32; 1]>(data, meshopt::decode_filter_exp::<1>),
            (Self::Color, 4) => via::<[u8; 4]>(data, meshopt::decode_filter_color::<u8>),
            (Self::Color, _) => via::<[u16; 4]>(data, meshopt::decode_filter_color::<u16>),
        }
    }
}

/// Runs `f` on `data` as `T`s (copied to an aligned buffer and back).
fn via<T: bytemuck::Pod>(data: &mut [u8], f: impl FnOnce(&mut [T])) {
    let mut items: Vec<T> = bytemuck::pod_collect_to_vec(data);
    f(&mut items);
    data.copy_from_slice(bytemuck::cast_slice(&items));
}

/// The largest difference between two filtered buffers, component by component (8- or
/// 16-bit signed or unsigned as the filter stores them; the exponential filter's floats
/// compared as bits), and how many components differ.
pub fn filtered_difference(filter: Filter, stride: usize, a: &[u8], b: &[u8]) -> (i32, usize) {
    assert_eq!(a.len(), b.len());
    let pairs: Vec<(i32, i32)> = match (filter, stride) {
        (Filter::Exp, _) => {
            let differ = a.chunks(4).zip(b.chunks(4)).filter(|(x, y)| x != y).count();
            return (if differ > 0 { i32::MAX } else { 0 }, differ);
        }
        (Filter::Oct, 4) => a
            .iter()
            .zip(b)
            .map(|(&x, &y)| (i32::from(x as i8), i32::from(y as i8)))
            .collect(),
        (Filter::Color, 4) => a
            .iter()
            .zip(b)
            .map(|(&x, &y)| (i32::from(x), i32::from(y)))
            .collect(),
        (Filter::Color, _) => a
            .chunks(2)
            .zip(b.chunks(2))
            .map(|(x, y)| {
                (
                    i32::from(u16::from_le_bytes([x[0], x[1]])),
                    i32::from(u16::from_le_bytes([y[0], y[1]])),
                )
            })
            .collect(),
        _ => a
            .chunks(2)
            .zip(b.chunks(2))
            .map(|(x, y)| {
                (
                    i32::from(i16::from_le_bytes([x[0], x[1]])),
                    i32::from(i16::from_le_bytes([y[0], y[1]])),
                )
            })
            .collect(),
    };
    let diffs = pairs.iter().map(|(x, y)| (x - y).abs());
    (
        diffs.clone().max().unwrap_or(0),
        diffs.filter(|&d| d > 0).count(),
    )
}
