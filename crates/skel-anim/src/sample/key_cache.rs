//! One character's decoded keys of a compressed clip: per packed quad, the last two keys
//! decoded, kept in the character's [`PoseScratch`](crate::PoseScratch) so that playback
//! decodes each key once as it passes it instead of both keys every frame. At 60 fps a 30 Hz
//! clip's key interval spans two frames; decoding bit-packed keys (`sample/lane_bits.rs`)
//! costs more than sampling them, and every frame but the first of an interval then reads its
//! keys as lossless keys are read (ozz-animation's sampling context does the same). A slot is
//! a pure function of the plan, the clip, the quad and the key index, so it stays valid
//! whatever the character did in between. Memory: 320 bytes per quad of the rig's largest
//! compressed clip, per character (CesiumMan 1.6 KB, Rig368 29 KB); none for lossless rigs.

use glam::Vec4;

use crate::sample::four_node::{QuadRows, ROWS};

/// The key index of an empty slot.
const EMPTY: u32 = u32::MAX;

/// Per quad of the clip last played from compressed keys, two keys decoded.
#[derive(Debug, Clone, Default)]
pub(crate) struct KeyCache {
    /// The clip the slots belong to.
    clip: Option<usize>,
    /// Per quad, the key index each of its two slots holds ([`EMPTY`]: none).
    keys: Vec<[u32; 2]>,
    /// Per quad, each slot's rows.
    rows: Vec<[QuadRows; 2]>,
}

impl KeyCache {
    /// Room for `quads` quads, so that [`prepare`](Self::prepare) never allocates for a clip
    /// of at most that many.
    pub(crate) fn with_capacity(quads: usize) -> Self {
        Self {
            clip: None,
            keys: Vec::with_capacity(quads),
            rows: Vec::with_capacity(quads),
        }
    }

    /// Slots for clip `clip` of `quads` quads: emptied where they were another clip's.
    pub(crate) fn prepare(&mut self, clip: usize, quads: usize) {
        if self.clip != Some(clip) || self.keys.len() != quads {
            self.clip = Some(clip);
            self.keys.clear();
            self.keys.resize(quads, [EMPTY; 2]);
            self.rows.resize(quads, [[Vec4::ZERO; ROWS]; 2]);
        }
    }

    /// Quad `qi`'s keys `a` and `b`, each decoded by `decode` (key, rows) into a slot where
    /// neither slot holds it. A key is kept per slot rather than per interval: a time that
    /// lands just short of a key (the interval before, at its end) and the next frame's
    /// interval share that key, so each key is decoded once as playback passes it.
    #[inline(always)]
    pub(crate) fn pair(
        &mut self,
        qi: usize,
        a: u32,
        b: u32,
        mut decode: impl FnMut(u32, &mut QuadRows),
    ) -> (&QuadRows, &QuadRows) {
        let (slots, rows) = (&mut self.keys[qi], &mut self.rows[qi]);
        let ia = if let Some(i) = slots.iter().position(|&k| k == a) {
            i
        } else {
            // The slot that does not hold `b`.
            let i = usize::from(slots[0] == b);
            decode(a, &mut rows[i]);
            slots[i] = a;
            i
        };
        let ib = if let Some(i) = slots.iter().position(|&k| k == b) {
            i
        } else {
            let i = 1 - ia;
            decode(b, &mut rows[i]);
            slots[i] = b;
            i
        };
        (&rows[ia], &rows[ib])
    }
}
