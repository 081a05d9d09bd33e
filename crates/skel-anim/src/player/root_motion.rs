//! The player's root-motion settings and results: which components of a root node are taken
//! out of the pose, and the delta per tick the application applies to the character
//! ([`motion_extraction`](super::motion_extraction) has the rule).

use super::Player;
use super::motion_extraction::{Motion, RootDelta, RootMotion, RootPlan, RootState};
use crate::AnimError;

impl Player {
    /// Extracts the motion of a root node from every layer (see [`RootMotion`]): from the next
    /// tick on, the root animates in place (its extracted components held at each clip's time
    /// 0) and [`root_motion_delta`](Self::root_motion_delta) says how far the character moved.
    /// `None` turns it off. Resets the accumulated total. Allocates (a lookup per clip).
    ///
    /// # Errors
    /// [`AnimError::BadNode`] for a node past the end. Nothing changes on error.
    pub fn set_root_motion(&mut self, config: Option<RootMotion>) -> Result<(), AnimError> {
        let Some(config) = config else {
            self.root = None;
            return Ok(());
        };
        let rig = &self.poser.rig;
        let plan = RootPlan::new(rig.data(), config)?;
        let slot = |off: usize| {
            let at = config.node * crate::TRS_STRIDE + off;
            rig.maps
                .trs_slots
                .iter()
                .position(|s| s.at == at)
                .unwrap_or(usize::MAX)
        };
        self.root = Some(RootState {
            plan,
            t_slot: slot(crate::T_OFF),
            r_slot: slot(crate::R_OFF),
            delta: Motion::default(),
            total: Motion::default(),
            delta_seconds: 0.0,
        });
        Ok(())
    }

    /// The root-motion settings, when extracting.
    #[must_use]
    pub fn root_motion(&self) -> Option<RootMotion> {
        self.root.as_ref().map(|r| r.plan.config)
    }

    /// How far the root moved over the last tick (identity when not extracting): apply it to
    /// the character as `character = character · delta`.
    #[must_use]
    pub fn root_motion_delta(&self) -> RootDelta {
        self.root
            .as_ref()
            .map(|r| r.delta.delta())
            .unwrap_or_default()
    }

    /// Every delta since root motion was set (or the total was reset), composed.
    #[must_use]
    pub fn root_motion_total(&self) -> RootDelta {
        self.root
            .as_ref()
            .map(|r| r.total.delta())
            .unwrap_or_default()
    }

    /// Starts the accumulated total from the identity again.
    pub fn reset_root_motion_total(&mut self) {
        if let Some(r) = &mut self.root {
            r.total = Motion::default();
        }
    }
}
