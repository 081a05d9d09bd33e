//! A clip's trials: the clip's own world matrices at the measured times (every key time,
//! fractions of each key interval and, where asked, a fixed rate), evaluated in f64 as glTF
//! defines the clip (`compile/clip_reference.rs`), and those of the plan accepted so far,
//! which a trial changes from one quad on, in place; the virtual-shell error between the two,
//! in the model's units. What both searches of the compressor (`compile/compressor.rs`,
//! `compile/variable.rs`) measure with.

use core::ops::Range;

use glam::Vec4;

use crate::compile::clip_reference::{ClipReference, IDENTITY64, Matrix64};
use crate::compile::shell::shell_error_f64;
use crate::math::interpolate;
use crate::pose::four_node::Baseline;
use crate::rig::four_node::QuadPlan;
use crate::rig::layout::Transform;
use crate::sample::cursor::{Segment, TimeCursor};
use crate::{Clip, NodeRest};

/// Measured times closer than this (seconds) to one already measured are left out: a rate's
/// sample a rounding away from a key interval's eighth moves the error by far less than the
/// [`rounding`] margin the bound is held with.
const SAME_TIME: f32 = 1e-6;

/// Where and how a clip's trials measure: the times besides every key, and the shell.
pub(crate) struct Measure<'a> {
    /// Fractions of each key interval measured besides the keys.
    pub(crate) between: &'a [f32],
    /// Every `1 / rate` s from 0 through the clip's duration too, where given.
    pub(crate) rate: Option<f32>,
    /// The shell distance, in the model's units.
    pub(crate) shell: f32,
}

/// The clip's plays at the measured times: the clip's own world matrices there, and those of
/// the plan accepted so far (which a trial changes from its quad on, in place).
pub(crate) struct Trials {
    /// `timelines` segments per measured time.
    segments: Vec<Segment>,
    timelines: usize,
    /// Per measured time, each placed node's world matrix from the clip itself, in f64.
    reference: Vec<Matrix64>,
    /// Every node's world matrix from the clip at the first measured time, in f32 (empty
    /// without one): where the tolerances' reach is measured.
    pub(crate) first_world: Vec<[f32; 16]>,
    pub(crate) nodes: usize,
    /// The nodes the quads place (where errors are measured), in quad order.
    placed: Vec<u32>,
    /// Where each quad's nodes start in `placed`.
    placed_from: Vec<usize>,
    /// Per placed node, its shell along its world matrix's axes (the static scale above it
    /// taken out).
    shells: Vec<f64>,
    /// `nodes · 16` floats per measured time: the accepted plan's world matrices.
    accepted: Vec<f32>,
    /// Scratch: one frame's world matrices.
    world: Vec<f32>,
}

impl Trials {
    pub(crate) fn new(
        lossless: &QuadPlan,
        clip: &Clip,
        rest: &[NodeRest],
        representative: &[u32],
        measure: &Measure<'_>,
    ) -> Self {
        let nodes = rest.len();
        let inputs: Vec<&[f32]> = representative
            .iter()
            .map(|&r| clip.samplers[r as usize].input())
            .collect();
        let mut keys: Vec<f32> = inputs.iter().flat_map(|i| i.iter().copied()).collect();
        keys.sort_by(f32::total_cmp);
        keys.dedup();
        let mut times = Vec::with_capacity(keys.len() * (measure.between.len() + 1));
        for pair in keys.windows(2) {
            times.push(pair[0]);
            times.extend(
                measure
                    .between
                    .iter()
                    .map(|f| pair[0] + (pair[1] - pair[0]) * f),
            );
        }
        times.extend(keys.last());
        if let Some(rate) = measure.rate.filter(|_| !keys.is_empty()) {
            let mut on_grid = times.clone();
            on_grid.sort_by(f32::total_cmp);
            let extra = crate::compile::shell::sample_times(clip.duration(), rate, [].into_iter());
            times.extend(extra.into_iter().filter(|&t| {
                let i = on_grid.partition_point(|&x| x < t);
                let near = |j: usize| on_grid.get(j).is_some_and(|&x| (x - t).abs() <= SAME_TIME);
                !(near(i) || (i > 0 && near(i - 1)))
            }));
        }
        times.sort_by(f32::total_cmp);
        times.dedup();
        let mut segments = Vec::with_capacity(times.len() * inputs.len());
        for &t in &times {
            segments.extend(inputs.iter().map(|i| TimeCursor::default().locate(i, t)));
        }
        let placed: Vec<u32> = lossless
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
        // The trials' pass places roots by the identity, and so does the reference.
        let clip_reference = ClipReference::new(rest, clip, IDENTITY64);
        let shells = placed
            .iter()
            .map(|&n| clip_reference.shell_of(n as usize, f64::from(measure.shell)))
            .collect();
        let mut reference = Vec::with_capacity(times.len() * placed.len());
        let mut world = Vec::new();
        let mut first_world = Vec::new();
        for (i, &t) in times.iter().enumerate() {
            clip_reference.world_at(t, &mut world);
            if i == 0 {
                #[expect(clippy::cast_possible_truncation, reason = "to f32 on purpose")]
                first_world.extend(world.iter().map(|m| m.map(|v| v as f32)));
            }
            reference.extend(placed.iter().map(|&n| world[n as usize]));
        }
        Self {
            segments,
            timelines: inputs.len(),
            reference,
            first_world,
            nodes,
            placed,
            placed_from,
            shells,
            accepted: Vec::new(),
            world: vec![0.0; nodes * 16],
        }
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
        let mut accepted = Vec::with_capacity(self.times() * self.nodes * 16);
        for t in 0..self.times() {
            self.pose(plan, t);
            accepted.extend_from_slice(&self.world);
        }
        self.accepted = accepted;
    }

    /// The largest shell error at time `t` of the nodes of quad `from` on, in the accepted
    /// matrices against the clip's, each plus its [`rounding`] where `rounded`.
    fn error_at(&self, t: usize, from: usize, rounded: bool) -> f32 {
        let got =
            interpolate::matrices(&self.accepted[t * self.nodes * 16..(t + 1) * self.nodes * 16]);
        let base = t * self.placed.len();
        let worst = (self.placed_from[from]..self.placed.len()).fold(0.0, |worst, p| {
            let (want, got) = (&self.reference[base + p], &got[self.placed[p] as usize]);
            let margin = if rounded { rounding(want) } else { 0.0 };
            f64::max(worst, shell_error_f64(want, got, self.shells[p]) + margin)
        });
        #[expect(clippy::cast_possible_truncation, reason = "the bound's f32")]
        let worst = worst as f32;
        worst
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
fn rounding(m: &Matrix64) -> f64 {
    2.0 * f64::from(f32::EPSILON) * m[12..15].iter().fold(0.0, |a, v| f64::max(a, v.abs()))
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
