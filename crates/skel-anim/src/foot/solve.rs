//! The per-frame foot placement job: ground under each foot, plant and lock, pelvis drop, one
//! two-bone solve per leg, the sole turned onto the ground.

use glam::{Affine3A, Vec3, Vec3A};

use super::ground::GroundQuery;
use super::leg::{inverse, local, read_leg, solve_leg};
use super::legs_x4::{LegFix, LegLane, solve_legs};
use super::placement::FootPlacement;
use super::state::{FootPlacementState, FootReport, FootStatus};
use crate::ik::{apply_correction_inline, finite1};
use crate::rig::kernels::Kernels;
use crate::{AnimError, AnimationData, T_OFF, TRS_STRIDE, model_matrix_from_trs};

/// A character's frame between [`FootPlacement::begin`] and [`FootPlacement::finish`].
#[derive(Debug, Clone, Copy)]
pub(super) struct Pending {
    report: FootReport,
    weight: f32,
    drop: f32,
    /// The pelvis's move in the ground's frame, and in its parent's.
    pub(super) shift: Vec3A,
    shift_local: Vec3,
}

/// The on/off fade's weight below this is off (the pose is the clip's again).
const FADED: f32 = 1e-3;

impl FootPlacement {
    /// Places the feet of one character's local pose `trs` ([`TRS_STRIDE`] floats per node of
    /// `data`, the asset this was built for) on `ground`, `dt` seconds after the last call.
    ///
    /// `root` maps the pose into the ground's world frame: what the hierarchy pass puts in
    /// front of root nodes (the identity or [`skel_math::RH_TO_LH`], see
    /// [`model_matrix_from_trs`]) with the character's placement in the world in front of
    /// that. The clip's own ground is the plane through `root`'s translation perpendicular to
    /// up: a clip whose feet touch `y = 0` walks on it.
    ///
    /// Writes the pelvis's local translation and the local rotations of each hip, knee and
    /// ankle; reads no other node's record but their ancestors'. Allocates nothing; casts one
    /// ray per foot, two with a toe.
    ///
    /// # Errors
    /// The pose is then left exactly as it was, and `state` unchanged:
    /// - [`AnimError::LengthMismatch`] when `trs` is too short, `data` has another node count
    ///   than the rig this was built for, or `state` was made for another placement;
    /// - [`AnimError::NotFiniteValue`] for a NaN or infinite `dt`, `root` or joint matrix
    ///   (NaN in the pose);
    /// - [`AnimError::IkDegenerate`] for a leg bone of zero length, a joint scaled to nothing,
    ///   or a pelvis whose parent cannot be inverted.
    ///
    /// A ground that answers NaN is not an error: that foot has no ground this frame.
    pub fn solve(
        &self,
        state: &mut FootPlacementState,
        data: &AnimationData,
        trs: &mut [f32],
        root: &Affine3A,
        ground: &dyn GroundQuery,
        dt: f32,
    ) -> Result<FootReport, AnimError> {
        match self.kernels {
            Kernels::Baseline => {}
            #[cfg(target_arch = "x86_64")]
            #[allow(
                unsafe_code,
                reason = "calls a #[target_feature] function after detection"
            )]
            Kernels::Avx2Fma => {
                // SAFETY: `Avx2Fma` is only ever chosen by `Kernels::detect`, after
                // `is_x86_feature_detected!` found both AVX2 and FMA on this CPU.
                return unsafe { self.solve_avx2(state, data, trs, root, ground, dt) };
            }
        }
        self.solve_with(state, data, trs, root, ground, dt)
    }

    /// [`Self::solve`] compiled for AVX2 and FMA: the same steps, three-operand encodings
    /// (the results are the same bits: nothing here is fused that the baseline rounds twice).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,fma")]
    #[allow(
        unsafe_code,
        reason = "a #[target_feature] function: called only after run-time detection"
    )]
    unsafe fn solve_avx2(
        &self,
        state: &mut FootPlacementState,
        data: &AnimationData,
        trs: &mut [f32],
        root: &Affine3A,
        ground: &dyn GroundQuery,
        dt: f32,
    ) -> Result<FootReport, AnimError> {
        self.solve_with(state, data, trs, root, ground, dt)
    }

    /// The body of [`Self::solve`], inlined into each build of it.
    #[inline(always)]
    fn solve_with(
        &self,
        state: &mut FootPlacementState,
        data: &AnimationData,
        trs: &mut [f32],
        root: &Affine3A,
        ground: &dyn GroundQuery,
        dt: f32,
    ) -> Result<FootReport, AnimError> {
        let pending = match self.begin(state, data, trs, root, ground, dt)? {
            Ok(pending) => pending,
            Err(off) => return Ok(off),
        };
        // Four legs at a time in SIMD lanes; a leg the lanes cannot take exactly as the f32
        // two-bone path would goes through the scalar solve (which also reports errors).
        for first in (0..self.legs.len()).step_by(4) {
            let last = (first + 4).min(self.legs.len());
            let lane = |i: usize| {
                (i < last).then(|| LegLane {
                    leg: &self.legs[i],
                    work: &state.work[i],
                    shift: pending.shift,
                })
            };
            let lanes = [
                lane(first),
                lane(first + 1),
                lane(first + 2),
                lane(first + 3),
            ];
            let fixes = solve_legs(&lanes);
            for (i, fix) in (first..last).zip(fixes) {
                self.leg_solved(state, i, fix, pending.shift)?;
            }
        }
        self.finish(state, trs, &pending)
    }

    /// The frame up to the legs' solves: inputs checked, the legs read, the feet placed and
    /// the pelvis drop chosen (into `state`'s scratch; nothing committed). `Err` is the
    /// switched-off frame's report: then nothing is left to do.
    #[inline(always)]
    pub(super) fn begin(
        &self,
        state: &mut FootPlacementState,
        data: &AnimationData,
        trs: &[f32],
        root: &Affine3A,
        ground: &dyn GroundQuery,
        dt: f32,
    ) -> Result<Result<Pending, FootReport>, AnimError> {
        self.check_inputs(state, data, trs, root, dt)?;
        let dt = dt.max(0.0);
        let d = &self.desc;
        let weight = if state.active { 1.0 } else { 0.0 };
        let weight = if weight == state.weight {
            weight
        } else {
            state.weight + (weight - state.weight) * ease(dt, d.fade_time)
        };
        let weight = if weight < FADED && !state.active {
            0.0
        } else {
            weight
        };
        let parent = match self.pelvis_parent {
            Some(p) => model_matrix_from_trs(data, trs, p, root)?,
            None => *root,
        };
        let pelvis = parent * local(trs, d.pelvis);
        for (leg, work) in self.legs.iter().zip(&mut state.work) {
            read_leg(data, trs, root, &pelvis, leg, work)?;
        }
        if weight == 0.0 {
            return Ok(Err(rest_off(state)));
        }
        let mut report = FootReport {
            weight,
            ..FootReport::default()
        };
        self.place_feet(state, trs, root, ground, dt, weight, &mut report);
        let drop = self.pelvis_drop(state, dt);
        let shift = -d.up * drop;
        let shift_local = inverse(&parent.matrix3)?.mul_vec3(shift);
        Ok(Ok(Pending {
            report,
            weight,
            drop,
            shift: shift.into(),
            shift_local,
        }))
    }

    /// Leg `i`'s corrections into `state`: the lanes' `fix`, or the scalar solve's where the
    /// lanes left it.
    #[inline(always)]
    pub(super) fn leg_solved(
        &self,
        state: &mut FootPlacementState,
        i: usize,
        fix: Option<LegFix>,
        shift: Vec3A,
    ) -> Result<(), AnimError> {
        let work = &mut state.work[i];
        let reached = match fix {
            Some((hip_fix, knee_fix, ankle_fix, reached)) => {
                work.hip_fix = hip_fix;
                work.knee_fix = knee_fix;
                work.ankle_fix = ankle_fix;
                reached
            }
            None => solve_leg(&self.legs[i], work, shift.into())?,
        };
        state.next_status[i].reached = reached;
        Ok(())
    }

    /// The frame's end, once every leg is solved: the pelvis and the legs written, the state
    /// committed. (The records were checked by [`Self::begin`]: the writes cannot fail.)
    #[inline(always)]
    pub(super) fn finish(
        &self,
        state: &mut FootPlacementState,
        trs: &mut [f32],
        pending: &Pending,
    ) -> Result<FootReport, AnimError> {
        let Pending {
            mut report,
            weight,
            drop,
            shift_local,
            ..
        } = *pending;
        if drop > 0.0 {
            let at = self.desc.pelvis * TRS_STRIDE + T_OFF;
            let t = Vec3::from_slice(&trs[at..at + 3]) + shift_local;
            t.write_to_slice(&mut trs[at..at + 3]);
        }
        for (leg, work) in self.legs.iter().zip(&state.work) {
            apply_correction_inline(trs, leg.hip, work.hip_fix)?;
            apply_correction_inline(trs, leg.knee, work.knee_fix)?;
            apply_correction_inline(trs, leg.ankle, work.ankle_fix)?;
        }
        state.memory.copy_from_slice(&state.next);
        state.status.copy_from_slice(&state.next_status);
        state.pelvis_drop = drop;
        state.weight = weight;
        state.fresh = false;
        report.pelvis_drop = drop;
        Ok(report)
    }

    fn check_inputs(
        &self,
        state: &FootPlacementState,
        data: &AnimationData,
        trs: &[f32],
        root: &Affine3A,
        dt: f32,
    ) -> Result<(), AnimError> {
        if state.memory.len() != self.legs.len() {
            return Err(AnimError::LengthMismatch {
                what: "foot placement state (feet)",
                expected: self.legs.len(),
                got: state.memory.len(),
            });
        }
        if data.nodes.len() != self.node_count {
            return Err(AnimError::LengthMismatch {
                what: "foot placement rig (nodes)",
                expected: self.node_count,
                got: data.nodes.len(),
            });
        }
        if trs.len() < self.node_count * TRS_STRIDE {
            return Err(AnimError::LengthMismatch {
                what: "foot placement TRS records",
                expected: self.node_count * TRS_STRIDE,
                got: trs.len(),
            });
        }
        finite1("foot placement dt", dt)?;
        for value in root.to_cols_array() {
            finite1("foot placement root matrix", value)?;
        }
        Ok(())
    }

    /// How far the pelvis goes down this frame: what the foot furthest out of reach needs,
    /// within `0..=max_step_down`; down at once (the targets it follows are eased already, so
    /// this moves smoothly, and a planted foot stays reachable), back up eased.
    #[inline(always)]
    fn pelvis_drop(&self, state: &FootPlacementState, dt: f32) -> f32 {
        let up = Vec3A::from(self.desc.up);
        let mut need = 0.0_f32;
        for work in &state.work {
            let (hip, knee, ankle) = (
                work.hip.translation,
                work.knee.translation,
                work.ankle.translation,
            );
            let length = (knee - hip).length() + (ankle - knee).length();
            let reach = (length * self.desc.max_extension).max((ankle - hip).length());
            need = need.max(drop_to_reach(hip - work.target, up, reach));
        }
        let need = need.clamp(0.0, self.desc.max_step_down);
        if state.fresh || need >= state.pelvis_drop {
            return need;
        }
        let follow = ease(dt, self.desc.pelvis_time);
        (state.pelvis_drop + (need - state.pelvis_drop) * follow)
            .clamp(0.0, self.desc.max_step_down)
    }
}

