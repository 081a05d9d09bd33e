//! One character's running inertialization, stored four nodes at a time: what the fused pose
//! pass reads per quad with no gathering, and what the step-by-step pass reads per node.

use glam::Vec4;
use skel_math::lanes::Vec3x4;

use super::lanes::{MulAdd4, Separate, decay_rows, prepare_rows, rotate_lanes};
use super::{OFFSET_STRIDE, quintic_basis, record_difference};
use crate::sample::four_node::Lanes;
use crate::{AnimError, R_OFF, S_OFF, T_OFF, TRS_STRIDE};

/// Rows of four lanes per quad: `x₀` (nine numbers), `v₀·t₁` (nine), and nine more: per lane
/// `c₂ = a₀·t₁²`, or `1/t₁` for a number whose blend time Bollo's rule shortened (see
/// [`Inertialization::begin`]).
pub(crate) const ROWS: usize = 3 * OFFSET_STRIDE;
/// Where a lane slot has no node.
const NO_NODE: u32 = u32::MAX;

/// One character's inertialization: the offset and velocity taken at the switch and the time
/// since. Sized for a node count once; switching and applying allocate nothing.
///
/// The [`Player`](crate::Player) drives one ([`Player::inertialize`](crate::Player::inertialize),
/// [`Player::inertialize_to`](crate::Player::inertialize_to)); code that poses on its own can
/// drive one too: [`start`](Self::start) at the switch with the source and destination poses
/// and their velocities, then every frame [`advance`](Self::advance) and
/// [`apply`](Self::apply) onto the destination's pose.
///
/// Each number is kept as `x₀`, `v₀·t₁` and `c₂` or `1/t₁` (27 floats per node, in groups of four nodes
/// as the rig's four-node pass reads them): a frame costs no division and no gathering.
///
/// ```
/// use skel_anim::inertial::{Inertialization, OFFSET_STRIDE};
/// use skel_anim::{R_OFF, T_OFF, TRS_STRIDE};
///
/// // One node: the source stands at x = 1, the destination at x = 0; nothing moves.
/// let mut source = [0.0_f32; TRS_STRIDE];
/// source[R_OFF + 3] = 1.0;
/// let destination = source;
/// source[T_OFF] = 1.0;
/// let still = [0.0_f32; OFFSET_STRIDE];
/// let mut blend = Inertialization::new(1);
/// blend.start(&source, &still, &destination, &still, 0.5)?;
/// let mut shown = destination;
/// blend.apply(&mut shown); // at the switch: the source, exactly
/// assert_eq!(shown[T_OFF], 1.0);
/// blend.advance(0.25);
/// let mut shown = destination;
/// blend.apply(&mut shown);
/// assert!(shown[T_OFF] > 0.0 && shown[T_OFF] < 1.0);
/// blend.advance(0.25); // the blend time has passed: the destination, exactly
/// assert!(!blend.is_active());
/// # Ok::<(), skel_anim::AnimError>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Inertialization {
    /// Per node, its lane slot: quad × 4 + lane.
    slot: Vec<u32>,
    /// Per lane slot, its node ([`NO_NODE`] for padding).
    node_of: Vec<u32>,
    /// [`ROWS`] rows per quad.
    rows: Vec<Vec4>,
    /// Per quad, which of translation, rotation and scale move in some lane (bits 0, 1, 2).
    parts: Vec<u8>,
    /// Per quad and number, the lanes whose blend time was shortened (bit `lane`).
    shortened: Vec<[u8; OFFSET_STRIDE]>,
    nodes: usize,
    /// f64: a blend time reached by summing frame steps ends on the frame it should.
    elapsed: f64,
    duration: f32,
    /// `1/duration`, as [`set_node`](Self::set_node) stores it for an unshortened number.
    rate: f32,
    /// The Hermite basis at `elapsed`, shared by every number whose blend time is the blend's.
    basis: [f32; 3],
    active: bool,
}

