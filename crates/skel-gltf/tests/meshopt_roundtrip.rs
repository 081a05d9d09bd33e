//! Random data encoded by meshoptimizer's own encoders (the `meshopt` crate) and decoded by
//! skel-gltf's Rust decoder and by meshoptimizer: equal byte for byte, and equal to the input
//! where the codec is lossless. Vertex data of every stride (4..=256 bytes) and 0..=600
//! elements, smooth (floats, 16-bit and 8-bit ramps), noisy, constant and mixed per channel,
//! at every encoder level and both formats (0 and 1, where level 3 picks XOR channels with
//! rotations); triangle lists and index sequences at both index sizes; every filter at every
//! bit count its encoder takes (within one unit where the README allows it, see
//! `meshopt_native::Filter::tolerance`).
#![cfg(feature = "meshopt")]
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

mod meshopt_native;

use meshopt_native::{Filter, filtered_difference};
use proptest::prelude::*;
use skel_gltf::meshopt as rust;

/// A small deterministic generator (xorshift64*), so one proptest seed makes a whole buffer.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn unit(&mut self) -> f32 {
        (self.next() >> 40) as f32 / (1_u64 << 24) as f32
    }
}

/// `count` elements of `stride` bytes; `kind` 0 smooth, 1 noisy, 2 constant, 3 mixed (each
/// 4-byte channel its own kind), 4 bit flags (the data format 1's XOR channels are for).
fn vertex_data(stride: usize, count: usize, kind: u8, seed: u64) -> Vec<u8> {
    let mut rng = Rng(seed | 1);
    let channels = stride / 4;
    let kinds: Vec<u8> = (0..channels)
        .map(|_| match kind {
            3 => (rng.next() % 7) as u8,
            _ => [0, 4, 5, 0, 6][usize::from(kind)],
        })
        .collect();
    // Where each channel's flags sit: often across a byte boundary, so the encoder rotates.
    let shifts: Vec<u32> = (0..channels)
        .map(|_| 1 + (rng.next() % 27) as u32)
        .collect();
    let phase: Vec<f32> = (0..channels).map(|_| rng.unit() * 6.0).collect();
    let mut out = Vec::with_capacity(stride * count);
    for i in 0..count {
        for (c, &k) in kinds.iter().enumerate() {
            let t = i as f32 * 0.013 + phase[c];
            let word: [u8; 4] = match k {
                // Smooth floats (positions), 16-bit ramps (quantised UVs), 8-bit (colours).
                0 => (t.sin() * 40.0 + rng.unit() * 1e-3).to_le_bytes(),
                1 => {
                    let a = (t.cos() * 30000.0) as i16;
                    let b = (i as u16).wrapping_mul(3).wrapping_add(c as u16);
                    let [a0, a1] = a.to_le_bytes();
                    let [b0, b1] = b.to_le_bytes();
                    [a0, a1, b0, b1]
                }
                2 => [
                    (t * 20.0) as u8,
                    (i / 7) as u8,
                    255 - (i % 200) as u8,
                    c as u8,
                ],
                3 => (i as u32 * 1000 + (rng.next() % 4) as u32).to_le_bytes(),
                4 => (rng.next() as u32).to_le_bytes(),
                6 => (0x4120_0000_u32 ^ (((rng.next() % 16) as u32) << shifts[c])).to_le_bytes(),
                _ => [7, 7, 7, c as u8],
            };
            out.extend(word);
        }
    }
    out
}

/// A grid of `w × h` quads as triangles (vertex-cache friendly, as an optimised mesh is),
/// with `noise` random triangles over its vertices spliced in; and the vertex count.
fn triangles(w: u32, h: u32, noise: usize, seed: u64) -> (Vec<u32>, usize) {
    let mut rng = Rng(seed | 1);
    let mut out = Vec::new();
    for y in 0..h {
        for x in 0..w {
            let v = y * (w + 1) + x;
            out.extend([v, v + 1, v + w + 1, v + 1, v + w + 2, v + w + 1]);
        }
    }
    let vertices = ((w + 1) * (h + 1)) as usize;
    for _ in 0..noise {
        let at = (rng.next() as usize % (out.len() / 3 + 1)) * 3;
        let tri = [0, 1, 2].map(|_| (rng.next() % vertices as u64) as u32);
        out.splice(at..at, tri);
    }
    (out, vertices)
}

