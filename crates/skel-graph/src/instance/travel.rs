//! `travel`: the cheapest chain of transitions from one state to another (Dijkstra over the
//! transitions' `cost`), computed when asked for, into buffers sized when the instance was
//! made.

use crate::graph::GraphLayer;

/// Buffers for the search, one entry per state of the largest layer.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Search {
    dist: Vec<f64>,
    /// The transition that reached each state on the best path so far, and the state it left.
    via: Vec<(u32, u32)>,
    done: Vec<bool>,
}

const NONE: u32 = u32::MAX;

impl Search {
    pub(crate) fn new(max_states: usize) -> Self {
        Self {
            dist: vec![0.0; max_states],
            via: vec![(NONE, NONE); max_states],
            done: vec![false; max_states],
        }
    }

    /// Writes into `path` the transitions from `from` to `to`, the first one last (so that
    /// popping takes them in order). Returns `false` when no chain exists (or `from == to`,
    /// with `path` empty).
    pub(crate) fn path(
        &mut self,
        gl: &GraphLayer,
        from: u32,
        to: u32,
        path: &mut Vec<u32>,
    ) -> bool {
        path.clear();
        let n = gl.states.len();
        if from == to {
            return false;
        }
        let (dist, via, done) = (&mut self.dist[..n], &mut self.via[..n], &mut self.done[..n]);
        dist.fill(f64::INFINITY);
        via.fill((NONE, NONE));
        done.fill(false);
        dist[from as usize] = 0.0;
        // O(n²) without a heap: graphs have tens of states and this runs on request only.
        loop {
            let mut best = None;
            for s in 0..n {
                if !done[s] && dist[s].is_finite() && best.is_none_or(|b: usize| dist[s] < dist[b])
                {
                    best = Some(s);
                }
            }
            let Some(s) = best else { break };
            if s == to as usize {
                break;
            }
            done[s] = true;
            let (a, b) = gl.state_ranges[s];
            let own = gl.by_state[a as usize..b as usize].iter();
            for &t in own.chain(&gl.from_any) {
                let tr = &gl.transitions[t as usize];
                let next = tr.to as usize;
                if next == s || done[next] {
                    continue;
                }
                let d = dist[s] + f64::from(tr.cost);
                if d < dist[next] {
                    dist[next] = d;
                    #[expect(clippy::cast_possible_truncation, reason = "state counts fit u32")]
                    {
                        via[next] = (t, s as u32);
                    }
                }
            }
        }
        if via[to as usize].0 == NONE {
            return false;
        }
        let mut at = to;
        // Each step goes to a state settled earlier: at most n steps.
        for _ in 0..n {
            if at == from {
                return true;
            }
            let (t, prev) = self.via[at as usize];
            path.push(t);
            at = prev;
        }
        path.clear();
        false
    }
}
