//! Sampling a clip's LINEAR/STEP transform tracks into dense buffers: what the controller's
//! pose and every layer of a blend run each frame.

use glam::Vec4;

use crate::Clip;
use crate::math::interpolate;
use crate::rig::clip_plan::ClipPlan;
use crate::sample::cursor::{Segment, TimeCursor};

/// The key interval of `time` on every timeline of `cp` (the plan of `clip`), into
/// `segments[..timelines]`, moving each timeline's cursor.
#[inline]
pub(crate) fn locate_segments(
    clip: &Clip,
    cp: &ClipPlan,
    time: f32,
    cursors: &mut [TimeCursor],
    segments: &mut [Segment],
) {
    for ((seg, cursor), &rep) in segments[..cp.timelines.len()]
        .iter_mut()
        .zip(cursors)
        .zip(&cp.timelines.representative)
    {
        *seg = cursor.locate(clip.samplers[rep as usize].input(), time);
    }
}

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
    locate_segments(clip, cp, time, cursors, segments);
    let segments = &segments[..cp.timelines.len()];
    for block in &cp.blocks {
        let seg = segments[block.timeline as usize];
        let w = block.width();
        let (a, b) = (seg.a as usize * w, seg.b as usize * w);
        let (va, qa) = block.keys[a..a + w].split_at(block.vec3.len());
        let (vb, qb) = block.keys[b..b + w].split_at(block.vec3.len());
        let vout = &mut vec3_out[block.vec3.clone()];
        let vtracks = &cp.vec3[block.vec3.clone()];
        if block.has_step {
            for (((o, &a), &b), tr) in vout.iter_mut().zip(va).zip(vb).zip(vtracks) {
                *o = if tr.step { a } else { a + (b - a) * seg.s };
            }
        } else {
            for ((o, &a), &b) in vout.iter_mut().zip(va).zip(vb) {
                *o = a + (b - a) * seg.s;
            }
        }
        // Rotations four at a time (structure of arrays), the rest one by one; both give the
        // bits `evaluate_sampler` gives. A clamped time (a == b) or a STEP track copies key a.
        let clamped = seg.a == seg.b;
        let qout = &mut quat_out[block.quat.clone()];
        let qtracks = &cp.quat[block.quat.clone()];
        let mut quads = qout.chunks_exact_mut(4);
        let mut qa4 = qa.chunks_exact(4);
        let mut qb4 = qb.chunks_exact(4);
        let mut t4 = qtracks.chunks_exact(4);
        for (((o, a), b), tr) in (&mut quads).zip(&mut qa4).zip(&mut qb4).zip(&mut t4) {
            let copy = glam::BVec4A::new(
                clamped || tr[0].step,
                clamped || tr[1].step,
                clamped || tr[2].step,
                clamped || tr[3].step,
            );
            let q = interpolate::slerp4(
                [a[0], a[1], a[2], a[3]],
                [b[0], b[1], b[2], b[3]],
                Vec4::splat(seg.s),
                copy,
            );
            o.copy_from_slice(&q);
        }
        for (((o, &a), &b), tr) in quads
            .into_remainder()
            .iter_mut()
            .zip(qa4.remainder())
            .zip(qb4.remainder())
            .zip(t4.remainder())
        {
            *o = if clamped || tr.step {
                interpolate::normalize_quat(a)
            } else {
                interpolate::slerp(a, b, seg.s)
            };
        }
    }
}
