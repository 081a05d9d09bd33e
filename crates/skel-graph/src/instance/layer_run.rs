//! One graph layer of one character: the current state, the fade towards the next one (from a
//! live state or from the pose frozen when a fade was interrupted), and the layer's clip list
//! for the tick.

use super::state_run::StateRun;
use crate::file::{CurveDef, SyncDef};
use crate::graph::GraphLayer;
use crate::sync::clip_time;
use skel_anim::LoopMode;

/// The slot of an item from a frozen pose (it plays on no member layer).
pub(crate) const FROZEN: u32 = u32::MAX;

/// One clip in a layer's output: its weight within the layer, its time and last step.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub(crate) struct Item {
    pub(crate) clip: u32,
    /// The member layer it plays on, or [`FROZEN`].
    pub(crate) slot: u32,
    pub(crate) weight: f32,
    pub(crate) time: f32,
    /// The time before this tick's advance (`time` for a clip that did not move).
    pub(crate) prev_time: f32,
    /// How far the playhead moved this tick, in clip seconds: the unwrapped step of a
    /// looping clip (whole loops included), the clamped or bounced difference otherwise.
    pub(crate) step: f64,
    /// Whether its markers fire events (not a follower of a marker-synced blend).
    pub(crate) fires: bool,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Fade {
    pub(crate) transition: u32,
    /// The live source state; `None` when the source is the frozen pose.
    pub(crate) from_state: Option<u32>,
    /// The state shown as `from` (the state the layer was in when the fade began).
    pub(crate) shown_from: u32,
    pub(crate) elapsed: f64,
    pub(crate) duration: f64,
    pub(crate) curve: CurveDef,
}

impl Fade {
    /// Linear progress in 0..=1.
    pub(crate) fn progress(&self) -> f64 {
        (self.elapsed / self.duration).clamp(0.0, 1.0)
    }

