//! The `stored_keys` target: arbitrary bytes as the stored compressed keys of the default
//! character's first clip (`AnimationData::attach_stored_keys`, what loading a file written by
//! `skel compress --out` runs on each stored clip).
//!
//! Checked beyond "no panic": bytes that attach build a rig and are what that rig stores
//! again; where their decoded keys (in the samplers, played lossless) give a finite pose at
//! the start, middle and end of the clip, so do they; refused bytes leave the data as it was.

use std::sync::{Arc, OnceLock};

use skel_anim::{
    AnimationData, Compression, KeyFormat, NullSink, Player, Rig, RigOptions, StoredKeys,
};

/// The clip the bytes are attached to.
const CLIP: usize = 0;

/// The default character's data (the code rig's first clip has CUBICSPLINE keys, which stay
/// lossless), loaded once.
fn data() -> Option<Arc<AnimationData>> {
    static DATA: OnceLock<Option<Arc<AnimationData>>> = OnceLock::new();
    DATA.get_or_init(crate::rig::fixture_rig).clone()
}

/// Attaches `data` as clip 0's stored keys and plays what attaches.
///
/// # Panics
/// When attached keys do not build a rig, play a pose that is not finite where their decoded
/// keys play a finite one, or do not store back as they came, or a refused attach changed
/// the data: each a bug.
pub fn stored_keys_bytes(bytes: &[u8]) {
    let Some(base) = data() else {
        return;
    };
    let mut d = (*base).clone();
    let keys = StoredKeys::from_bytes(bytes);
    if let Err(e) = d.attach_stored_keys(CLIP, keys.clone()) {
        let _ = e.to_string();
        assert!(d == *base, "a refused attach changed the data");
        return;
    }
    let rig = match Rig::new(Arc::new(d)) {
        Ok(r) => r,
        Err(e) => panic!("attached keys do not build a rig: {e}"),
    };
    assert_eq!(
        rig.stored_keys(CLIP).ok().flatten(),
        Some(keys),
        "attached keys store back as they came"
    );
    // What the stored keys play against what their decoded keys play lossless (the samplers
    // hold them): keys may be finite yet large enough to overflow a pose (as f32 keys may),
    // but where the decoded keys play finite, so must the stored ones.
    let mut plain = AnimationData::clone(rig.data());
    plain.clips[CLIP].stored_keys = None;
    let lossless = match Rig::new(Arc::new(plain)) {
        Ok(r) => r,
        Err(e) => panic!("the decoded keys do not build a rig: {e}"),
    };
    let duration = rig.data().clips[CLIP].duration();
    let (mut stored, mut decoded) = (Player::new(&rig), Player::new(&lossless));
    for t in [0.0, duration * 0.37, duration] {
        let a = stored.evaluate_clip_at(Some(CLIP), t, &mut NullSink);
        let b = decoded.evaluate_clip_at(Some(CLIP), t, &mut NullSink);
        assert_eq!(a.is_ok(), b.is_ok(), "at {t}");
        if decoded.world_matrices().iter().all(|m| m.is_finite()) {
            assert!(
                stored.world_matrices().iter().all(|m| m.is_finite()),
                "stored keys play a pose that is not finite at {t}, their decoded keys a finite one"
            );
        }
    }
}

/// Stored keys of the clip as `skel compress --out` writes them, one per key format: the
/// seeds under `fuzz/seeds/stored_keys/` (`cargo test` in `fuzz/` checks that they match).
#[must_use]
pub fn seeds() -> Vec<(String, Vec<u8>)> {
    let Some(base) = data() else {
        return Vec::new();
    };
    [
        (KeyFormat::Variable, "variable"),
        (KeyFormat::Fixed, "fixed"),
    ]
    .into_iter()
    .filter_map(|(keys, name)| {
        let options = RigOptions {
            compression: Some(Compression {
                keys,
                ..Compression::default()
            }),
            ..RigOptions::default()
        };
        let rig = Rig::with_options(Arc::clone(&base), &options).ok()?;
        let stored = rig.stored_keys(CLIP).ok()??;
        Some((format!("{name}.bin"), stored.as_bytes().to_vec()))
    })
    .collect()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, reason = "tests")]

    use super::*;

    /// The committed seeds are the stored keys this build writes (rewritten with
    /// `SKEL_FUZZ_WRITE_SEEDS=1`), and they attach and play through the harness.
    #[test]
    fn seeds_are_current_and_attach() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("seeds/stored_keys");
        let seeds = seeds();
        assert_eq!(
            seeds.len(),
            2,
            "the fixture is missing: run `cargo xtask fixtures`"
        );
        for (name, bytes) in &seeds {
            let path = dir.join(name);
            if std::env::var_os("SKEL_FUZZ_WRITE_SEEDS").is_some() {
                std::fs::create_dir_all(&dir).unwrap();
                std::fs::write(&path, bytes).unwrap();
            }
            assert_eq!(&std::fs::read(&path).unwrap(), bytes, "{name} is stale");
            let mut d = (*data().unwrap()).clone();
            d.attach_stored_keys(CLIP, StoredKeys::from_bytes(bytes.as_slice()))
                .unwrap();
            stored_keys_bytes(bytes);
        }
        // Truncated and flipped: refused or played, never a panic.
        let (_, bytes) = &seeds[0];
        for len in (0..bytes.len()).step_by(7) {
            stored_keys_bytes(&bytes[..len]);
        }
        for at in (0..bytes.len()).step_by(5) {
            let mut b = bytes.clone();
            b[at] ^= 0x5A;
            stored_keys_bytes(&b);
        }
    }
}
