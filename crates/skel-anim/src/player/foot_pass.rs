//! Foot placement in a player's pose pass ([`Player::set_foot_placement`]): after the layers,
//! the inertialization and the IK jobs, before local → world, on the local pose; the ground
//! is the caller's.

use std::sync::Arc;

use glam::{Affine3A, Mat4};

use super::Player;
use crate::foot::{FootPlacement, FootPlacementState, GroundQuery};
use crate::{AnimationData, Handedness, PoseScratch};

/// Foot placement run by a [`Player`] every pose: the placement built for the rig
/// ([`FootPlacement::new`]), the character's state, the ground it stands on and where the
/// character stands in the ground's world.
#[derive(Clone)]
pub struct FootPlacementJob {
    /// The legs, the pelvis and the limits (built once per rig).
    pub placement: FootPlacement,
    /// What persists between frames (locked feet, eased offsets); `state.set_planted`
    /// feeds footfalls from markers, `state.set_active` eases the placement in and out.
    pub state: FootPlacementState,
    /// The ground: [`GroundPlane`](crate::GroundPlane), [`TriangleGround`](crate::TriangleGround)
    /// or the caller's world.
    pub ground: Arc<dyn GroundQuery>,
    /// The character's placement in the ground's world: the asset's world frame (as
    /// [`Player::world_matrices`] reports it) is mapped through it. Move it with the
    /// character (root motion, a game's entity transform) every frame.
    pub world: Affine3A,
}

impl std::fmt::Debug for FootPlacementJob {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FootPlacementJob")
            .field("placement", &self.placement)
            .field("state", &self.state)
            .field("world", &self.world)
            .finish_non_exhaustive()
    }
}

impl FootPlacementJob {
    /// A job over `placement` with a fresh state, standing at the ground's origin.
    #[must_use]
    pub fn new(placement: FootPlacement, ground: Arc<dyn GroundQuery>) -> Self {
        let state = FootPlacementState::new(&placement);
        Self {
            placement,
            state,
            ground,
            world: Affine3A::IDENTITY,
        }
    }

    /// Runs the placement on the pose in `scratch` (the player's pose frame, whose root nodes
    /// the frame pass places); `dt` seconds since the last pose. A frame the job refuses
    /// (non-finite pose or step) leaves the pose as the layers made it.
    pub(crate) fn run(&mut self, data: &AnimationData, scratch: &mut PoseScratch, dt: f32) {
        // What the hierarchy pass puts in front of root nodes in the asset's world frame,
        // then the character's placement.
        let handed = match data.handedness {
            Handedness::LeftHanded => {
                Affine3A::from_mat4(Mat4::from_cols_array(&skel_math::RH_TO_LH))
            }
            Handedness::RightHanded => Affine3A::IDENTITY,
        };
        let root = self.world * handed;
        let _ = self.placement.solve(
            &mut self.state,
            data,
            &mut scratch.trs,
            &root,
            &*self.ground,
            dt,
        );
    }
}

impl Player {
    /// Installs (or removes) foot placement, run on every pose after the layers, any
    /// inertialization and the IK jobs, before local → world (see [`crate::foot`]). The
    /// player takes the pose pass step by step while it is set. Allocates nothing per frame.
    pub fn set_foot_placement(&mut self, job: Option<FootPlacementJob>) {
        self.foot = job.map(Box::new);
    }

    /// The installed foot placement, to move the character's [`world`](FootPlacementJob::world)
    /// placement, feed footfalls or switch it off.
    pub fn foot_placement_mut(&mut self) -> Option<&mut FootPlacementJob> {
        self.foot.as_deref_mut()
    }

    /// The installed foot placement (its state says where each foot is: `state.feet()`).
    #[must_use]
    pub fn foot_placement(&self) -> Option<&FootPlacementJob> {
        self.foot.as_deref()
    }
}
