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
//! It runs when every contributing layer's clip has quads over the rig's node order and no
//! CUBICSPLINE transform (`LayerQuads::clip_ok`); stacks with a frozen snapshot or root
//! motion take the property-by-property pass.

use glam::{BVec4A, Vec4};
use skel_math::lanes::{Affine3x4, Quatx4, Vec3x4};

use crate::PoseScratch;
use crate::layout::NONE;
use crate::player::layer::{Layer, LayerMode};
use crate::quad_plan::{Quad, QuadPlan, QuadRows, R_ROWS, ROWS, S_ROWS, T_ROWS};
use crate::timeline::Segment;
use crate::wide::Kernels;
use crate::{Rig, TRS_STRIDE, interpolate, quads};

/// Four nodes' transforms.
#[derive(Clone, Copy)]
struct Lanes {
    t: Vec3x4,
    r: Quatx4,
    s: Vec3x4,
}

impl Lanes {
    #[inline(always)]
    fn from_rows(h: &QuadRows) -> Self {
        Self {
            t: Vec3x4::new(h[T_ROWS], h[T_ROWS + 1], h[T_ROWS + 2]),
            r: Quatx4::new(h[R_ROWS], h[R_ROWS + 1], h[R_ROWS + 2], h[R_ROWS + 3]),
            s: Vec3x4::new(h[S_ROWS], h[S_ROWS + 1], h[S_ROWS + 2]),
        }
    }
}

/// The most blend layers, and the most additive layers, that contribute to a stack the quad
/// pass takes (their parameters sit in fixed arrays on the stack: nothing is allocated);
/// larger stacks run property by property.
pub(crate) const MAX_LAYERS_PER_KIND: usize = 16;

/// Whether the quad pass can run `layers` over `rig` (the caller rules out snapshots and root
/// motion).
#[inline]
pub(crate) fn applies(rig: &Rig, layers: &[Layer]) -> bool {
    let Some(lq) = &rig.layer_quads else {
        return false;
    };
    let (mut blend, mut additive) = (0, 0);
    for l in layers {
        let w = l.effective_weight();
        if w == 0.0 {
            continue;
        }
        if !lq.clip_ok[l.clip] {
            return false;
        }
        match &l.reference {
            None if w > 0.0 => blend += 1,
            None => {}
            Some(r) if r.deltas.is_some() => additive += 1,
            Some(_) => return false,
        }
    }
    blend <= MAX_LAYERS_PER_KIND && additive <= MAX_LAYERS_PER_KIND
}

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
    /// The stack of `layers` (which [`applies`] accepted, their segments located).
    fn new(rig: &'a Rig, layers: &'a [Layer]) -> Self {
        let mut stack = Self {
            blend: [None; MAX_LAYERS_PER_KIND],
            additive: [None; MAX_LAYERS_PER_KIND],
        };
        let (mut b, mut a) = (0, 0);
        for l in layers {
            let weight = l.effective_weight();
            let plan = match (&l.reference, l.mode) {
                (None, LayerMode::Blend) if weight > 0.0 => rig.plan.clips[l.clip].quads.as_ref(),
                (Some(r), _) if weight != 0.0 => r.deltas.as_deref(),
                _ => None,
            };
            let Some(plan) = plan else { continue };
            let c = Contributor {
                plan,
                segments: &l.segments,
                mask: l.quad_mask.as_deref(),
                weight,
            };
            if l.reference.is_none() && b < MAX_LAYERS_PER_KIND {
                stack.blend[b] = Some(c);
                b += 1;
            } else if l.reference.is_some() && a < MAX_LAYERS_PER_KIND {
                stack.additive[a] = Some(c);
                a += 1;
            }
        }
        stack
    }
}

/// The layered pose of `layers` into `scratch.trs`, the values already there filling blend
/// totals below 1 (what [`mix_layers`](crate::mix_layers) does property by property).
pub(crate) fn mix_trs(rig: &Rig, layers: &mut [Layer], scratch: &mut PoseScratch) {
    let Some(lq) = &rig.layer_quads else { return };
    locate(rig, layers);
    let stack = Stack::new(rig, layers);
    let trs = &mut scratch.trs;
    for (qi, q) in lq.shape.iter().enumerate() {
        let rest = gather(trs, q);
        let out = mix_quad(&stack, qi, &rest);
        quads::write_trs(trs, q, out.t.rows(), out.r.rows(), out.s.rows());
    }
}

