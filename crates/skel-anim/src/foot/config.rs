//! What a caller describes once per rig: the feet, the pelvis, and the limits and times that
//! shape the correction.

use glam::Vec3;

/// One leg: the three joints a [`TwoBoneIk`](crate::TwoBoneIk) turns, and where its sole is.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FootDesc {
    /// The thigh joint (the chain's start). Must be below the pelvis.
    pub hip: usize,
    /// The shin joint, `hip`'s child.
    pub knee: usize,
    /// The foot joint, `knee`'s child: the point that is placed.
    pub ankle: usize,
    /// The toes joint, `ankle`'s child, when the rig has one: a second ray under it keeps the
    /// front of the foot out of a step it is over.
    pub toe: Option<usize>,
    /// The ankle's height above the sole when the foot stands flat, in world units. `None`:
    /// the rest pose's ankle height above the plane through the rig's origin (a rig modelled
    /// standing on `y = 0`, as glTF characters are).
    pub ankle_height: Option<f32>,
    /// The toes joint's height above the sole, likewise (`None`: from the rest pose).
    pub toe_height: Option<f32>,
}

impl FootDesc {
    /// A leg with heights measured from the rest pose.
    #[must_use]
    pub fn new(hip: usize, knee: usize, ankle: usize, toe: Option<usize>) -> Self {
        Self {
            hip,
            knee,
            ankle,
            toe,
            ankle_height: None,
            toe_height: None,
        }
    }
}

/// Everything [`FootPlacement::new`](crate::FootPlacement::new) needs (a descriptor, as wgpu
/// takes them). Distances are in the ground's world units, times in seconds, angles in
/// radians; the defaults of [`FootPlacementDesc::new`] suit a human-sized character in metres
/// (1 unit = 1 m): scale the distances and speeds for another unit.
#[derive(Debug, Clone, PartialEq)]
pub struct FootPlacementDesc {
    /// The legs, in the order [`FootPlacementState::feet`](crate::FootPlacementState::feet)
    /// reports them.
    pub feet: Vec<FootDesc>,
    /// The joint that carries the legs and is lowered when a foot cannot reach (its local
    /// translation changes).
    pub pelvis: usize,
    /// The world's up, in the ground's frame (normalised at build; default +y).
    pub up: Vec3,
    /// How far above the clip's ground plane a foot may be lifted onto higher ground (a step
    /// up): rays start this far above it. Default 0.5.
    pub max_step_up: f32,
    /// The most the pelvis is ever lowered to let a foot reach lower ground. Default 0.5.
    pub max_step_down: f32,
    /// How far the rays look: from `max_step_up` above the clip's ground plane down this
    /// length (at least `max_step_up`). Ground further down is no ground (a ledge: the foot
    /// keeps the clip's height). Default 1.0 (down to 0.5 below the clip's ground).
    pub ray_length: f32,
    /// The steepest ground the sole is turned to match (a steeper normal is turned towards up
    /// until it is this far from it). Default 45°.
    pub max_tilt: f32,
    /// The fraction of a leg's length (hip to knee to ankle) it may stretch to before the
    /// pelvis is lowered; a clip that already stretches further keeps its stretch. Default
    /// 0.98 (a fully straight knee snaps).
    pub max_extension: f32,
    /// A foot moving slower than this (world units per second: the ankle's speed across the
    /// ground, perpendicular to up, in the ground's frame) near the clip's ground is planted. Default 0.15. Markers or any other
    /// contact signal override it per foot with
    /// [`FootPlacementState::set_planted`](crate::FootPlacementState::set_planted).
    pub plant_speed: f32,
    /// A foot whose sole the clip lifts more than this above its ground is never planted by
    /// speed. Default 0.05.
    pub plant_height: f32,
    /// A locked foot is released when the clip takes it further than this from the lock
    /// (the leg would stretch or the foot slide visibly otherwise). Default 0.3.
    pub max_lock_distance: f32,
    /// Time constant of the ground under each foot (its height and normal) following a change:
    /// 63 % of a step is taken in this time, 95 % in three times it. Default 0.1 s. 0: no
    /// smoothing (a step edge moves the foot in one frame).
    pub ground_time: f32,
    /// Time constant of the pelvis rising back after a drop. Default 0.15 s. (It goes down
    /// as soon as a foot needs it: the foot targets it follows are eased already.)
    pub pelvis_time: f32,
    /// Time constant of a released foot's offset from where the clip puts it (the lock's
    /// last offset) fading away; the foot moves with the clip from the release on. Default
    /// 0.2 s.
    pub release_time: f32,
    /// Time constant of switching the whole correction on and off
    /// ([`FootPlacementState::set_active`](crate::FootPlacementState::set_active)). Default
    /// 0.2 s.
    pub fade_time: f32,
}

impl FootPlacementDesc {
    /// The defaults above for `feet` under `pelvis`.
    #[must_use]
    pub fn new(pelvis: usize, feet: Vec<FootDesc>) -> Self {
        Self {
            feet,
            pelvis,
            up: Vec3::Y,
            max_step_up: 0.5,
            max_step_down: 0.5,
            ray_length: 1.0,
            max_tilt: 45_f32.to_radians(),
            max_extension: 0.98,
            plant_speed: 0.15,
            plant_height: 0.05,
            max_lock_distance: 0.3,
            ground_time: 0.1,
            pelvis_time: 0.15,
            release_time: 0.2,
            fade_time: 0.2,
        }
    }
}
