//! Spring bones in a player ([`Player::set_springs`]): stepped at their fixed rate while the
//! clocks advance, each step on the pose the layers give at that step's own instant (the
//! clocks are advanced to it first), so that any display rate whose frames land on the same
//! instants runs the same steps on the same poses; the pose shown each frame carries the last
//! step's spring rotations, written after the layers, IK and foot placement.

use std::sync::Arc;

use glam::{Affine3A, Mat4, Quat};

use super::{AnimationEvent, Player, group_mix};
use crate::spring::{SpringBones, SpringState};
use crate::{AnimError, Handedness, NullSink};

/// Spring bones run by a [`Player`]: the springs made for the rig, the character's state and
/// where the character stands in the world.
#[derive(Debug, Clone)]
pub struct SpringJob {
    /// The springs (made once per rig with [`SpringBones::new`] on the rig's nodes).
    pub bones: Arc<SpringBones>,
    /// The character's spring state.
    pub state: SpringState,
    /// The character's placement in the world: the asset's world frame is mapped through it.
    /// Set it every frame before advancing the player; the steps within a frame see it moved
    /// in a straight line (and turned along the shortest arc) from the last frame's.
    pub world: Affine3A,
    /// The placement at the end of the last advance.
    last_world: Affine3A,
    /// The pose of the step being taken.
    step_trs: Vec<f32>,
}

impl SpringJob {
    /// A job over `bones` with a fresh state (started from the first pose it sees), at the
    /// world's origin.
    #[must_use]
    pub fn new(bones: Arc<SpringBones>) -> Self {
        let state = bones.new_state();
        Self {
            bones,
            state,
            world: Affine3A::IDENTITY,
            last_world: Affine3A::IDENTITY,
            step_trs: Vec::new(),
        }
    }

    /// The placement a fraction `f` of the way from the last frame's to this one's.
    fn world_at(&self, f: f64) -> Affine3A {
        if f >= 1.0 {
            return self.world;
        }
        #[expect(clippy::cast_possible_truncation, reason = "a fraction")]
        let f = f.max(0.0) as f32;
        let (s0, r0, t0) = self.last_world.to_scale_rotation_translation();
        let (s1, r1, t1) = self.world.to_scale_rotation_translation();
        Affine3A::from_scale_rotation_translation(
            s0.lerp(s1, f),
            Quat::slerp(r0, r1, f),
            t0.lerp(t1, f),
        )
    }
}

impl Player {
    /// Installs (or removes) spring bones (see [`crate::spring`]), stepped at their fixed rate
    /// on the pose the layers give at each step's own instant.
    /// While set, [`advance`](Self::advance) and [`tick`](Self::tick) pose the character at
    /// every fixed spring step their time crosses, and every pose shown carries the springs'
    /// rotations. Allocates the job's pose buffer here, nothing per frame.
    ///
    /// # Errors
    /// [`AnimError::BadSpring`] when the springs were made for a rig of another node count.
    pub fn set_springs(&mut self, job: Option<SpringJob>) -> Result<(), AnimError> {
        let nodes = self.data().nodes.len();
        self.springs = match job {
            None => None,
            Some(mut job) => {
                if job.bones.node_count() != nodes {
                    return Err(AnimError::BadSpring {
                        reason: format!(
                            "springs made for {} nodes, the player's rig has {nodes}",
                            job.bones.node_count()
                        ),
                    });
                }
                job.step_trs = vec![0.0; self.poser.scratch.trs.len()];
                job.last_world = job.world;
                Some(Box::new(job))
            }
        };
        Ok(())
    }

    /// The installed springs, to move the character's [`world`](SpringJob::world) placement.
    pub fn springs_mut(&mut self) -> Option<&mut SpringJob> {
        self.springs.as_deref_mut()
    }

