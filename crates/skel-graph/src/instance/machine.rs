//! The state machine's tick for one layer: advance, finish a fade, then take transitions
//! (conditions, triggers, exit times, priorities, interruptions, zero-duration chains, travel).

use super::layer_run::{Fade, LayerRun};
use super::state_run::{StateRun, motion_weights};
use crate::file::{CompareOp, InterruptDef, SyncDef};
use crate::graph::{GraphLayer, Test, Transition};
use crate::sync::{clip_time, marker_phase, time_at_phase};

/// Which run a transition leaves from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Side {
    Source,
    Dest,
}

impl LayerRun {
    /// One tick of `dt` seconds (finite, ≥ 0).
    pub(crate) fn tick(&mut self, gl: &GraphLayer, params: &mut [f64], dt: f64) {
        self.interrupted = false;
        self.inertialized = None;
        let live_source = self.fade.is_none_or(|f| f.from_state.is_some());
        if live_source {
            let st = &gl.states[self.source.state as usize];
            self.source.advance(st, params, dt);
        }
        if let Some(f) = &mut self.fade {
            self.dest
                .advance(&gl.states[self.dest.state as usize], params, dt);
            f.elapsed += dt;
            if f.elapsed >= f.duration {
                self.finish_fade();
            }
        }
        // Zero-duration transitions chain; a fade or nothing to take ends the loop. The file
        // has no cycle of them (compile refuses it), so this bound is only a guard.
        for _ in 0..=gl.states.len() {
            let pick = if self.travel.is_empty() {
                self.choose(gl, params)
            } else if self.fade.is_none() {
                self.travel.pop().map(|t| (t, Side::Source))
            } else {
                None
            };
            let Some((t, side)) = pick else { break };
            for c in &gl.transitions[t as usize].conditions {
                if c.test == Test::Trigger {
                    params[c.param as usize] = 0.0;
                }
            }
            if !self.start(gl, params, t, side) {
                break;
            }
        }
        self.build_out(gl);
    }

    /// The first transition to take now, and the run it leaves from.
    fn choose(&self, gl: &GraphLayer, params: &[f64]) -> Option<(u32, Side)> {
        let Some(f) = self.fade else {
            let current = self.source.state;
            return first_passing(gl, params, &self.source, |t| {
                t.from.is_some() || t.to != current
            })
            .map(|t| (t, Side::Source));
        };
        let tf = &gl.transitions[f.transition as usize];
        let dest = self.dest.state;
        let from_source = || {
            f.from_state?;
            first_passing(gl, params, &self.source, |t| {
                t.to != dest && (!tf.ordered || t.key() < tf.key())
            })
            .map(|t| (t, Side::Source))
        };
        let from_dest = || {
            first_passing(gl, params, &self.dest, |t| t.from.is_some() || t.to != dest)
                .map(|t| (t, Side::Dest))
        };
        match tf.interrupt {
            InterruptDef::None => None,
            InterruptDef::Source => from_source(),
            InterruptDef::Destination => from_dest(),
            InterruptDef::SourceThenDestination => from_source().or_else(from_dest),
            InterruptDef::DestinationThenSource => from_dest().or_else(from_source),
        }
    }

    /// Starts transition `t` from the run on `side`. Returns whether it was a cut (zero
    /// duration: the next transition may follow within the tick). An inertialized switch
    /// cuts too, but ends the tick's transitions: the player blends it.
    fn start(&mut self, gl: &GraphLayer, params: &[f64], t: u32, side: Side) -> bool {
        let tr = &gl.transitions[t as usize];
        let from = match side {
            Side::Source => &self.source,
            Side::Dest => &self.dest,
        };
        let start = self.start_progress(gl, params, tr, from);
        let duration = if tr.normalized_duration {
            f64::from(tr.duration) * from.cycle_seconds
        } else {
            f64::from(tr.duration)
        };
        let to_state = &gl.states[tr.to as usize];
        if duration <= 0.0 || duration.is_nan() {
            self.cut(gl, params, tr.to, start);
            return true;
        }
        if tr.inertialize {
            self.cut(gl, params, tr.to, start);
            self.inertialized = Some(self.inertialized.map_or(duration, |d| d.max(duration)));
            return false;
        }
        let shown = self.state();
        let from_state = if self.fade.is_some() || tr.to == self.source.state {
            // An interruption, or a state fading into itself: fade from the pose on screen.
            self.freeze();
            None
        } else {
            Some(self.source.state)
        };
        self.dest.enter(tr.to, to_state, params, start);
        self.fade = Some(Fade {
            transition: t,
            from_state,
            shown_from: shown,
            elapsed: 0.0,
            duration,
            curve: tr.curve,
        });
        false
    }

