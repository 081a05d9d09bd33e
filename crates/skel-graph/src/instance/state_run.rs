//! One state playing: its normalised time, and each member's playhead and weight, advanced by
//! the state's speed under its sync rule.

use glam::Vec2;

use crate::file::SyncDef;
use crate::graph::{Motion, State};
use crate::sync::{clip_time, marker_phase, time_at_phase};

/// Lengths below this count as this (seconds): a clip without length still has a normalised
/// time that moves, so exit times on it are reached.
pub(crate) const MIN_LENGTH: f64 = 1e-3;

/// An empty state's length for its normalised time (seconds).
const EMPTY_LENGTH: f64 = 1.0;

#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(crate) struct MemberRun {
    /// Seconds moved from the clip's start, unwrapped over loops.
    pub(crate) u: f64,
    /// Seconds moved by the last advance (signed).
    pub(crate) step: f64,
    pub(crate) weight: f32,
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct StateRun {
    pub(crate) state: u32,
    /// Normalised time since the state's start, unwrapped (1 per cycle).
    pub(crate) progress: f64,
    /// `progress` before the last advance.
    pub(crate) prev_progress: f64,
    /// Seconds per cycle at the last advance (what a normalised duration is measured in).
    pub(crate) cycle_seconds: f64,
    pub(crate) members: Vec<MemberRun>,
    /// The member with the highest weight (the first of equals).
    pub(crate) leader: usize,
    weights: Vec<f32>,
}

/// A parameter's value as a blend-space coordinate or speed factor.
#[expect(clippy::cast_possible_truncation, reason = "parameters are f32 or i32")]
fn value(params: &[f64], p: u32) -> f32 {
    params[p as usize] as f32
}

/// Writes the weight of each member of `st` for the parameters into `out[..members]` and
/// returns the leader.
pub(crate) fn motion_weights(st: &State, params: &[f64], out: &mut [f32]) -> usize {
    match &st.motion {
        Motion::Empty => return 0,
        Motion::Clip => out[0] = 1.0,
        Motion::Blend1d { param, space } => space.weights(value(params, *param), out),
        Motion::Blend2d { params: p, space } => {
            space.weights(Vec2::new(value(params, p[0]), value(params, p[1])), out);
        }
    }
    let mut leader = 0;
    for (i, &w) in out[..st.members.len()].iter().enumerate() {
        if w > out[leader] {
            leader = i;
        }
    }
    leader
}

impl StateRun {
    /// A run with room for `max_members` members (allocates; nothing after does).
    pub(crate) fn with_capacity(max_members: usize) -> Self {
        Self {
            state: 0,
            progress: 0.0,
            prev_progress: 0.0,
            cycle_seconds: EMPTY_LENGTH,
            members: Vec::with_capacity(max_members),
            leader: 0,
            weights: vec![0.0; max_members],
        }
    }

    /// Starts state `index` (`st`) at normalised time `progress`.
    pub(crate) fn enter(&mut self, index: u32, st: &State, params: &[f64], progress: f64) {
        self.state = index;
        self.members.clear();
        self.members.resize(st.members.len(), MemberRun::default());
        self.update_weights(st, params);
        self.place(st, progress);
        self.cycle_seconds = self.length(st);
    }

    fn update_weights(&mut self, st: &State, params: &[f64]) {
        let n = st.members.len();
        self.leader = motion_weights(st, params, &mut self.weights);
        for (m, &w) in self.members.iter_mut().zip(&self.weights[..n]) {
            m.weight = w;
        }
    }

    /// Seconds per cycle of normalised time, under the state's sync rule.
    fn length(&self, st: &State) -> f64 {
        let l = match st.sync {
            _ if st.members.is_empty() => EMPTY_LENGTH,
            SyncDef::Normalized => st
                .members
                .iter()
                .zip(&self.members)
                .map(|(m, r)| f64::from(r.weight) * f64::from(m.length))
                .sum(),
            SyncDef::None | SyncDef::Markers => f64::from(st.members[self.leader].length),
        };
        l.max(MIN_LENGTH)
    }

    /// Puts every playhead at normalised time `progress` (followers of a marker-synced state
    /// at the leader's marker phase). Not motion: steps are 0.
    pub(crate) fn place(&mut self, st: &State, progress: f64) {
        self.progress = progress;
        self.prev_progress = progress;
        for (m, r) in st.members.iter().zip(&mut self.members) {
            r.u = progress * f64::from(m.length);
            r.step = 0.0;
        }
        if st.sync == SyncDef::Markers {
            self.follow_markers(st, false);
        }
    }

    /// The clip time of member `i`.
    pub(crate) fn time(&self, st: &State, i: usize) -> f32 {
        clip_time(self.members[i].u, st.members[i].length, st.loop_mode)
    }

    /// Advances by `dt` seconds: weights from the parameters, then playheads by the state's
    /// speed under its sync rule.
    pub(crate) fn advance(&mut self, st: &State, params: &[f64], dt: f64) {
        self.update_weights(st, params);
        let speed = f64::from(st.speed) * st.speed_param.map_or(1.0, |p| params[p as usize]);
        let seconds = dt * speed;
        let length = self.length(st);
        let d = seconds / length;
        match st.sync {
            SyncDef::Normalized => {
                let progress = self.progress + d;
                for (m, r) in st.members.iter().zip(&mut self.members) {
                    let l = f64::from(m.length);
                    r.step = d * l;
                    r.u = progress * l;
                }
            }
            SyncDef::None => {
                for r in &mut self.members {
                    r.step = seconds;
                    r.u += seconds;
                }
            }
            SyncDef::Markers => {
                let leader = &mut self.members[self.leader];
                leader.step = seconds;
                leader.u += seconds;
                self.follow_markers(st, true);
            }
        }
        self.prev_progress = self.progress;
        self.progress += d;
        self.cycle_seconds = if speed == 0.0 {
            length
        } else {
            length / speed.abs()
        };
    }

    /// Moves every follower to the leader's marker phase among the shared markers; with
    /// `moving`, records the step each took (forward when the leader moved forward).
    fn follow_markers(&mut self, st: &State, moving: bool) {
        let shared = |id: u32| st.shared_markers.binary_search(&id).is_ok();
        let leader = self.leader;
        let lead = &st.members[leader];
        let t = clip_time(self.members[leader].u, lead.length, st.loop_mode);
        let Some(phase) = marker_phase(&lead.markers, lead.length, t, shared) else {
            return;
        };
        let forward = self.members[leader].step >= 0.0;
        for (i, (m, r)) in st.members.iter().zip(&mut self.members).enumerate() {
            if i == leader {
                continue;
            }
            let old = clip_time(r.u, m.length, st.loop_mode);
            let Some(new) = time_at_phase(&m.markers, m.length, phase, old, shared) else {
                continue;
            };
            let l = f64::from(m.length);
            let delta = f64::from(new) - f64::from(old);
            let step = if !moving {
                delta
            } else if forward {
                delta.rem_euclid(l)
            } else {
                -(-delta).rem_euclid(l)
            };
            r.u += step;
            r.step = if moving { step } else { 0.0 };
        }
    }
}