/// The switched-off frame: the pose stays the clip's; speeds keep being tracked, the ground
/// and locks are forgotten so that switching on eases in from the clip.
fn rest_off(state: &mut FootPlacementState) -> FootReport {
    for ((mem, status), work) in state
        .memory
        .iter_mut()
        .zip(&mut state.status)
        .zip(&state.work)
    {
        let ankle = work.ankle.translation;
        mem.prev_ankle = ankle;
        mem.height = 0.0;
        mem.slide = Vec3A::ZERO;
        mem.planted = false;
        *status = FootStatus {
            target: ankle.into(),
            offset: Vec3::ZERO,
            ..FootStatus::IDLE
        };
    }
    state.pelvis_drop = 0.0;
    state.weight = 0.0;
    state.fresh = false;
    FootReport::default()
}

/// The fraction of the way to a new value taken in `dt` with time constant `time`
/// (exponential smoothing: frame-rate independent, all of it for `time` 0).
#[inline]
pub(super) fn ease(dt: f32, time: f32) -> f32 {
    if time > 0.0 {
        1.0 - (-dt / time).exp()
    } else {
        1.0
    }
}

/// The least `d ≥ 0` with `|v − d·up| ≤ reach` (`v` from the target to the hip): how far the
/// hip must go down for the leg to reach. Where no drop brings it in reach, the drop that
/// brings it closest.
fn drop_to_reach(v: Vec3A, up: Vec3A, reach: f32) -> f32 {
    let length_sq = v.length_squared();
    if length_sq <= reach * reach {
        return 0.0;
    }
    let along = v.dot(up);
    if along <= 0.0 {
        return 0.0;
    }
    let disc = along * along - (length_sq - reach * reach);
    if disc < 0.0 {
        along
    } else {
        along - disc.sqrt()
    }
}
