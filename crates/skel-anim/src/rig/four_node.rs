//! The four-node key layout of a clip, built once: its keys regrouped four nodes at a time, so that a
//! frame samples, composes and places four nodes per step with every value already in the lane
//! it is used in (ozz-animation's layout). The values are bit for bit those of the
//! array-of-structures fused pass (`pose::steps::pose_clip_fused`): each lane runs the same operations
//! in the same order, only no transposes or sample buffers sit between the steps.
//!
//! Built per clip when every node of each group of four takes its keyed properties from one
//! key-time array (exporters share one per clip: CesiumMan, Fox, RiggedFigure) and the copy stays
//! within [`MAX_GROWTH`] of the clip's own keys; otherwise the clip keeps the array-of-structures
//! pass.

use glam::{BVec4A, Vec4};

use crate::math::interpolate::{self, Cols};

use crate::data::NONE;
use crate::rig::layout::{NodeSources, Track};
use crate::sample::four_node::{Quad, QuadRows, R_ROWS, ROWS, S_ROWS, T_ROWS};
use crate::sample::packed::PackedKeys;
use crate::{Clip, NodeRest};

/// The regrouped keys may take at most this many times the bytes of the clip's tracks' keys
/// (untracked properties of a quad with a tracked one repeat their rest value in every key) plus
/// [`SLACK_BYTES`]; past it the clip keeps the array-of-structures pass.
const MAX_GROWTH: usize = 8;
const SLACK_BYTES: usize = 256 * 1024;

/// What [`QuadPlan::new`] reads of a clip's plan (the plan is built above this module).
#[derive(Debug, Clone, Copy)]
pub(crate) struct QuadInputs<'a> {
    /// Every node in topological order with its sources (empty: no fused pass).
    pub(crate) nodes: &'a [NodeSources],
    /// Translation/scale tracks, then rotation tracks, in the clip plan's order.
    pub(crate) vec3: &'a [Track],
    pub(crate) quat: &'a [Track],
    /// A sampler of each timeline (its key times).
    pub(crate) representative: &'a [u32],
    /// Values in the clip's interleaved key blocks (the size budget's base).
    pub(crate) block_key_values: usize,
}

/// A clip's keys in quads, for the structure-of-arrays pass.
#[derive(Debug, Clone)]
pub(crate) struct QuadPlan {
    pub(crate) quads: Vec<Quad>,
    /// `ROWS` vectors per key from each quad's `first`; empty when [`QuadPlan::packed`] holds
    /// the keys instead.
    pub(crate) keys: Vec<Vec4>,
    /// Local matrices of the quads that never move (`Quad::fixed`).
    pub(crate) fixed: Vec<[Cols; 4]>,
    /// The keys compressed ([`Compression`](crate::Compression)), what the passes then decode.
    pub(crate) packed: Option<PackedKeys>,
}

/// Where one property of one node comes from.
#[derive(Clone, Copy)]
enum Source<'a> {
    Rest(Vec4),
    Keys {
        output: &'a [f32],
        width: usize,
        timeline: u32,
        step: bool,
    },
}

impl Source<'_> {
    fn timeline(&self) -> Option<u32> {
        match self {
            Source::Rest(_) => None,
            Source::Keys { timeline, .. } => Some(*timeline),
        }
    }

    fn value(&self, key: usize) -> Vec4 {
        match *self {
            Source::Rest(v) => v,
            Source::Keys { output, width, .. } => {
                let v = &output[key * width..key * width + width];
                Vec4::new(v[0], v[1], v[2], if width == 4 { v[3] } else { 0.0 })
            }
        }
    }

    fn held(&self) -> bool {
        match self {
            Source::Rest(_) => true,
            Source::Keys { step, .. } => *step,
        }
    }

    /// Whether every one of `count` keys equals the first, bit for bit, and is finite (so that
    /// the frame's `==` on keys agrees).
    fn constant(&self, count: usize) -> bool {
        match *self {
            Source::Rest(_) => true,
            Source::Keys { output, width, .. } => {
                let first = &output[..width];
                first.iter().all(|v| v.is_finite())
                    && (1..count).all(|k| {
                        let v = &output[k * width..k * width + width];
                        v.iter().zip(first).all(|(a, b)| a.to_bits() == b.to_bits())
                    })
            }
        }
    }
}

