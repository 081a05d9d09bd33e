//! What one character's foot placement remembers between frames, and what a frame reports.

use glam::{Affine3A, Quat, Vec3, Vec3A};

use super::placement::FootPlacement;
use crate::AnimError;

/// What happened to one foot in the last [`FootPlacement::solve`](crate::FootPlacement::solve).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FootStatus {
    /// The ray under the ankle found usable ground (a hit that is not finite counts as none).
    pub hit: bool,
    /// The clip says the foot is on the ground: its speed and lift, or the caller's
    /// [`set_planted`](FootPlacementState::set_planted).
    pub planted: bool,
    /// The foot is held at the point where it touched down (fully, or still sliding back
    /// after a release).
    pub locked: bool,
    /// The leg reached its target (see [`TwoBoneSolution::reached`](crate::TwoBoneSolution)).
    pub reached: bool,
    /// Where the ankle was sent, in the ground's world frame.
    pub target: Vec3,
    /// `target` minus where the clip put the ankle.
    pub offset: Vec3,
    /// The ground normal the sole was turned to (smoothed and tilt-limited; up without a hit).
    pub normal: Vec3,
}

impl FootStatus {
    pub(crate) const IDLE: Self = Self {
        hit: false,
        planted: false,
        locked: false,
        reached: false,
        target: Vec3::ZERO,
        offset: Vec3::ZERO,
        normal: Vec3::Y,
    };
}

/// What one [`FootPlacement::solve`](crate::FootPlacement::solve) did as a whole; each foot's
/// detail is in [`FootPlacementState::feet`].
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct FootReport {
    /// How far the pelvis was lowered along up, in world units (0 ..= max step down).
    pub pelvis_drop: f32,
    /// How many feet found ground under them.
    pub hits: usize,
    /// How many feet the clip (or the caller) says are planted.
    pub planted: usize,
    /// How much of the correction was applied, `0..=1` (below 1 while fading on or off).
    pub weight: f32,
}

/// What persists for one foot between frames.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct FootMemory {
    /// Where the clip put the ankle last frame (world), for its speed.
    pub(crate) prev_ankle: Vec3A,
    /// The smoothed ground height under the foot above the clip's ground plane, and its
    /// smoothed normal.
    pub(crate) height: f32,
    pub(crate) normal: Vec3A,
    /// Last frame's plant decision (a rising edge locks).
    pub(crate) planted: bool,
    /// The locked ankle target and the clip's lift when it was locked, while planted.
    pub(crate) lock: Vec3A,
    pub(crate) lock_lift: f32,
    /// After a release: the target's offset from the free target, decaying to zero.
    pub(crate) slide: Vec3A,
}

/// This frame's work for one leg, filled before anything is written to the pose.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct LegWork {
    pub(crate) hip: Affine3A,
    pub(crate) knee: Affine3A,
    pub(crate) ankle: Affine3A,
    /// The knee's and the ankle's local matrices (to pose them under the solved hip).
    pub(crate) knee_local: Affine3A,
    pub(crate) ankle_local: Affine3A,
    /// Where the ankle goes and the world rotation turning the sole onto the ground.
    pub(crate) target: Vec3A,
    pub(crate) align: Quat,
    /// The corrections to multiply onto hip, knee and ankle.
    pub(crate) hip_fix: Quat,
    pub(crate) knee_fix: Quat,
    pub(crate) ankle_fix: Quat,
}

impl LegWork {
    const IDLE: Self = Self {
        hip: Affine3A::IDENTITY,
        knee: Affine3A::IDENTITY,
        ankle: Affine3A::IDENTITY,
        knee_local: Affine3A::IDENTITY,
        ankle_local: Affine3A::IDENTITY,
        target: Vec3A::ZERO,
        align: Quat::IDENTITY,
        hip_fix: Quat::IDENTITY,
        knee_fix: Quat::IDENTITY,
        ankle_fix: Quat::IDENTITY,
    };
}

