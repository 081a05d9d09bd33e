//! The compressor of [`Compression`]: chooses, group by group, how a clip's four-node keys are
//! stored ([`Width`]) so that the virtual-shell error of every node stays within the bound
//! (the Animation Compression Library's method, greedy): rotations first switch to the
//! normalised lerp if that alone keeps within half the bound; then, parents first, each
//! moving group is tried held at its first key, then at 8 bits, then at 16, and kept as f32
//! when none of those keeps every node within the bound. A trial plays the whole clip with
//! every choice made so far, through the same decoder and pass as playback, so the error
//! measured is the error of what plays.

use glam::Vec4;

use crate::math::interpolate;
use crate::pose::four_node::Baseline;
use crate::rig::four_node::{QuadPlan, fix_if_constant, hold_constants};
use crate::rig::layout::Transform;
use crate::rig::options::{ClipCompression, Compression};
use crate::rig::plan::PosePlan;
use crate::sample::cursor::{Segment, TimeCursor};
use crate::sample::four_node::ROWS;
use crate::sample::packed::{GROUPS, PackedKeys, Width};
use crate::{AnimationData, Clip};

/// Fractions of each key interval measured besides the keys: the normalised lerp meets the
/// slerp at the keys and half-way and strays most about a quarter of the way.
const BETWEEN_KEYS: [f32; 3] = [0.25, 0.5, 0.75];

/// The clip's plays at the measured times: the lossless world matrices there, and those of
/// the plan accepted so far (which a trial changes from its quad on, in place).
struct Trials {
    /// `timelines` segments per measured time.
    segments: Vec<Segment>,
    timelines: usize,
    /// `nodes · 16` floats per measured time.
    reference: Vec<f32>,
    nodes: usize,
    /// The nodes the quads place (where errors are measured), in quad order.
    placed: Vec<u32>,
    /// Where each quad's nodes start in `placed`.
    placed_from: Vec<usize>,
    /// `nodes · 16` floats per measured time: the accepted plan's world matrices.
    accepted: Vec<f32>,
    shell: f32,
    /// Scratch: one frame's world matrices.
    world: Vec<f32>,
}

/// Compresses the four-node keys of every clip of `plan` (built lossless from `data`) under
/// `compression`, recording each clip's report: what
/// [`Rig::with_options`](crate::Rig::with_options) does when compression is asked for. Clips
/// without four-node keys (CUBICSPLINE, or past the layout's size budget) stay lossless.
pub(crate) fn compress_clips(plan: &mut PosePlan, data: &AnimationData, compression: &Compression) {
    let nodes = data.nodes.len();
    for (clip_plan, clip) in plan.clips.iter_mut().zip(&data.clips) {
        let Some(lossless) = &clip_plan.quads else {
            continue;
        };
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
            nodes,
            compression,
            raw_bytes,
        );
        clip_plan.quads = Some(packed);
        clip_plan.compression = Some(report);
    }
}

