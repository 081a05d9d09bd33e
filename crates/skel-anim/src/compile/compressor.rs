//! The compressor of [`Compression`]: chooses how each group of a clip's four-node keys is
//! stored ([`Width`]) so that the virtual-shell error of every node stays within the bound
//! (the Animation Compression Library's method): rotations first switch to the normalised
//! lerp, quad by quad, where that alone keeps within half the bound; then, for
//! [`KeyFormat::Fixed`], parents first, each moving group is tried held, at 8 bits and at 16
//! bits, the first that keeps the bound kept; for [`KeyFormat::Variable`] every moving group
//! is bit-packed (`sample/lane_bits.rs`), each lane and segment at the fewest bits that keep
//! its own error within a tolerance: the bound scaled by how far its error carries (a
//! rotation's to the joint's farthest descendant plus the shell, a translation's by its
//! parent's scale). One factor on every tolerance is bisected, the largest whose whole clip
//! stays within the bound kept, then groups, segments and lanes go coarser where the error
//! left allows (`compile/variable.rs`). A trial plays the clip through the same decoder and
//! pass as playback, so the error measured is the error of what plays, and measures it
//! against the clip itself as glTF defines it, in f64 (`compile/clip_reference.rs`), on a
//! shell in the model's units (the static scale above each joint taken out): skel's lossless
//! f32 playback is not the reference, so its own error is not spent twice. The bound holds
//! for that error plus two ulps of each joint's coordinates (another evaluation of the same
//! pose rounds differently, by ulps that grow with the distance from the origin).

use glam::{BVec4A, Vec4};

use crate::compile::choice::{Choice, Groups};
use crate::compile::trials::{Measure, Trials};
use crate::compile::variable::{refine_segments, search_variable};
use crate::rig::four_node::QuadPlan;
use crate::rig::options::{ClipCompression, Compression, KeyFormat};
use crate::rig::plan::PosePlan;
use crate::sample::four_node::ROWS;
use crate::sample::packed::{GROUPS, PackedKeys, Width};
use crate::{AnimationData, Clip, NodeRest};

/// Fractions of each key interval measured besides the keys: the normalised lerp meets the
/// slerp at the keys and half-way and strays most about a quarter of the way.
const BETWEEN_KEYS: [f32; 3] = [0.25, 0.5, 0.75];

/// Fractions of each key interval the chosen keys are checked at.
const FINE_BETWEEN_KEYS: [f32; 7] = [0.125, 0.25, 0.375, 0.5, 0.625, 0.75, 0.875];

/// The chosen keys are checked every 1/240 s of the clip too: the frames of a 240 Hz display,
/// the rate `skel compress` and the tests measure at, which fall between eighths of keys at
/// 24 Hz.
const CHECK_RATE: f32 = 240.0;

/// Compresses the four-node keys of every clip of `plan` (built lossless from `data`) under
/// `compression`, recording each clip's report: what
/// [`Rig::with_options`](crate::Rig::with_options) does when compression is asked for. Clips
/// without four-node keys (CUBICSPLINE, or past the layout's size budget) stay lossless;
/// clips with stored keys keep them.
pub(crate) fn compress_clips(plan: &mut PosePlan, data: &AnimationData, compression: &Compression) {
    for (clip_plan, clip) in plan.clips.iter_mut().zip(&data.clips) {
        let Some(lossless) = &clip_plan.quads else {
            continue;
        };
        if clip.stored_keys.is_some() {
            // Already compressed: what the file holds plays.
            continue;
        }
        let raw_bytes = clip_plan
            .vec3
            .iter()
            .chain(&clip_plan.quat)
            .map(|t| clip.samplers[t.sampler as usize].output().len() * 4)
            .sum();
        let (packed, report) = compress(
            lossless,
            clip,
            &clip_plan.timelines.representative,
            &data.nodes,
            compression,
            raw_bytes,
        );
        clip_plan.quads = Some(packed);
        clip_plan.compression = Some(report);
    }
}

