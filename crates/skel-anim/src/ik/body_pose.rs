//! What a [`FullBodyIk`](super::FullBodyIk) reads and writes: the effectors and their goals,
//! the body's model matrices by part ([`BodyPose`]) and the solution ([`BodySolution`]), which
//! applies itself to a TRS buffer.

use glam::{Affine3A, Quat, Vec3};

/// The most spine joints a [`FullBodyIk`](super::FullBodyIk) bends.
pub const MAX_SPINE_JOINTS: usize = 4;

/// The body parts a [`FullBodyIk`](super::FullBodyIk) can reach with; `as usize` indexes
/// [`FullBodyIk::goals`](super::FullBodyIk::goals) and [`BodySolution::reached`], and the first four index
/// [`BodyPose::limbs`] and [`BodySolution::limbs`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Effector {
    /// The left arm's wrist (shoulder → elbow → wrist).
    LeftHand,
    /// The right arm's wrist.
    RightHand,
    /// The left leg's ankle (hip → knee → ankle).
    LeftFoot,
    /// The right leg's ankle.
    RightFoot,
    /// The head (the neck turned to point its head bone at the target).
    Head,
}

impl Effector {
    /// Every effector, in index order.
    pub const ALL: [Self; 5] = [
        Self::LeftHand,
        Self::RightHand,
        Self::LeftFoot,
        Self::RightFoot,
        Self::Head,
    ];

    /// Whether the effector's limb hangs below the spine's top (hands, head) rather than the
    /// pelvis (feet).
    #[must_use]
    pub fn on_chest(self) -> bool {
        !matches!(self, Self::LeftFoot | Self::RightFoot)
    }
}

/// One effector's goal.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EffectorGoal {
    /// Where the wrist, ankle or head should be, in the model frame.
    pub target: Vec3,
    /// Where the elbow or knee should point, in the model frame (unused for the head).
    pub pole: Vec3,
    /// How much the effector counts, `0..=1` (0: off).
    pub weight: f32,
}

impl Default for EffectorGoal {
    /// Off: weight 0, target at the origin, pole +z.
    fn default() -> Self {
        Self {
            target: Vec3::ZERO,
            pole: Vec3::Z,
            weight: 0.0,
        }
    }
}

/// The model matrices a [`FullBodyIk`](super::FullBodyIk) reads, by body part (in any one affine model frame).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BodyPose {
    /// The pelvis (what moves).
    pub pelvis: Affine3A,
    /// The spine joints, base first: the first `spine_count` are used.
    pub spine: [Affine3A; MAX_SPINE_JOINTS],
    /// How many spine joints there are (0: the arms and neck hang below the pelvis).
    pub spine_count: usize,
    /// Per limb effector (`Effector as usize`, 0..4): shoulder, elbow, wrist or hip, knee,
    /// ankle; `None` when the body has no such limb.
    pub limbs: [Option<[Affine3A; 3]>; 4],
    /// Neck and head, `None` when not used.
    pub neck: Option<[Affine3A; 2]>,
}

impl BodyPose {
    /// A pose with only a pelvis (add the spine, limbs and neck it has).
    #[must_use]
    pub fn new(pelvis: Affine3A) -> Self {
        Self {
            pelvis,
            spine: [Affine3A::IDENTITY; MAX_SPINE_JOINTS],
            spine_count: 0,
            limbs: [None; 4],
            neck: None,
        }
    }
}

/// What [`FullBodyIk::solve`](super::FullBodyIk::solve) found.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BodySolution {
    /// The pelvis's move in its own local space, applied as `local = local · translation`
    /// (its local translation grows by `rotation · (scale ∘ offset)`;
    /// [`apply`](Self::apply) does it).
    pub pelvis_offset: Vec3,
    /// Local corrections of the spine joints (`local = local · correction`).
    pub spine: [Quat; MAX_SPINE_JOINTS],
    /// Per limb: the corrections of its first and middle joints.
    pub limbs: [[Quat; 2]; 4],
    /// The neck's correction.
    pub neck: Quat,
    /// Per effector: whether it lands on its target (off effectors: false).
    pub reached: [bool; 5],
}
