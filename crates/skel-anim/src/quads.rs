//! The structure-of-arrays pose pass: a clip's keys regrouped four nodes at a time, so that a
//! frame samples, composes and places four nodes per step with every value already in the lane
//! it is used in (ozz-animation's layout). The values are bit for bit those of the
//! array-of-structures fused pass (`pose::pose_clip_fused`): each lane runs the same operations
//! in the same order, only no transposes or sample buffers sit between the steps.
//!
//! Built per clip when every node of each group of four takes its keyed properties from one
//! key-time array (exporters share one per clip: CesiumMan, Fox, RiggedFigure) and the copy stays
//! within [`MAX_GROWTH`] of the clip's own keys; otherwise the clip keeps the array-of-structures
//! pass.

use glam::{BVec4A, Vec4};

use crate::interpolate;
use crate::plan::{ClipPlan, NONE, NodeSources};
use crate::pose::Transform;
use crate::timeline::Segment;
use crate::{Clip, NodeRest, TRS_STRIDE};

/// Rows per key of a quad: translation `x, y, z`, scale `x, y, z`, rotation `x, y, z, w`, each
/// a `Vec4` with one node per lane.
const ROWS: usize = 10;
const T_ROWS: usize = 0;
const S_ROWS: usize = 3;
const R_ROWS: usize = 6;

/// The regrouped keys may take at most this many times the bytes of the clip's tracks' keys
/// (untracked properties of a quad with a tracked one repeat their rest value in every key) plus
/// [`SLACK_BYTES`]; past it the clip keeps the array-of-structures pass.
const MAX_GROWTH: usize = 8;
const SLACK_BYTES: usize = 256 * 1024;

/// Four consecutive nodes of the topological order (fewer in the last quad).
#[derive(Debug, Clone)]
pub(crate) struct Quad {
    nodes: [u32; 4],
    parents: [u32; 4],
    lanes: usize,
    /// The key-time array all of the quad's tracks use, [`NONE`] when nothing in it is keyed
    /// (one key of rest values).
    timeline: u32,
    /// Where the quad's keys start in [`QuadPlan::keys`] (`ROWS` vectors per key).
    first: usize,
    /// Lanes whose translation / scale takes key `a` as it is: STEP tracks and untracked
    /// properties (rest values repeated in every key).
    t_hold: BVec4A,
    s_hold: BVec4A,
    /// Lanes whose rotation is STEP (key `a`, normalised, as the scalar path does).
    r_step: BVec4A,
    /// Lanes whose rotation is not keyed: the rest value, not normalised (as the scalar path).
    r_rest: BVec4A,
}

/// A clip's keys in quads, for the structure-of-arrays pass.
#[derive(Debug, Clone)]
pub(crate) struct QuadPlan {
    quads: Vec<Quad>,
    keys: Vec<Vec4>,
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
}

