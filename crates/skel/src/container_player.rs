//! [`AssetContainer::player`]: a player for a loaded asset with its VRM secondary motion
//! attached (kept apart from `container.rs`, which builds the container, and from
//! `secondary.rs`, which knows nothing of containers).

use skel_anim::Player;

use crate::{AssetContainer, SkelError};

impl AssetContainer {
    /// A player over this asset's [`rig`](Self::rig) with its VRM springs and node
    /// constraints attached ([`secondary`](Self::secondary)): a loaded avatar's hair swings
    /// without another call. Without VRM data (or with them turned off in
    /// [`LoadOptions::secondary`](crate::LoadOptions::secondary)) it is
    /// [`Player::new`]`(&container.rig)`. Move the character in the world through
    /// [`Player::springs_mut`]'s `world` so the springs feel it.
    ///
    /// # Errors
    /// None for a container's own parts; kept for what [`SecondaryMotion::attach`](crate::SecondaryMotion::attach) reports.
    pub fn player(&self) -> Result<Player, SkelError> {
        let mut player = Player::new(&self.rig);
        self.secondary.attach(&mut player)?;
        Ok(player)
    }
}