impl QuadPlan {
    /// The quads of clip `clip` (whose plan `cp` has its fused node list), or `None` when a quad
    /// mixes key-time arrays, the clip has no fused pass, or the copy would be too large.
    pub(crate) fn new(clip: &Clip, cp: &QuadInputs<'_>, rest: &[NodeRest]) -> Option<Self> {
        if cp.nodes.is_empty() {
            return None;
        }
        let key_count = |timeline: u32| {
            let rep = cp.representative[timeline as usize] as usize;
            clip.samplers[rep].input().len()
        };
        let tracks = cp.vec3.len() + cp.quat.len();
        let source = |index: u32, node: &NodeRest, what: usize| -> Source<'_> {
            let i = index as usize;
            if i >= tracks {
                let v = match what {
                    0 => node.translation,
                    2 => node.scale,
                    _ => return Source::Rest(Vec4::from_array(node.rotation)),
                };
                return Source::Rest(Vec4::new(v[0], v[1], v[2], 0.0));
            }
            let (track, width) = if i < cp.vec3.len() {
                (&cp.vec3[i], 3)
            } else {
                (&cp.quat[i - cp.vec3.len()], 4)
            };
            Source::Keys {
                output: clip.samplers[track.sampler as usize].output(),
                width,
                timeline: track.timeline,
                step: track.step,
            }
        };
        let mut quads = Vec::with_capacity(cp.nodes.len().div_ceil(4));
        let mut keys = Vec::new();
        let mut fixed = Vec::new();
        let budget = MAX_GROWTH * 16 * cp.block_key_values + SLACK_BYTES;
        for group in cp.nodes.chunks(4) {
            let sources: Vec<[Source<'_>; 3]> = group
                .iter()
                .map(|n: &NodeSources| {
                    let node = &rest[n.node as usize];
                    [
                        source(n.t, node, 0),
                        source(n.r, node, 1),
                        source(n.s, node, 2),
                    ]
                })
                .collect();
            let mut timeline = NONE;
            for tl in sources.iter().flatten().filter_map(Source::timeline) {
                if timeline == NONE {
                    timeline = tl;
                } else if timeline != tl {
                    return None;
                }
            }
            let count = if timeline == NONE {
                1
            } else {
                key_count(timeline)
            };
            if (keys.len() + count * ROWS) * 16 > budget {
                return None;
            }
            let mut quad = Quad {
                nodes: [NONE; 4],
                parents: [NONE; 4],
                lanes: group.len(),
                timeline,
                first: keys.len(),
                t_hold: BVec4A::splat(true),
                s_hold: BVec4A::splat(true),
                r_step: BVec4A::splat(false),
                r_rest: BVec4A::splat(true),
                t_const: true,
                s_const: true,
                r_const: true,
                held: [Vec4::ZERO; ROWS],
                fixed: NONE,
                t_keyed: BVec4A::splat(false),
                s_keyed: BVec4A::splat(false),
                r_keyed: BVec4A::splat(false),
            };
            let mut held = [[true; 4]; 3];
            for (lane, (n, [t, r, s])) in group.iter().zip(&sources).enumerate() {
                quad.nodes[lane] = n.node;
                quad.parents[lane] = n.parent;
                held[0][lane] = t.held();
                held[1][lane] = s.held();
                held[2][lane] = matches!(r, Source::Keys { step: true, .. });
                quad.r_rest.set(lane, matches!(r, Source::Rest(_)));
                quad.t_keyed.set(lane, matches!(t, Source::Keys { .. }));
                quad.s_keyed.set(lane, matches!(s, Source::Keys { .. }));
                quad.r_keyed.set(lane, matches!(r, Source::Keys { .. }));
                quad.t_const &= t.constant(count);
                quad.s_const &= s.constant(count);
                quad.r_const &= r.constant(count);
            }
            quad.t_hold = BVec4A::from(held[0]);
            quad.s_hold = BVec4A::from(held[1]);
            quad.r_step = BVec4A::from(held[2]);
            // Padding lanes hold the identity transform: finite arithmetic, never placed.
            let identity = [
                Source::Rest(Vec4::ZERO),
                Source::Rest(Vec4::W),
                Source::Rest(Vec4::new(1.0, 1.0, 1.0, 0.0)),
            ];
            let lane = |l: usize| sources.get(l).unwrap_or(&identity);
            for k in 0..count {
                let row = |prop: usize, c: usize| {
                    Vec4::from_array(std::array::from_fn(|l| lane(l)[prop].value(k)[c]))
                };
                keys.extend([
                    row(0, 0),
                    row(0, 1),
                    row(0, 2),
                    row(2, 0),
                    row(2, 1),
                    row(2, 2),
                    row(1, 0),
                    row(1, 1),
                    row(1, 2),
                    row(1, 3),
                ]);
            }
            let first = quad.first;
            hold_constants(&mut quad, &keys[first..first + ROWS]);
            fix_if_constant(&mut quad, &mut fixed)?;
            quads.push(quad);
        }
        Some(Self {
            quads,
            keys,
            fixed,
            packed: None,
        })
    }