/// One character's foot placement memory (ozz's `SamplingJob::Context`): the smoothed ground
/// under each foot, its lock, the pelvis drop, the on/off fade, and this frame's scratch, all
/// sized by [`new`](Self::new) for one [`FootPlacement`]. Solving allocates nothing.
///
/// A fresh (or [`reset`](Self::reset)) state snaps to the ground on its first frame instead of
/// easing in, and knows no foot speed yet (feet are planted only by
/// [`set_planted`](Self::set_planted) on that frame).
#[derive(Debug, Clone)]
pub struct FootPlacementState {
    pub(crate) memory: Vec<FootMemory>,
    pub(crate) next: Vec<FootMemory>,
    pub(crate) status: Vec<FootStatus>,
    pub(crate) next_status: Vec<FootStatus>,
    pub(crate) work: Vec<LegWork>,
    pub(crate) overrides: Vec<Option<bool>>,
    pub(crate) pelvis_drop: f32,
    pub(crate) weight: f32,
    pub(crate) active: bool,
    pub(crate) fresh: bool,
}

impl FootPlacementState {
    /// A state for a character of `placement`'s rig, on and fresh.
    #[must_use]
    pub fn new(placement: &FootPlacement) -> Self {
        let feet = placement.foot_count();
        let memory = FootMemory {
            prev_ankle: Vec3A::ZERO,
            height: 0.0,
            normal: placement.desc.up.into(),
            planted: false,
            lock: Vec3A::ZERO,
            lock_lift: 0.0,
            slide: Vec3A::ZERO,
        };
        Self {
            memory: vec![memory; feet],
            next: vec![memory; feet],
            status: vec![FootStatus::IDLE; feet],
            next_status: vec![FootStatus::IDLE; feet],
            work: vec![LegWork::IDLE; feet],
            overrides: vec![None; feet],
            pelvis_drop: 0.0,
            weight: 1.0,
            active: true,
            fresh: true,
        }
    }

    /// Forgets the past (locks, smoothed ground, speeds): the next solve snaps to the ground
    /// as a fresh state does. Call it when the character is teleported. Keeps the overrides
    /// and the on/off switch.
    pub fn reset(&mut self) {
        self.fresh = true;
        self.pelvis_drop = 0.0;
        self.weight = if self.active { 1.0 } else { 0.0 };
        for m in &mut self.memory {
            m.slide = Vec3A::ZERO;
            m.planted = false;
        }
    }

    /// Says whether foot `foot` is on the ground this frame, overriding the speed test:
    /// `Some(true)` from a clip's footfall markers or a contact curve, `None` to go back to
    /// the speed test. Takes effect at the next solve and stays until changed.
    ///
    /// # Errors
    /// [`AnimError::NoSuchFoot`] when `foot` is past the feet.
    pub fn set_planted(&mut self, foot: usize, planted: Option<bool>) -> Result<(), AnimError> {
        let foot_count = self.overrides.len();
        let slot = self
            .overrides
            .get_mut(foot)
            .ok_or(AnimError::NoSuchFoot { foot, foot_count })?;
        *slot = planted;
        Ok(())
    }

    /// Switches the correction on or off. The change eases over the description's
    /// `fade_time`, from the pose on screen: off, the pose is the clip's again once the fade
    /// is done (and nothing is written from then on).
    pub fn set_active(&mut self, active: bool) {
        self.active = active;
    }

    /// Whether the correction is switched on.
    #[must_use]
    pub fn active(&self) -> bool {
        self.active
    }

    /// Each foot as the last solve left it (all idle before the first).
    #[must_use]
    pub fn feet(&self) -> &[FootStatus] {
        &self.status
    }

    /// The pelvis drop of the last solve, in world units.
    #[must_use]
    pub fn pelvis_drop(&self) -> f32 {
        self.pelvis_drop
    }
}
