//! Broken meshopt streams: every truncation, flipped and inserted bytes, a trailing byte,
//! wrong counts, random bytes behind each header, and parameters the format forbids. The
//! Rust decoder never panics, and it accepts a stream exactly when meshoptimizer does, with
//! the same bytes; the one exception, which it refuses and meshoptimizer decodes, is a
//! version 1 tail whose channel-mode byte the README calls invalid.
#![cfg(feature = "meshopt")]
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

mod meshopt_native;

use skel_gltf::meshopt as rust;

/// The codec a stream is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Codec {
    Vertices,
    Triangles,
    Sequence,
}

/// Decodes `stream` both ways and holds the Rust decoder to meshoptimizer; returns whether
/// meshoptimizer accepted it.
fn agree(codec: Codec, stream: &[u8], count: usize, size: usize, what: &str) -> bool {
    let (ours, theirs) = match codec {
        Codec::Vertices => (
            rust::decode_vertex_buffer(stream, count, size),
            meshopt_native::decode_vertices(stream, count, size),
        ),
        Codec::Triangles => (
            rust::decode_index_buffer(stream, count, size),
            meshopt_native::decode_triangles(stream, count, size),
        ),
        Codec::Sequence => (
            rust::decode_index_sequence(stream, count, size),
            meshopt_native::decode_sequence(stream, count, size),
        ),
    };
    let accepted = theirs.is_ok();
    match (ours, theirs) {
        (Ok(a), Ok(b)) => assert!(a == b, "{what}: both accept, different bytes"),
        (Err(_), Err(_)) => {}
        (Ok(_), Err(e)) => {
            panic!("{what}: meshoptimizer refuses ({e:?}), the Rust decoder accepts")
        }
        (Err(e), Ok(_)) => assert!(
            e.contains("channel mode"),
            "{what}: meshoptimizer accepts, the Rust decoder refuses: {e}"
        ),
    }
    accepted
}

/// Small deterministic randomness (xorshift64*).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// Valid streams to break: (codec, stream, count, element or index size).
fn streams() -> Vec<(Codec, Vec<u8>, usize, usize)> {
    let mut rng = Rng(0x5eed);
    let mut out = Vec::new();
    for (stride, count, version, level) in [
        (4, 40, 0, 2),
        (12, 300, 1, 2),
        (16, 70, 1, 3),
        (8, 33, 0, 1),
        (64, 20, 1, 3),
        (20, 0, 1, 2),
    ] {
        let data: Vec<u8> = (0..stride * count)
            .map(|i| {
                if i % 3 == 0 {
                    rng.next() as u8
                } else {
                    (i / stride) as u8
                }
            })
            .collect();
        let stream = meshopt_native::encode_vertices(&data, stride, level, version);
        out.push((Codec::Vertices, stream, count, stride));
    }
    let tris: Vec<u32> = (0..60_u32)
        .flat_map(|t| [t, t + 1, t + 2 + t % 3])
        .chain([500, 7, 9, 0, 1, 2])
        .collect();
    let seq: Vec<u32> = (0..90_u32)
        .map(|i| if i % 5 == 0 { i * 77 } else { i })
        .collect();
    for size in [2, 4] {
        out.push((
            Codec::Triangles,
            meshopt::encode_index_buffer(&tris, 600).unwrap(),
            tris.len(),
            size,
        ));
        out.push((
            Codec::Sequence,
            meshopt::encode_index_sequence(&seq, 7000).unwrap(),
            seq.len(),
            size,
        ));
    }
    out
}

#[test]
fn every_truncation_is_refused_by_both() {
    for (codec, stream, count, size) in streams() {
        for len in 0..stream.len() {
            let what = format!("{codec:?} truncated to {len} of {}", stream.len());
            agree(codec, &stream[..len], count, size, &what);
        }
        // Whole, it decodes; with a byte more, the tail is misplaced.
        assert!(agree(codec, &stream, count, size, "whole"));
        let mut longer = stream.clone();
        longer.push(0);
        agree(
            codec,
            &longer,
            count,
            size,
            &format!("{codec:?} with a trailing byte"),
        );
    }
}

#[test]
fn corrupted_bytes_are_decoded_or_refused_as_meshoptimizer_does() {
    let mut rng = Rng(0x00c0_ffee);
    for (codec, stream, count, size) in streams() {
        for round in 0..3000 {
            let mut bad = stream.clone();
            match round % 4 {
                0 | 1 => {
                    for _ in 0..1 + rng.below(3) {
                        let at = rng.below(bad.len());
                        bad[at] ^= 1 << rng.below(8);
                    }
                }
                2 => {
                    let at = rng.below(bad.len());
                    bad[at] = rng.next() as u8;
                }
                _ => {
                    let at = rng.below(bad.len());
                    if rng.next().is_multiple_of(2) {
                        bad.insert(at, rng.next() as u8);
                    } else {
                        bad.remove(at);
                    }
                }
            }
            agree(
                codec,
                &bad,
                count,
                size,
                &format!("{codec:?} corrupted, round {round}"),
            );
        }
    }
}