/// The layered pose of `layers` over the rest pose, composed and placed: every node's frame
/// matrix (`scratch.frame_world`), parents first, in one pass over the quads, and its TRS
/// record when `record` (a sink that reads no local transforms, with no hook or IK, needs none).
/// Runs with the kernels of the rig's plan (`wide::Kernels`).
#[allow(
    unsafe_code,
    reason = "calling the AVX2 variant after run-time detection; the block says why"
)]
pub(crate) fn pose(rig: &Rig, layers: &mut [Layer], scratch: &mut PoseScratch, record: bool) {
    match scratch.plan.kernels {
        Kernels::Baseline => pose_baseline(rig, layers, scratch, record),
        #[cfg(target_arch = "x86_64")]
        // SAFETY: `Avx2Fma` is only ever chosen by `Kernels::detect`, after
        // `is_x86_feature_detected!` found both AVX2 and FMA on this CPU.
        Kernels::Avx2Fma => unsafe { pose_avx2(rig, layers, scratch, record) },
    }
}

/// [`pose_baseline`] compiled with AVX2 and FMA enabled (everything it calls is inlined into
/// it): the same operations in the same order, shorter encodings, one-instruction selects.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
#[allow(
    unsafe_code,
    reason = "a #[target_feature] function: called only after run-time detection"
)]
unsafe fn pose_avx2(rig: &Rig, layers: &mut [Layer], scratch: &mut PoseScratch, record: bool) {
    pose_baseline(rig, layers, scratch, record);
}

#[inline(always)]
fn pose_baseline(rig: &Rig, layers: &mut [Layer], scratch: &mut PoseScratch, record: bool) {
    let Some(lq) = &rig.layer_quads else { return };
    locate(rig, layers);
    let stack = Stack::new(rig, layers);
    let PoseScratch {
        trs,
        frame_world: world,
        plan,
        world_stale,
        ..
    } = scratch;
    let root = &plan.frame.root;
    for (qi, q) in lq.shape.iter().enumerate() {
        let out = mix_quad(&stack, qi, &lq.rest[qi]);
        if record {
            quads::write_trs(trs, q, out.t.rows(), out.r.rows(), out.s.rows());
        }
        let Affine3x4 { m: e, zero } = Affine3x4::from_trs(out.t, out.r, out.s);
        quads::place_rows::<0>(world, q, &e, zero, root);
        if q.lanes > 1 {
            quads::place_rows::<1>(world, q, &e, zero, root);
        }
        if q.lanes > 2 {
            quads::place_rows::<2>(world, q, &e, zero, root);
        }
        if q.lanes > 3 {
            quads::place_rows::<3>(world, q, &e, zero, root);
        }
    }
    *world_stale = true;
}

/// Each contributing layer's key interval on every timeline of its clip.
fn locate(rig: &Rig, layers: &mut [Layer]) {
    let data = rig.data();
    for layer in layers.iter_mut() {
        if layer.effective_weight() != 0.0 {
            let cp = &rig.plan.clips[layer.clip];
            crate::tracks::locate_segments(
                &data.clips[layer.clip],
                cp,
                layer.clock.time(),
                &mut layer.time_cursors,
                &mut layer.segments,
            );
        }
    }
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
        let rec = &trs[node as usize * TRS_STRIDE..][..10];
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
                t: VecAcc::start(v.t, Vec4::select(q.t_keyed, w, Vec4::ZERO)),
                r: QuatAcc::start(v.r, Vec4::select(q.r_keyed, w, Vec4::ZERO)),
                s: VecAcc::start(v.s, Vec4::select(q.s_keyed, w, Vec4::ZERO)),
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
        // The clip baked relative to the reference: its samples are the differences.
        let Some((q, d)) = sample_quad(c.plan, c.segments, qi) else {
            continue;
        };
        let (t_on, s_on, r_on) = (active & q.t_keyed, active & q.s_keyed, active & q.r_keyed);
        out.t = add_vectors(out.t, Vec3x4::ZERO, d.t, w, t_on);
        out.s = add_vectors(out.s, Vec3x4::ZERO, d.s, w, s_on);
        if r_on.any() {
            out.r = add_rotation_deltas(out.r, d.r, w, r_on);
        }
    }
    out
}