    /// Installs (or removes) node constraints (see [`crate::constraint`]), run on every pose
    /// after foot placement and before the spring bones, as three-vrm runs them.
    ///
    /// # Errors
    /// [`AnimError::BadConstraint`] when the constraints were made for a rig of another node
    /// count.
    pub fn set_constraints(
        &mut self,
        constraints: Option<Arc<crate::constraint::NodeConstraints>>,
    ) -> Result<(), AnimError> {
        if let Some(c) = &constraints {
            let nodes = self.data().nodes.len();
            if c.node_count() != nodes {
                return Err(AnimError::BadConstraint {
                    node: c.node_count(),
                    reason: "made for a rig of another node count (node: that count)",
                });
            }
        }
        self.constraints = constraints;
        Ok(())
    }

    /// The installed springs (their state says where each tail is).
    #[must_use]
    pub fn springs(&self) -> Option<&SpringJob> {
        self.springs.as_deref()
    }

    /// Advances the clocks by `dt` seconds, stopping at each spring step on the way to pose
    /// the character there and step the springs.
    pub(super) fn advance_with_springs(
        &mut self,
        dt: f64,
        mut on_event: Option<&mut dyn FnMut(&AnimationEvent<'_>)>,
    ) {
        let Some(job) = self.springs.as_deref() else {
            self.advance_clocks(dt, on_event);
            return;
        };
        if !job.state.is_started() {
            let root = self.spring_root(job.last_world);
            self.pose_for_springs();
            if let Some(job) = self.springs.as_deref_mut() {
                job.bones.reset(&mut job.state, &job.step_trs, root);
            }
        }
        let max_steps = self
            .springs
            .as_deref()
            .map_or(0, |j| j.bones.options().max_steps);
        let mut left = dt;
        let mut run = 0;
        loop {
            let Some(job) = self.springs.as_deref_mut() else {
                return;
            };
            let due = job.bones.until_next_step(&job.state);
            // A microsecond's slack: frames that land on a step's instant by other sums of
            // frame times still take it.
            if due > left + 1e-6 {
                break;
            }
            let sub = due.min(left);
            if run == max_steps {
                job.bones.pass_time(&mut job.state, left);
                job.bones.skip_due(&mut job.state);
                left = 0.0;
                break;
            }
            job.bones.pass_time(&mut job.state, sub);
            let fraction = if dt > 0.0 {
                (dt - left + sub) / dt
            } else {
                1.0
            };
            let world = job.world_at(fraction);
            let events: Option<&mut dyn FnMut(&AnimationEvent<'_>)> = match on_event {
                Some(ref mut f) => Some(&mut **f),
                None => None,
            };
            self.advance_clocks(sub, events);
            left -= sub;
            let root = self.spring_root(world);
            self.pose_for_springs();
            if let Some(job) = self.springs.as_deref_mut() {
                let SpringJob {
                    bones,
                    state,
                    step_trs,
                    ..
                } = job;
                bones.step_due(state, step_trs, root);
            }
            run += 1;
        }
        self.advance_clocks(left, on_event);
        if let Some(job) = self.springs.as_deref_mut() {
            job.bones.pass_time(&mut job.state, left);
            job.last_world = job.world;
        }
        #[expect(clippy::cast_possible_truncation, reason = "seconds of a frame")]
        if dt.is_finite() && dt >= 0.0 {
            self.last_dt = dt as f32;
        }
    }

    /// The springs' root: the character's placement, then what the hierarchy pass puts in
    /// front of root nodes in the asset's world frame.
    fn spring_root(&self, world: Affine3A) -> Affine3A {
        match self.data().handedness {
            Handedness::LeftHanded => {
                world * Affine3A::from_mat4(Mat4::from_cols_array(&skel_math::RH_TO_LH))
            }
            Handedness::RightHanded => world,
        }
    }

    /// The layers' pose at the clocks' current times (mix, a running blend, IK, node
    /// constraints; not foot placement, whose state moves once per shown frame) into the spring
    /// job's pose buffer.
    fn pose_for_springs(&mut self) {
        if !self.groups.is_empty() {
            self.pose_groups(&mut NullSink, group_mix::Capture::Springs);
        } else {
            self.pose_layers(&mut NullSink, false);
        }
        if let Some(job) = self.springs.as_deref_mut() {
            job.step_trs.copy_from_slice(&self.poser.scratch.trs);
        }
    }
}
