//! Stored keys into a clip and out of a rig: [`AnimationData::attach_stored_keys`] checks them
//! against the clip's layout and writes their decoded keys into its samplers (what the clip
//! now is); [`Rig::stored_keys`] writes a compressed clip out.

use glam::Vec4;

use crate::rig::plan::lossless_clip;
use crate::sample::four_node::{R_ROWS, ROWS, S_ROWS, T_ROWS};
use crate::{AnimError, AnimationData, Rig, StoredKeys};

impl AnimationData {
    /// Attaches `keys` (written by [`Rig::stored_keys`] for this clip, say from a file) to
    /// clip `clip`: checks them against the clip's nodes and key times, writes their decoded
    /// keys into the samplers of its translation, rotation and scale channels (the f32 keys
    /// a file stored this way no longer holds), and keeps them in
    /// [`Clip::stored_keys`](crate::Clip::stored_keys), so that a [`Rig`] built from this data
    /// plays them, bit for bit what the compressor measured, without compressing again.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use skel_anim::{AnimationData, Channel, ChannelPath, Clip, Compression, Interpolation};
    /// use skel_anim::{NodeRest, Rig, RigOptions, Sampler};
    ///
    /// let times: Vec<f32> = (0..30).map(|k| k as f32 / 30.0).collect();
    /// let values = times.iter().flat_map(|t| [t.sin(), 0.0, 0.0]).collect();
    /// let walk = Sampler::new(times, values, Interpolation::Linear)?;
    /// let channel = Channel { sampler: 0, node: 0, path: ChannelPath::Translation };
    /// let data = AnimationData {
    ///     nodes: vec![NodeRest::new("root", None)],
    ///     clips: vec![Clip::new("walk", vec![walk], vec![channel])],
    ///     ..Default::default()
    /// };
    /// let options = RigOptions { compression: Some(Compression::default()), ..Default::default() };
    /// let rig = Rig::with_options(Arc::new(data.clone()), &options)?;
    /// let keys = rig.stored_keys(0)?.expect("the clip is compressed");
    ///
    /// let mut loaded = data;
    /// loaded.attach_stored_keys(0, keys)?;
    /// let again = Rig::new(Arc::new(loaded))?;
    /// assert_eq!(again.clip_compression(0).unwrap().max_error, rig.clip_compression(0).unwrap().max_error);
    /// # Ok::<(), skel_anim::AnimError>(())
    /// ```
    ///
    /// # Errors
    /// [`AnimError::BadStoredKeys`] when the bytes are corrupt (a decoded key not finite, or a
    /// rotation far from unit length), of another format version, or
    /// written for another layout of the clip (other nodes, channels or key counts), or the
    /// clip has no four-node layout; [`AnimError::NoSuchClip`]; what
    /// [`AnimationData::validate`] finds. The data is unchanged on error.
    pub fn attach_stored_keys(&mut self, clip: usize, keys: StoredKeys) -> Result<(), AnimError> {
        let bad = |reason: &str| AnimError::BadStoredKeys {
            clip,
            reason: reason.to_owned(),
        };
        let cp = lossless_clip(self, clip)?;
        let lossless = cp.quads.as_ref().ok_or_else(|| {
            bad(
                "the clip has no four-node layout (CUBICSPLINE channels, or one group of \
                 four nodes keyed at different times)",
            )
        })?;
        let (plan, _) = super::load(clip, &keys, lossless, &self.nodes)?;
        let decoded = plan.unpacked();
        if decoded.keys.iter().any(|k| !k.is_finite()) {
            return Err(bad("a decoded key is not finite"));
        }
        // A compressor's rotations are unit within its quantisation (10⁻² at 8 bits); far
        // from unit, the bytes are corrupt (and normalising them could overflow).
        let unit = |q: Vec4| (0.25..=4.0).contains(&q.length_squared());
        for (q, end) in decoded.quads.iter().zip(
            decoded
                .quads
                .iter()
                .skip(1)
                .map(|q| q.first)
                .chain([decoded.keys.len()]),
        ) {
            for key in decoded.keys[q.first..end].chunks_exact(ROWS) {
                let rows = [
                    key[R_ROWS],
                    key[R_ROWS + 1],
                    key[R_ROWS + 2],
                    key[R_ROWS + 3],
                ];
                for l in (0..q.lanes).filter(|&l| q.r_keyed.test(l)) {
                    if !unit(Vec4::new(rows[0][l], rows[1][l], rows[2][l], rows[3][l])) {
                        return Err(bad("a decoded rotation is far from unit length"));
                    }
                }
            }
        }
        let counts = super::layout::key_counts(&decoded.quads, decoded.keys.len());
        let mut samplers = self.clips[clip].samplers.clone();
        let vec3 = cp.vec3.len();
        for (qi, q) in decoded.quads.iter().enumerate() {
            let lanes = cp.nodes.iter().skip(qi * 4).take(q.lanes);
            for (l, n) in lanes.enumerate() {
                for (index, first_row, width) in
                    [(n.t, T_ROWS, 3), (n.s, S_ROWS, 3), (n.r, R_ROWS, 4)]
                {
                    let i = index as usize;
                    let track = if i < vec3 {
                        &cp.vec3[i]
                    } else if let Some(t) = cp.quat.get(i - vec3) {
                        t
                    } else {
                        continue;
                    };
                    let out = samplers
                        .get_mut(track.sampler as usize)
                        .map(crate::Sampler::output_mut)
                        .filter(|o| o.len() >= counts[qi] * width)
                        .ok_or_else(|| bad("a track's keys do not match its group's"))?;
                    for (k, value) in out.chunks_exact_mut(width).take(counts[qi]).enumerate() {
                        let key = &decoded.keys[q.first + k * ROWS..][..ROWS];
                        for (c, v) in value.iter_mut().enumerate() {
                            *v = key[first_row + c][l];
                        }
                    }
                }
            }
        }
        let target = &mut self.clips[clip];
        target.samplers = samplers;
        target.stored_keys = Some(keys);
        Ok(())
    }
}

impl Rig {
    /// Clip `clip`'s compressed keys as bytes to store (`None` for a clip compression did not
    /// apply to, see [`Rig::clip_compression`], or one that keys no translation, rotation or
    /// scale): what `skel compress --out` writes into a file, and
    /// [`AnimationData::attach_stored_keys`] reads back.
    ///
    /// # Errors
    /// [`AnimError::NoSuchClip`]; [`AnimError::BadStoredKeys`] when a count passes the
    /// format's 32-bit fields.
    pub fn stored_keys(&self, clip: usize) -> Result<Option<StoredKeys>, AnimError> {
        self.check_clip(clip)?;
        if let Some(keys) = &self.data.clips[clip].stored_keys {
            return Ok(Some(keys.clone()));
        }
        let cp = &self.plan.clips[clip];
        match (&cp.quads, &cp.compression) {
            // A clip that keys no translation, rotation or scale has nothing to store.
            (Some(quads), Some(report)) if quads.packed.is_some() && report.raw_bytes > 0 => {
                super::store(clip, quads, report, &self.data.nodes).map(Some)
            }
            _ => Ok(None),
        }
    }
}
