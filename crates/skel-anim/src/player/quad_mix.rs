//! The layer step four nodes at a time (ozz-animation's `BlendingJob` over `SoaTransform`s):
//! every layer's clip sampled straight from its [`QuadPlan`] rows, blend layers summed and
//! additive layers applied lane by lane, then the result written to the TRS records and, on the
//! player's fused path, composed and placed without a second pass over the nodes.
//!
//! The rules are [`mix`](super::mix)'s, lane for property: a lane contributes where its clip
//! keys the property and its weight (layer weight × mask) is not zero; a single contributor of
//! weight ≥ 1 is taken as sampled; a total below 1 is filled by the rest value; rotations are
//! the normalised, hemisphere-aligned weighted sum; additive layers follow in layer order. The
//! values agree with the property-by-property pass within f32 rounding (the sums run in the
//! same order; the quaternion products and lengths add their terms in another).
//!
//! A running inertialization's offset ([`Inertialization`]) is added to each quad after its
//! layers, before it is composed, four nodes at a time.
//!
//! It runs when every contributing layer's clip has quads over the rig's node order and no
//! CUBICSPLINE transform (`LayerQuads::clip_ok`) and at most [`MAX_LAYERS_PER_KIND`] blend
//! and additive layers contribute; stacks with a frozen snapshot or root motion take the
//! property-by-property pass too.

use glam::Vec4;
use skel_math::lanes::{Affine3x4, Vec3x4};

use super::lane_rules::{Acc, Sums, add_rotation_deltas, add_vectors};
use crate::PoseScratch;
use crate::Rig;
use crate::inertial::Inertialization;
use crate::player::layer::Layer;
use crate::pose::four_node::{self, Lanes, Place};
use crate::rig::four_node::QuadPlan;
use crate::rig::kernels::Kernels;
use crate::sample::cursor::Segment;
use crate::sample::four_node::{Quad, QuadRows, R_ROWS, ROWS, S_ROWS, T_ROWS};

/// The most blend layers, and the most additive layers, that contribute to a stack the quad
/// pass takes (their parameters sit in fixed arrays on the stack: nothing is allocated);
/// larger stacks run property by property.
pub(crate) const MAX_LAYERS_PER_KIND: usize = 8;

/// One contributing layer as the quad loop reads it: the key blocks it samples (its clip's,
/// or for an additive layer its clip's relative to the reference), its key intervals, its
/// mask's lanes and its effective weight.
#[derive(Clone, Copy)]
struct Contributor<'a> {
    plan: &'a QuadPlan,
    segments: &'a [Segment],
    mask: Option<&'a [Vec4]>,
    weight: f32,
}

impl Contributor<'_> {
    /// The weight in each lane of quad `qi` (the mask's weights times the layer's).
    #[inline(always)]
    fn lanes(&self, qi: usize) -> Vec4 {
        match self.mask {
            Some(m) => Vec4::splat(self.weight) * m[qi],
            None => Vec4::splat(self.weight),
        }
    }
}