    /// Where the destination of `tr` starts, in its normalised time: the offset, or the
    /// source's normalised time, or the source leader's marker phase.
    fn start_progress(
        &self,
        gl: &GraphLayer,
        params: &[f64],
        tr: &Transition,
        from: &StateRun,
    ) -> f64 {
        let normalized = from.progress.rem_euclid(1.0);
        match tr.sync {
            SyncDef::None => f64::from(tr.offset),
            SyncDef::Normalized => normalized,
            SyncDef::Markers => {
                let src_state = &gl.states[from.state as usize];
                let dst_state = &gl.states[tr.to as usize];
                if src_state.members.is_empty() || dst_state.members.is_empty() {
                    return normalized;
                }
                let src = &src_state.members[from.leader];
                let t_src = clip_time(from.members[from.leader].u, src.length, src_state.loop_mode);
                let dst_leader = self.peek_leader(gl, params, tr.to);
                let dst = &dst_state.members[dst_leader];
                let has = |list: &[(f32, u32)], id: u32| list.iter().any(|m| m.1 == id);
                marker_phase(&src.markers, src.length, t_src, |id| has(&dst.markers, id))
                    .and_then(|phase| {
                        time_at_phase(&dst.markers, dst.length, phase, 0.0, |id| {
                            has(&src.markers, id)
                        })
                    })
                    .map_or(normalized, |t| {
                        f64::from(t) / f64::from(dst.length).max(super::state_run::MIN_LENGTH)
                    })
            }
        }
    }

    /// The leader state `state` would have with the current parameters.
    fn peek_leader(&self, gl: &GraphLayer, params: &[f64], state: u32) -> usize {
        let mut w = [0.0_f32; crate::MAX_POINTS];
        motion_weights(&gl.states[state as usize], params, &mut w)
    }
}

/// The first transition from `run`'s state or from `any`, in (priority, declared) order, that
/// `allow` accepts and whose conditions and exit time hold.
fn first_passing(
    gl: &GraphLayer,
    params: &[f64],
    run: &StateRun,
    allow: impl Fn(&Transition) -> bool,
) -> Option<u32> {
    let (a, b) = gl.state_ranges[run.state as usize];
    let own = &gl.by_state[a as usize..b as usize];
    let any = &gl.from_any;
    let (mut i, mut j) = (0, 0);
    while i < own.len() || j < any.len() {
        let take_own = j >= any.len()
            || (i < own.len()
                && gl.transitions[own[i] as usize].key() < gl.transitions[any[j] as usize].key());
        let t = if take_own {
            i += 1;
            own[i - 1]
        } else {
            j += 1;
            any[j - 1]
        };
        let tr = &gl.transitions[t as usize];
        if allow(tr) && passes(tr, params, run) {
            return Some(t);
        }
    }
    None
}

/// Whether every condition holds and the exit time (if any) was crossed by the last advance.
fn passes(tr: &Transition, params: &[f64], run: &StateRun) -> bool {
    let conditions = tr.conditions.iter().all(|c| {
        let v = params[c.param as usize];
        match c.test {
            Test::Trigger | Test::True => v != 0.0,
            Test::Compare(op, k) => match op {
                CompareOp::Greater => v > k,
                CompareOp::GreaterEqual => v >= k,
                CompareOp::Less => v < k,
                CompareOp::LessEqual => v <= k,
                CompareOp::Equal => v == k,
                CompareOp::NotEqual => v != k,
            },
        }
    });
    conditions && tr.exit_time.is_none_or(|e| crossed(f64::from(e), run))
}

/// Whether the last advance crossed normalised time `e`: below 1, `e` of any cycle; at or
/// above 1, `e` itself. A crossing lands in `(before, after]` (the other way round when
/// playing backwards).
fn crossed(e: f64, run: &StateRun) -> bool {
    let (lo, hi) = if run.progress >= run.prev_progress {
        (run.prev_progress, run.progress)
    } else {
        (run.progress, run.prev_progress)
    };
    if lo == hi {
        return false;
    }
    if e < 1.0 {
        (hi - e).floor() > (lo - e).floor()
    } else {
        lo < e && e <= hi
    }
}
