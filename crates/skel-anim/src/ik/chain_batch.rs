//! Many chain IK jobs in one call ([`ChainIk::solve_batch`]): FABRIK chains of equal length
//! run their passes four at a time (`fabrik/passes_x4.rs`), every other job as
//! [`ChainIk::solve_from_rest`] runs it.

use glam::{Affine3A, Quat, Vec3A, Vec4};
use skel_math::lanes::Vec3x4;

use super::JointLimit;
use super::chain::{ChainIk, ChainSolution, MAX_CHAIN_JOINTS, solution};
use super::fabrik::passes::Goal;
use super::fabrik::passes_x4::{self, Goals};
use super::fabrik::similar::{Prepared, Request};
use crate::AnimError;

/// One job of a [`ChainIk::solve_batch`]: what [`ChainIk::solve_from_rest`] takes.
#[derive(Debug)]
pub struct ChainJob<'a> {
    /// The solve.
    pub ik: ChainIk,
    /// The chain's joints' model matrices, root first.
    pub models: &'a [Affine3A],
    /// Empty, or one limit per joint.
    pub limits: &'a [JointLimit],
    /// Empty, or each joint's local rotation relative to its rest orientation.
    pub from_rest: &'a [Quat],
    /// Where the corrections go, one per joint.
    pub corrections: &'a mut [Quat],
}

impl ChainIk {
    /// Solves every job of `jobs`, writing job `i`'s outcome to `solutions[i]`: the same as
    /// [`solve_from_rest`](Self::solve_from_rest) on each, up to f32 rounding (1e-5 of the
    /// chain), faster for crowds. FABRIK jobs without limits whose chains have the same number
    /// of joints (at least 3) run their iterations four at a time, one chain per SIMD lane;
    /// that is where the time goes, so put chains of equal length next to each other. Each
    /// job stops on its own tolerance and iterations. Allocates nothing.
    ///
    /// ```
    /// use glam::{Affine3A, Quat, Vec3};
    /// use skel_anim::ik::{ChainIk, ChainJob, ChainSolution};
    /// use skel_anim::AnimError;
    ///
    /// // Eight characters' arms (four unit bones up y), each reaching somewhere else.
    /// let mut models = [Affine3A::IDENTITY; 5];
    /// for i in 1..5 {
    ///     models[i] = models[i - 1] * Affine3A::from_translation(Vec3::Y);
    /// }
    /// let mut corrections = [[Quat::IDENTITY; 5]; 8];
    /// let mut jobs: Vec<ChainJob> = corrections
    ///     .iter_mut()
    ///     .enumerate()
    ///     .map(|(k, out)| ChainJob {
    ///         ik: ChainIk {
    ///             target: Vec3::new(2.0, 2.0, 0.1 * k as f32),
    ///             pole: Some(Vec3::Z),
    ///             ..ChainIk::default()
    ///         },
    ///         models: &models,
    ///         limits: &[],
    ///         from_rest: &[],
    ///         corrections: out,
    ///     })
    ///     .collect();
    /// // Made once and reused every frame.
    /// let mut solutions: Vec<Result<ChainSolution, AnimError>> =
    ///     (0..jobs.len()).map(|_| Ok(ChainSolution::default())).collect();
    /// ChainIk::solve_batch(&mut jobs, &mut solutions)?;
    /// assert!(solutions.iter().all(|s| s.as_ref().is_ok_and(|s| s.reached)));
    /// # Ok::<(), AnimError>(())
    /// ```
    ///
    /// # Errors
    /// [`AnimError::LengthMismatch`] when `solutions` is not one per job (nothing solved).
    /// Each job's own errors go to its solution, as [`solve_from_rest`](Self::solve_from_rest)
    /// returns them (its corrections then left as they were).
    pub fn solve_batch<'a>(
        jobs: &mut [ChainJob<'a>],
        solutions: &mut [Result<ChainSolution, AnimError>],
    ) -> Result<(), AnimError> {
        if solutions.len() != jobs.len() {
            return Err(AnimError::LengthMismatch {
                what: "IK chain batch solutions",
                expected: jobs.len(),
                got: solutions.len(),
            });
        }
        let mut group = Group::new();
        for index in 0..jobs.len() {
            let job = &jobs[index];
            let (n, models) = (job.models.len(), job.models);
            if let Err(e) = job
                .ik
                .check(n, job.limits, job.from_rest, job.corrections.len())
            {
                solutions[index] = Err(e);
                continue;
            }
            // Whether the f32 path may still take the job alone (it refused it here).
            let mut try_f32 = true;
            if let Some(request) = (n >= 3)
                .then(|| job.ik.similar_request(job.limits))
                .flatten()
            {
                if group.count > 0 && group.joints != n {
                    group.flush(jobs, solutions);
                }
                let slot = &mut group.chains[group.count];
                slot.reset(models);
                if slot.prepare(&request) {
                    if slot.goal.is_some() {
                        group.joints = n;
                        group.index[group.count] = index;
                        group.request[group.count] = request;
                        group.count += 1;
                        if group.count == 4 {
                            group.flush(jobs, solutions);
                        }
                    } else {
                        // Nothing to iterate (out of reach, or no iterations): done now.
                        let out = slot.finish(&request, jobs[index].corrections);
                        solutions[index] = Ok(solution(&out, request.tolerance));
                    }
                    continue;
                }
                try_f32 = false;
            }
            // Another path (limits, CCD, two joints, frames the f32 path refuses): alone,
            // checked already.
            let job = &mut jobs[index];
            solutions[index] = job.ik.solve_checked(
                job.models,
                job.limits,
                job.from_rest,
                job.corrections,
                try_f32,
            );
        }
        group.flush(jobs, solutions);
        Ok(())
    }
}