impl QuadPlan {
    /// The quads of clip `clip` (whose plan `cp` has its fused node list), or `None` when a quad
    /// mixes key-time arrays, the clip has no fused pass, or the copy would be too large.
    pub(crate) fn new(clip: &Clip, cp: &ClipPlan, rest: &[NodeRest]) -> Option<Self> {
        if cp.nodes.is_empty() {
            return None;
        }
        let key_count = |timeline: u32| {
            let rep = cp.timelines.representative[timeline as usize] as usize;
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
        let budget =
            MAX_GROWTH * 16 * cp.blocks.iter().map(|b| b.keys.len()).sum::<usize>() + SLACK_BYTES;
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
            };
            let mut held = [[true; 4]; 3];
            for (lane, (n, [t, r, s])) in group.iter().zip(&sources).enumerate() {
                quad.nodes[lane] = n.node;
                quad.parents[lane] = n.parent;
                held[0][lane] = t.held();
                held[1][lane] = s.held();
                held[2][lane] = matches!(r, Source::Keys { step: true, .. });
                quad.r_rest.set(lane, matches!(r, Source::Rest(_)));
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
            for k in 0..count {
                let lane = |l: usize| sources.get(l).unwrap_or(&identity);
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
            quads.push(quad);
        }
        Some(Self { quads, keys })
    }

    /// Samples, composes and places every node of the clip at the key intervals `segments`
    /// (one per timeline of the clip): writes each node's TRS record and world matrix, parents
    /// first, roots pre-multiplied by `root`.
    #[inline]
    pub(crate) fn pose(
        &self,
        segments: &[Segment],
        trs: &mut [f32],
        world: &mut [f32],
        root: &Transform,
    ) {
        for q in &self.quads {
            let seg = if q.timeline == NONE {
                Segment::default()
            } else {
                segments[q.timeline as usize]
            };
            let ka = &self.keys[q.first + seg.a as usize * ROWS..][..ROWS];
            let kb = &self.keys[q.first + seg.b as usize * ROWS..][..ROWS];
            let s = Vec4::splat(seg.s);
            let lerp = |row: usize, hold: BVec4A| {
                let (a, b) = (ka[row], kb[row]);
                Vec4::select(hold, a, a + (b - a) * s)
            };
            let t = [
                lerp(T_ROWS, q.t_hold),
                lerp(T_ROWS + 1, q.t_hold),
                lerp(T_ROWS + 2, q.t_hold),
            ];
            let sc = [
                lerp(S_ROWS, q.s_hold),
                lerp(S_ROWS + 1, q.s_hold),
                lerp(S_ROWS + 2, q.s_hold),
            ];
            let ra = [ka[R_ROWS], ka[R_ROWS + 1], ka[R_ROWS + 2], ka[R_ROWS + 3]];
            let rb = [kb[R_ROWS], kb[R_ROWS + 1], kb[R_ROWS + 2], kb[R_ROWS + 3]];
            let copy = q.r_step | BVec4A::splat(seg.a == seg.b);
            let slerped = interpolate::slerp_soa(ra, rb, s, copy);
            let r: [Vec4; 4] = std::array::from_fn(|c| Vec4::select(q.r_rest, ra[c], slerped[c]));
            write_trs(trs, q, t, r, sc);
            let locals = interpolate::compose_soa(t, r, sc);
            for ((&node, &parent), local) in
                q.nodes.iter().zip(&q.parents).zip(&locals).take(q.lanes)
            {
                crate::pose::place_step(world, node, parent, local, root);
            }
        }
    }
}

/// Writes each lane's transform to its node's TRS record (padding untouched).
#[inline]
fn write_trs(trs: &mut [f32], q: &Quad, t: [Vec4; 3], r: [Vec4; 4], s: [Vec4; 3]) {
    let front = interpolate::transpose([t[0], t[1], t[2], r[0]]);
    let middle = interpolate::transpose([r[1], r[2], r[3], s[0]]);
    let back = interpolate::transpose([s[1], s[2], Vec4::ZERO, Vec4::ZERO]);
    for lane in 0..q.lanes {
        let base = q.nodes[lane] as usize * TRS_STRIDE;
        let rec = &mut trs[base..base + TRS_STRIDE];
        front[lane].write_to_slice(&mut rec[0..4]);
        middle[lane].write_to_slice(&mut rec[4..8]);
        rec[8] = back[lane].x;
        rec[9] = back[lane].y;
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, reason = "tests")]

    use std::sync::Arc;

    use proptest::prelude::*;

    use crate::{
        AnimationController, AnimationData, Channel, ChannelPath, Clip, Handedness, Interpolation,
        NodeRest, NullSink, PoseScratch, Sampler, apply_clip, compute_world_matrices,
        reset_to_rest,
    };

    /// A random rig: `parents[i] < i` or none, rest poses, and one clip whose tracks (a random
    /// subset of properties, LINEAR or STEP) share key times `times` (or use `other` for the
    /// tracks flagged in `second_timeline`).
    #[derive(Debug, Clone)]
    struct Rig {
        parents: Vec<Option<usize>>,
        rest: Vec<[f32; 10]>,
        tracks: Vec<(usize, u8, bool, bool, Vec<f32>)>,
        times: Vec<f32>,
    }

    fn quat(v: [f32; 4]) -> [f32; 4] {
        let n = v.iter().map(|x| x * x).sum::<f32>().sqrt().max(1e-3);
        v.map(|x| x / n)
    }

    fn rig() -> impl Strategy<Value = Rig> {
        (1usize..14, 2usize..7).prop_flat_map(|(nodes, keys)| {
            let parents = (0..nodes)
                .map(|i| {
                    if i == 0 {
                        Just(None).boxed()
                    } else {
                        prop::option::weighted(0.85, 0..i).boxed()
                    }
                })
                .collect::<Vec<_>>();
            let rest = prop::collection::vec(prop::array::uniform10(-2.0f32..2.0), nodes);
            let track = (
                0..nodes,
                0u8..3,
                prop::bool::weighted(0.2),
                prop::bool::weighted(0.1),
                prop::collection::vec(-2.0f32..2.0, keys * 4),
            );
            let tracks = prop::collection::vec(track, 0..nodes * 3);
            let gaps = prop::collection::vec(0.05f32..1.0, keys);
            (parents, rest, tracks, gaps).prop_map(|(parents, rest, tracks, gaps)| Rig {
                parents,
                rest,
                tracks,
                times: gaps
                    .iter()
                    .scan(0.0, |t, g| {
                        *t += g;
                        Some(*t)
                    })
                    .collect(),
            })
        })
    }