fn compare_vertices(data: &[u8], stride: usize, level: i32, version: i32) {
    let count = data.len() / stride;
    let stream = meshopt_native::encode_vertices(data, stride, level, version);
    assert_eq!(stream[0], 0xa0 | version as u8);
    let ours = rust::decode_vertex_buffer(&stream, count, stride).unwrap();
    let theirs = meshopt_native::decode_vertices(&stream, count, stride).unwrap();
    assert!(
        ours == theirs,
        "stride {stride} count {count} level {level} v{version}"
    );
    assert!(ours == data, "lossless");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn vertex_streams_decode_as_meshoptimizer_decodes_them(
        words in 1_usize..=64,
        count in 0_usize..=600,
        kind in 0_u8..5,
        // Half the cases at format 1, level 3: XOR channels with rotations, the rarest path.
        (level, version) in prop_oneof![Just((3, 1)), (0_i32..=3, 0_i32..=1)],
        seed in any::<u64>(),
    ) {
        let stride = 4 * words;
        compare_vertices(&vertex_data(stride, count, kind, seed), stride, level, version);
    }

    #[test]
    fn triangle_lists_decode_as_meshoptimizer_decodes_them(
        w in 0_u32..40, h in 1_u32..40, noise in 0_usize..30, seed in any::<u64>(),
    ) {
        let (indices, vertices) = triangles(w, h, noise, seed);
        let stream = meshopt::encode_index_buffer(&indices, vertices).unwrap();
        for size in [2, 4] {
            let ours = rust::decode_index_buffer(&stream, indices.len(), size).unwrap();
            let theirs = meshopt_native::decode_triangles(&stream, indices.len(), size).unwrap();
            prop_assert!(ours == theirs);
        }
        let ours = rust::decode_index_buffer(&stream, indices.len(), 4).unwrap();
        let back: Vec<u32> = bytemuck::pod_collect_to_vec(&ours);
        // The codec may rotate a triangle's indices, never change the triangle.
        for (a, b) in back.chunks(3).zip(indices.chunks(3)) {
            let rotations = [[b[0], b[1], b[2]], [b[1], b[2], b[0]], [b[2], b[0], b[1]]];
            prop_assert!(rotations.contains(&[a[0], a[1], a[2]]));
        }
    }

    #[test]
    fn index_sequences_decode_as_meshoptimizer_decodes_them(
        count in 0_usize..2000, spread in 1_u32..100_000, seed in any::<u64>(),
    ) {
        let mut rng = Rng(seed | 1);
        let mut runs = [0_u32, spread];
        let indices: Vec<u32> = (0..count)
            .map(|i| {
                let r = &mut runs[i % 2];
                *r = match rng.next() % 8 {
                    0 => (rng.next() % u64::from(spread) * 3) as u32,
                    1 => r.wrapping_sub(1),
                    _ => r.wrapping_add(1 + (rng.next() % 3) as u32),
                };
                *r
            })
            .collect();
        let stream = meshopt::encode_index_sequence(&indices, spread as usize * 3 + 1).unwrap();
        for size in [2, 4] {
            let ours = rust::decode_index_sequence(&stream, count, size).unwrap();
            let theirs = meshopt_native::decode_sequence(&stream, count, size).unwrap();
            prop_assert!(ours == theirs);
        }
        let back: Vec<u32> = bytemuck::pod_collect_to_vec(&rust::decode_index_sequence(&stream, count, 4).unwrap());
        prop_assert_eq!(back, indices);
    }

    #[test]
    fn filters_decode_as_meshoptimizer_decodes_them(
        which in 0_u8..6, bits in 0_i32..=24, count in 0_usize..300, seed in any::<u64>(),
    ) {
        let mut rng = Rng(seed | 1);
        let unit4 = |rng: &mut Rng, w: bool| {
            let v = [0; 4].map(|_| rng.unit() * 2.0 - 1.0);
            let l = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2] + if w { v[3] * v[3] } else { 0.0 }).sqrt().max(1e-6);
            [v[0] / l, v[1] / l, v[2] / l, if w { v[3] / l } else { rng.unit() }]
        };
        let (filter, stride, encoded): (Filter, usize, Vec<u8>) = match which {
            0 => {
                let v: Vec<[f32; 4]> = (0..count).map(|_| unit4(&mut rng, false)).collect();
                (Filter::Oct, 4, bytemuck::cast_slice(&meshopt::encode_filter_oct::<i8>(&v, 2 + bits % 7)).to_vec())
            }
            1 => {
                let v: Vec<[f32; 4]> = (0..count).map(|_| unit4(&mut rng, false)).collect();
                (Filter::Oct, 8, bytemuck::cast_slice(&meshopt::encode_filter_oct::<i16>(&v, 2 + bits % 15)).to_vec())
            }
            2 => {
                let v: Vec<[f32; 4]> = (0..count).map(|_| unit4(&mut rng, true)).collect();
                (Filter::Quat, 8, bytemuck::cast_slice(&meshopt::encode_filter_quat(&v, 4 + bits % 13)).to_vec())
            }
            3 => {
                let v: Vec<[f32; 3]> = (0..count)
                    .map(|_| [0; 3].map(|_| (rng.unit() - 0.5) * 10f32.powi((rng.next() % 12) as i32 - 6)))
                    .collect();
                let mode = [
                    meshopt::EncodeExpMode::Separate,
                    meshopt::EncodeExpMode::SharedVector,
                    meshopt::EncodeExpMode::SharedComponent,
                    meshopt::EncodeExpMode::Clamped,
                ][(seed % 4) as usize];
                (Filter::Exp, 12, bytemuck::cast_slice(&meshopt::encode_filter_exp::<3>(&v, 1 + bits % 24, mode)).to_vec())
            }
            4 => {
                let v: Vec<[f32; 4]> = (0..count).map(|_| [0; 4].map(|_| rng.unit())).collect();
                (Filter::Color, 4, bytemuck::cast_slice(&meshopt::encode_filter_color::<u8>(&v, 2 + bits % 7)).to_vec())
            }
            _ => {
                let v: Vec<[f32; 4]> = (0..count).map(|_| [0; 4].map(|_| rng.unit())).collect();
                (Filter::Color, 8, bytemuck::cast_slice(&meshopt::encode_filter_color::<u16>(&v, 2 + bits % 15)).to_vec())
            }
        };
        let (mut ours, mut theirs) = (encoded.clone(), encoded);
        filter.rust(&mut ours, stride).unwrap();
        filter.native(&mut theirs, stride);
        let (worst, differ) = filtered_difference(filter, stride, &ours, &theirs);
        prop_assert!(worst <= filter.tolerance(stride), "{:?} stride {}: off by {} in {} components", filter, stride, worst, differ);
    }
}

/// The corners the random cases may miss: no elements, one, exactly a block, a block and one,
/// at the strides where the block length changes (8192 / stride rounded to 16).
#[test]
fn vertex_block_edges_decode_as_meshoptimizer_decodes_them() {
    for stride in [4, 12, 32, 48, 64, 96, 128, 252, 256] {
        let block = ((8192 / stride) & !15).min(256);
        for count in [0, 1, 15, 16, 17, block - 1, block, block + 1, 2 * block + 3] {
            for (kind, level, version) in [
                (0, 2, 1),
                (1, 3, 1),
                (3, 0, 1),
                (3, 2, 0),
                (2, 1, 1),
                (4, 3, 1),
            ] {
                let data = vertex_data(stride, count, kind, stride as u64 * 31 + count as u64);
                compare_vertices(&data, stride, level, version);
            }
        }
    }
}