/// A goal that runs nothing (never taken: grouped chains have theirs).
const NO_GOAL: Goal = Goal {
    root: Vec3A::ZERO,
    target: Vec3A::ZERO,
    axis: Vec3A::X,
    tolerance: 0.0,
    iterations: 0,
};

/// Up to four prepared FABRIK chains of `joints` joints waiting for their passes.
struct Group<'a> {
    chains: [Prepared<'a>; 4],
    request: [Request; 4],
    index: [usize; 4],
    count: usize,
    joints: usize,
}

impl<'a> Group<'a> {
    fn new() -> Self {
        let none = Request {
            target: Vec3A::ZERO,
            pole: None,
            tolerance: 0.0,
            iterations: 0,
            weight: 1.0,
        };
        Self {
            chains: std::array::from_fn(|_| Prepared::of(&[])),
            request: [none, none, none, none],
            index: [0; 4],
            count: 0,
            joints: 0,
        }
    }

    /// Runs the waiting chains' passes (four lanes; a lone chain alone) and turns them into
    /// their jobs' corrections and solutions.
    fn flush(
        &mut self,
        jobs: &mut [ChainJob<'_>],
        solutions: &mut [Result<ChainSolution, AnimError>],
    ) {
        let (k, n) = (self.count, self.joints);
        if k == 0 {
            return;
        }
        // Lanes past the group's chains repeat its first; their results are dropped.
        let lane = |l: usize| if l < k { l } else { 0 };
        // Every chain in a group has a goal (see `solve_batch`).
        let goal = |l: usize| self.chains[lane(l)].goal.unwrap_or(NO_GOAL);
        let mut p = [Vec3x4::ZERO; MAX_CHAIN_JOINTS];
        let mut length = [Vec4::ZERO; MAX_CHAIN_JOINTS];
        for i in 0..n {
            p[i] = Vec3x4::from_lanes(std::array::from_fn(|l| {
                self.chains[lane(l)].p[i].to_array()
            }));
            length[i] = Vec4::from_array(std::array::from_fn(|l| self.chains[lane(l)].length[i]));
        }
        let goals = Goals {
            root: Vec3x4::from_lanes(std::array::from_fn(|l| goal(l).root.to_array())),
            target: Vec3x4::from_lanes(std::array::from_fn(|l| goal(l).target.to_array())),
            axis: Vec3x4::from_lanes(std::array::from_fn(|l| goal(l).axis.to_array())),
            tolerance: Vec4::from_array(std::array::from_fn(|l| goal(l).tolerance)),
            iterations: std::array::from_fn(|l| goal(l).iterations),
        };
        let used = passes_x4::run(&mut p[..n], &length[..n - 1], &goals);
        for (l, (chain, &used)) in self.chains.iter_mut().zip(&used).enumerate().take(k) {
            for (i, q) in chain.p[..n].iter_mut().enumerate() {
                *q = p[i].lane(l).into();
            }
            chain.used = used;
            let index = self.index[l];
            let out = chain.finish(&self.request[l], jobs[index].corrections);
            solutions[index] = Ok(solution(&out, self.request[l].tolerance));
        }
        self.count = 0;
    }
}
