//! The per-frame systems: tick the players, move the characters by their root motion, write
//! the joints' `Transform`s where they changed, and deliver the markers passed.

use std::sync::Arc;

use bevy::prelude::*;

use crate::{SkelJoint, SkelPlayer};

/// Which root motion a character extracts from its animation, and applies to its own
/// `Transform` (`character = character · delta`, the delta in the character's frame). The
/// extracted part no longer moves the root joint, so the character walks instead of its
/// skeleton walking away from it.
#[derive(Component, Debug, Clone, PartialEq)]
pub struct SkelRootMotion {
    /// The root node's name (a hips or root bone).
    pub node: String,
    /// Translation axes extracted, `[x, y, z]` in the root's parent space.
    pub translation: [bool; 3],
    /// Whether rotation about +y (yaw) is extracted.
    pub yaw: bool,
    /// Whether the plugin moves the character's `Transform` (otherwise read
    /// [`SkelRootMotion::last`] from a character controller).
    pub apply: bool,
    /// The delta of the last frame, in the character's frame: translation and rotation.
    pub last: (Vec3, Quat),
}

impl SkelRootMotion {
    /// Ground-plane motion (x and z, no yaw) of node `node`, applied to the character.
    #[must_use]
    pub fn ground(node: impl Into<String>) -> Self {
        Self {
            node: node.into(),
            translation: [true, false, true],
            yaw: false,
            apply: true,
            last: (Vec3::ZERO, Quat::IDENTITY),
        }
    }
}

/// An animation marker a character's playhead passed, triggered on the character entity
/// once per crossing (observe it with `On<SkelEvent>`).
#[derive(EntityEvent, Debug, Clone, PartialEq)]
pub struct SkelEvent {
    /// The character.
    pub entity: Entity,
    /// The marker's name.
    pub name: Arc<str>,
    /// The clip index in the rig.
    pub clip: usize,
    /// The layer whose playhead passed it.
    pub layer: usize,
    /// The marker's time in the clip, in seconds.
    pub time: f32,
    /// The layer's effective weight.
    pub weight: f32,
}

/// Advances every bound player (clocks, markers, root-motion delta), in parallel across
/// characters; they pose in [`pose_players`], once root motion and IK targets are set.
pub(crate) fn advance_players(time: Res<Time>, mut players: Query<&mut SkelPlayer>) {
    let dt = time.delta_secs();
    players
        .par_iter_mut()
        .for_each(|mut player| player.advance(dt));
}

/// Poses every bound player at the times [`advance_players`] reached, IK included, in
/// parallel across characters.
pub(crate) fn pose_players(mut players: Query<&mut SkelPlayer>) {
    players
        .par_iter_mut()
        .for_each(|mut player| player.evaluate());
}

/// Moves characters by the root motion of this frame's advance.
pub(crate) fn apply_root_motion(
    mut characters: Query<(&SkelPlayer, &mut SkelRootMotion, &mut Transform)>,
) {
    for (player, mut config, mut transform) in &mut characters {
        let Some(p) = player.player() else {
            continue;
        };
        let delta = p.root_motion_delta();
        let (t, r) = (delta.translation, delta.rotation);
        config.last = (t, r);
        if config.apply {
            let step = transform.rotation * (t * transform.scale);
            transform.translation += step;
            transform.rotation = (transform.rotation * r).normalize();
        }
    }
}

/// Writes the local `Transform` of each joint its character's last pose moved (the
/// comparison with the last written ran with the pose, in [`pose_players`]), so change
/// detection and propagation skip still joints. Parallel across joints; a character is looked
/// up once for a run of its joints (a scene's joints are spawned together), not per joint.
pub(crate) fn write_joints(
    players: Query<&SkelPlayer>,
    mut joints: Query<(&SkelJoint, &mut Transform)>,
) {
    joints.par_iter_mut().for_each_init(
        || (Entity::PLACEHOLDER, None),
        |(last, bound), (joint, mut transform)| {
            if *last != joint.character {
                *last = joint.character;
                *bound = players
                    .get(joint.character)
                    .ok()
                    .and_then(|p| p.bound.as_ref());
            }
            if let Some(posed) = bound.and_then(|b| b.joints.moved(joint.node)) {
                *transform = posed;
            }
        },
    );
}

/// Triggers a [`SkelEvent`] for every marker passed this frame.
pub(crate) fn emit_events(mut commands: Commands, players: Query<(Entity, &SkelPlayer)>) {
    for (entity, player) in &players {
        let Some(bound) = player.bound.as_ref() else {
            continue;
        };
        for f in &bound.fired {
            commands.trigger(SkelEvent {
                entity,
                name: Arc::clone(&f.name),
                clip: f.clip,
                layer: f.layer,
                time: f.time,
                weight: f.weight,
            });
        }
    }
}
