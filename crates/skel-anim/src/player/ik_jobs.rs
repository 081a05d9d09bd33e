//! The player's IK jobs: adding, reading, retargeting and clearing them
//! ([`ik_pass`](super::ik_pass) solves them every tick).

use super::Player;
use super::ik_pass::IkJob;
use crate::AnimError;

impl Player {
    /// Adds an inverse-kinematics job, run after every earlier one on each tick: after the
    /// layers (and bone control's overrides), before visibility and local → world. Targets and
    /// poles are in the asset's world frame. Returns the job's index. Allocates (the job list).
    ///
    /// A job whose solver finds its input degenerate on some tick (zero-length bones, a
    /// singular joint matrix, a NaN target) leaves the pose as it was that tick; weights and
    /// soften outside `0..=1` are clamped (see [`TwoBoneIk`](crate::TwoBoneIk) and
    /// [`AimIk`](crate::AimIk)).
    ///
    /// Chain, look-at and full-body jobs ([`ChainIk`](crate::ik::ChainIk),
    /// [`LookAtIk`](crate::ik::LookAtIk), [`FullBodyIk`](crate::ik::FullBodyIk)) are checked
    /// against the rig's hierarchy here, once; a chain's limits are measured from the rig's
    /// rest pose.
    ///
    /// # Errors
    /// [`AnimError::BadNode`] for a node past the end, and for a two-bone job whose joints are
    /// not a parent → child → grandchild chain ([`check_chain`](crate::check_chain));
    /// [`AnimError::IkNotAChain`] for chain and look-at joints that are not each an ancestor
    /// of the next ([`ChainJoints::check`](crate::ik::ChainJoints::check));
    /// [`AnimError::IkBodyLayout`] for a body whose parts do not hang as the layout needs
    /// ([`BodyJoints::check`](crate::ik::BodyJoints::check)). Nothing is added on error.
    pub fn add_ik(&mut self, job: IkJob) -> Result<usize, AnimError> {
        let data = self.poser.rig.data();
        match job {
            IkJob::TwoBone {
                start, mid, end, ..
            } => crate::check_chain(data, start, mid, end)?,
            IkJob::Aim { node, .. } if node >= data.nodes.len() => {
                return Err(AnimError::BadNode {
                    what: "aim IK node".into(),
                    node,
                    node_count: data.nodes.len(),
                });
            }
            IkJob::Aim { .. } => {}
            IkJob::Chain { joints, .. } => joints.check(data)?,
            IkJob::LookAt { joints, .. } => joints.check(data)?,
            IkJob::FullBody { joints, .. } => joints.check(data)?,
        }
        self.ik.push(job);
        Ok(self.ik.len() - 1)
    }

    /// The IK jobs, in the order they run.
    #[must_use]
    pub fn ik_jobs(&self) -> &[IkJob] {
        &self.ik
    }

    /// IK job `index`, to move its target or change its weight every frame (its joints cannot
    /// change: remove it and add another). For a full-body job, set a goal with
    /// [`FullBodyIk::goal_mut`](crate::ik::FullBodyIk::goal_mut).
    ///
    /// # Errors
    /// [`AnimError::NoSuchLayer`] for an index past the end (`layer` counts IK jobs here).
    pub fn ik_target_mut(&mut self, index: usize) -> Result<&mut IkJob, AnimError> {
        let count = self.ik.len();
        self.ik.get_mut(index).ok_or(AnimError::NoSuchLayer {
            layer: index,
            layer_count: count,
        })
    }

    /// Removes every IK job.
    pub fn clear_ik(&mut self) {
        self.ik.clear();
    }
}
