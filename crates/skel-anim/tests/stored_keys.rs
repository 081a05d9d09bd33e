//! Stored compressed keys (`Rig::stored_keys`, `AnimationData::attach_stored_keys`): a rig
//! built from attached keys plays bit for bit what the compressing rig played and reports
//! what it measured; the samplers hold the decoded keys; corrupt bytes and keys written for
//! another clip are typed errors that leave the data as it was, never panics.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

mod common;

use std::sync::Arc;

use common::motions::{Motion, fixed_motions, motion, smooth_rig};
use proptest::prelude::*;
use skel_anim::{
    AnimError, AnimationData, Compression, CpuKernels, KeyFormat, NullSink, Player, Rig,
    RigOptions, StoredKeys,
};

fn rig(data: &AnimationData, compression: Option<Compression>) -> Arc<Rig> {
    let options = RigOptions {
        kernels: CpuKernels::Baseline,
        compression,
    };
    Rig::with_options(Arc::new(data.clone()), &options).unwrap()
}

/// Every world matrix's bits at each of `times`.
fn bits_at(rig: &Arc<Rig>, times: &[f32]) -> Vec<u32> {
    let mut player = Player::new(rig);
    let mut out = Vec::new();
    for &t in times {
        player.evaluate_clip_at(Some(0), t, &mut NullSink).unwrap();
        out.extend(
            player
                .world_matrices()
                .iter()
                .flat_map(|m| m.to_cols_array().map(f32::to_bits)),
        );
    }
    out
}

fn times(keys: usize) -> Vec<f32> {
    let end = (keys - 1) as f32 / 30.0;
    (0..)
        .map(|i| i as f32 / 97.0)
        .take_while(|&t| t <= end)
        .chain([end])
        .collect()
}

/// Compresses clip 0 of `data` with `c`, stores it, attaches the keys to a copy of `data` and
/// checks that the copy's rig plays and reports the same.
fn round_trip(data: &AnimationData, c: Compression, keys: usize) -> Result<(), TestCaseError> {
    let compressed = rig(data, Some(c));
    let Some(stored) = compressed.stored_keys(0).unwrap() else {
        // Only a clip that keys nothing has nothing to store (generated motions of zero
        // amplitude on two keys make one): its compression reports no raw bytes.
        let report = compressed.clip_compression(0);
        prop_assert!(
            report.is_none_or(|r| r.raw_bytes == 0),
            "a clip with keys stored nothing: {report:?}"
        );
        return Ok(());
    };
    let mut loaded = data.clone();
    loaded.attach_stored_keys(0, stored.clone()).unwrap();
    prop_assert_eq!(loaded.clips[0].stored_keys.as_ref(), Some(&stored));
    // What the options say does not matter: the stored keys play.
    let again = rig(&loaded, None);
    prop_assert_eq!(
        bits_at(&again, &times(keys)),
        bits_at(&compressed, &times(keys))
    );
    let (want, got) = (
        *compressed.clip_compression(0).unwrap(),
        *again.clip_compression(0).unwrap(),
    );
    prop_assert_eq!(got.max_error.to_bits(), want.max_error.to_bits());
    prop_assert_eq!(
        (
            got.raw_bytes,
            got.compressed_bytes,
            got.lossless_bytes,
            got.held,
            got.packed
        ),
        (
            want.raw_bytes,
            want.compressed_bytes,
            want.lossless_bytes,
            want.held,
            want.packed
        )
    );
    prop_assert_eq!(
        (got.bits8, got.bits16, got.float32),
        (want.bits8, want.bits16, want.float32)
    );
    prop_assert_eq!(got.nlerp, want.nlerp);
    prop_assert_eq!(got.stored_bytes, stored.as_bytes().len());
    prop_assert_eq!(again.stored_keys(0).unwrap(), Some(stored));
    Ok(())
}