impl Inertialization {
    /// Buffers for `nodes` nodes (in groups of four in node order), with no blend running.
    /// Allocates.
    #[must_use]
    pub fn new(nodes: usize) -> Self {
        Self::with_quads(nodes, &[])
    }

    /// Buffers whose groups of four are `quads` (the rig's four-node pass's, each its nodes
    /// and how many lanes it uses), then every node they leave out in node order.
    pub(crate) fn with_quads(nodes: usize, quads: &[([u32; 4], usize)]) -> Self {
        let mut slot = vec![NO_NODE; nodes];
        let mut node_of = Vec::with_capacity(4 * (quads.len() + nodes.div_ceil(4)));
        for (q_nodes, lanes) in quads {
            for (lane, &node) in q_nodes.iter().enumerate() {
                let usable =
                    lane < *lanes && (node as usize) < nodes && slot[node as usize] == NO_NODE;
                if usable {
                    slot[node as usize] = u32::try_from(node_of.len()).unwrap_or(NO_NODE);
                    node_of.push(node);
                } else {
                    node_of.push(NO_NODE);
                }
            }
        }
        for (node, s) in slot.iter_mut().enumerate() {
            if *s == NO_NODE {
                *s = u32::try_from(node_of.len()).unwrap_or(NO_NODE);
                node_of.push(u32::try_from(node).unwrap_or(NO_NODE));
            }
        }
        while node_of.len() % 4 != 0 {
            node_of.push(NO_NODE);
        }
        let quads = node_of.len() / 4;
        Self {
            slot,
            node_of,
            rows: vec![Vec4::ZERO; quads * ROWS],
            parts: vec![0; quads],
            shortened: vec![[0; OFFSET_STRIDE]; quads],
            nodes,
            elapsed: 0.0,
            duration: 0.0,
            rate: 0.0,
            basis: [1.0, 0.0, 0.0],
            active: false,
        }
    }

    /// Starts a blend of `duration` seconds from `source` (the pose on screen, TRS records of
    /// [`TRS_STRIDE`] floats per node) moving at `source_velocity` (nine numbers per node, per
    /// second: see [`OFFSET_STRIDE`]) to `destination` moving at `destination_velocity`.
    /// Replaces any blend running (take the source from what [`apply`](Self::apply) showed
    /// to continue from it). A duration of 0 ends any blend: the destination shows at once.
    ///
    /// # Errors
    /// [`AnimError::NotFiniteValue`] for a NaN or infinite duration,
    /// [`AnimError::LengthMismatch`] for buffers shorter than the node count; nothing changes
    /// on error. Non-finite numbers in the poses give a zero offset for that node.
    pub fn start(
        &mut self,
        source: &[f32],
        source_velocity: &[f32],
        destination: &[f32],
        destination_velocity: &[f32],
        duration: f32,
    ) -> Result<(), AnimError> {
        if !duration.is_finite() {
            return Err(AnimError::NotFiniteValue {
                what: "inertialization duration",
                value: duration,
            });
        }
        let poses = self.nodes * TRS_STRIDE;
        let offsets = self.nodes * OFFSET_STRIDE;
        for (what, len, need) in [
            ("inertialization source pose", source.len(), poses),
            ("inertialization destination pose", destination.len(), poses),
            (
                "inertialization source velocity",
                source_velocity.len(),
                offsets,
            ),
            (
                "inertialization destination velocity",
                destination_velocity.len(),
                offsets,
            ),
        ] {
            if len < need {
                return Err(AnimError::LengthMismatch {
                    what,
                    expected: need,
                    got: len,
                });
            }
        }
        let d = duration.max(0.0);
        for node in 0..self.nodes {
            let rec = node * TRS_STRIDE..(node + 1) * TRS_STRIDE;
            let x = record_difference(&source[rec.clone()], &destination[rec]);
            let mut v = [0.0; OFFSET_STRIDE];
            for (i, v) in v.iter_mut().enumerate() {
                let o = node * OFFSET_STRIDE + i;
                *v = source_velocity[o] - destination_velocity[o];
            }
            self.set_node(node, &x, &v, d);
        }
        self.begin(d);
        Ok(())
    }