/// `lossless` compressed by `c` (the clip's times from `clip` and each timeline's
/// representative sampler `representative`, `nodes` nodes in the rig), with the report.
/// `raw_bytes` is the clip's f32 key bytes, for the report.
pub(crate) fn compress(
    lossless: &QuadPlan,
    clip: &Clip,
    representative: &[u32],
    nodes: usize,
    c: &Compression,
    raw_bytes: usize,
) -> (QuadPlan, ClipCompression) {
    let mut trials = Trials::new(lossless, clip, representative, nodes, c.shell);
    let mut choice: Vec<[Width; 3]> = lossless
        .quads
        .iter()
        .map(|q| {
            [q.t_const, q.s_const, q.r_const]
                .map(|held| if held { Width::Held } else { Width::F32 })
        })
        .collect();
    // Normalised lerp quad by quad (parents first) while it alone keeps within half the bound.
    let mut nlerp = vec![false; choice.len()];
    let mut current = build(lossless, &choice, &nlerp);
    trials.accept(&current);
    for (qi, q) in lossless.quads.iter().enumerate() {
        if c.nlerp && !q.r_const {
            nlerp[qi] = true;
            let trial = build(lossless, &choice, &nlerp);
            if trials.try_plan(&trial, &current, qi, c.bound * 0.5) {
                current = trial;
            } else {
                nlerp[qi] = false;
            }
        }
    }
    for qi in 0..choice.len() {
        for g in 0..GROUPS.len() {
            if choice[qi][g] != Width::F32 {
                continue;
            }
            for width in [Width::Held, Width::Bits8, Width::Bits16] {
                choice[qi][g] = width;
                let trial = build(lossless, &choice, &nlerp);
                if trials.try_plan(&trial, &current, qi, c.bound) {
                    current = trial;
                    break;
                }
                choice[qi][g] = Width::F32;
            }
        }
    }
    let plan = current;
    let mut report = ClipCompression {
        raw_bytes,
        lossless_bytes: lossless.keys.len() * 16,
        compressed_bytes: plan.packed.as_ref().map_or(0, PackedKeys::bytes),
        nlerp: nlerp.iter().filter(|&&n| n).count(),
        max_error: trials.max_error(),
        ..ClipCompression::default()
    };
    for (q, widths) in lossless.quads.iter().zip(&choice) {
        for (&width, constant) in widths.iter().zip([q.t_const, q.s_const, q.r_const]) {
            match width {
                Width::Held if !constant => report.held += 1,
                Width::Held => {}
                Width::Bits8 => report.bits8 += 1,
                Width::Bits16 => report.bits16 += 1,
                Width::F32 => report.float32 += 1,
            }
        }
    }
    (plan, report)
}

/// `lossless` with its groups stored as `choice` says (groups held by it made constant at
/// their first key), the rotations of quads flagged in `nlerp` by normalised lerp.
fn build(lossless: &QuadPlan, choice: &[[Width; 3]], nlerp: &[bool]) -> QuadPlan {
    let mut quads = lossless.quads.clone();
    let mut fixed = Vec::new();
    let mut packed = PackedKeys {
        nlerp: nlerp.to_vec(),
        // Quads whose rotations are constant never interpolate: either rule suits them.
        uniform: uniform(lossless, nlerp),
        lossless_len: lossless.keys.len(),
        ..PackedKeys::default()
    };
    let ends = lossless
        .quads
        .iter()
        .skip(1)
        .map(|q| q.first)
        .chain([lossless.keys.len()]);
    for ((q, end), widths) in quads.iter_mut().zip(ends).zip(choice) {
        let keys = &lossless.keys[q.first..end];
        let held = widths.map(|w| w == Width::Held);
        if held != [q.t_const, q.s_const, q.r_const] {
            [q.t_const, q.s_const, q.r_const] = held;
            hold_constants(q, &keys[..ROWS]);
        }
        // At most one fixed quad per quad: the count fits as the lossless plan's did.
        let _ = fix_if_constant(q, &mut fixed);
        let groups = std::array::from_fn(|g| packed.push_group(keys, GROUPS[g], widths[g]));
        packed.quads.push(groups);
    }
    QuadPlan {
        quads,
        keys: Vec::new(),
        fixed,
        packed: Some(packed),
    }
}

/// The rotation rule every quad that interpolates rotations shares, if they share one.
fn uniform(lossless: &QuadPlan, nlerp: &[bool]) -> Option<crate::sample::four_node::Rot> {
    let mut moving = lossless.quads.iter().zip(nlerp).filter(|(q, _)| !q.r_const);
    if moving.clone().all(|(_, &n)| n) {
        Some(crate::sample::four_node::NLERP)
    } else if moving.all(|(_, &n)| !n) {
        Some(crate::sample::four_node::SLERP)
    } else {
        None
    }
}