/// The contributing layers of one evaluation, blend layers then additive ones, in layer order.
struct Stack<'a> {
    blend: [Option<Contributor<'a>>; MAX_LAYERS_PER_KIND],
    additive: [Option<Contributor<'a>>; MAX_LAYERS_PER_KIND],
}

impl<'a> Stack<'a> {
    /// Fills the stack with `layers`, each contributing layer's key interval located on every timeline
    /// of its clip on the way; `None` when the quad pass cannot run it (a contributing clip
    /// without quads over the rig's node order or with CUBICSPLINE transforms, an additive
    /// layer without baked differences, more than [`MAX_LAYERS_PER_KIND`] of a kind), with
    /// nothing else changed. The caller rules out snapshots and root motion.
    ///
    /// Filled in place (`self` starts empty): a stack this size returned by value is copied.
    fn fill(&mut self, rig: &'a Rig, layers: &'a mut [Layer]) -> Option<()> {
        let lq = rig.layer_quads.as_ref()?;
        let stack = self;
        let (mut b, mut a) = (0, 0);
        let data = rig.data();
        for l in layers.iter_mut() {
            let weight = l.effective_weight();
            if weight == 0.0 {
                continue;
            }
            if !lq.clip_ok[l.clip] {
                return None;
            }
            let l: &'a mut Layer = l;
            let plan = match &l.reference {
                None if weight > 0.0 => rig.plan.clips[l.clip].quads.as_ref(),
                // A blend layer of negative weight contributes nothing.
                None => continue,
                Some(r) => Some(r.deltas.as_deref()?),
            };
            let Some(plan) = plan else { continue };
            let (kind, count) = if l.reference.is_none() {
                (&mut stack.blend, &mut b)
            } else {
                (&mut stack.additive, &mut a)
            };
            if *count == MAX_LAYERS_PER_KIND {
                return None;
            }
            crate::pose::tracks::locate_segments(
                &data.clips[l.clip],
                &rig.plan.clips[l.clip],
                l.clock.time(),
                &mut l.time_cursors,
                &mut l.segments,
            );
            let l: &'a Layer = l;
            kind[*count] = Some(Contributor {
                plan,
                segments: &l.segments,
                mask: l.quad_mask.as_deref(),
                weight,
            });
            *count += 1;
        }
        Some(())
    }

    /// No layers (what [`Stack::fill`] starts from).
    const EMPTY: Self = Self {
        blend: [None; MAX_LAYERS_PER_KIND],
        additive: [None; MAX_LAYERS_PER_KIND],
    };
}

/// The layered pose of `layers` into `scratch.trs`, the values already there filling blend
/// totals below 1 (what [`mix_layers`](crate::mix_layers) does property by property); `false`,
/// with nothing written, where the quad pass cannot run the stack (the caller rules out
/// snapshots and root motion).
pub(crate) fn mix_trs(rig: &Rig, layers: &mut [Layer], scratch: &mut PoseScratch) -> bool {
    let Some(lq) = &rig.layer_quads else {
        return false;
    };
    let mut stack = Stack::EMPTY;
    if stack.fill(rig, layers).is_none() {
        return false;
    }
    let trs = &mut scratch.trs;
    for (qi, q) in lq.shape.iter().enumerate() {
        let rest = gather(trs, q);
        let out = mix_quad(&stack, qi, &rest);
        four_node::write_trs(trs, q, out.t.rows(), out.r.rows(), out.s.rows());
    }
    true
}

/// The layered pose of `layers` over the rest pose, composed and placed: every node's frame
/// matrix (`scratch.frame_world`), parents first, in one pass over the quads, and its TRS
/// record when `record` (a sink that reads no local transforms, with no hook or IK, needs none);
/// `false`, with nothing written, where the quad pass cannot run the stack ([`mix_trs`]).
/// Runs with the kernels of the rig's plan (`compile::kernels::Kernels`).
#[allow(
    unsafe_code,
    reason = "calling the AVX2 variant after run-time detection; the block says why"
)]
pub(crate) fn pose(
    rig: &Rig,
    layers: &mut [Layer],
    scratch: &mut PoseScratch,
    record: bool,
    offset: Option<&Inertialization>,
) -> bool {
    let offset = offset.filter(|o| o.is_active());
    match scratch.plan.kernels {
        Kernels::Baseline => pose_with(rig, layers, scratch, (record, offset), four_node::Baseline),
        #[cfg(target_arch = "x86_64")]
        // SAFETY: `Avx2Fma` is only ever chosen by `Kernels::detect`, after
        // `is_x86_feature_detected!` found both AVX2 and FMA on this CPU.
        Kernels::Avx2Fma => unsafe { pose_avx2(rig, layers, scratch, (record, offset)) },
    }
}

/// [`pose_with`] compiled with AVX2 and FMA enabled (everything it calls is inlined into it),
/// the hierarchy's products by `pose::avx2::place_quad`: shorter encodings, one-instruction
/// selects, fused multiply-adds in the products.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
#[allow(
    unsafe_code,
    reason = "a #[target_feature] function: called only after run-time detection"
)]
unsafe fn pose_avx2(
    rig: &Rig,
    layers: &mut [Layer],
    scratch: &mut PoseScratch,
    out: (bool, Option<&Inertialization>),
) -> bool {
    // SAFETY: this function is compiled with AVX2 and FMA and called only where
    // `Kernels::detect` found both (`pose`'s match on the plan's kernels).
    let fma = unsafe { crate::pose::avx2::Fma::new() };
    pose_with(rig, layers, scratch, out, fma)
}

/// The pass itself, the hierarchy's products by `placer`; `record` says whether the TRS
/// records are written, `offset` is a running inertialization added after the layers.
#[inline(always)]
fn pose_with(
    rig: &Rig,
    layers: &mut [Layer],
    scratch: &mut PoseScratch,
    (record, offset): (bool, Option<&Inertialization>),
    placer: impl Place,
) -> bool {
    let Some(lq) = &rig.layer_quads else {
        return false;
    };
    let mut stack = Stack::EMPTY;
    if stack.fill(rig, layers).is_none() {
        return false;
    }
    let PoseScratch {
        trs,
        frame_world: world,
        plan,
        world_stale,
        ..
    } = scratch;
    let root = &plan.frame.root;
    for (qi, q) in lq.shape.iter().enumerate() {
        let mut out = mix_quad(&stack, qi, &lq.rest[qi]);
        if let Some(offset) = offset {
            placer.offset_quad(offset, qi, &mut out);
        }
        if record {
            four_node::write_trs(trs, q, out.t.rows(), out.r.rows(), out.s.rows());
        }
        let Affine3x4 { m: e, zero } = Affine3x4::from_trs(out.t, out.r, out.s);
        placer.place_quad(world, q, &e, zero, root);
    }
    *world_stale = true;
    true
}

