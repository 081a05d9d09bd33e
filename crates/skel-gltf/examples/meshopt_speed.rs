//! Decode speed of skel-gltf's Rust meshopt decoder against meshoptimizer's (the `meshopt`
//! crate, C++): the largest meshopt views of the fixtures, and a larger synthetic one, each
//! decoded `N` times by one decoder, filter included.
//!
//! ```text
//! cargo run --release -p skel-gltf --example meshopt_speed -- rust 200
//! cargo run --release -p skel-gltf --example meshopt_speed -- native 200 [VIEW]
//! ```
//!
//! Wall time swings on a shared machine; instruction counts do not. Run it under
//! `valgrind --tool=cachegrind --cache-sim=no` with `N` and with 0, and divide the difference
//! by `N` (`docs/gltf-extensions.md` has the figures).

#![allow(
    clippy::expect_used,
    reason = "a measuring tool over the repository's fixtures"
)]

use std::path::PathBuf;
use std::time::Instant;

use skel_gltf::GltfDocument;

/// One compressed view: mode, filter, count, stride and its stream.
struct View {
    name: String,
    mode: String,
    filter: Option<String>,
    count: usize,
    stride: usize,
    stream: Vec<u8>,
}

fn fixture_views(file: &str) -> Vec<View> {
    let path =
        PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures/peer")).join(file);
    let doc = GltfDocument::from_path(&path).expect("fixture");
    let mut out = Vec::new();
    let views = doc.raw_json()["bufferViews"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    for (i, v) in views.iter().enumerate() {
        let Some(ext) = v["extensions"].get("EXT_meshopt_compression") else {
            continue;
        };
        let n = |k: &str| usize::try_from(ext[k].as_u64().unwrap_or(0)).unwrap_or(0);
        let buffer = doc.buffer(n("buffer")).expect("buffer");
        out.push(View {
            name: format!("{file} view {i}"),
            mode: ext["mode"].as_str().unwrap_or("").to_owned(),
            filter: ext["filter"].as_str().map(str::to_owned),
            count: n("count"),
            stride: n("byteStride"),
            stream: buffer[n("byteOffset")..n("byteOffset") + n("byteLength")].to_vec(),
        });
    }
    out
}

/// 65 536 smooth 16-byte elements (float position, 16-bit UV), meshoptimizer's default
/// encoding (format 1, level 2).
fn synthetic() -> View {
    let count = 65_536;
    let data: Vec<[f32; 4]> = (0..count)
        .map(|i| {
            let t = i as f32 * 0.001;
            let uv = u32::from((t.sin() * 30000.0) as i16 as u16) | ((i as u32 & 0xffff) << 16);
            [t.sin() * 3.0, t.cos() * 3.0, t * 0.1, f32::from_bits(uv)]
        })
        .collect();
    View {
        name: "synthetic 65536 x 16 B".into(),
        mode: "ATTRIBUTES".into(),
        filter: None,
        count,
        stride: 16,
        stream: meshopt::encode_vertex_buffer(&data).expect("encode"),
    }
}

fn rust_decode(v: &View) -> Vec<u8> {
    use skel_gltf::meshopt as m;
    let mut out = match v.mode.as_str() {
        "ATTRIBUTES" => m::decode_vertex_buffer(&v.stream, v.count, v.stride),
        "TRIANGLES" => m::decode_index_buffer(&v.stream, v.count, v.stride),
        _ => m::decode_index_sequence(&v.stream, v.count, v.stride),
    }
    .expect("rust decode");
    let _ = match v.filter.as_deref() {
        Some("OCTAHEDRAL") => m::decode_filter_oct(&mut out, v.stride),
        Some("QUATERNION") => m::decode_filter_quat(&mut out, v.stride),
        Some("EXPONENTIAL") => m::decode_filter_exp(&mut out, v.stride),
        Some("COLOR") => m::decode_filter_color(&mut out, v.stride),
        _ => Ok(()),
    };
    out
}

/// meshoptimizer on the strides the fixtures use (4, 8, 12, 16 bytes; 2 or 4-byte indices).
fn native_decode(v: &View) -> Vec<u8> {
    macro_rules! words {
        ($k:literal) => {{
            let v: Vec<[u32; $k]> =
                meshopt::decode_vertex_buffer(&v.stream, v.count).expect("native");
            v.iter().flatten().flat_map(|w| w.to_le_bytes()).collect()
        }};
    }
    let mut out = match (v.mode.as_str(), v.stride) {
        ("ATTRIBUTES", 4) => words!(1),
        ("ATTRIBUTES", 8) => words!(2),
        ("ATTRIBUTES", 12) => words!(3),
        ("ATTRIBUTES", 16) => words!(4),
        ("TRIANGLES", 2) => {
            bytes_of(&meshopt::decode_index_buffer::<u16>(&v.stream, v.count).expect("native"))
        }
        ("TRIANGLES", _) => {
            bytes_of(&meshopt::decode_index_buffer::<u32>(&v.stream, v.count).expect("native"))
        }
        (_, 2) => {
            bytes_of(&meshopt::decode_index_sequence::<u16>(&v.stream, v.count).expect("native"))
        }
        _ => bytes_of(&meshopt::decode_index_sequence::<u32>(&v.stream, v.count).expect("native")),
    };
    let mut as_items = |f: &dyn Fn(&mut [u8])| f(&mut out);
    match (v.filter.as_deref(), v.stride) {
        (Some("OCTAHEDRAL"), 4) => {
            as_items(&|d| native_filter::<[i8; 4]>(d, meshopt::decode_filter_oct))
        }
        (Some("OCTAHEDRAL"), _) => {
            as_items(&|d| native_filter::<[i16; 4]>(d, meshopt::decode_filter_oct))
        }
        (Some("QUATERNION"), _) => {
            as_items(&|d| native_filter::<[i16; 4]>(d, meshopt::decode_filter_quat))
        }
        (Some("EXPONENTIAL"), _) => {
            as_items(&|d| native_filter::<[u32; 1]>(d, meshopt::decode_filter_exp::<1>))
        }
        (Some("COLOR"), 4) => {
            as_items(&|d| native_filter::<[u8; 4]>(d, meshopt::decode_filter_color::<u8>))
        }
        (Some("COLOR"), _) => {
            as_items(&|d| native_filter::<[u16; 4]>(d, meshopt::decode_filter_color::<u16>))
        }
        _ => {}
    }
    out
}

fn bytes_of<T: bytemuck::Pod>(v: &[T]) -> Vec<u8> {
    bytemuck::cast_slice(v).to_vec()
}

fn native_filter<T: bytemuck::Pod>(data: &mut [u8], f: impl Fn(&mut [T])) {
    let mut items: Vec<T> = bytemuck::pod_collect_to_vec(data);
    f(&mut items);
    data.copy_from_slice(bytemuck::cast_slice(&items));
}

fn main() {
    let mut args = std::env::args().skip(1);
    let which = args.next().unwrap_or_else(|| "rust".into());
    let rounds: usize = args.next().and_then(|n| n.parse().ok()).unwrap_or(100);
    let mut views = fixture_views("character_gltfpack_cc.glb");
    views.extend(fixture_views("character_meshopt.glb"));
    views.sort_by_key(|v| std::cmp::Reverse(v.count * v.stride));
    views.truncate(4);
    views.push(synthetic());
    // An optional third argument keeps one view (its index in the list printed).
    if let Some(only) = args.next().and_then(|n| n.parse::<usize>().ok()) {
        views = views.into_iter().skip(only).take(1).collect();
    }
    let decode = if which == "native" {
        native_decode
    } else {
        rust_decode
    };
    for v in &views {
        let start = Instant::now();
        let mut bytes = 0;
        for _ in 0..rounds {
            bytes += std::hint::black_box(decode(v)).len();
        }
        let s = start.elapsed().as_secs_f64();
        println!(
            "{which:6} {:40} {} {:?} {:>6} x {:>2} B: {:.0} MB/s",
            v.name,
            v.mode,
            v.filter,
            v.count,
            v.stride,
            bytes as f64 / s.max(1e-9) / 1e6
        );
    }
}