/// `lossless` compressed by `c` (the clip's times from `clip` and each timeline's
/// representative sampler `representative`; the error against `clip` itself over the rig's
/// nodes `rest`), with the report. `raw_bytes` is the clip's f32 key bytes, for the report.
pub(crate) fn compress(
    lossless: &QuadPlan,
    clip: &Clip,
    representative: &[u32],
    rest: &[NodeRest],
    c: &Compression,
    raw_bytes: usize,
) -> (QuadPlan, ClipCompression) {
    let measure = |between, rate| Measure {
        between,
        rate,
        shell: c.shell,
    };
    let mut trials = Trials::new(
        lossless,
        clip,
        rest,
        representative,
        &measure(&BETWEEN_KEYS, None),
    );
    let groups = Groups::new(lossless);
    // The search measures a quarter, half and three quarters of each key interval; the
    // result is checked at every eighth and every 1/240 s, and searched again a little
    // tighter while it strays past the bound there.
    let mut fine = Trials::new(
        lossless,
        clip,
        rest,
        representative,
        &measure(&FINE_BETWEEN_KEYS, Some(CHECK_RATE)),
    );
    let mut bound = c.bound;
    let (mut choice, mut plan, nlerp, rounded) = loop {
        let (choice, plan, nlerp) = search(&mut trials, &groups, c, bound);
        fine.accept(&plan);
        // Each node's error plus how far f32 rounding alone may move it where the player
        // runs: joints far from the origin come out some ulps apart in the trials' pass and
        // in other evaluations of the same pose.
        let rounded = fine.max_rounded_error();
        if rounded <= c.bound || bound < c.bound * 0.5 {
            break (choice, plan, nlerp, rounded);
        }
        bound *= (c.bound / rounded).min(0.99);
    };
    if c.keys == KeyFormat::Variable && rounded <= c.bound {
        // What the search left of the bound, measured where the result is checked.
        refine_segments(&mut fine, &groups, &mut choice, &mut plan, &nlerp, c.bound);
        fine.accept(&plan);
    }
    let max_error = fine.max_error();
    let packed = plan.packed.as_ref();
    let mut report = ClipCompression {
        raw_bytes,
        lossless_bytes: lossless.keys.len() * 16,
        compressed_bytes: stored_bytes(&groups, &choice, rest),
        memory_bytes: packed.map_or(0, PackedKeys::memory_bytes),
        nlerp: nlerp.iter().filter(|&&n| n).count(),
        max_error,
        ..ClipCompression::default()
    };
    for (qi, widths) in choice.widths.iter().enumerate() {
        for (&width, source) in widths.iter().zip(&groups.sources[qi]) {
            match width {
                Width::Held if source.is_some() => report.held += 1,
                Width::Held => {}
                Width::Bits8 => report.bits8 += 1,
                Width::Bits16 => report.bits16 += 1,
                Width::Lanes => report.packed += 1,
                Width::F32 => report.float32 += 1,
            }
        }
    }
    (plan, report)
}

/// The choice within `bound` (see the module's docs), its plan and the quads whose rotations
/// interpolate by normalised lerp.
fn search(
    trials: &mut Trials,
    groups: &Groups<'_>,
    c: &Compression,
    bound: f32,
) -> (Choice, QuadPlan, Vec<bool>) {
    let lossless_choice = groups.every_moving(Width::F32);
    // Normalised lerp quad by quad (parents first) while it alone keeps within half the bound.
    let mut nlerp = vec![false; groups.lossless.quads.len()];
    let mut current = groups.build(&lossless_choice, &nlerp);
    trials.accept(&current);
    for (qi, q) in groups.lossless.quads.iter().enumerate() {
        if c.nlerp && !q.r_const {
            nlerp[qi] = true;
            let trial = groups.build(&lossless_choice, &nlerp);
            if trials.try_plan(&trial, &current, qi, bound * 0.5) {
                current = trial;
            } else {
                nlerp[qi] = false;
            }
        }
    }
    let start = (lossless_choice, current);
    match c.keys {
        KeyFormat::Fixed => search_fixed(trials, groups, bound, nlerp, start),
        KeyFormat::Variable => search_variable(trials, groups, c, bound, nlerp, start),
    }
}

/// [`KeyFormat::Fixed`]'s choice within `bound` from the lossless one (`start`, the
/// rotations of quads in `nlerp` by normalised lerp): parents first, each moving group held at
/// its first key, else at 8 bits, else at 16, else kept as f32, the first that keeps every
/// node within the bound.
fn search_fixed(
    trials: &mut Trials,
    groups: &Groups<'_>,
    bound: f32,
    nlerp: Vec<bool>,
    (mut choice, mut current): (Choice, QuadPlan),
) -> (Choice, QuadPlan, Vec<bool>) {
    for qi in 0..choice.widths.len() {
        for g in 0..3 {
            if choice.widths[qi][g] != Width::F32 {
                continue;
            }
            for width in [Width::Held, Width::Bits8, Width::Bits16] {
                choice.widths[qi][g] = width;
                let trial = groups.build(&choice, &nlerp);
                if trials.try_plan(&trial, &current, qi, bound) {
                    current = trial;
                    break;
                }
                choice.widths[qi][g] = Width::F32;
            }
        }
    }
    (choice, current, nlerp)
}

