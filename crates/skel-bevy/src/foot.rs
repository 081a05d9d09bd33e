//! `SkelFootPlacement`: skel's foot placement on a character, standing on a ground the
//! application supplies in Bevy's world (a plane, a mesh, or its own physics queries).

use std::sync::Arc;

use bevy::prelude::*;
use skel_anim::{
    AnimationData, FootDesc, FootPlacement, FootPlacementDesc, FootPlacementJob, GroundQuery,
};

use crate::ik_targets::{Nodes, current_world};
use crate::{SkelBevyError, SkelPlayer};

/// Foot placement on a character's [`SkelPlayer`]: each foot raised or lowered to the ground
/// and turned to its slope, the pelvis lowered so the lower foot reaches, planted feet locked
/// (`skel_anim::foot`). It runs after the IK jobs, before the pose, every frame.
///
/// Joints are named as in [`SkelIk`](crate::SkelIk) (the first skin joint of that name). The
/// ground is in Bevy's world: the character's scene root is followed from this frame's
/// transforms, so a character moved by a controller or by root motion stands on the ground
/// where it is now. Replace [`ground`](Self::ground) from any system (a physics query, a
/// terrain that changed); changing the joints rebuilds the placement on the next frame.
///
/// ```no_run
/// use std::sync::Arc;
/// use bevy::prelude::*;
/// use skel_bevy::anim::GroundPlane;
/// use skel_bevy::{SkelFootPlacement, SkelLayer, SkelPlayer};
///
/// fn spawn(mut commands: Commands, server: Res<AssetServer>) {
///     let floor = GroundPlane::new(Vec3::Y, 0.0).unwrap();
///     let scene = server.load(GltfAssetLabel::Scene(0).from_asset("character.glb"));
///     commands.spawn((
///         bevy::world_serialization::WorldAssetRoot(scene),
///         SkelPlayer::new().with_layer(SkelLayer::clip("Walk")),
///         SkelFootPlacement::new("Hips", [["LeftUpLeg", "LeftLeg", "LeftFoot", "LeftToes"],
///                                          ["RightUpLeg", "RightLeg", "RightFoot", "RightToes"]],
///                                Arc::new(floor)),
///     ));
/// }
/// # let _ = spawn;
/// ```
#[derive(Component, Clone)]
pub struct SkelFootPlacement {
    /// The pelvis (hips) joint.
    pub pelvis: String,
    /// Each leg, root first: hip, knee, ankle and optionally toe.
    pub legs: Vec<Vec<String>>,
    /// The ground in Bevy's world.
    pub ground: Arc<dyn GroundQuery>,
}

impl std::fmt::Debug for SkelFootPlacement {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SkelFootPlacement")
            .field("pelvis", &self.pelvis)
            .field("legs", &self.legs)
            .finish_non_exhaustive()
    }
}

impl SkelFootPlacement {
    /// Foot placement of `legs` (each hip, knee, ankle and optionally toe) under `pelvis`, on
    /// `ground`, with skel's default limits and times (1 unit = 1 m).
    #[must_use]
    pub fn new<L, S>(
        pelvis: impl Into<String>,
        legs: impl IntoIterator<Item = L>,
        ground: Arc<dyn GroundQuery>,
    ) -> Self
    where
        L: IntoIterator<Item = S>,
        S: Into<String>,
    {
        Self {
            pelvis: pelvis.into(),
            legs: legs
                .into_iter()
                .map(|l| l.into_iter().map(Into::into).collect())
                .collect(),
            ground,
        }
    }

    /// skel's placement for `data`'s nodes.
    fn resolve(&self, data: &AnimationData) -> Result<FootPlacement, SkelBevyError> {
        let is_joint = |n: usize| data.skeletons.iter().any(|s| s.joints.contains(&n));
        let node = |name: &str| {
            let mut named = (0..data.nodes.len()).filter(|&n| data.nodes[n].name == name);
            let first = named.clone().next();
            named
                .find(|&n| is_joint(n))
                .or(first)
                .ok_or_else(|| SkelBevyError::Ik {
                    job: 0,
                    message: format!("foot placement: no node named {name:?}"),
                })
        };
        let mut feet = Vec::with_capacity(self.legs.len());
        for leg in &self.legs {
            let joints = leg.iter().map(|n| node(n)).collect::<Result<Vec<_>, _>>()?;
            feet.push(match joints[..] {
                [hip, knee, ankle] => FootDesc::new(hip, knee, ankle, None),
                [hip, knee, ankle, toe] => FootDesc::new(hip, knee, ankle, Some(toe)),
                _ => {
                    return Err(SkelBevyError::Ik {
                        job: 0,
                        message: "foot placement: a leg is hip, knee, ankle and optionally toe"
                            .into(),
                    });
                }
            });
        }
        let desc = FootPlacementDesc::new(node(&self.pelvis)?, feet);
        Ok(FootPlacement::new(data, &desc)?)
    }
}

/// Why a character's [`SkelFootPlacement`] could not be built (a bad joint name, a leg that
/// is not a chain): its feet are left as the animation has them until the component changes.
#[derive(Component, Debug)]
pub struct SkelFootError(pub SkelBevyError);

/// Installs changed placements on the bound players and, every frame, hands each its ground
/// and where the character's scene stands in Bevy's world.
pub(crate) fn place_feet(
    mut commands: Commands,
    mut characters: Query<(
        Entity,
        Ref<SkelFootPlacement>,
        &mut SkelPlayer,
        Has<SkelFootError>,
    )>,
    mut removed: RemovedComponents<SkelFootPlacement>,
    mut plain: Query<&mut SkelPlayer, Without<SkelFootPlacement>>,
    nodes: Nodes,
) {
    for entity in removed.read() {
        if let Ok(mut player) = plain.get_mut(entity)
            && let Some(bound) = player.bound.as_mut()
        {
            bound.driver.player_mut().set_foot_placement(None);
        }
    }
    for (entity, feet, mut player, has_error) in &mut characters {
        let Some(bound) = player.bound.as_mut() else {
            continue;
        };
        let frame = bound
            .frame
            .and_then(|e| current_world(e, &nodes))
            .unwrap_or(bevy::math::Affine3A::IDENTITY);
        let p = bound.driver.player_mut();
        // A placement that did not build waits for the component to change.
        if feet.is_changed() || (p.foot_placement().is_none() && !has_error) {
            if feet.is_changed() {
                commands.entity(entity).remove::<SkelFootError>();
            }
            match feet.resolve(&bound.data) {
                Ok(placement) => p.set_foot_placement(Some(FootPlacementJob::new(
                    placement,
                    Arc::clone(&feet.ground),
                ))),
                Err(e) => {
                    tracing::error!("skel-bevy: character {entity}: {e}");
                    commands.entity(entity).insert(SkelFootError(e));
                    p.set_foot_placement(None);
                    continue;
                }
            }
        }
        if let Some(job) = p.foot_placement_mut() {
            job.ground = Arc::clone(&feet.ground);
            job.world = frame;
        }
    }
}