    /// Where row `row` of node `node`'s quad holds the node: (index into `rows`, lane).
    #[inline]
    fn cell(&self, node: usize, row: usize) -> (usize, usize) {
        let slot = self.slot[node] as usize;
        ((slot / 4) * ROWS + row, slot % 4)
    }

    /// Number `row` of node `node` as stored (the player keeps its own numbers there while a
    /// switch is pending: no blend runs then).
    pub(crate) fn get(&self, node: usize, row: usize) -> f32 {
        let (at, lane) = self.cell(node, row);
        self.rows[at][lane]
    }

    /// Stores number `row` of node `node` (see [`get`](Self::get)).
    pub(crate) fn put(&mut self, node: usize, row: usize, value: f32) {
        let (at, lane) = self.cell(node, row);
        self.rows[at][lane] = value;
    }

    /// Sets node `node`'s offset `x` and velocity `v` for a blend of `d` seconds (call
    /// [`begin`](Self::begin) with the same `d` once every node is set). A non-finite number
    /// is taken as 0.
    pub(crate) fn set_node(
        &mut self,
        node: usize,
        x: &[f32; OFFSET_STRIDE],
        v: &[f32; OFFSET_STRIDE],
        d: f32,
    ) {
        for i in 0..OFFSET_STRIDE {
            let x = if x[i].is_finite() { x[i] } else { 0.0 };
            let v = if v[i].is_finite() { v[i] } else { 0.0 };
            // Moving back towards zero fast enough to overshoot within the blend time: a
            // shorter blend of its own (Bollo's t₁ = −5 x₀ / v₀), where v₀ t₁ = −5 x₀.
            let (c1, r) = if x * v < 0.0 && -5.0 * x * v < d * v * v {
                (-5.0 * x, -v / (5.0 * x))
            } else if d > 0.0 {
                (v * d, 1.0 / d)
            } else {
                (0.0, 0.0)
            };
            self.put(node, i, x);
            self.put(node, OFFSET_STRIDE + i, c1);
            self.put(node, 2 * OFFSET_STRIDE + i, r);
        }
    }

    /// Starts the blend over the numbers set (by [`set_node`](Self::set_node)); a duration of
    /// 0 ends it.
    ///
    /// A number whose blend time is the blend's gets its `c₂` row here: it shares the frame's
    /// Hermite basis, computed once, and costs three multiply-adds. A number whose blend time
    /// was shortened has `c₁ = −5 x₀` and `c₂ = 20 x₀`, where the quintic is `x₀ (1 − τ)⁵`
    /// (τ on its own blend time): it keeps its `1/t₁` and is marked in `shortened`.
    pub(crate) fn begin(&mut self, duration: f32) {
        self.elapsed = 0.0;
        self.duration = duration.max(0.0);
        self.active = self.duration > 0.0;
        self.rate = if self.active {
            1.0 / self.duration
        } else {
            0.0
        };
        self.basis = quintic_basis(0.0);
        for (q, (parts, shortened)) in self.parts.iter_mut().zip(&mut self.shortened).enumerate() {
            *parts = 0;
            *shortened = [0; OFFSET_STRIDE];
            if !self.active {
                continue;
            }
            let rows = &mut self.rows[q * ROWS..(q + 1) * ROWS];
            (*parts, *shortened) = prepare_rows(rows, self.rate);
        }
    }

    /// The Hermite basis `t` seconds into the blend (numbers on the blend's own time).
    #[inline]
    fn basis_at(&self, t: f32) -> [f32; 3] {
        quintic_basis((t * self.rate).min(1.0))
    }

    /// Moves the blend `dt` seconds on (NaN, infinite and negative steps count as 0); at the
    /// blend time it ends.
    pub fn advance(&mut self, dt: f32) {
        if !(self.active && dt.is_finite() && dt > 0.0) {
            return;
        }
        self.elapsed += f64::from(dt);
        if self.elapsed >= f64::from(self.duration) {
            self.active = false;
        }
        self.basis = self.basis_at(self.now());
    }