    /// The f32 keys: [`QuadPlan::keys`], or the compressed keys decoded (rows of held groups
    /// filled with their held values), in the lossless layout.
    pub(crate) fn unpacked(&self) -> Self {
        let Some(p) = &self.packed else {
            return self.clone();
        };
        let mut keys = vec![Vec4::ZERO; p.lossless_len];
        let ends = self
            .quads
            .iter()
            .skip(1)
            .map(|q| q.first)
            .chain([p.lossless_len]);
        for ((q, end), groups) in self.quads.iter().zip(ends).zip(&p.quads) {
            for (k, key) in keys[q.first..end].chunks_exact_mut(ROWS).enumerate() {
                let key: &mut QuadRows = key.try_into().unwrap_or_else(|_| unreachable!());
                key.copy_from_slice(&q.held);
                #[expect(
                    clippy::cast_possible_truncation,
                    reason = "key indices fit u32: the plan checked the key counts"
                )]
                p.decode(groups, k as u32, key);
            }
        }
        Self {
            quads: self.quads.clone(),
            keys,
            fixed: self.fixed.clone(),
            packed: None,
        }
    }
}

/// Composes `quad`'s local matrices once when nothing in it moves (`Quad::fixed`), from its
/// held rows; `None` past 4 294 967 294 such quads.
pub(crate) fn fix_if_constant(quad: &mut Quad, fixed: &mut Vec<[Cols; 4]>) -> Option<()> {
    quad.fixed = NONE;
    if quad.t_const && quad.s_const && quad.r_const {
        let h = &quad.held;
        quad.fixed = u32::try_from(fixed.len()).ok()?;
        fixed.push(interpolate::compose_soa(
            [h[T_ROWS], h[T_ROWS + 1], h[T_ROWS + 2]],
            [h[R_ROWS], h[R_ROWS + 1], h[R_ROWS + 2], h[R_ROWS + 3]],
            [h[S_ROWS], h[S_ROWS + 1], h[S_ROWS + 2]],
        ));
    }
    Some(())
}