#[test]
fn wrong_counts_and_random_streams_agree_with_meshoptimizer() {
    let mut rng = Rng(0xfeed);
    for (codec, stream, count, size) in streams() {
        let step = if codec == Codec::Triangles { 3 } else { 1 };
        for wrong in [
            count + step,
            count.saturating_sub(step),
            count + 16 * step,
            0,
        ] {
            agree(
                codec,
                &stream,
                wrong,
                size,
                &format!("{codec:?} count {wrong} for {count}"),
            );
        }
    }
    // Random bytes behind every header, at lengths around the tails.
    for round in 0..20_000 {
        let (codec, header) = [
            (Codec::Vertices, 0xa0),
            (Codec::Vertices, 0xa1),
            (Codec::Triangles, 0xe0),
            (Codec::Triangles, 0xe1),
            (Codec::Sequence, 0xd0),
            (Codec::Sequence, 0xd1),
        ][round % 6];
        let len = 1 + rng.below(90);
        let mut stream: Vec<u8> = (0..len).map(|_| rng.next() as u8).collect();
        // Small values make decodable streams likelier.
        if round % 3 == 0 {
            stream.iter_mut().for_each(|b| *b &= 0x0f);
        }
        stream[0] = header;
        let (count, size) = match codec {
            Codec::Vertices => (rng.below(40), 4 * (1 + rng.below(6))),
            Codec::Triangles => (3 * rng.below(12), 2 + 2 * rng.below(2)),
            Codec::Sequence => (rng.below(40), 2 + 2 * rng.below(2)),
        };
        agree(
            codec,
            &stream,
            count,
            size,
            &format!("random {codec:?} round {round}"),
        );
    }
}

#[test]
fn what_meshoptimizer_would_assert_on_is_an_error() {
    let vertices = meshopt_native::encode_vertices(&[1; 48], 12, 2, 1);
    for stride in [0, 2, 6, 260, 1024] {
        assert!(
            rust::decode_vertex_buffer(&vertices, 4, stride).is_err(),
            "stride {stride}"
        );
    }
    let tris = meshopt::encode_index_buffer(&[0, 1, 2, 2, 1, 3], 4).unwrap();
    assert!(
        rust::decode_index_buffer(&tris, 5, 4).is_err(),
        "count not a multiple of 3"
    );
    for size in [0, 1, 3, 8] {
        assert!(
            rust::decode_index_buffer(&tris, 6, size).is_err(),
            "index size {size}"
        );
        assert!(rust::decode_index_sequence(&[0xd1, 0, 0, 0, 0, 0], 1, size).is_err());
    }
    let mut data = vec![0_u8; 24];
    assert!(rust::decode_filter_oct(&mut data, 12).is_err());
    assert!(rust::decode_filter_quat(&mut data, 4).is_err());
    assert!(rust::decode_filter_exp(&mut data, 6).is_err());
    assert!(rust::decode_filter_color(&mut data, 16).is_err());
    assert!(
        rust::decode_filter_oct(&mut data[..20], 8).is_err(),
        "not whole elements"
    );
}

#[test]
fn huge_counts_are_refused_before_allocating() {
    let vertices = meshopt_native::encode_vertices(&[5; 64], 16, 2, 1);
    let tris = meshopt::encode_index_buffer(&[0, 1, 2], 3).unwrap();
    let seq = meshopt::encode_index_sequence(&[0, 1, 2], 3).unwrap();
    // Would be terabytes: refused from the stream's length alone.
    assert!(rust::decode_vertex_buffer(&vertices, usize::MAX / 256, 256).is_err());
    assert!(rust::decode_vertex_buffer(&vertices, 1 << 40, 16).is_err());
    assert!(rust::decode_index_buffer(&tris, 3 << 40, 4).is_err());
    assert!(rust::decode_index_sequence(&seq, 1 << 40, 4).is_err());
}

#[test]
fn invalid_channel_modes_are_refused() {
    // Format 1, one 4-byte element: the channel-mode byte is the stream's last.
    let stream = meshopt_native::encode_vertices(&[1, 2, 3, 4, 5, 6, 7, 8], 4, 2, 1);
    let last = stream.len() - 1;
    for (mode, valid) in [
        (0x00, true),
        (0x01, true),
        (0x02, true),
        (0xf2, true),
        (0x03, false),
        (0x04, false),
        (0x10, false),
        (0x31, false),
        (0xff, false),
    ] {
        let mut s = stream.clone();
        s[last] = mode;
        assert_eq!(
            rust::decode_vertex_buffer(&s, 2, 4).is_ok(),
            valid,
            "channel mode {mode:#04x}"
        );
        if !valid {
            agree(
                Codec::Vertices,
                &s,
                2,
                4,
                &format!("channel mode {mode:#04x}"),
            );
        }
    }
}