/// `base + w · (value − reference)` in the lanes of `on`.
#[inline(always)]
fn add_vectors(base: Vec3x4, reference: Vec3x4, value: Vec3x4, w: Vec4, on: BVec4A) -> Vec3x4 {
    if !on.any() {
        return base;
    }
    let sum = base + (value - reference) * w;
    if on.all() {
        sum
    } else {
        Vec3x4::select(on, sum, base)
    }
}

/// `p / |p|` for the product `p` of two unit quaternions (unit within rounding, so one Newton
/// step from 1 rescales it, as `interpolate::normalize_quat` does); lanes that are not near unit
/// are divided by their length, and zero or non-finite ones take `fallback`'s lane.
#[inline(always)]
fn normalize_unit_product(p: Quatx4, fallback: Quatx4) -> Quatx4 {
    let len_sq = p.length_squared();
    let near = (len_sq - Vec4::ONE)
        .abs()
        .cmple(Vec4::splat(interpolate::NEWTON_BAND));
    if near.all() {
        p * (Vec4::splat(1.5) - Vec4::splat(0.5) * len_sq)
    } else {
        p.normalize_or(fallback)
    }
}

/// Quad `qi` of `plan` sampled at the key intervals `segments`.
#[inline(always)]
fn sample_quad<'p>(
    plan: &'p QuadPlan,
    segments: &[Segment],
    qi: usize,
) -> Option<(&'p Quad, Lanes)> {
    let q = plan.quads.get(qi)?;
    let h = &q.held;
    if q.fixed != NONE {
        return Some((q, Lanes::from_rows(h)));
    }
    let seg = if q.timeline == NONE {
        Segment::default()
    } else {
        segments[q.timeline as usize]
    };
    let ka = &plan.keys[q.first + seg.a as usize * ROWS..][..ROWS];
    let kb = &plan.keys[q.first + seg.b as usize * ROWS..][..ROWS];
    let s = Vec4::splat(seg.s);
    let vec3 = |first: usize, hold: BVec4A, constant: bool| {
        if constant {
            return Vec3x4::new(h[first], h[first + 1], h[first + 2]);
        }
        let a = Vec3x4::new(ka[first], ka[first + 1], ka[first + 2]);
        let b = Vec3x4::new(kb[first], kb[first + 1], kb[first + 2]);
        let lerped = Vec3x4::lerp(a, b, s);
        if hold.any() {
            Vec3x4::select(hold, a, lerped)
        } else {
            lerped
        }
    };
    let r = if q.r_const {
        Quatx4::new(h[R_ROWS], h[R_ROWS + 1], h[R_ROWS + 2], h[R_ROWS + 3])
    } else {
        let ra = [ka[R_ROWS], ka[R_ROWS + 1], ka[R_ROWS + 2], ka[R_ROWS + 3]];
        let rb = [kb[R_ROWS], kb[R_ROWS + 1], kb[R_ROWS + 2], kb[R_ROWS + 3]];
        let copy = q.r_step | BVec4A::splat(seg.a == seg.b);
        let slerped = Quatx4::from_rows(interpolate::slerp_soa(ra, rb, s, copy));
        if q.r_rest.any() {
            Quatx4::select(q.r_rest, Quatx4::from_rows(ra), slerped)
        } else {
            slerped
        }
    };
    Some((
        q,
        Lanes {
            t: vec3(T_ROWS, q.t_hold, q.t_const),
            r,
            s: vec3(S_ROWS, q.s_hold, q.s_const),
        },
    ))
}

/// The blend sums of one quad.
struct Sums {
    t: VecAcc,
    r: QuatAcc,
    s: VecAcc,
}

/// Running sums of the translations (or scales) of four nodes: `mix::Acc` lane by lane.
#[derive(Clone, Copy, Default)]
struct VecAcc {
    /// The weighted sum; while `lazy`, not stored: `first · weight` (one contributor).
    sum: Vec3x4,
    first: Vec3x4,
    weight: Vec4,
    count: Vec4,
    lazy: bool,
}

impl VecAcc {
    #[inline(always)]
    fn sum(&self) -> Vec3x4 {
        if self.lazy {
            self.first * self.weight
        } else {
            self.sum
        }
    }

    /// The sums after a first contributor `v` at lane weights `w` (lanes at 0 stay empty and
    /// take the rest value, whatever `sum` and `first` hold).
    #[inline(always)]
    fn start(v: Vec3x4, w: Vec4) -> Self {
        Self {
            sum: v,
            first: v,
            weight: w,
            count: Vec4::select(w.cmpne(Vec4::ZERO), Vec4::ONE, Vec4::ZERO),
            lazy: true,
        }
    }

