//! The structure-of-arrays pose pass over a clip's [`QuadPlan`]: four nodes sampled, composed
//! and placed per step with every value already in the lane it is used in. The values are bit
//! for bit those of the array-of-structures fused pass (`pose::steps::pose_clip_fused`).

use glam::Vec4;
use skel_math::lanes::Affine3x4;

use crate::data::NONE;
use crate::inertial::Inertialization;
use crate::math::interpolate::{self, Cols};
use crate::rig::four_node::QuadPlan;
use crate::rig::layout::Transform;
use crate::sample::cursor::Segment;
use crate::sample::four_node::{NLERP, SLERP};
use crate::sample::four_node::{Quad, R_ROWS, S_ROWS, T_ROWS};
use crate::sample::key_cache::KeyCache;

pub(crate) use crate::sample::four_node::{Lanes, sample, sample_differences};

/// How a quad's local matrices (elements in lanes, `interpolate::compose_rows`) are placed on
/// their parents' world matrices: [`Baseline`]'s `place_rows` (SSE2 products, the
/// array-of-structures pass's bits), or a kernel chosen at run time (`pose::avx2`).
pub(crate) trait Place: Copy {
    /// Writes the world matrix of each of `q`'s lanes (parents first) to `world`.
    fn place_quad(
        self,
        world: &mut [f32],
        q: &Quad,
        e: &[[Vec4; 4]; 3],
        zero: [Vec4; 3],
        root: &Transform,
    );

    /// Adds a running inertialization's offset to quad `qi`'s transforms, compiled as this
    /// placer's pass is (the offset's own function: see `Inertialization::apply_quad`).
    fn offset_quad(self, offset: &Inertialization, qi: usize, lanes: &mut Lanes);
}

/// [`Place`] by [`place_rows`], lane by lane: bit for bit the array-of-structures pass.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Baseline;

impl Place for Baseline {
    #[inline(always)]
    fn place_quad(
        self,
        world: &mut [f32],
        q: &Quad,
        e: &[[Vec4; 4]; 3],
        zero: [Vec4; 3],
        root: &Transform,
    ) {
        place_rows::<0>(world, q, e, zero, root);
        if q.lanes > 1 {
            place_rows::<1>(world, q, e, zero, root);
        }
        if q.lanes > 2 {
            place_rows::<2>(world, q, e, zero, root);
        }
        if q.lanes > 3 {
            place_rows::<3>(world, q, e, zero, root);
        }
    }

    #[inline(always)]
    fn offset_quad(self, offset: &Inertialization, qi: usize, lanes: &mut Lanes) {
        offset.apply_quad(qi, lanes);
    }
}

/// What the pass adds to each quad after sampling it, before composing: nothing
/// ([`NoOffset`], compiled away), or a running inertialization laid out over the plan's quads.
pub(crate) trait QuadOffset: Copy {
    /// Whether it ever adds anything (a pass that has no place for an offset may run only
    /// where it does not).
    const ADDS: bool;
    /// Which parts (bits 0, 1, 2: translation, rotation, scale) quad `qi` moves; 0: none.
    fn parts(self, qi: usize) -> u8;
    /// Adds quad `qi`'s offset to its transforms, compiled as `placer`'s pass is.
    fn apply(self, qi: usize, lanes: &mut Lanes, placer: impl Place);
}

/// [`QuadOffset`] adding nothing: the pass as it is without a blend.
#[derive(Debug, Clone, Copy)]
pub(crate) struct NoOffset;

impl QuadOffset for NoOffset {
    const ADDS: bool = false;
    #[inline(always)]
    fn parts(self, _qi: usize) -> u8 {
        0
    }
    #[inline(always)]
    fn apply(self, _qi: usize, _lanes: &mut Lanes, _placer: impl Place) {}
}

impl QuadOffset for &Inertialization {
    const ADDS: bool = true;
    #[inline(always)]
    fn parts(self, qi: usize) -> u8 {
        self.quad_parts(qi)
    }
    #[inline(always)]
    fn apply(self, qi: usize, lanes: &mut Lanes, placer: impl Place) {
        placer.offset_quad(self, qi, lanes);
    }
}