    fn data(rig: &Rig) -> AnimationData {
        let nodes = rig
            .parents
            .iter()
            .zip(&rig.rest)
            .enumerate()
            .map(|(i, (&parent, r))| NodeRest {
                translation: [r[0], r[1], r[2]],
                rotation: quat([r[3], r[4], r[5], r[6]]),
                scale: [r[7], r[8], r[9]],
                ..NodeRest::new(format!("n{i}"), parent)
            })
            .collect();
        let other: Vec<f32> = rig.times.iter().map(|t| t * 1.5).collect();
        let mut samplers = Vec::new();
        let mut channels = Vec::new();
        for (node, path, step, second, values) in &rig.tracks {
            let (path, width) = match path {
                0 => (ChannelPath::Translation, 3),
                1 => (ChannelPath::Rotation, 4),
                _ => (ChannelPath::Scale, 3),
            };
            let keys = rig.times.len();
            let mut output = values[..keys * width].to_vec();
            if width == 4 {
                for q in output.chunks_exact_mut(4) {
                    q.copy_from_slice(&quat([q[0], q[1], q[2], q[3]]));
                }
            }
            let times = if *second {
                other.clone()
            } else {
                rig.times.clone()
            };
            let interp = if *step {
                Interpolation::Step
            } else {
                Interpolation::Linear
            };
            channels.push(Channel {
                sampler: samplers.len(),
                node: *node,
                path,
            });
            samplers.push(Sampler::new(times, output, interp).unwrap());
        }
        AnimationData {
            nodes,
            clips: vec![Clip::new("c", samplers, channels)],
            skeletons: vec![],
            morph_bindings: vec![],
            handedness: Handedness::LeftHanded,
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        /// The structure-of-arrays pass gives the TRS and world matrices of the unfused steps
        /// (reset, `apply_clip`, `compute_world_matrices`) bit for bit, at times before, inside
        /// and after the keys, and is used whenever every quad has one key-time array.
        #[test]
        fn quads_give_the_unfused_bits(rig in rig(), times in prop::collection::vec(-0.5f32..8.0, 1..12)) {
            let data = Arc::new(data(&rig));
            let mut controller = AnimationController::new(Arc::clone(&data)).unwrap();
            controller.set_clip(Some(0)).unwrap();
            let mut reference = PoseScratch::new(&data).unwrap();
            let plan = &controller.scratch().plan.clips[0];
            let mixed = rig.tracks.iter().any(|t| t.3) && rig.tracks.iter().any(|t| !t.3);
            if !mixed {
                prop_assert!(plan.quads.is_some(), "one key-time array: the quad pass is built");
            }
            for &t in &times {
                controller.evaluate_at(Some(0), t, &mut NullSink).unwrap();
                reset_to_rest(&data, &mut reference);
                apply_clip(&data, 0, t, &mut reference);
                compute_world_matrices(&data, &mut reference);
                let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
                prop_assert_eq!(bits(&controller.scratch().trs), bits(&reference.trs), "TRS at {}", t);
                prop_assert_eq!(bits(controller.world_matrices()), bits(&reference.world), "world at {}", t);
            }
        }
    }

    #[test]
    fn a_copy_past_its_budget_keeps_the_vector_pass() {
        // One translation of 20 000 keys among four nodes: the quad repeats 9 rest rows in
        // every key, 10× the track's own bytes, past MAX_GROWTH (8×) plus the slack. With 2 000
        // keys the slack covers it.
        let rig = |keys: usize| Rig {
            parents: vec![None, Some(0), Some(1), Some(2)],
            rest: vec![[0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0]; 4],
            tracks: vec![(2, 0, false, false, vec![0.5; keys * 4])],
            #[expect(clippy::cast_precision_loss, reason = "test key times")]
            times: (0..keys).map(|k| k as f32).collect(),
        };
        let quads = |keys| {
            let c = AnimationController::new(Arc::new(data(&rig(keys)))).unwrap();
            c.scratch().plan.clips[0].quads.is_some()
        };
        assert!(quads(2_000));
        assert!(!quads(20_000));
    }

    #[test]
    fn a_quad_that_mixes_key_time_arrays_keeps_the_vector_pass() {
        let rig = Rig {
            parents: vec![None, Some(0)],
            rest: vec![[0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0]; 2],
            tracks: vec![
                (0, 0, false, false, vec![0.0; 8]),
                (
                    1,
                    1,
                    false,
                    true,
                    vec![0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0],
                ),
            ],
            times: vec![0.0, 1.0],
        };
        let controller = AnimationController::new(Arc::new(data(&rig))).unwrap();
        assert!(controller.scratch().plan.clips[0].quads.is_none());
        assert!(!controller.scratch().plan.clips[0].nodes.is_empty());
    }
}
