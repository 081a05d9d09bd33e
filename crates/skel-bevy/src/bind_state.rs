//! What binding leaves on a character: the rig it was built over, whether its scene is ready,
//! and why it was not bound. Below both `bind` (which binds) and `rig_files` (which reads the
//! rigs), so that neither needs the other for these.

use bevy::prelude::*;

use crate::{SkelBevyError, SkelRig};

/// The rig a character's [`SkelPlayer`](crate::SkelPlayer) is built over (its own glTF file,
/// or the explicit rig of [`SkelPlayer::with_rig`](crate::SkelPlayer::with_rig)).
#[derive(Component, Debug, Clone)]
pub struct SkelRigHandle(pub Handle<SkelRig>);

/// Set on a character when its spawned scene is ready (bevy's `WorldInstanceReady`).
#[derive(Component, Debug, Clone, Copy, Default)]
pub struct SkelSceneReady;

/// Why a character was not bound: inserted once, logged once; the character's transforms
/// stay as bevy spawned them. Remove it (and fix the cause) to try again.
#[derive(Component, Debug)]
pub struct SkelBindError(pub SkelBevyError);
