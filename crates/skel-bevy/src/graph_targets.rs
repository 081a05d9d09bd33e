//! `SkelGraphTargets`: a graph's vec3 parameters (its IK operations' targets and points to
//! look at) set every frame from Bevy entities.

use bevy::prelude::*;

use crate::SkelPlayer;
use crate::ik_targets::{Nodes, current_world};

/// Binds vec3 parameters of the character's [`SkelGraph`](crate::SkelGraph) to entities:
/// every frame, after the players have advanced and root motion has moved the characters and
/// before they pose, each parameter is set to its entity's world position mapped into the
/// glTF scene's frame (as [`SkelIk`](crate::SkelIk)'s targets are), and the graph's pose
/// operations read it in the same frame.
///
/// A parameter the graph does not have, or that is not a vec3, is reported once per change
/// of the component (logged) and skipped; an entity without a transform leaves its parameter
/// as it was.
///
/// ```
/// use bevy::prelude::*;
/// use skel_bevy::SkelGraphTargets;
///
/// let mut world = World::new();
/// let ball = world.spawn(Transform::from_xyz(0.5, 1.5, 0.4)).id();
/// // The graph's operation `{"ik": "two_bone", …, "target": "reach"}` follows the ball.
/// let targets = SkelGraphTargets::new().with("reach", ball);
/// assert_eq!(targets.targets().len(), 1);
/// ```
#[derive(Component, Debug, Clone, Default, PartialEq)]
pub struct SkelGraphTargets {
    targets: Vec<(String, Entity)>,
}

impl SkelGraphTargets {
    /// No bindings.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Binds vec3 parameter `parameter` to `entity`.
    #[must_use]
    pub fn with(mut self, parameter: impl Into<String>, entity: Entity) -> Self {
        self.targets.push((parameter.into(), entity));
        self
    }

    /// The bindings, parameter and entity.
    #[must_use]
    pub fn targets(&self) -> &[(String, Entity)] {
        &self.targets
    }

    /// The bindings, to change.
    pub fn targets_mut(&mut self) -> &mut Vec<(String, Entity)> {
        &mut self.targets
    }
}

/// Sets every bound graph's vec3 parameters from their entities, in the scene's frame, then
/// its pose operations from them. Allocates nothing.
pub(crate) fn aim_graph_targets(
    mut characters: Query<(Entity, Ref<SkelGraphTargets>, &mut SkelPlayer)>,
    nodes: Nodes,
) {
    for (entity, targets, mut player) in &mut characters {
        let Some(bound) = player.bound.as_mut() else {
            continue;
        };
        let frame = bound
            .frame
            .and_then(|e| current_world(e, &nodes))
            .unwrap_or(bevy::math::Affine3A::IDENTITY);
        if frame.matrix3.determinant() == 0.0 {
            continue;
        }
        let to_scene = frame.inverse();
        let Some(graph) = bound.driver.graph_player_mut() else {
            continue;
        };
        for (name, target) in &targets.targets {
            let Some(world) = current_world(*target, &nodes) else {
                continue;
            };
            let p = to_scene.transform_point3a(world.translation).into();
            if let Err(e) = graph.instance_mut().set_vec3(name, p)
                && targets.is_changed()
            {
                tracing::error!("skel-bevy: character {entity}: SkelGraphTargets: {e}");
            }
        }
        graph.drive_operations();
    }
}
