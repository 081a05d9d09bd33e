//! A clip's trials: the lossless world matrices at the measured times (every key time and
//! fractions of each key interval), and those of the plan accepted so far, which a trial
//! changes from one quad on, in place; the virtual-shell error between the two. What both
//! searches of the compressor (`compile/compressor.rs`, `compile/variable.rs`) measure with.

use core::ops::Range;

use glam::Vec4;

use crate::Clip;
use crate::math::interpolate;
use crate::pose::four_node::Baseline;
use crate::rig::four_node::QuadPlan;
use crate::rig::layout::Transform;
use crate::sample::cursor::{Segment, TimeCursor};

/// The clip's plays at the measured times: the lossless world matrices there, and those of
/// the plan accepted so far (which a trial changes from its quad on, in place).
pub(crate) struct Trials {
    /// `timelines` segments per measured time.
    segments: Vec<Segment>,
    timelines: usize,
    /// `nodes · 16` floats per measured time.
    pub(crate) reference: Vec<f32>,
    pub(crate) nodes: usize,
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

impl Trials {
    pub(crate) fn new(
        lossless: &QuadPlan,
        clip: &Clip,
        representative: &[u32],
        nodes: usize,
        shell: f32,
        between: &[f32],
    ) -> Self {
        let inputs: Vec<&[f32]> = representative
            .iter()
            .map(|&r| clip.samplers[r as usize].input())
            .collect();
        let mut keys: Vec<f32> = inputs.iter().flat_map(|i| i.iter().copied()).collect();
        keys.sort_by(f32::total_cmp);
        keys.dedup();
        let mut times = Vec::with_capacity(keys.len() * (between.len() + 1));
        for pair in keys.windows(2) {
            times.push(pair[0]);
            times.extend(between.iter().map(|f| pair[0] + (pair[1] - pair[0]) * f));
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

    /// The measured times.
    pub(crate) fn times(&self) -> usize {
        self.segments.len() / self.timelines.max(1)
    }

    /// Plays `plan` at measured time `t` into `self.world`.
    fn pose(&mut self, plan: &QuadPlan, t: usize) {
        let segments = &self.segments[t * self.timelines..(t + 1) * self.timelines];
        let root = Transform::Diagonal(Vec4::ONE);
        plan.pose_into::<false, _, _>(
            segments,
            &mut [],
            &mut self.world,
            &root,
            Baseline,
            crate::pose::four_node::NoOffset,
        );
    }

    /// Takes `plan` as the accepted one: its world matrices at every measured time.
    pub(crate) fn accept(&mut self, plan: &QuadPlan) {
        let mut accepted = Vec::with_capacity(self.reference.len());
        for t in 0..self.times() {
            self.pose(plan, t);
            accepted.extend_from_slice(&self.world);
        }
        self.accepted = accepted;
    }

    /// The largest shell error at time `t` of the nodes of quad `from` on, in the accepted
    /// matrices, each plus its [`rounding`] where `rounded`.
    fn error_at(&self, t: usize, from: usize, rounded: bool) -> f32 {
        let at = t * self.nodes * 16..(t + 1) * self.nodes * 16;
        let (want, got) = (
            interpolate::matrices(&self.reference[at.clone()]),
            interpolate::matrices(&self.accepted[at]),
        );
        self.placed[self.placed_from[from]..]
            .iter()
            .fold(0.0, |worst, &n| {
                let (want, got) = (&want[n as usize], &got[n as usize]);
                let margin = if rounded { rounding(want) } else { 0.0 };
                worst.max(shell_error(want, got, self.shell) + margin)
            })
    }

    /// Plays `trial`, which differs from the accepted `current` from quad `from` on only, over
    /// the accepted matrices from that quad on. Keeps them and returns `true` when every node's
    /// error stays within `bound` at every measured time; otherwise puts `current`'s back (at
    /// the times played) and returns `false`.
    pub(crate) fn try_plan(
        &mut self,
        trial: &QuadPlan,
        current: &QuadPlan,
        from: usize,
        bound: f32,
    ) -> bool {
        match self.play_within(trial, from, bound, 0..self.times()) {
            None => true,
            Some(t) => {
                for back in 0..=t {
                    self.pose_accepted(current, from, back);
                }
                false
            }
        }
    }

    /// [`try_plan`](Self::try_plan) for a `plan` changed in place at the measured times
    /// `times` only (from quad `from` on): where it strays past `bound`, `undo` puts the plan
    /// back and the times played are played again.
    pub(crate) fn try_in_place(
        &mut self,
        plan: &mut QuadPlan,
        from: usize,
        bound: f32,
        times: Range<usize>,
        undo: impl FnOnce(&mut QuadPlan),
    ) -> bool {
        match self.play_within(plan, from, bound, times.clone()) {
            None => true,
            Some(t) => {
                undo(plan);
                for back in times.start..=t {
                    self.pose_accepted(plan, from, back);
                }
                false
            }
        }
    }

    /// Plays `plan` from quad `from` on at `times` into the accepted matrices, stopping at
    /// the first time some node strays past `bound`, which it returns.
    fn play_within(
        &mut self,
        plan: &QuadPlan,
        from: usize,
        bound: f32,
        times: Range<usize>,
    ) -> Option<usize> {
        times.into_iter().find(|&t| {
            self.pose_accepted(plan, from, t);
            self.error_at(t, from, true) > bound
        })
    }

    /// The measured times whose interval on timeline `timeline` starts or ends at one of
    /// `keys`: those a change to these keys moves. Contiguous, as both ends of the interval
    /// rise with the time and end at most one key after its start.
    pub(crate) fn times_touching(&self, timeline: usize, keys: Range<usize>) -> Range<usize> {
        let at = |t: usize| self.segments[t * self.timelines + timeline];
        let start = first_not(self.times(), |t| (at(t).b as usize) < keys.start);
        let end = first_not(self.times(), |t| (at(t).a as usize) < keys.end);
        start..end.max(start)
    }

    /// Plays `plan` from quad `from` on at measured time `t` into the accepted matrices.
    fn pose_accepted(&mut self, plan: &QuadPlan, from: usize, t: usize) {
        let segments = &self.segments[t * self.timelines..(t + 1) * self.timelines];
        let world = &mut self.accepted[t * self.nodes * 16..(t + 1) * self.nodes * 16];
        plan.pose_from(from, segments, world, &Transform::Diagonal(Vec4::ONE));
    }

    /// The accepted plan's largest error over every node and measured time.
    pub(crate) fn max_error(&self) -> f32 {
        (0..self.times()).fold(0.0, |worst, t| worst.max(self.error_at(t, 0, false)))
    }

    /// The accepted plan's largest error plus [`rounding`] over every node and measured time:
    /// what the bound is held to.
    pub(crate) fn max_rounded_error(&self) -> f32 {
        (0..self.times()).fold(0.0, |worst, t| worst.max(self.error_at(t, 0, true)))
    }
}

/// How far apart two f32 evaluations of a joint's world matrix `m` (the trials' and the
/// player's, each through its own kernels) may land from rounding alone: an ulp of the
/// joint's largest coordinate each. A clip that walks 70 m from the origin has ulps of
/// 8 µm there, near a tenth of the default bound; the bound is held to the error plus this.
fn rounding(m: &[f32; 16]) -> f32 {
    2.0 * f32::EPSILON * Vec4::from_slice(&m[12..16]).truncate().abs().max_element()
}

/// The first of `0..n` where `holds` (true, then false) is false: `n` where it holds for all.
fn first_not(n: usize, holds: impl Fn(usize) -> bool) -> usize {
    let (mut lo, mut hi) = (0, n);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if holds(mid) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    lo
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
    use super::*;

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