/// The TRS records of quad `q`'s nodes as rows (padding lanes: the identity).
fn gather(trs: &[f32], q: &Quad) -> QuadRows {
    // Rows t (0), s (1), r (0, 0, 0, 1): the identity in every lane to start with.
    let mut lanes: [[f32; 4]; ROWS] = std::array::from_fn(|row| {
        [if (S_ROWS..R_ROWS).contains(&row) || row == R_ROWS + 3 {
            1.0
        } else {
            0.0
        }; 4]
    });
    for (l, &node) in q.nodes.iter().enumerate().take(q.lanes) {
        let rec = &crate::rig::layout::records(trs)[node as usize];
        for c in 0..3 {
            lanes[T_ROWS + c][l] = rec[c];
            lanes[S_ROWS + c][l] = rec[7 + c];
        }
        for c in 0..4 {
            lanes[R_ROWS + c][l] = rec[3 + c];
        }
    }
    lanes.map(Vec4::from_array)
}

/// The layered transforms of quad `qi` over `rest`.
#[inline(always)]
fn mix_quad(stack: &Stack<'_>, qi: usize, rest: &QuadRows) -> Lanes {
    let mut blend = stack.blend.iter().map_while(Option::as_ref);
    // The first blend layer that reaches the quad starts the sums (a quad the mask takes out
    // entirely costs nothing), the others add to them.
    let mut sums = None;
    for c in blend.by_ref() {
        let w = c.lanes(qi);
        if !w.cmpne(Vec4::ZERO).any() {
            continue;
        }
        if let Some((q, v)) = sample_quad(c.plan, c.segments, qi) {
            sums = Some(Sums {
                t: Acc::start(v.t, Vec4::select(q.t_keyed, w, Vec4::ZERO)),
                r: Acc::start(v.r, Vec4::select(q.r_keyed, w, Vec4::ZERO)),
                s: Acc::start(v.s, Vec4::select(q.s_keyed, w, Vec4::ZERO)),
            });
            break;
        }
    }
    let rest = Lanes::from_rows(rest);
    let mut out = match sums {
        Some(mut sums) => {
            for c in blend {
                let w = c.lanes(qi);
                if !w.cmpne(Vec4::ZERO).any() {
                    continue;
                }
                let Some((q, v)) = sample_quad(c.plan, c.segments, qi) else {
                    continue;
                };
                sums.t.add(v.t, Vec4::select(q.t_keyed, w, Vec4::ZERO));
                sums.s.add(v.s, Vec4::select(q.s_keyed, w, Vec4::ZERO));
                sums.r.add(v.r, Vec4::select(q.r_keyed, w, Vec4::ZERO));
            }
            Lanes {
                t: sums.t.finish(rest.t),
                r: sums.r.finish(rest.r),
                s: sums.s.finish(rest.s),
            }
        }
        None => rest,
    };
    for c in stack.additive.iter().map_while(Option::as_ref) {
        let w = c.lanes(qi);
        let active = w.cmpne(Vec4::ZERO);
        if !active.any() {
            continue;
        }
        let Some(q) = c.plan.quads.get(qi) else {
            continue;
        };
        let (t_on, s_on, r_on) = (active & q.t_keyed, active & q.s_keyed, active & q.r_keyed);
        if !(t_on | s_on | r_on).any() {
            // Nothing to add here (`QuadPlan::relative_to` un-keys lanes without differences).
            continue;
        }
        // The clip baked relative to the reference: its samples are the differences.
        let d = four_node::sample_differences(&c.plan.keys, q, c.segments);
        out.t = add_vectors(out.t, Vec3x4::ZERO, d.t, w, t_on);
        out.s = add_vectors(out.s, Vec3x4::ZERO, d.s, w, s_on);
        if r_on.any() {
            out.r = add_rotation_deltas(out.r, d.r, w, r_on);
        }
    }
    out
}

/// Quad `qi` of `plan` and its nodes' transforms at the key intervals `segments`, from its
/// f32 keys or its compressed ones.
#[inline(always)]
fn sample_quad<'p>(
    plan: &'p QuadPlan,
    segments: &[Segment],
    qi: usize,
) -> Option<(&'p Quad, Lanes)> {
    let q = plan.quads.get(qi)?;
    Some((
        q,
        match &plan.packed {
            None => four_node::sample(&plan.keys, q, segments),
            Some(p) => p.sample(qi, q, segments),
        },
    ))
}
