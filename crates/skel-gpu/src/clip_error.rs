//! What resampling costs: the pose the GPU pass reconstructs from a [`GpuClipSet`]'s frames,
//! computed on the CPU with the shader's arithmetic (index, lerp, normalised lerp), against the
//! rig's own playback of the same clip at the same time ([`Playback`]: its compressed keys
//! when the rig was built with [`Compression`](skel_anim::Compression), else the asset's),
//! measured on the bone matrices.
//!
//! [`GpuClipSet`]: crate::GpuClipSet

use glam::{Mat4, Vec4};
use skel_anim::{
    Layer, LayerDesc, LayerMix, PoseScratch, R_OFF, RecordingSink, Rig, S_OFF, T_OFF, TRS_STRIDE,
};

use crate::GpuError;

/// Vec4s per posed node in a frame: translation (xyz, 0), rotation (xyzw), scale (xyz, 0).
pub const POSE_NODE_VEC4S: u32 = 3;

/// The rig's own playback of one clip at a time: a blend layer at weight 1 per clip, mixed
/// into the caller's scratch by [`skel_anim::mix_layers`] (the [`Player`](skel_anim::Player)'s
/// layer step, which reads a compressed rig's compressed keys wherever its passes do), over
/// the rest pose. What a [`GpuClipSet`](crate::GpuClipSet) samples, and what its error is
/// measured against.
pub(crate) struct Playback<'r> {
    rig: &'r Rig,
    layers: Vec<Layer>,
    mix: LayerMix,
}

impl<'r> Playback<'r> {
    /// One layer per clip of `rig` (allocates).
    pub(crate) fn new(rig: &'r Rig) -> Result<Self, GpuError> {
        let layers = (0..rig.clip_count())
            .map(|clip| {
                Layer::new(rig, &LayerDesc::new(clip)).map_err(|e| GpuError::OutOfRange {
                    what: "GpuClipSet clip",
                    got: format!("{clip} ({e})"),
                    expected: "a clip the rig plays",
                })
            })
            .collect::<Result<_, _>>()?;
        Ok(Self {
            rig,
            layers,
            mix: LayerMix::new(rig),
        })
    }

    /// The rig.
    pub(crate) fn rig(&self) -> &'r Rig {
        self.rig
    }

    /// Poses `clip` at `time` (clamped to the clip) into `scratch`'s local transforms and
    /// morph weights.
    pub(crate) fn pose(&mut self, clip: usize, time: f32, scratch: &mut PoseScratch) {
        skel_anim::reset_to_rest(self.rig.data(), scratch);
        let layer = &mut self.layers[clip];
        layer.clock_mut().seek(time);
        skel_anim::mix_layers(
            self.rig,
            std::slice::from_mut(layer),
            scratch,
            &mut self.mix,
        );
    }
}

/// The two poses' bone matrices, kept between measurements so that they allocate once.
#[derive(Debug, Default)]
pub(crate) struct Reconstruction {
    played: RecordingSink,
    resampled: RecordingSink,
}

/// The frame index and the fraction towards the next frame at `time` in a clip of `frames`
/// frames at `rate` frames per second, as the shader finds them: `f = time × rate`,
/// `i = min(floor(f), frames − 2)`.
#[must_use]
pub fn frame_at(rate: f32, frames: u32, time: f32) -> (u32, f32) {
    let f = (time * rate).max(0.0);
    let last = frames.saturating_sub(2);
    let i = (f.floor() as u32).min(last);
    (i, (f - i as f32).clamp(0.0, 1.0))
}

/// The larger of `|Δtranslation| + radius × ‖Δlinear‖` over the bones of two poses.
#[must_use]
pub fn bone_error(a: &Mat4, b: &Mat4, radius: f32) -> f32 {
    let d = *a - *b;
    let linear = (d.x_axis.truncate().length_squared()
        + d.y_axis.truncate().length_squared()
        + d.z_axis.truncate().length_squared())
    .sqrt();
    d.w_axis.truncate().length() + radius * linear
}

/// A clip's resampled frames: the posed nodes (asset indices) in row order, the row length in
/// vec4s, the frames, and their rate and count.
pub(crate) struct Resampled<'a> {
    pub(crate) nodes: &'a [usize],
    pub(crate) row_vec4s: u32,
    pub(crate) rows: &'a [Vec4],
    pub(crate) rate: f32,
    pub(crate) frames: u32,
}

/// Bone error of the resampled `clip` against the rig's playback of it at `time` (the largest
/// over every bone of every binding).
pub(crate) fn pose_error(
    playback: &mut Playback<'_>,
    clip: usize,
    resampled: &Resampled<'_>,
    (time, radius): (f32, f32),
    scratch: &mut PoseScratch,
    recon: &mut Reconstruction,
) -> f32 {
    let data = &**playback.rig().data();
    playback.pose(clip, time, scratch);
    skel_anim::compute_world_matrices(data, scratch);
    skel_anim::compute_bone_matrices(data, scratch, &mut recon.played);

    skel_anim::reset_to_rest(data, scratch);
    let (i, s) = frame_at(resampled.rate, resampled.frames, time);
    let (row, rows) = (resampled.row_vec4s as usize, resampled.rows);
    let (a, b) = (&rows[i as usize * row..], &rows[(i as usize + 1) * row..]);
    for (k, &node) in resampled.nodes.iter().enumerate() {
        let at = k * POSE_NODE_VEC4S as usize;
        let t = a[at].lerp(b[at], s);
        let r = a[at + 1].lerp(b[at + 1], s).normalize();
        let sc = a[at + 2].lerp(b[at + 2], s);
        let rec = &mut scratch.trs[node * TRS_STRIDE..(node + 1) * TRS_STRIDE];
        rec[T_OFF..T_OFF + 3].copy_from_slice(&t.to_array()[..3]);
        rec[R_OFF..R_OFF + 4].copy_from_slice(&r.to_array());
        rec[S_OFF..S_OFF + 3].copy_from_slice(&sc.to_array()[..3]);
    }
    skel_anim::compute_world_matrices(data, scratch);
    skel_anim::compute_bone_matrices(data, scratch, &mut recon.resampled);
    recon
        .played
        .bone_matrices
        .iter()
        .zip(&recon.resampled.bone_matrices)
        .flat_map(|(a, b)| a.iter().zip(b))
        .map(|(a, b)| bone_error(a, b, radius))
        .fold(0.0, f32::max)
}