impl Trials {
    fn new(
        lossless: &QuadPlan,
        clip: &Clip,
        representative: &[u32],
        nodes: usize,
        shell: f32,
    ) -> Self {
        let inputs: Vec<&[f32]> = representative
            .iter()
            .map(|&r| clip.samplers[r as usize].input())
            .collect();
        let mut keys: Vec<f32> = inputs.iter().flat_map(|i| i.iter().copied()).collect();
        keys.sort_by(f32::total_cmp);
        keys.dedup();
        let mut times = Vec::with_capacity(keys.len() * 4);
        for pair in keys.windows(2) {
            times.push(pair[0]);
            times.extend(BETWEEN_KEYS.map(|f| pair[0] + (pair[1] - pair[0]) * f));
        }
        times.extend(keys.last());
        let mut segments = Vec::with_capacity(times.len() * inputs.len());
        for &t in &times {
            segments.extend(inputs.iter().map(|i| TimeCursor::default().locate(i, t)));
        }
        let placed = lossless
            .quads
            .iter()
            .flat_map(|q| q.nodes[..q.lanes].iter().copied())
            .collect();
        let placed_from = lossless
            .quads
            .iter()
            .scan(0, |at, q| {
                let from = *at;
                *at += q.lanes;
                Some(from)
            })
            .collect();
        let mut trials = Self {
            segments,
            timelines: inputs.len(),
            reference: Vec::new(),
            nodes,
            placed,
            placed_from,
            accepted: Vec::new(),
            shell,
            world: vec![0.0; nodes * 16],
        };
        let mut reference = Vec::with_capacity(times.len() * nodes * 16);
        for t in 0..times.len() {
            trials.pose(lossless, t);
            reference.extend_from_slice(&trials.world);
        }
        trials.reference = reference;
        trials
    }

    fn times(&self) -> usize {
        self.segments.len() / self.timelines.max(1)
    }

    /// Plays `plan` at measured time `t` into `self.world`.
    fn pose(&mut self, plan: &QuadPlan, t: usize) {
        let segments = &self.segments[t * self.timelines..(t + 1) * self.timelines];
        let root = Transform::Diagonal(Vec4::ONE);
        plan.pose_into::<false, _>(segments, &mut [], &mut self.world, &root, Baseline);
    }

    /// Takes `plan` as the accepted one: its world matrices at every measured time.
    fn accept(&mut self, plan: &QuadPlan) {
        let mut accepted = Vec::with_capacity(self.reference.len());
        for t in 0..self.times() {
            self.pose(plan, t);
            accepted.extend_from_slice(&self.world);
        }
        self.accepted = accepted;
    }

    /// The largest shell error at time `t` of the nodes of quad `from` on, in the accepted
    /// matrices.
    fn error_at(&self, t: usize, from: usize) -> f32 {
        let at = t * self.nodes * 16..(t + 1) * self.nodes * 16;
        let (want, got) = (
            interpolate::matrices(&self.reference[at.clone()]),
            interpolate::matrices(&self.accepted[at]),
        );
        self.placed[self.placed_from[from]..]
            .iter()
            .fold(0.0, |worst, &n| {
                worst.max(shell_error(&want[n as usize], &got[n as usize], self.shell))
            })
    }

    /// Plays `trial`, which differs from the accepted `current` from quad `from` on only, over
    /// the accepted matrices from that quad on. Keeps them and returns `true` when every node's
    /// error stays within `bound` at every measured time; otherwise puts `current`'s back (at
    /// the times played) and returns `false`.
    fn try_plan(&mut self, trial: &QuadPlan, current: &QuadPlan, from: usize, bound: f32) -> bool {
        for t in 0..self.times() {
            self.pose_accepted(trial, from, t);
            if self.error_at(t, from) > bound {
                for back in 0..=t {
                    self.pose_accepted(current, from, back);
                }
                return false;
            }
        }
        true
    }

    /// Plays `plan` from quad `from` on at measured time `t` into the accepted matrices.
    fn pose_accepted(&mut self, plan: &QuadPlan, from: usize, t: usize) {
        let segments = &self.segments[t * self.timelines..(t + 1) * self.timelines];
        let world = &mut self.accepted[t * self.nodes * 16..(t + 1) * self.nodes * 16];
        plan.pose_from(from, segments, world, &Transform::Diagonal(Vec4::ONE));
    }