    /// Whether a blend runs (false after its blend time: [`apply`](Self::apply) then leaves
    /// poses as they are).
    #[must_use]
    pub fn is_active(&self) -> bool {
        self.active
    }

    /// Seconds since the blend started, and its blend time; `None` when none runs.
    #[must_use]
    pub fn progress(&self) -> Option<(f32, f32)> {
        #[expect(
            clippy::cast_possible_truncation,
            reason = "seconds within a blend time"
        )]
        self.active.then_some((self.elapsed as f32, self.duration))
    }

    /// Adds the offset at the current time onto `trs` (the destination's pose, [`TRS_STRIDE`]
    /// floats per node). Does nothing when no blend runs or the buffer is shorter than the
    /// node count.
    pub fn apply(&self, trs: &mut [f32]) {
        self.apply_earlier(trs, 0.0);
    }

    /// The seconds into the blend `back` seconds ago (not before its start).
    #[inline]
    fn time(&self, back: f32) -> f32 {
        #[expect(
            clippy::cast_possible_truncation,
            reason = "seconds within a blend time"
        )]
        let t = (self.elapsed - f64::from(back)).max(0.0) as f32;
        t
    }

    /// [`apply`](Self::apply) as the blend was `back` seconds ago (not before its start).
    pub(crate) fn apply_earlier(&self, trs: &mut [f32], back: f32) {
        if !self.active || trs.len() < self.nodes * TRS_STRIDE {
            return;
        }
        let t = self.time(back);
        let basis = self.basis_at(t);
        for (q, &parts) in self.parts.iter().enumerate() {
            if parts == 0 {
                continue;
            }
            let x = self.quad_offsets(q, t, basis, parts, Separate);
            let nodes = &self.node_of[4 * q..4 * q + 4];
            let records = |lane: usize| {
                let node = nodes[lane];
                (node != NO_NODE).then(|| node as usize * TRS_STRIDE)
            };
            for (lane, at) in (0..4).filter_map(|l| records(l).map(|a| (l, a))) {
                for c in 0..3 {
                    trs[at + T_OFF + c] += x[c][lane];
                    trs[at + S_OFF + c] += x[6 + c][lane];
                }
            }
            if parts & 2 != 0 {
                // The rotations of the quad's records as lanes, turned, written back.
                let mut q4 = [[0.0_f32, 0.0, 0.0, 1.0]; 4];
                for (lane, q) in q4.iter_mut().enumerate() {
                    if let Some(at) = records(lane) {
                        q.copy_from_slice(&trs[at + R_OFF..at + R_OFF + 4]);
                    }
                }
                let turned = rotate_lanes(
                    skel_math::lanes::Quatx4::from_lanes(q4),
                    [x[3], x[4], x[5]],
                    Separate,
                );
                for lane in 0..4 {
                    if let Some(at) = records(lane) {
                        trs[at + R_OFF..at + R_OFF + 4].copy_from_slice(&turned.lane(lane));
                    }
                }
            }
        }
    }

    /// Quad `q`'s nine numbers at `t` seconds into the blend, whose Hermite basis is `basis`
    /// (the parts not in `parts` left at 0).
    #[inline(always)]
    pub(crate) fn quad_offsets(
        &self,
        q: usize,
        t: f32,
        basis: [f32; 3],
        parts: u8,
        m: impl MulAdd4,
    ) -> [Vec4; OFFSET_STRIDE] {
        let rows = &self.rows[q * ROWS..(q + 1) * ROWS];
        decay_rows(rows, &self.shortened[q], basis, t, parts, m)
    }

    /// Which parts move in quad `q` (0 when no blend runs).
    #[inline(always)]
    pub(crate) fn quad_parts(&self, q: usize) -> u8 {
        if self.active {
            self.parts.get(q).copied().unwrap_or(0)
        } else {
            0
        }
    }

    /// Groups of four nodes held (the rig's four-node quads first, then any nodes they leave
    /// out).
    pub(crate) fn quads(&self) -> usize {
        self.parts.len()
    }

    /// Seconds into the blend.
    #[inline(always)]
    pub(crate) fn now(&self) -> f32 {
        self.time(0.0)
    }

    /// Floats held per node: `x₀`, `v₀·t₁` and `1/t₁` of nine numbers (the player keeps one
    /// pose more, 9 floats: 36 in all, twice the offset and velocity).
    #[must_use]
    pub const fn floats_per_node() -> usize {
        ROWS
    }
}