/// The bytes a file holds for `choice`, as ACL counts them (the stored keys, `compile/stored`,
/// are these made real, a little more): a header, two bits per node and group (rest,
/// constant or keyed), the values of constant keyed lanes that differ from the node's rest
/// (`rest`: the rig holds those), each bit-packed group's clip ranges, segment ranges,
/// widths and fields, each quantised group's rows and ranges, each f32 group's moving lanes,
/// a bit per quad for the interpolation rule.
fn stored_bytes(groups: &Groups<'_>, choice: &Choice, rest: &[NodeRest]) -> usize {
    const HEADER: usize = 16;
    let (lossless, sources) = (groups.lossless, &groups.sources);
    // A constant value: three f32 (a rotation's w rebuilt).
    const CONSTANT: usize = 12;
    let lanes: usize = lossless.quads.iter().map(|q| q.lanes).sum();
    let mut bytes = HEADER + (lanes * 3 * 2).div_ceil(8) + lossless.quads.len().div_ceil(8);
    for (qi, q) in lossless.quads.iter().enumerate() {
        let keyed = [q.t_keyed, q.s_keyed, q.r_keyed];
        let first = &lossless.keys[q.first..q.first + ROWS];
        for g in 0..3 {
            let (constant, stored) = match (
                &sources[qi][g],
                choice.widths[qi][g],
                &choice.layouts[qi][g],
            ) {
                (Some(src), Width::Lanes, Some(layout)) => {
                    (keyed[g] & src.held(), layout.stored_bytes)
                }
                (Some(src), Width::F32, _) => {
                    let moving = (0..q.lanes).filter(|&l| !src.held().test(l)).count();
                    (keyed[g] & src.held(), moving * 4 * GROUPS[g].1 * src.keys())
                }
                (Some(src), width @ (Width::Bits8 | Width::Bits16), _) => {
                    // Four lanes a row, and each row's range (a minimum and a step per lane).
                    let value = if width == Width::Bits8 { 1 } else { 2 };
                    (
                        BVec4A::splat(false),
                        GROUPS[g].1 * (src.keys() * 4 * value + 32),
                    )
                }
                _ => (keyed[g], 0),
            };
            let differ = (0..q.lanes)
                .filter(|&l| constant.test(l) && !is_rest(first, g, l, &rest[q.nodes[l] as usize]))
                .count();
            bytes += differ * CONSTANT + stored;
        }
    }
    bytes
}

/// Whether lane `l` of group `g` of the key `key` holds the node's rest value (a rotation's
/// either sign), within f32 rounding.
fn is_rest(key: &[Vec4], g: usize, l: usize, rest: &NodeRest) -> bool {
    let near = |v: f32, r: f32| (v - r).abs() <= 1e-6 * r.abs().max(1.0);
    let (first, _) = GROUPS[g];
    match g {
        0 => (0..3).all(|c| near(key[first + c][l], rest.translation[c])),
        1 => (0..3).all(|c| near(key[first + c][l], rest.scale[c])),
        _ => [1.0, -1.0]
            .iter()
            .any(|sign| (0..4).all(|c| near(key[first + c][l] * sign, rest.rotation[c]))),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, reason = "tests")]

    use super::*;
    use crate::compile::test_chain::chain;
    use crate::pose::four_node::Baseline;
    use crate::rig::layout::Transform;
    use crate::sample::cursor::Segment;
    use glam::Vec4;

    #[test]
    fn packed_playback_is_the_unpacked_keys_played_bit_for_bit() {
        for keys in [KeyFormat::Fixed, KeyFormat::Variable] {
            packed_plays_as_unpacked(keys);
        }
    }

    fn packed_plays_as_unpacked(keys: KeyFormat) {
        let data = chain();
        let options = crate::RigOptions {
            kernels: crate::CpuKernels::Baseline,
            compression: Some(Compression {
                bound: 1e-3,
                nlerp: false,
                keys,
                ..Compression::default()
            }),
        };
        let mut plan = crate::rig::plan::PosePlan::with_options(&data, &options).unwrap();
        compress_clips(&mut plan, &data, options.compression.as_ref().unwrap());
        let packed = plan.clips[0].quads.as_ref().unwrap();
        let p = packed.packed.as_ref().unwrap();
        assert!(packed.keys.is_empty() && !p.nlerp.contains(&true));
        assert!(
            p.quads
                .iter()
                .flatten()
                .any(|g| matches!(g.width, Width::Bits8 | Width::Bits16 | Width::Lanes)),
            "something is quantised"
        );
        let unpacked = packed.unpacked();
        let root = Transform::Diagonal(Vec4::ONE);
        let (mut a, mut b) = (vec![0.0; 5 * 16], vec![0.0; 5 * 16]);
        for (key, s) in [(0, 0.0), (2, 0.3), (7, 0.99), (8, 0.0)] {
            let seg = [Segment {
                a: key,
                b: (key + 1).min(8),
                s,
            }];
            packed.pose_into::<false, _, _>(
                &seg,
                &mut [],
                &mut a,
                &root,
                Baseline,
                crate::pose::four_node::NoOffset,
            );
            unpacked.pose_into::<false, _, _>(
                &seg,
                &mut [],
                &mut b,
                &root,
                Baseline,
                crate::pose::four_node::NoOffset,
            );
            assert_eq!(
                a.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
                b.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
                "{keys:?} key {key} s {s}"
            );
        }
    }
}
