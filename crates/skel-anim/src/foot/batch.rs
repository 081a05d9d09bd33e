//! Foot placement for many characters of one rig in one call: each character's frame as
//! [`FootPlacement::solve`] runs it, the legs of two characters solved together in the SIMD
//! lanes (two legs each fill all four), which is where a frame's instructions went.

use glam::Affine3A;

use super::ground::GroundQuery;
use super::legs_x4::{LegLane, solve_legs};
use super::placement::FootPlacement;
use super::solve::Pending;
use super::state::{FootPlacementState, FootReport};
use crate::rig::kernels::Kernels;
use crate::{AnimError, AnimationData};

/// One character of [`FootPlacement::solve_batch`]: what [`FootPlacement::solve`] takes for
/// it.
#[derive(Debug)]
pub struct FootBatchJob<'a> {
    /// The character's memory between frames.
    pub state: &'a mut FootPlacementState,
    /// Its local pose ([`TRS_STRIDE`](crate::TRS_STRIDE) floats per node), placed in place.
    pub trs: &'a mut [f32],
    /// Its pose's frame in the ground's world (see [`FootPlacement::solve`]).
    pub root: Affine3A,
}

impl FootPlacement {
    /// Places the feet of every character of `jobs` (all of `data`'s rig, on the same
    /// `ground`, `dt` seconds after their last frame), writing job `i`'s outcome to
    /// `reports[i]`: what [`solve`](Self::solve) would return for it, its pose and state
    /// changed as `solve` changes them, bit for bit (a lane computes alone, whichever
    /// character's leg it holds). Faster for crowds: two characters' legs share the four
    /// SIMD lanes that one character's two legs half fill. Allocates nothing.
    ///
    /// ```
    /// use skel_anim::glam::{Affine3A, Vec3};
    /// use skel_anim::*;
    ///
    /// // A pelvis at 0.9 m with one slightly bent leg, as in `FootPlacement`'s example.
    /// let mut nodes = vec![NodeRest::new("pelvis", None)];
    /// nodes[0].translation = [0.0, 0.9, 0.0];
    /// for (name, parent, drop) in [("hip", 0, 0.1), ("knee", 1, 0.4), ("ankle", 2, 0.32)] {
    ///     let mut node = NodeRest::new(name, Some(parent));
    ///     node.translation = [0.0, -drop, 0.01];
    ///     nodes.push(node);
    /// }
    /// let data = AnimationData { nodes, ..AnimationData::default() };
    /// let feet = FootPlacement::new(&data, &FootPlacementDesc::new(0, vec![FootDesc::new(1, 2, 3, None)]))?;
    /// // Three characters, each with its own state and pose, made once.
    /// let mut states: Vec<FootPlacementState> = (0..3).map(|_| FootPlacementState::new(&feet)).collect();
    /// let mut poses: Vec<PoseScratch> = (0..3).map(|_| PoseScratch::new(&data)).collect::<Result<_, _>>()?;
    /// let mut reports: Vec<Result<FootReport, AnimError>> = (0..3).map(|_| Ok(FootReport::default())).collect();
    /// let ground = GroundPlane::new(Vec3::Y, -0.1)?;
    /// // Each frame:
    /// let mut jobs: Vec<FootBatchJob> = states
    ///     .iter_mut()
    ///     .zip(&mut poses)
    ///     .enumerate()
    ///     .map(|(i, (state, pose))| FootBatchJob {
    ///         state,
    ///         trs: &mut pose.trs,
    ///         root: Affine3A::from_translation(Vec3::new(i as f32, 0.0, 0.0)),
    ///     })
    ///     .collect();
    /// feet.solve_batch(&data, &mut jobs, &mut reports, &ground, 1.0 / 60.0)?;
    /// assert!(reports.iter().all(Result::is_ok));
    /// drop(jobs);
    /// // Each ankle stands on the ground 10 cm up.
    /// let ankle = model_matrix_from_trs(&data, &poses[2].trs, 3, &Affine3A::IDENTITY)?.translation;
    /// assert!((ankle.y - (0.1 + 0.08)).abs() < 1e-4);
    /// # Ok::<(), AnimError>(())
    /// ```
    ///
    /// # Errors
    /// [`AnimError::LengthMismatch`] when `reports` is not one per job (nothing is placed).
    /// Each job's own errors go to its report, as `solve` returns them (its pose and state
    /// then left as they were).
    pub fn solve_batch(
        &self,
        data: &AnimationData,
        jobs: &mut [FootBatchJob<'_>],
        reports: &mut [Result<FootReport, AnimError>],
        ground: &dyn GroundQuery,
        dt: f32,
    ) -> Result<(), AnimError> {
        if reports.len() != jobs.len() {
            return Err(AnimError::LengthMismatch {
                what: "foot placement batch reports",
                expected: jobs.len(),
                got: reports.len(),
            });
        }
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
                unsafe { self.batch_avx2(data, jobs, reports, ground, dt) };
                return Ok(());
            }
        }
        self.batch_with(data, jobs, reports, ground, dt);
        Ok(())
    }

    /// [`Self::batch_with`] compiled for AVX2 and FMA (as [`Self::solve`]'s build is).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,fma")]
    #[allow(
        unsafe_code,
        reason = "a #[target_feature] function: called only after run-time detection"
    )]
    unsafe fn batch_avx2(
        &self,
        data: &AnimationData,
        jobs: &mut [FootBatchJob<'_>],
        reports: &mut [Result<FootReport, AnimError>],
        ground: &dyn GroundQuery,
        dt: f32,
    ) {
        self.batch_with(data, jobs, reports, ground, dt);
    }

    /// The batch, two characters at a time (`reports` one per job).
    #[inline(always)]
    fn batch_with(
        &self,
        data: &AnimationData,
        jobs: &mut [FootBatchJob<'_>],
        reports: &mut [Result<FootReport, AnimError>],
        ground: &dyn GroundQuery,
        dt: f32,
    ) {
        for (pair, out) in jobs.chunks_mut(2).zip(reports.chunks_mut(2)) {
            self.pair(data, pair, out, ground, dt);
        }
    }

    /// One or two characters: each begun, their legs solved together four lanes at a time
    /// (the first character's legs, then the second's), each finished unless a leg failed.
    #[inline(always)]
    fn pair(
        &self,
        data: &AnimationData,
        pair: &mut [FootBatchJob<'_>],
        out: &mut [Result<FootReport, AnimError>],
        ground: &dyn GroundQuery,
        dt: f32,
    ) {
        let mut pending: [Option<Pending>; 2] = [None, None];
        for ((job, report), pending) in pair.iter_mut().zip(out.iter_mut()).zip(&mut pending) {
            match self.begin(job.state, data, job.trs, &job.root, ground, dt) {
                Ok(Ok(begun)) => *pending = Some(begun),
                Ok(Err(off)) => *report = Ok(off),
                Err(e) => *report = Err(e),
            }
        }
        let legs = self.legs.len();
        let total = pair.len() * legs;
        let mut next = 0;
        while next < total {
            // The next four legs of characters still going.
            let mut slots: [Option<(usize, usize)>; 4] = [None; 4];
            let mut filled = 0;
            while filled < 4 && next < total {
                let (k, i) = (next / legs, next % legs);
                next += 1;
                if pending[k].is_some() {
                    slots[filled] = Some((k, i));
                    filled += 1;
                }
            }
            if filled == 0 {
                break;
            }
            let lane = |slot: Option<(usize, usize)>| {
                let (k, i) = slot?;
                Some(LegLane {
                    leg: &self.legs[i],
                    work: &pair[k].state.work[i],
                    shift: pending[k]?.shift,
                })
            };
            let lanes = [
                lane(slots[0]),
                lane(slots[1]),
                lane(slots[2]),
                lane(slots[3]),
            ];
            let fixes = solve_legs(&lanes);
            for (slot, fix) in slots.into_iter().zip(fixes) {
                let Some((k, i)) = slot else { continue };
                let Some(begun) = pending[k] else { continue };
                if let Err(e) = self.leg_solved(pair[k].state, i, fix, begun.shift) {
                    out[k] = Err(e);
                    pending[k] = None;
                }
            }
        }
        for ((job, report), pending) in pair.iter_mut().zip(out.iter_mut()).zip(&pending) {
            if let Some(begun) = pending {
                *report = self.finish(job.state, job.trs, begun);
            }
        }
    }
}