    /// The accepted plan's largest error over every node and measured time.
    fn max_error(&self) -> f32 {
        (0..self.times()).fold(0.0, |worst, t| worst.max(self.error_at(t, 0)))
    }
}

/// The virtual-shell error between two affine world matrices (column-major): the farthest
/// that the points at distance `shell` along the joint's x, y and z axes move.
fn shell_error(want: &[f32; 16], got: &[f32; 16], shell: f32) -> f32 {
    let col = |m: &[f32; 16], c: usize| Vec4::from_slice(&m[c * 4..c * 4 + 4]);
    let offset = col(got, 3) - col(want, 3);
    (0..3).fold(0.0, |worst, c| {
        worst.max((offset + (col(got, c) - col(want, c)) * shell).length())
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, reason = "tests")]

    use super::*;
    use crate::{AnimationData, Channel, ChannelPath, Interpolation, NodeRest, Sampler};

    /// Five nodes in a chain, each turning and shifting smoothly over 9 keys.
    fn chain() -> AnimationData {
        let times: Vec<f32> = (0..9).map(|k| k as f32 * 0.1).collect();
        let (mut samplers, mut channels) = (Vec::new(), Vec::new());
        for node in 0..5 {
            let wave = |t: f32| (3.0 * t + node as f32).sin();
            let rot = times.iter().flat_map(|&t| {
                let (s, c) = (0.4 * wave(t)).sin_cos();
                [0.6 * s, 0.0, 0.8 * s, c]
            });
            let pos = times.iter().flat_map(|&t| [0.1 * wave(t), 0.3, 0.0]);
            for (path, values) in [
                (ChannelPath::Rotation, rot.collect::<Vec<_>>()),
                (ChannelPath::Translation, pos.collect()),
            ] {
                channels.push(Channel {
                    sampler: samplers.len(),
                    node,
                    path,
                });
                samplers.push(Sampler::new(times.clone(), values, Interpolation::Linear).unwrap());
            }
        }
        AnimationData {
            nodes: (0..5_usize)
                .map(|i| NodeRest::new(format!("n{i}"), i.checked_sub(1)))
                .collect(),
            clips: vec![Clip::new("c", samplers, channels)],
            ..AnimationData::default()
        }
    }

    #[test]
    fn packed_playback_is_the_unpacked_keys_played_bit_for_bit() {
        let data = chain();
        let options = crate::RigOptions {
            kernels: crate::CpuKernels::Baseline,
            compression: Some(Compression {
                bound: 1e-3,
                nlerp: false,
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
                .any(|g| matches!(g.width, Width::Bits8 | Width::Bits16)),
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
            packed.pose_into::<false, _>(&seg, &mut [], &mut a, &root, Baseline);
            unpacked.pose_into::<false, _>(&seg, &mut [], &mut b, &root, Baseline);
            assert_eq!(
                a.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
                b.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
                "key {key} s {s}"
            );
        }
    }

    #[test]
    fn the_shell_error_of_an_offset_is_its_length_and_of_a_turn_its_chord() {
        let mut a = [0.0; 16];
        for c in 0..4 {
            a[c * 5] = 1.0;
        }
        let mut moved = a;
        moved[12] = 0.3;
        moved[13] = 0.4;
        assert!((shell_error(&a, &moved, 2.0) - 0.5).abs() < 1e-6);
        // A quarter turn about z: the x and y axes' points move by a chord of 2·d·sin(45°).
        let mut turned = a;
        (turned[0], turned[1], turned[4], turned[5]) = (0.0, 1.0, -1.0, 0.0);
        let chord = 2.0 * 2.0 * core::f32::consts::FRAC_PI_4.sin();
        assert!((shell_error(&a, &turned, 2.0) - chord).abs() < 1e-5);
    }
}