    #[inline(always)]
    fn add(&mut self, v: Vec3x4, w: Vec4) {
        let active = w.cmpne(Vec4::ZERO);
        if !active.any() {
            return;
        }
        let fresh = self.count.cmpeq(Vec4::ZERO);
        let weighted = v * w;
        if fresh.all() {
            // The first contributor of every lane (lanes it skips keep count 0 and take the
            // rest value, whatever `sum` and `first` hold).
            self.sum = weighted;
            self.first = v;
            self.weight = w;
            self.count = Vec4::select(active, Vec4::ONE, Vec4::ZERO);
            self.lazy = false;
            return;
        }
        let sum = self.sum();
        self.lazy = false;
        if active.all() && !fresh.any() {
            self.sum = sum + weighted;
            self.weight += w;
            self.count += Vec4::ONE;
            return;
        }
        let new = active & fresh;
        let summed = Vec3x4::select(active, sum + weighted, sum);
        self.sum = Vec3x4::select(new, weighted, summed);
        self.first = Vec3x4::select(new, v, self.first);
        let total = Vec4::select(active, self.weight + w, self.weight);
        self.weight = Vec4::select(new, w, total);
        self.count = Vec4::select(active, self.count + Vec4::ONE, self.count);
    }

    #[inline(always)]
    fn finish(&self, rest: Vec3x4) -> Vec3x4 {
        let empty = self.count.cmpeq(Vec4::ZERO);
        if empty.all() {
            return rest;
        }
        let total = self.weight;
        let single = self.count.cmpeq(Vec4::ONE) & total.cmpge(Vec4::ONE);
        if (single | empty).all() {
            return if empty.any() {
                Vec3x4::select(empty, rest, self.first)
            } else {
                self.first
            };
        }
        let sum = self.sum();
        let filled = sum + rest * (Vec4::ONE - total);
        let averaged = Vec3x4::new(sum.x / total, sum.y / total, sum.z / total);
        let out = Vec3x4::select(total.cmplt(Vec4::ONE), filled, averaged);
        let out = Vec3x4::select(single, self.first, out);
        Vec3x4::select(empty, rest, out)
    }
}

/// Running sums of the rotations of four nodes: `mix::Acc` lane by lane (each contributor
/// turned into the first one's hemisphere).
#[derive(Clone, Copy, Default)]
struct QuatAcc {
    /// The weighted sum; while `lazy`, not stored: `first · weight` (one contributor).
    sum: Quatx4,
    first: Quatx4,
    weight: Vec4,
    count: Vec4,
    lazy: bool,
}

impl QuatAcc {
    #[inline(always)]
    fn sum(&self) -> Quatx4 {
        if self.lazy {
            self.first * self.weight
        } else {
            self.sum
        }
    }

    /// As [`VecAcc::start`].
    #[inline(always)]
    fn start(v: Quatx4, w: Vec4) -> Self {
        Self {
            sum: v,
            first: v,
            weight: w,
            count: Vec4::select(w.cmpne(Vec4::ZERO), Vec4::ONE, Vec4::ZERO),
            lazy: true,
        }
    }

    #[inline(always)]
    fn add(&mut self, v: Quatx4, w: Vec4) {
        let active = w.cmpne(Vec4::ZERO);
        if !active.any() {
            return;
        }
        let fresh = self.count.cmpeq(Vec4::ZERO);
        if fresh.all() {
            self.sum = v * w;
            self.first = v;
            self.weight = w;
            self.count = Vec4::select(active, Vec4::ONE, Vec4::ZERO);
            self.lazy = false;
            return;
        }
        let sum = self.sum();
        self.lazy = false;
        let signed = Vec4::select(v.dot(self.first).cmplt(Vec4::ZERO), -w, w);
        if active.all() && !fresh.any() {
            self.sum = sum + v * signed;
            self.weight += w;
            self.count += Vec4::ONE;
            return;
        }
        let new = active & fresh;
        let summed = Quatx4::select(active, sum + v * signed, sum);
        self.sum = Quatx4::select(new, v * w, summed);
        self.first = Quatx4::select(new, v, self.first);
        let total = Vec4::select(active, self.weight + w, self.weight);
        self.weight = Vec4::select(new, w, total);
        self.count = Vec4::select(active, self.count + Vec4::ONE, self.count);
    }