impl QuadPlan {
    /// Samples, composes and places every node of the clip at the key intervals `segments`
    /// (one per timeline of the clip): writes each node's TRS record and world matrix, parents
    /// first, roots pre-multiplied by `root`.
    #[inline(always)]
    #[allow(
        dead_code,
        reason = "the baseline entry with the record; the single-clip pass calls pose_into"
    )]
    pub(crate) fn pose(
        &self,
        segments: &[Segment],
        trs: &mut [f32],
        world: &mut [f32],
        root: &Transform,
    ) {
        self.pose_into::<true, _, _>(segments, trs, world, root, Baseline, NoOffset);
    }

    /// The pass itself; `RECORD` says whether each node's TRS record is written to `trs`
    /// (untouched, and may be empty, when not), `placer` how the hierarchy's products run,
    /// `offset` a running inertialization laid out over these quads, added to each quad
    /// before it is composed.
    #[inline(always)]
    pub(crate) fn pose_into<const RECORD: bool, P: Place, O: QuadOffset>(
        &self,
        segments: &[Segment],
        trs: &mut [f32],
        world: &mut [f32],
        root: &Transform,
        placer: P,
        offset: O,
    ) {
        // Each sampler inlined into the pass: the pass may be compiled for AVX2 and FMA
        // (`pose/avx2.rs`), and a closure left out of line would decode in the baseline.
        match &self.packed {
            None => self.pose_with::<RECORD, _, _>(
                0,
                trs,
                world,
                root,
                placer,
                offset,
                #[inline(always)]
                |_, q| sample(&self.keys, q, segments),
            ),
            Some(p) => match p.uniform {
                Some(SLERP) => self.pose_with::<RECORD, _, _>(
                    0,
                    trs,
                    world,
                    root,
                    placer,
                    offset,
                    #[inline(always)]
                    |qi, q| p.sample_as::<SLERP>(qi, q, segments),
                ),
                Some(_) => self.pose_with::<RECORD, _, _>(
                    0,
                    trs,
                    world,
                    root,
                    placer,
                    offset,
                    #[inline(always)]
                    |qi, q| p.sample_as::<NLERP>(qi, q, segments),
                ),
                None => self.pose_with::<RECORD, _, _>(
                    0,
                    trs,
                    world,
                    root,
                    placer,
                    offset,
                    #[inline(always)]
                    |qi, q| p.sample(qi, q, segments),
                ),
            },
        }
    }

    /// [`pose_into`](Self::pose_into) with compressed keys decoded through `cache` (the
    /// character's, prepared for this clip): once per key interval instead of every frame.
    /// Lossless keys are read as they are. Inlined into the pass's kernels (`pose/avx2.rs`
    /// places quads with AVX2 intrinsics, which become calls outside an AVX2 function).
    #[inline(always)]
    #[allow(
        clippy::too_many_arguments,
        reason = "the pass's buffers, kernel, key cache and offset, each chosen by a caller"
    )]
    pub(crate) fn pose_into_cached<const RECORD: bool, P: Place, O: QuadOffset>(
        &self,
        segments: &[Segment],
        trs: &mut [f32],
        world: &mut [f32],
        root: &Transform,
        placer: P,
        cache: &mut KeyCache,
        offset: O,
    ) {
        let Some(p) = &self.packed else {
            return self.pose_into::<RECORD, P, O>(segments, trs, world, root, placer, offset);
        };
        match p.uniform {
            Some(SLERP) => self.pose_with::<RECORD, _, _>(
                0,
                trs,
                world,
                root,
                placer,
                offset,
                #[inline(always)]
                |qi, q| p.sample_cached_as::<SLERP>(qi, q, segments, cache),
            ),
            Some(_) => self.pose_with::<RECORD, _, _>(
                0,
                trs,
                world,
                root,
                placer,
                offset,
                #[inline(always)]
                |qi, q| p.sample_cached_as::<NLERP>(qi, q, segments, cache),
            ),
            None => self.pose_with::<RECORD, _, _>(
                0,
                trs,
                world,
                root,
                placer,
                offset,
                #[inline(always)]
                |qi, q| p.sample_cached(qi, q, segments, cache),
            ),
        }
    }

    /// The quads from `start` on, without the record, by the baseline products: `world` must
    /// hold the earlier quads' matrices already (what the compressor's trials re-pose).
    pub(crate) fn pose_from(
        &self,
        start: usize,
        segments: &[Segment],
        world: &mut [f32],
        root: &Transform,
    ) {
        match &self.packed {
            None => self.pose_with::<false, _, _>(
                start,
                &mut [],
                world,
                root,
                Baseline,
                NoOffset,
                |_, q| sample(&self.keys, q, segments),
            ),
            Some(p) => self.pose_with::<false, _, _>(
                start,
                &mut [],
                world,
                root,
                Baseline,
                NoOffset,
                |qi, q| p.sample(qi, q, segments),
            ),
        }
    }

    /// [`pose_into`](Self::pose_into) from quad `start` on, with each moving quad's transforms
    /// from `sample_at` and `offset`'s added.
    #[inline(always)]
    #[allow(
        clippy::too_many_arguments,
        reason = "the pass's buffers, kernel, offset and sampler, each chosen by a caller"
    )]
    fn pose_with<const RECORD: bool, P: Place, O: QuadOffset>(
        &self,
        start: usize,
        trs: &mut [f32],
        world: &mut [f32],
        root: &Transform,
        placer: P,
        offset: O,
        mut sample_at: impl FnMut(usize, &Quad) -> Lanes,
    ) {
        for (i, q) in self.quads[start..].iter().enumerate() {
            let qi = start + i;
            let h = &q.held;
            let v = match offset.parts(qi) {
                parts if parts != 0 => {
                    // A fixed quad moves while the offset does: composed here, not at build.
                    let mut v = if q.fixed == NONE {
                        sample_at(qi, q)
                    } else {
                        Lanes::from_rows(h)
                    };
                    offset.apply(qi, &mut v, placer);
                    v
                }
                _ if q.fixed != NONE => {
                    // Nothing in the quad moves: its local matrices were composed at build
                    // time.
                    if RECORD {
                        write_trs(
                            trs,
                            q,
                            [h[T_ROWS], h[T_ROWS + 1], h[T_ROWS + 2]],
                            [h[R_ROWS], h[R_ROWS + 1], h[R_ROWS + 2], h[R_ROWS + 3]],
                            [h[S_ROWS], h[S_ROWS + 1], h[S_ROWS + 2]],
                        );
                    }
                    place(world, q, &self.fixed[q.fixed as usize], root);
                    continue;
                }
                _ => sample_at(qi, q),
            };
            if RECORD {
                write_trs(trs, q, v.t.rows(), v.r.rows(), v.s.rows());
            }
            let Affine3x4 { m: e, zero } = Affine3x4::from_trs(v.t, v.r, v.s);
            placer.place_quad(world, q, &e, zero, root);
        }
    }
}

