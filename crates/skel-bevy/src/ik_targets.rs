//! The per-frame half of [`SkelIk`]: changed jobs resolved again, and every job's target
//! set from its entity's transform of this frame, in the character's scene frame.

use bevy::math::Affine3A;
use bevy::prelude::*;
use skel_anim::{AimIk, ChainIk, FullBodyIk, IkJob, LookAtIk, TwoBoneIk};

use crate::ik::BoundIk;
use crate::{SkelBevyError, SkelIk, SkelIkChain, SkelIkError, SkelPlayer};

/// This frame's world transform of `entity`: its `Transform` composed with its ancestors'
/// (a `GlobalTransform` without a `Transform` ends the walk). `None` when `entity` has
/// neither.
pub(crate) fn current_world(
    entity: Entity,
    nodes: &Query<(
        Option<&Transform>,
        Option<&GlobalTransform>,
        Option<&ChildOf>,
    )>,
) -> Option<Affine3A> {
    let mut world = Affine3A::IDENTITY;
    let mut at = entity;
    // Bounded: a hierarchy is a tree, but a bound costs nothing and no input can loop it.
    for depth in 0..1024 {
        let Ok((local, global, parent)) = nodes.get(at) else {
            return (depth > 0).then_some(world);
        };
        match (local, parent) {
            (Some(local), Some(parent)) => {
                world = local.compute_affine() * world;
                at = parent.parent();
            }
            (Some(local), None) => return Some(local.compute_affine() * world),
            (None, _) => return global.map(|g| g.affine() * world),
        }
    }
    None
}

/// The queries [`aim_ik`] reads: every entity's local and global transform and parent.
pub(crate) type Nodes<'w, 's> = Query<
    'w,
    's,
    (
        Option<&'static Transform>,
        Option<&'static GlobalTransform>,
        Option<&'static ChildOf>,
    ),
>;

/// Resolves changed jobs, then sets every bound character's IK targets from its target
/// entities, in the scene's frame, from this frame's transforms. Allocates only when the
/// jobs' joints change.
pub(crate) fn aim_ik(
    mut commands: Commands,
    mut characters: Query<(Entity, Ref<SkelIk>, &mut SkelPlayer, Has<SkelIkError>)>,
    mut removed: RemovedComponents<SkelIk>,
    mut plain: Query<&mut SkelPlayer, Without<SkelIk>>,
    nodes: Nodes,
) {
    for entity in removed.read() {
        if let Ok(mut player) = plain.get_mut(entity)
            && let Some(bound) = player.bound.as_mut()
        {
            bound.driver.player_mut().clear_ik();
            bound.ik = BoundIk::default();
        }
    }
    for (entity, ik, mut player, has_error) in &mut characters {
        let Some(bound) = player.bound.as_mut() else {
            continue;
        };
        if ik.is_changed() && !bound.ik.matches(&ik) {
            bound.ik = BoundIk::of(Some(&ik));
            let p = bound.driver.player_mut();
            p.clear_ik();
            let added = ik.resolve(&bound.data).and_then(|jobs| {
                jobs.into_iter()
                    .try_for_each(|job| p.add_ik(job).map(|_| ()).map_err(SkelBevyError::from))
            });
            match added {
                Ok(()) if has_error => {
                    commands.entity(entity).remove::<SkelIkError>();
                }
                Ok(()) => {}
                Err(e) => {
                    p.clear_ik();
                    tracing::error!("skel-bevy: character {entity}: {e}");
                    commands.entity(entity).insert(SkelIkError(e));
                    continue;
                }
            }
        }
        let frame = bound
            .frame
            .and_then(|e| current_world(e, &nodes))
            .unwrap_or(Affine3A::IDENTITY);
        let p = bound.driver.player_mut();
        if p.ik_jobs().len() != ik.jobs().len() {
            continue;
        }
        if frame.matrix3.determinant() == 0.0 {
            continue;
        }
        let to_scene = frame.inverse();
        for (index, job) in ik.jobs().iter().enumerate() {
            let target = current_world(job.target, &nodes)
                .map(|w| to_scene.transform_point3a(w.translation).into());
            let Ok(slot) = p.ik_target_mut(index) else {
                continue;
            };
            match (slot, &job.chain) {
                (IkJob::TwoBone { ik: out, .. }, SkelIkChain::TwoBone { ik: want, .. }) => {
                    *out = TwoBoneIk {
                        target: target.unwrap_or(out.target),
                        pole: to_scene.transform_vector3(want.pole),
                        weight: if target.is_some() { want.weight } else { 0.0 },
                        ..*want
                    };
                }
                (IkJob::Aim { ik: out, .. }, SkelIkChain::Aim { ik: want, .. }) => {
                    *out = AimIk {
                        target: target.unwrap_or(out.target),
                        pole: to_scene.transform_vector3(want.pole),
                        weight: if target.is_some() { want.weight } else { 0.0 },
                        ..*want
                    };
                }
                (IkJob::Chain { ik: out, .. }, SkelIkChain::Chain { ik: want, .. }) => {
                    *out = ChainIk {
                        target: target.unwrap_or(out.target),
                        pole: want.pole.map(|pole| to_scene.transform_vector3(pole)),
                        weight: if target.is_some() { want.weight } else { 0.0 },
                        ..*want
                    };
                }
                (
                    IkJob::FullBody { ik: out, .. },
                    SkelIkChain::FullBody {
                        ik: want,
                        effectors,
                        ..
                    },
                ) => {
                    let mut goals = want.goals;
                    for (effector, _, entity) in effectors {
                        let goal = &mut goals[*effector as usize];
                        match current_world(*entity, &nodes) {
                            Some(w) => {
                                goal.target = to_scene.transform_point3a(w.translation).into();
                                goal.pole = to_scene.transform_vector3(goal.pole);
                            }
                            None => goal.weight = 0.0,
                        }
                    }
                    *out = FullBodyIk { goals, ..*want };
                }
                (IkJob::LookAt { ik: out, .. }, SkelIkChain::LookAt { ik: want, .. }) => {
                    *out = LookAtIk {
                        target: target.unwrap_or(out.target),
                        weight: if target.is_some() { want.weight } else { 0.0 },
                        ..*want
                    };
                }
                _ => {}
            }
        }
    }
}