    #[inline(always)]
    fn finish(&self, rest: Quatx4) -> Quatx4 {
        let empty = self.count.cmpeq(Vec4::ZERO);
        if empty.all() {
            return rest;
        }
        let total = self.weight;
        let single = self.count.cmpeq(Vec4::ONE) & total.cmpge(Vec4::ONE);
        if (single | empty).all() {
            return if empty.any() {
                Quatx4::select(empty, rest, self.first)
            } else {
                self.first
            };
        }
        let below = total.cmplt(Vec4::ONE);
        let sum = self.sum();
        let out = if below.any() {
            let fill = Vec4::select(
                rest.dot(self.first).cmplt(Vec4::ZERO),
                total - Vec4::ONE,
                Vec4::ONE - total,
            );
            Quatx4::select(below, sum + rest * fill, sum)
        } else {
            sum
        };
        let out = out.normalize_or(self.first);
        let out = Quatx4::select(single, self.first, out);
        Quatx4::select(empty, rest, out)
    }
}

/// `q · delta^w` in the lanes of `on`, `delta = conj(reference) · value` (`mix::add_rotation`
/// lane by lane: the difference on the short path, the polynomial slerp from the identity for
/// weights in `0..=1`, the exact power through the angle for others).
#[inline(always)]
fn add_rotation_deltas(q: Quatx4, delta: Quatx4, w: Vec4, on: BVec4A) -> Quatx4 {
    let flip = delta.w.cmplt(Vec4::ZERO);
    let delta = if flip.any() {
        Quatx4::select(flip, -delta, delta)
    } else {
        delta
    };
    let slerped = Quatx4::from_rows(interpolate::slerp_soa_from_identity(delta.rows(), w));
    let one = w.cmpeq(Vec4::ONE);
    let powered = if one.any() {
        Quatx4::select(one, delta, slerped)
    } else {
        slerped
    };
    let added = normalize_unit_product(q * powered, q);
    let mut out = if on.all() {
        added
    } else {
        Quatx4::select(on, added, q)
    };
    let unit = w.cmpge(Vec4::ZERO) & w.cmple(Vec4::ONE);
    let odd = on & !unit;
    if odd.any() {
        // Weights outside 0..=1 (negative ones undo): the scalar rule, lane by lane, from the
        // identity as reference.
        let mut lanes = [out.lane(0), out.lane(1), out.lane(2), out.lane(3)];
        let ws = w.to_array();
        for (l, lane) in lanes.iter_mut().enumerate() {
            if odd.test(l) {
                let quat = |x: Quatx4| glam::Quat::from_array(x.lane(l));
                *lane = super::mix::add_rotation(quat(q), glam::Quat::IDENTITY, quat(delta), ws[l])
                    .to_array();
            }
        }
        out = Quatx4::from_lanes(lanes);
    }
    out
}

#[cfg(test)]
mod tests {
    use glam::Vec4;
    use proptest::prelude::*;

    use crate::interpolate;

    fn unit_quats() -> impl Strategy<Value = [Vec4; 4]> {
        prop::array::uniform4(prop::array::uniform4(-1.0_f32..1.0)).prop_filter_map(
            "non-zero",
            |lanes| {
                let mut rows = [[0.0_f32; 4]; 4];
                for (l, q) in lanes.iter().enumerate() {
                    let v = Vec4::from_array(*q);
                    if v.length() < 0.1 {
                        return None;
                    }
                    // On the identity's hemisphere, as an additive delta is.
                    let v = v.normalize() * v.w.signum();
                    for (c, x) in v.to_array().into_iter().enumerate() {
                        rows[c][l] = x;
                    }
                }
                Some(rows.map(Vec4::from_array))
            },
        )
    }

    proptest! {
        #[test]
        fn slerp_from_the_identity_is_the_general_slerp(b in unit_quats(),
                                                        s in prop::array::uniform4(0.0_f32..=1.0)) {
            let s = Vec4::from_array(s);
            let identity = [Vec4::ZERO, Vec4::ZERO, Vec4::ZERO, Vec4::ONE];
            let want = interpolate::slerp_soa(identity, b, s, glam::BVec4A::splat(false));
            let got = interpolate::slerp_soa_from_identity(b, s);
            for c in 0..4 {
                // Equal as numbers (only the sign of a zero may differ).
                prop_assert_eq!(got[c].to_array(), want[c].to_array(), "row {}", c);
            }
        }
    }
}
