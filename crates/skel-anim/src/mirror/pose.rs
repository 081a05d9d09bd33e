//! Mirroring a local pose at run time: each node's record written from its partner's through
//! the node's constant terms.

use glam::{Quat, Vec3};

use super::map::MirrorMap;
use crate::{AnimError, R_OFF, S_OFF, T_OFF, TRS_STRIDE};

impl MirrorMap {
    /// Writes the mirror image of local pose `trs_in` into `trs_out` (both [`TRS_STRIDE`]
    /// floats per node: translation at [`T_OFF`], rotation `[x, y, z, w]` at [`R_OFF`],
    /// scale at [`S_OFF`]): node `j` of the output is node `partner(j)` of the input with
    /// `t' = A_parent⁻¹ · t` (plus the plane's offset on a root), `q' = a_j · q · b_j`,
    /// `s'` the scale seen through `A_j`. Posed, the output puts every node where the
    /// reflection of its partner was, turned as the reflection of its partner was; mirroring
    /// the output again gives the input back (to rounding). The padding floats of the output
    /// are left as they were.
    ///
    /// Allocates nothing and reads no world matrix: a player can run it every frame between
    /// blending and local → world. Rotations keep the length they had (no normalisation), so
    /// that a mirrored clip sampled is the sampled clip mirrored.
    ///
    /// # Errors
    /// [`AnimError::LengthMismatch`] when either buffer holds fewer than
    /// [`node_count`](Self::node_count) records (then nothing is written).
    ///
    /// ```
    /// use skel_anim::{AnimationData, MirrorMap, NodeRest, TRS_STRIDE, T_OFF};
    ///
    /// let leg = |name: &str, x: f32| NodeRest { translation: [x, -1.0, 0.0], ..NodeRest::new(name, Some(0)) };
    /// let data = AnimationData {
    ///     nodes: vec![NodeRest::new("Hips", None), leg("Leg_L", 1.0), leg("Leg_R", -1.0)],
    ///     ..AnimationData::default()
    /// };
    /// let map = MirrorMap::from_names(&data)?;
    /// let mut pose = vec![0.0; 3 * TRS_STRIDE];
    /// for (node, rec) in pose.chunks_mut(TRS_STRIDE).enumerate() {
    ///     rec[T_OFF..T_OFF + 3].copy_from_slice(&data.nodes[node].translation);
    ///     rec[6] = 1.0; // w
    ///     rec[7..10].fill(1.0); // scale
    /// }
    /// pose[TRS_STRIDE + T_OFF + 2] = 0.5; // the left leg steps forward
    /// let mut mirrored = vec![0.0; pose.len()];
    /// map.mirror_pose(&pose, &mut mirrored)?;
    /// let right = &mirrored[2 * TRS_STRIDE..];
    /// assert!((right[T_OFF] + 1.0).abs() < 1e-6 && (right[T_OFF + 2] - 0.5).abs() < 1e-6);
    /// # Ok::<(), skel_anim::AnimError>(())
    /// ```
    pub fn mirror_pose(&self, trs_in: &[f32], trs_out: &mut [f32]) -> Result<(), AnimError> {
        let needed = self.node_count() * TRS_STRIDE;
        for (what, got) in [
            ("mirror input TRS records", trs_in.len()),
            ("mirror output TRS records", trs_out.len()),
        ] {
            if got < needed {
                return Err(AnimError::LengthMismatch {
                    what,
                    expected: needed,
                    got,
                });
            }
        }
        let records_out = trs_out.chunks_exact_mut(TRS_STRIDE);
        for (term, out) in self.terms().iter().zip(records_out) {
            let at = term.source * TRS_STRIDE;
            let Some(src) = trs_in.get(at..at + TRS_STRIDE) else {
                continue;
            };
            let t = term.translation(Vec3::from_slice(&src[T_OFF..T_OFF + 3]), true);
            let q = term.rotation(Quat::from_slice(&src[R_OFF..R_OFF + 4]));
            let s = term.scale(Vec3::from_slice(&src[S_OFF..S_OFF + 3]));
            t.write_to_slice(&mut out[T_OFF..T_OFF + 3]);
            q.write_to_slice(&mut out[R_OFF..R_OFF + 4]);
            s.write_to_slice(&mut out[S_OFF..S_OFF + 3]);
        }
        Ok(())
    }
}