/// Fills `quad.held` from its first key `k0` (the value of every key where constant): what the
/// frame's lerp (`a + (b − a) · s` with `a == b`, `s ≥ 0`: `a + 0`) and slerp (equal keys copy)
/// give for those rows, whatever the time.
pub(crate) fn hold_constants(quad: &mut Quad, k0: &[Vec4]) {
    let lerped = |row: usize, hold: BVec4A| Vec4::select(hold, k0[row], k0[row] + Vec4::ZERO);
    for c in 0..3 {
        quad.held[T_ROWS + c] = lerped(T_ROWS + c, quad.t_hold);
        quad.held[S_ROWS + c] = lerped(S_ROWS + c, quad.s_hold);
    }
    let r = [k0[R_ROWS], k0[R_ROWS + 1], k0[R_ROWS + 2], k0[R_ROWS + 3]];
    let copied = interpolate::slerp_soa(r, r, Vec4::ZERO, BVec4A::splat(true));
    for c in 0..4 {
        quad.held[R_ROWS + c] = Vec4::select(quad.r_rest, r[c], copied[c]);
    }
}

/// The rig's nodes four at a time, for the layered structure-of-arrays pass: the rest value of
/// every quad, where each node sits, and which clips can take part (those whose [`QuadPlan`]
/// groups the nodes this way and that have no CUBICSPLINE transforms).
#[derive(Debug, Clone)]
pub(crate) struct LayerQuads {
    /// Rest rows of each quad (padding lanes: the identity transform).
    pub(crate) rest: Vec<QuadRows>,
    /// `quad · 4 + lane` of each node.
    pub(crate) lane_of: Vec<u32>,
    /// Whether clip `c` can be layered four nodes at a time.
    pub(crate) clip_ok: Vec<bool>,
    /// The quads of the first such clip: their nodes and parents, where the pass places them.
    pub(crate) shape: Vec<Quad>,
}

impl LayerQuads {
    /// The rig's quads over `steps` (its topological order), or `None` when no clip has quads.
    pub(crate) fn new(
        steps: &[crate::rig::layout::NodeStep],
        rest: &[NodeRest],
        clips: &[Option<&QuadPlan>],
        cubic_free: &[bool],
    ) -> Option<Self> {
        let mut lane_of = vec![NONE; rest.len()];
        let mut rows = Vec::with_capacity(steps.len().div_ceil(4));
        for (qi, group) in steps.chunks(4).enumerate() {
            let mut trs = [([0.0_f32; 3], [0.0_f32, 0.0, 0.0, 1.0], [1.0_f32; 3]); 4];
            for (lane, step) in group.iter().enumerate() {
                let node = step.node as usize;
                lane_of[node] = u32::try_from(qi * 4 + lane).ok()?;
                let n = &rest[node];
                trs[lane] = (n.translation, n.rotation, n.scale);
            }
            let lanes: [[f32; 4]; ROWS] = std::array::from_fn(|row| {
                std::array::from_fn(|lane| {
                    let (t, r, s) = &trs[lane];
                    match row {
                        0..S_ROWS => t[row - T_ROWS],
                        S_ROWS..R_ROWS => s[row - S_ROWS],
                        _ => r[row - R_ROWS],
                    }
                })
            });
            rows.push(lanes.map(Vec4::from_array));
        }
        let groups = || steps.chunks(4);
        let clip_ok: Vec<bool> = clips
            .iter()
            .zip(cubic_free)
            .map(|(plan, &cubic_free)| {
                plan.is_some_and(|p| {
                    cubic_free
                        && p.quads.len() == rows.len()
                        && p.quads.iter().zip(groups()).all(|(q, g)| {
                            q.lanes == g.len() && g.iter().zip(&q.nodes).all(|(s, &n)| s.node == n)
                        })
                })
            })
            .collect();
        let first = clip_ok.iter().position(|&ok| ok)?;
        let shape = clips[first]?.quads.clone();
        Some(Self {
            rest: rows,
            lane_of,
            clip_ok,
            shape,
        })
    }