impl Inertialization {
    /// Adds the offset at the current time to quad `qi`'s layered transforms (the rig's
    /// four-node pass's quad `qi`, whose layout this blend was made with). Nothing to add:
    /// `out` as it is.
    ///
    /// Kept out of the pose passes (one call per moving quad): inlined, its arithmetic pushes
    /// the passes' own sampling code out of line.
    #[inline(never)]
    pub(crate) fn apply_quad(&self, qi: usize, out: &mut Lanes) {
        self.offset_quad(qi, out, Separate);
    }

    /// [`apply_quad`](Self::apply_quad) compiled with AVX2 and FMA, for the passes compiled so:
    /// three-operand encodings and fused multiply-adds (the decay's Hermite sums, the
    /// exponential's series, the quaternion product), so within rounding of the baseline's,
    /// not bit for bit.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,fma")]
    #[inline(never)]
    pub(crate) fn apply_quad_avx2(&self, qi: usize, out: &mut Lanes) {
        #[expect(
            unsafe_code,
            reason = "the FMA token, inside a function compiled with FMA"
        )]
        // SAFETY: this function is compiled with FMA and called only by the AVX2 + FMA passes,
        // which run only where `Kernels::detect` found both features.
        let fused = unsafe { super::lanes::Fused::new() };
        self.offset_quad(qi, out, fused);
    }

    /// What [`apply_quad`](Self::apply_quad) does, inlined into each of its builds.
    #[inline(always)]
    fn offset_quad(&self, qi: usize, out: &mut Lanes, m: impl MulAdd4) {
        let parts = self.quad_parts(qi);
        if parts == 0 {
            return;
        }
        let x = self.quad_offsets(qi, self.now(), self.basis, parts, m);
        if parts & 1 != 0 {
            out.t = out.t + Vec3x4::new(x[0], x[1], x[2]);
        }
        if parts & 4 != 0 {
            out.s = out.s + Vec3x4::new(x[6], x[7], x[8]);
        }
        if parts & 2 != 0 {
            // Padding lanes have no offset: exp(0) is the identity exactly, and their
            // rotations come back as they were.
            out.r = rotate_lanes(out.r, [x[3], x[4], x[5]], m);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        #[test]
        fn four_lanes_decay_as_one(
            x in proptest::array::uniform4(-3.0_f32..3.0),
            v in proptest::array::uniform4(-30.0_f32..30.0),
            d in 0.05_f32..1.0,
            u in 0.0_f32..0.999,
        ) {
            let t = u * d;
            let mut blend = Inertialization::new(4);
            for lane in 0..4 {
                let mut xs = [0.0; OFFSET_STRIDE];
                let mut vs = xs;
                xs[0] = x[lane];
                vs[0] = v[lane];
                blend.set_node(lane, &xs, &vs, d);
            }
            blend.begin(d);
            blend.advance(t);
            let parts = blend.quad_parts(0);
            let got = blend.quad_offsets(0, blend.now(), blend.basis, parts, Separate);
            for lane in 0..4 {
                let want = super::super::quintic_decay(x[lane], v[lane], d, blend.now());
                let scale = x[lane].abs() + v[lane].abs() * d + 1e-3;
                proptest::prop_assert!((got[0][lane] - want).abs() <= 2e-5 * scale, "{} vs {want}", got[0][lane]);
            }
        }
    }
}
