//! A VRM avatar's spring bones (`VRMC_springBone`, VRM 0.x `secondaryAnimation`) and node
//! constraints (`VRMC_node_constraint`) on a Bevy character, as its
//! [`SkelSprings`](crate::SkelSprings) asks: installed on skel's own player (skel-anim's
//! `spring` and `constraint` run them) and fed with where the character stands in Bevy's
//! world.

use std::collections::HashMap;
use std::sync::Arc;

use bevy::math::Affine3A;
use bevy::prelude::*;
use skel_anim::constraint::{NodeConstraintDesc, NodeConstraints};
use skel_anim::spring::{SpringBones, SpringBonesDesc, SpringOptions};
use skel_anim::{AnimationData, Player, SpringJob};

use crate::bind_state::SkelRigHandle;
use crate::ik_targets::{Nodes, current_world};
use crate::{SkelBevyError, SkelPlayer, SkelRig, SkelSprings, SkelSpringsError};

/// Springs and constraints built once per rig (and spring options), shared by `Arc` between
/// its characters; each character's player keeps its own spring state.
#[derive(Resource, Debug, Default)]
pub(crate) struct CompiledSprings {
    springs: HashMap<(AssetId<SkelRig>, String), Arc<SpringBones>>,
    constraints: HashMap<AssetId<SkelRig>, Arc<NodeConstraints>>,
}

impl CompiledSprings {
    fn springs(
        &mut self,
        rig: AssetId<SkelRig>,
        desc: &SpringBonesDesc,
        data: &AnimationData,
        options: SpringOptions,
    ) -> Result<Option<Arc<SpringBones>>, SkelBevyError> {
        // The options have no hash of their own; their printout tells them apart.
        let key = (rig, format!("{options:?}"));
        if let Some(s) = self.springs.get(&key) {
            return Ok(Some(Arc::clone(s)));
        }
        let springs = SpringBones::new(desc, &data.nodes, options).map_err(|source| {
            SkelBevyError::Secondary {
                what: "spring bones",
                source,
            }
        })?;
        if springs.joint_nodes().next().is_none() {
            return Ok(None);
        }
        let springs = Arc::new(springs);
        self.springs.insert(key, Arc::clone(&springs));
        Ok(Some(springs))
    }

    fn constraints(
        &mut self,
        rig: AssetId<SkelRig>,
        descs: &[NodeConstraintDesc],
        data: &AnimationData,
    ) -> Result<Arc<NodeConstraints>, SkelBevyError> {
        if let Some(c) = self.constraints.get(&rig) {
            return Ok(Arc::clone(c));
        }
        let c = NodeConstraints::new(descs, &data.nodes).map_err(|source| {
            SkelBevyError::Secondary {
                what: "node constraints",
                source,
            }
        })?;
        let c = Arc::new(c);
        self.constraints.insert(rig, Arc::clone(&c));
        Ok(c)
    }
}

/// A character's parts that [`feed_springs`] reads.
type Character<'a> = (
    Entity,
    &'a mut SkelPlayer,
    &'a SkelRigHandle,
    Option<&'a SkelSprings>,
    Has<SkelSpringsError>,
);

/// Installs each bound character's springs and constraints as its [`SkelSprings`] asks (on
/// binding, and again when the component changes or goes), then, every frame, hands the
/// springs where the character's scene stands in Bevy's world this frame, before the players
/// advance (the springs step while they advance). Allocates only when it installs.
pub(crate) fn feed_springs(
    mut commands: Commands,
    rigs: Res<Assets<SkelRig>>,
    mut compiled: ResMut<CompiledSprings>,
    mut characters: Query<Character>,
    nodes: Nodes,
) {
    for (entity, mut player, handle, settings, has_error) in &mut characters {
        let Some(bound) = player.bound.as_mut() else {
            continue;
        };
        // The scene's frame (the glTF's root nodes' parent), else the character itself.
        let world = bound
            .frame
            .and_then(|e| current_world(e, &nodes))
            .or_else(|| current_world(entity, &nodes))
            .unwrap_or(Affine3A::IDENTITY);
        let wanted = settings.copied().unwrap_or_default();
        if bound.secondary != Some(wanted) {
            let Some(rig) = rigs.get(&handle.0) else {
                continue;
            };
            bound.secondary = Some(wanted);
            let p = bound.driver.player_mut();
            let installed = install(p, rig, handle.0.id(), wanted, world, &mut compiled);
            match installed {
                Ok(()) if has_error => {
                    commands.entity(entity).remove::<SkelSpringsError>();
                }
                Ok(()) => {}
                Err(e) => {
                    tracing::error!("skel-bevy: character {entity}: {e}");
                    commands.entity(entity).insert(SkelSpringsError(e));
                }
            }
        }
        if let Some(job) = bound.driver.player_mut().springs_mut() {
            job.world = world;
        }
    }
}

/// Puts `wanted`'s springs and constraints of `rig` on `player` (or takes them off), the
/// springs starting at `world`. What fails is left off; the first failure is returned.
fn install(
    player: &mut Player,
    rig: &SkelRig,
    id: AssetId<SkelRig>,
    wanted: SkelSprings,
    world: Affine3A,
    compiled: &mut CompiledSprings,
) -> Result<(), SkelBevyError> {
    let vrm = rig.vrm();
    let data = rig.rig().data();
    let springs = match (vrm.and_then(|v| v.springs.as_ref()), wanted.springs) {
        (Some(desc), Some(options)) => compiled.springs(id, desc, data, options),
        _ => Ok(None),
    };
    let constraints = match vrm.filter(|v| wanted.node_constraints && !v.constraints.is_empty()) {
        Some(v) => compiled.constraints(id, &v.constraints, data).map(Some),
        None => Ok(None),
    };
    let job = springs.as_ref().ok().cloned().flatten().map(|bones| {
        let mut job = SpringJob::new(bones);
        job.world = world;
        job
    });
    player.set_springs(job)?;
    player.set_constraints(constraints.as_ref().ok().cloned().flatten())?;
    springs.and(constraints).map(|_| ())
}