    /// Per-quad lane values from one value per node (`0.0` in padding lanes).
    pub(crate) fn per_lane(&self, node_values: impl Fn(usize) -> f32) -> Box<[Vec4]> {
        let mut out = vec![Vec4::ZERO; self.rest.len()].into_boxed_slice();
        for (node, &at) in self.lane_of.iter().enumerate() {
            if at != NONE {
                let (q, lane) = (at as usize / 4, at as usize % 4);
                let mut v = out[q].to_array();
                v[lane] = node_values(node);
                out[q] = Vec4::from_array(v);
            }
        }
        out
    }
}

impl QuadPlan {
    /// The plan's keys made relative to `reference` (one [`QuadRows`] per quad): translations and
    /// scales `key − reference`, rotations `conj(reference) · key` (ozz-animation's additive
    /// animations, baked once): sampling it gives an additive layer's differences directly,
    /// within f32 rounding of sampling the clip and subtracting (the polynomial slerp depends
    /// only on the keys' dot product, which a common rotation on the left keeps). Constant
    /// rows are held again from the new keys.
    ///
    /// Lanes whose keys all hold the reference value bit for bit (their differences are
    /// nothing: a zero translation or scale, the identity rotation) are no longer keyed: adding
    /// them would leave the pose as it is (up to the rounding of one more renormalisation), so
    /// the layer skips them, and a quad left with no keyed lane is not sampled at all.
    ///
    /// # Panics
    /// When `reference` has fewer rows than the plan has quads.
    pub(crate) fn relative_to(&self, reference: &[QuadRows]) -> Self {
        use skel_math::lanes::Quatx4;
        let mut out = self.unpacked();
        let ends: Vec<usize> = self
            .quads
            .iter()
            .skip(1)
            .map(|q| q.first)
            .chain([out.keys.len()])
            .collect();
        for ((q, end), r) in out.quads.iter_mut().zip(ends).zip(reference) {
            // Lanes where every key holds the reference value (bit for bit) add nothing.
            let same = |rows: core::ops::Range<usize>| {
                out.keys[q.first..end]
                    .chunks_exact(ROWS)
                    .fold(BVec4A::splat(true), |same, key| {
                        rows.clone()
                            .fold(same, |same, row| same & key[row].cmpeq(r[row]))
                    })
            };
            q.t_keyed &= !same(T_ROWS..T_ROWS + 3);
            q.s_keyed &= !same(S_ROWS..S_ROWS + 3);
            // Rotations: keys all equal, and the reference what sampling them gives (the
            // normalised key, as `hold_constants` holds it).
            let keys = &out.keys[q.first..end];
            let k0 = [
                keys[R_ROWS],
                keys[R_ROWS + 1],
                keys[R_ROWS + 2],
                keys[R_ROWS + 3],
            ];
            let held = interpolate::slerp_soa(k0, k0, Vec4::ZERO, BVec4A::splat(true));
            let r_held = keys.chunks_exact(ROWS).fold(
                (0..4).fold(BVec4A::splat(true), |m, c| m & held[c].cmpeq(r[R_ROWS + c])),
                |m, key| (0..4).fold(m, |m, c| m & key[R_ROWS + c].cmpeq(k0[c])),
            );
            q.r_keyed &= !(same(R_ROWS..R_ROWS + 4) | r_held);
            let conj =
                Quatx4::new(r[R_ROWS], r[R_ROWS + 1], r[R_ROWS + 2], r[R_ROWS + 3]).conjugate();
            for key in out.keys[q.first..end].chunks_exact_mut(ROWS) {
                for c in 0..3 {
                    key[T_ROWS + c] -= r[T_ROWS + c];
                    key[S_ROWS + c] -= r[S_ROWS + c];
                }
                let k = Quatx4::new(
                    key[R_ROWS],
                    key[R_ROWS + 1],
                    key[R_ROWS + 2],
                    key[R_ROWS + 3],
                );
                let d = (conj * k).rows();
                key[R_ROWS..R_ROWS + 4].copy_from_slice(&d);
            }
            let first = q.first;
            hold_constants(q, &out.keys[first..first + ROWS]);
        }
        out
    }
}