    /// The destination's share: the progress through the curve.
    pub(crate) fn mix(&self) -> f32 {
        let t = self.progress();
        #[expect(clippy::cast_possible_truncation, reason = "weights are f32")]
        match self.curve {
            CurveDef::Linear => t as f32,
            CurveDef::Smoothstep => (t * t * (3.0 - 2.0 * t)) as f32,
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct LayerRun {
    /// The layer's weight (the file's, or as set since).
    pub(crate) weight: f32,
    /// The current state, or the live source of a fade.
    pub(crate) source: StateRun,
    /// The destination of the fade (meaningful while `fade` is `Some`).
    pub(crate) dest: StateRun,
    pub(crate) fade: Option<Fade>,
    /// The frozen pose a fade starts from after an interruption, as clips (weights sum to 1)
    /// and the share of the layer they covered.
    pub(crate) frozen: Vec<Item>,
    pub(crate) frozen_share: f32,
    frozen_cap: usize,
    /// This tick's clips (weights sum to 1 over the non-empty share).
    pub(crate) out: Vec<Item>,
    /// The share of the layer covered by clips (the rest is empty states: what lies below).
    pub(crate) share: f32,
    /// Transitions still to take on a `travel`, the next one last.
    pub(crate) travel: Vec<u32>,
    /// Whether this tick froze the pose (a player binding captures its snapshot).
    pub(crate) interrupted: bool,
    /// The blend time of an inertialized switch this tick took (the longest, if several).
    pub(crate) inertialized: Option<f64>,
}

impl LayerRun {
    /// The layer at its entry state. Allocates every buffer a tick will use.
    pub(crate) fn new(gl: &GraphLayer, params: &[f64]) -> Self {
        let m = gl.max_members.max(1);
        let frozen_cap = 2 * m + 8;
        let mut run = Self {
            weight: gl.weight,
            source: StateRun::with_capacity(m),
            dest: StateRun::with_capacity(m),
            fade: None,
            frozen: Vec::with_capacity(frozen_cap + 2 * m),
            frozen_share: 0.0,
            frozen_cap,
            out: Vec::with_capacity(frozen_cap + 2 * m),
            share: 0.0,
            travel: Vec::with_capacity(gl.states.len()),
            interrupted: false,
            inertialized: None,
        };
        let entry = gl.entry;
        run.source
            .enter(entry, &gl.states[entry as usize], params, 0.0);
        run.build_out(gl);
        run
    }

    /// The state the layer is in: the destination while a fade runs.
    pub(crate) fn state(&self) -> u32 {
        if self.fade.is_some() {
            self.dest.state
        } else {
            self.source.state
        }
    }

    /// Cuts to state `to` at normalised time `progress`: no fade, nothing frozen.
    pub(crate) fn cut(&mut self, gl: &GraphLayer, params: &[f64], to: u32, progress: f64) {
        self.dest
            .enter(to, &gl.states[to as usize], params, progress);
        std::mem::swap(&mut self.source, &mut self.dest);
        self.fade = None;
        self.frozen.clear();
    }

    /// Ends the fade: the destination becomes the current state.
    pub(crate) fn finish_fade(&mut self) {
        std::mem::swap(&mut self.source, &mut self.dest);
        self.fade = None;
        self.frozen.clear();
    }

    /// Freezes the last output (what is on screen) as the source of the next fade, keeping
    /// the heaviest clips when there are more than the buffer holds.
    pub(crate) fn freeze(&mut self) {
        self.frozen.clear();
        self.frozen.extend_from_slice(&self.out);
        for it in &mut self.frozen {
            it.slot = FROZEN;
            it.step = 0.0;
            it.prev_time = it.time;
            it.fires = false;
        }
        if self.frozen.len() > self.frozen_cap {
            self.frozen
                .sort_unstable_by(|a, b| b.weight.total_cmp(&a.weight));
            self.frozen.truncate(self.frozen_cap);
            let total: f32 = self.frozen.iter().map(|i| i.weight).sum();
            if total > 0.0 {
                self.frozen.iter_mut().for_each(|i| i.weight /= total);
            }
        }
        self.frozen_share = self.share;
        self.interrupted = true;
    }

    /// Builds this tick's clip list from the runs and the fade.
    pub(crate) fn build_out(&mut self, gl: &GraphLayer) {
        self.out.clear();
        self.share = 0.0;
        match self.fade {
            None => push_run(gl, &self.source, 1.0, &mut self.out, &mut self.share),
            Some(f) => {
                let c = f.mix();
                if f.from_state.is_none() {
                    let k = self.frozen_share * (1.0 - c);
                    if k > 0.0 {
                        for it in &self.frozen {
                            let mut it = *it;
                            it.weight *= k;
                            if it.weight > 0.0 {
                                self.out.push(it);
                            }
                        }
                    }
                    self.share += k;
                } else {
                    push_run(gl, &self.source, 1.0 - c, &mut self.out, &mut self.share);
                }
                push_run(gl, &self.dest, c, &mut self.out, &mut self.share);
            }
        }
        if self.share > 0.0 {
            let s = self.share;
            self.out.iter_mut().for_each(|i| i.weight /= s);
        }
        self.share = self.share.clamp(0.0, 1.0);
    }
}

/// Adds a run's members at `k` × their weights.
fn push_run(gl: &GraphLayer, run: &StateRun, k: f32, out: &mut Vec<Item>, share: &mut f32) {
    let st = &gl.states[run.state as usize];
    if st.members.is_empty() || k <= 0.0 {
        return;
    }
    *share += k;
    for (i, (m, r)) in st.members.iter().zip(&run.members).enumerate() {
        let w = r.weight * k;
        if w > 0.0 {
            let time = run.time(st, i);
            let prev_time = clip_time(r.u - r.step, m.length, st.loop_mode);
            let step = match st.loop_mode {
                LoopMode::Repeat => r.step,
                LoopMode::Once | LoopMode::PingPong => f64::from(time) - f64::from(prev_time),
            };
            #[expect(clippy::cast_possible_truncation, reason = "slot counts fit u32")]
            out.push(Item {
                clip: m.clip,
                slot: st.first_slot + i as u32,
                weight: w,
                time,
                prev_time,
                step,
                fires: st.sync != SyncDef::Markers || i == run.leader,
            });
        }
    }
}
