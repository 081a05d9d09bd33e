//! Sampling a clip's LINEAR/STEP transform tracks into dense buffers: what the controller's
//! pose and every layer of a blend run each frame.

use glam::Vec4;

use crate::Clip;
use crate::interpolate;
use crate::plan::ClipPlan;
use crate::timeline::{Segment, TimeCursor};

/// Evaluates every track of `cp` (the plan of `clip`) at `time`: translation/scale tracks
/// into `vec3_out` (`xyz`; `w` is not meaningful), rotation tracks into `quat_out`, in the
/// plan's track order. One key search per distinct key-time array (`cursors`, one per
/// timeline of the clip, keep the intervals between frames; `segments` is scratch for them).
/// LINEAR rotations use the polynomial slerp, four at a time; the values are bit for bit those
/// of [`evaluate_sampler`](crate::evaluate_sampler).
///
/// # Panics
/// When a buffer is shorter than the clip's timelines or tracks (callers size them from the
/// plan).
#[inline]
pub(crate) fn sample_tracks(
    clip: &Clip,
    cp: &ClipPlan,
    time: f32,
    cursors: &mut [TimeCursor],
    segments: &mut [Segment],
    vec3_out: &mut [Vec4],
    quat_out: &mut [Vec4],
) {
    debug_assert!(
        cursors.len() >= cp.timelines.len()
            && vec3_out.len() >= cp.vec3.len()
            && quat_out.len() >= cp.quat.len(),
        "track buffers sized from another plan"
    );
    let segments = &mut segments[..cp.timelines.len()];
    for ((seg, cursor), &rep) in segments
        .iter_mut()
        .zip(cursors)
        .zip(&cp.timelines.representative)
    {
        *seg = cursor.locate(clip.samplers[rep as usize].input(), time);
    }
    let segments = &*segments;
    for (tr, v) in cp.vec3.iter().zip(vec3_out.iter_mut()) {
        let seg = segments[tr.timeline as usize];
        let out = clip.samplers[tr.sampler as usize].padded_output();
        let a = Vec4::from_slice(&out[seg.a as usize * 3..seg.a as usize * 3 + 4]);
        *v = if tr.step {
            a
        } else {
            let b = Vec4::from_slice(&out[seg.b as usize * 3..seg.b as usize * 3 + 4]);
            a + (b - a) * seg.s
        };
    }
    // Rotations four at a time (structure of arrays), the rest one by one; both give the
    // bits `evaluate_sampler` gives.
    let mut quads = cp.quat.chunks_exact(4);
    let mut outs = quat_out.chunks_exact_mut(4);
    for (quad, dst) in (&mut quads).zip(&mut outs) {
        let mut a = [Vec4::ZERO; 4];
        let mut b = [Vec4::ZERO; 4];
        let mut s = [0.0_f32; 4];
        let mut copy = [false; 4];
        for (lane, tr) in quad.iter().enumerate() {
            let seg = segments[tr.timeline as usize];
            let out = clip.samplers[tr.sampler as usize].output();
            a[lane] = Vec4::from_slice(&out[seg.a as usize * 4..seg.a as usize * 4 + 4]);
            b[lane] = Vec4::from_slice(&out[seg.b as usize * 4..seg.b as usize * 4 + 4]);
            s[lane] = seg.s;
            copy[lane] = tr.step || seg.a == seg.b;
        }
        let q = interpolate::slerp4(a, b, Vec4::from_array(s), glam::BVec4A::from_array(copy));
        dst.copy_from_slice(&q);
    }
    let rest = quads.remainder();
    let done = cp.quat.len() - rest.len();
    for (tr, dst) in rest.iter().zip(quat_out[done..].iter_mut()) {
        let seg = segments[tr.timeline as usize];
        let out = clip.samplers[tr.sampler as usize].output();
        let a = Vec4::from_slice(&out[seg.a as usize * 4..seg.a as usize * 4 + 4]);
        // A clamped time (a == b) is a copy, as in `evaluate_sampler`: bit for bit the same.
        *dst = if tr.step || seg.a == seg.b {
            interpolate::normalize_quat(a)
        } else {
            let b = Vec4::from_slice(&out[seg.b as usize * 4..seg.b as usize * 4 + 4]);
            interpolate::slerp(a, b, seg.s)
        };
    }
}