/// Multiplies each lane's local matrix onto its parent's world matrix (parents come first in
/// the plan's order, also within a quad).
#[inline(always)]
fn place(world: &mut [f32], q: &Quad, locals: &[Cols; 4], root: &Transform) {
    for ((&node, &parent), local) in q.nodes.iter().zip(&q.parents).zip(locals).take(q.lanes) {
        crate::rig::layout::place_step(world, node, parent, local, root);
    }
}

/// `place_step` of lane `L` from the local matrices' elements in lanes
/// (`interpolate::compose_rows`): the same products in the same order as `mul_affine`, each
/// element broadcast straight from its lane instead of from a transposed column.
#[inline(always)]
pub(crate) fn place_rows<const L: usize>(
    world: &mut [f32],
    q: &Quad,
    e: &[[Vec4; 4]; 3],
    zero: [Vec4; 3],
    root: &Transform,
) {
    let at = |v: Vec4| v.to_array()[L];
    let (node, parent) = (q.nodes[L], q.parents[L]);
    let m = if parent == NONE {
        let col = |c: usize, w: f32| Vec4::new(at(e[0][c]), at(e[1][c]), at(e[2][c]), w);
        let local = [
            col(0, at(zero[0])),
            col(1, at(zero[1])),
            col(2, at(zero[2])),
            col(3, 1.0),
        ];
        root.apply(&local)
    } else {
        let p = interpolate::load(&interpolate::matrices(world)[parent as usize]);
        let col = |c: usize| {
            p[0] * Vec4::splat(at(e[0][c]))
                + p[1] * Vec4::splat(at(e[1][c]))
                + p[2] * Vec4::splat(at(e[2][c]))
        };
        [col(0), col(1), col(2), col(3) + p[3]]
    };
    interpolate::store(&mut interpolate::matrices_mut(world)[node as usize], &m);
}

/// Writes each lane's transform to its node's TRS record (padding untouched).
#[inline(always)]
pub(crate) fn write_trs(trs: &mut [f32], q: &Quad, t: [Vec4; 3], r: [Vec4; 4], s: [Vec4; 3]) {
    let front = interpolate::transpose([t[0], t[1], t[2], r[0]]);
    let middle = interpolate::transpose([r[1], r[2], r[3], s[0]]);
    // Scale y and z of each lane, interleaved in pairs (two unpacks, not a third transpose).
    let (sy, sz) = (s[1], s[2]);
    let back = [
        Vec4::new(sy.x, sz.x, sy.y, sz.y).to_array(),
        Vec4::new(sy.z, sz.z, sy.w, sz.w).to_array(),
    ];
    let records = crate::rig::layout::records_mut(trs);
    for lane in 0..q.lanes {
        let rec = &mut records[q.nodes[lane] as usize];
        front[lane].write_to_slice(&mut rec[0..4]);
        middle[lane].write_to_slice(&mut rec[4..8]);
        let pair = (lane & 1) * 2;
        rec[8..10].copy_from_slice(&back[lane >> 1][pair..pair + 2]);
    }
}

#[cfg(test)]
#[path = "four_node_tests.rs"]
mod tests;