#[test]
fn attached_keys_play_bit_for_bit_what_the_compressor_measured() {
    let data = smooth_rig(&fixed_motions(), 61);
    for keys in [KeyFormat::Variable, KeyFormat::Fixed] {
        for nlerp in [true, false] {
            for bound in [1e-2, 1e-4] {
                let c = Compression {
                    keys,
                    nlerp,
                    bound,
                    ..Compression::default()
                };
                round_trip(&data, c, 61).unwrap();
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn any_compressed_clip_round_trips(
        motions in prop::collection::vec(motion(), 2..14),
        keys in 2usize..70,
        variable in any::<bool>(),
    ) {
        let c = Compression {
            bound: 1e-3,
            keys: if variable { KeyFormat::Variable } else { KeyFormat::Fixed },
            ..Compression::default()
        };
        round_trip(&smooth_rig(&motions, keys), c, keys)?;
    }
}

#[test]
fn unkeyed_rotations_whose_rest_is_zero_or_a_half_turn_read_back_as_written() {
    // Every node of the fixed motions turns; two more only shift, beside turning ones in
    // their quads, and one of those has a zero rest rotation (a file may say so). The reader
    // rebuilds an unkeyed lane of a bit-packed rotation group from its rest, made unit as the
    // compressor made it: a zero rotation must stay zero there, not become NaN, and a half
    // turn (w = 0) keep its sign.
    let mut motions = fixed_motions();
    for parent in [1, 4] {
        motions.push(Motion {
            turn: 0.0,
            shift: 0.05,
            ..motions[4].clone()
        });
        motions.last_mut().unwrap().parent = parent;
    }
    let mut data = smooth_rig(&motions, 61);
    let zero = data.nodes.len() - 1;
    data.nodes[zero].rotation = [0.0; 4];
    // The other a half turn (w = 0: the sign rule's edge).
    data.nodes[zero - 1].rotation = [0.0, 1.0, 0.0, 0.0];
    for nlerp in [true, false] {
        let c = Compression {
            keys: KeyFormat::Variable,
            nlerp,
            bound: 1e-4,
            ..Compression::default()
        };
        round_trip(&data, c, 61).unwrap();
    }
}

#[test]
fn the_samplers_hold_the_decoded_keys() {
    let data = smooth_rig(&fixed_motions(), 61);
    let c = Compression::default();
    let compressed = rig(&data, Some(c));
    let mut loaded = data.clone();
    loaded
        .attach_stored_keys(0, compressed.stored_keys(0).unwrap().unwrap())
        .unwrap();
    let (before, after) = (&data.clips[0].samplers, &loaded.clips[0].samplers);
    assert!(
        before
            .iter()
            .zip(after)
            .any(|(a, b)| a.output() != b.output()),
        "lossy keys replaced the originals"
    );
    // Played lossless, the decoded keys are the compressed clip at its keys.
    let mut plain = loaded.clone();
    plain.clips[0].stored_keys = None;
    let (mut a, mut b) = (Player::new(&rig(&plain, None)), Player::new(&compressed));
    for k in 0..61 {
        let t = k as f32 / 30.0;
        a.evaluate_clip_at(Some(0), t, &mut NullSink).unwrap();
        b.evaluate_clip_at(Some(0), t, &mut NullSink).unwrap();
        for (x, y) in a.world_matrices().iter().zip(b.world_matrices()) {
            assert!(x.abs_diff_eq(*y, 1e-5), "key {k}: {x} vs {y}");
        }
    }
}

#[test]
fn corrupt_bytes_are_errors_that_change_nothing() {
    let data = smooth_rig(&fixed_motions(), 61);
    let stored = rig(&data, Some(Compression::default()))
        .stored_keys(0)
        .unwrap()
        .unwrap();
    let bytes = stored.as_bytes();
    for len in 0..bytes.len() {
        let mut d = data.clone();
        let err = d
            .attach_stored_keys(0, StoredKeys::from_bytes(&bytes[..len]))
            .unwrap_err();
        assert!(
            matches!(err, AnimError::BadStoredKeys { clip: 0, .. }),
            "{len}: {err}"
        );
        assert_eq!(d, data, "unchanged after a refused attach");
    }
    let mut longer = bytes.to_vec();
    longer.push(0);
    assert!(
        data.clone()
            .attach_stored_keys(0, StoredKeys::from_bytes(longer))
            .is_err()
    );
    // Any byte flipped: an error, or keys that play finite poses.
    for at in 0..bytes.len() {
        let mut flipped = bytes.to_vec();
        flipped[at] ^= 0xA5;
        let mut d = data.clone();
        if d.attach_stored_keys(0, StoredKeys::from_bytes(flipped))
            .is_ok()
        {
            let r = rig(&d, None);
            let mut p = Player::new(&r);
            p.evaluate_clip_at(Some(0), 0.5, &mut NullSink).unwrap();
            assert!(
                p.world_matrices().iter().all(|m| m.is_finite()),
                "byte {at}"
            );
        }
    }
}

#[test]
fn keys_of_another_clip_layout_are_refused() {
    let long = smooth_rig(&fixed_motions(), 61);
    let stored = rig(&long, Some(Compression::default()))
        .stored_keys(0)
        .unwrap()
        .unwrap();
    let mut short = smooth_rig(&fixed_motions(), 31);
    let err = short.attach_stored_keys(0, stored.clone()).unwrap_err();
    assert!(
        matches!(err, AnimError::BadStoredKeys { clip: 0, .. }),
        "{err}"
    );
    assert!(matches!(
        short.attach_stored_keys(3, stored),
        Err(AnimError::NoSuchClip { clip: 3, .. })
    ));
}

#[test]
fn lossless_clips_store_nothing() {
    let data = smooth_rig(&fixed_motions(), 61);
    assert_eq!(rig(&data, None).stored_keys(0).unwrap(), None);
    assert!(matches!(
        rig(&data, None).stored_keys(1),
        Err(AnimError::NoSuchClip { clip: 1, .. })
    ));
}
