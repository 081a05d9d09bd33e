//! `SkelIk`: skel's IK jobs (two-bone, aim) on a character, their targets Bevy entities whose
//! `GlobalTransform`s are read every frame.

use bevy::math::Affine3A;
use bevy::prelude::*;
use skel_anim::glam as sg;
use skel_anim::{AimIk, AnimationData, IkJob, TwoBoneIk};

use crate::{SkelBevyError, SkelPlayer};

/// The joints a job moves, by node name (resolved when the character binds).
#[derive(Debug, Clone, PartialEq)]
pub enum SkelIkChain {
    /// A start → mid → end chain (thigh, calf, foot): the end reaches the target.
    TwoBone {
        /// The chain's first joint.
        start: String,
        /// Its child.
        mid: String,
        /// The mid joint's child, which reaches the target.
        end: String,
        /// skel's settings: pole (a direction in Bevy's world), soften, weight, twist, hinge.
        /// Its `target` is overwritten every frame from the target entity.
        ik: TwoBoneIk,
    },
    /// One node (a head, a gun) turned so that its forward axis points at the target.
    Aim {
        /// The node turned.
        node: String,
        /// skel's settings: forward and up axes, pole (a direction in Bevy's world), weight.
        /// Its `target` is overwritten every frame from the target entity.
        ik: AimIk,
    },
}

/// One IK job: a chain and the entity it reaches for.
#[derive(Debug, Clone, PartialEq)]
pub struct SkelIkJob {
    /// The joints and the solver settings.
    pub chain: SkelIkChain,
    /// The entity whose `GlobalTransform` translation is the target. A target without a
    /// `GlobalTransform` (despawned) turns the job off for that frame.
    pub target: Entity,
}

impl SkelIkJob {
    /// A two-bone job with skel's default settings (pole +y, no softening, weight 1).
    #[must_use]
    pub fn two_bone(
        start: impl Into<String>,
        mid: impl Into<String>,
        end: impl Into<String>,
        target: Entity,
    ) -> Self {
        Self {
            chain: SkelIkChain::TwoBone {
                start: start.into(),
                mid: mid.into(),
                end: end.into(),
                ik: TwoBoneIk::default(),
            },
            target,
        }
    }

    /// An aim job with skel's default settings (forward +z, up +y, pole +y, weight 1).
    #[must_use]
    pub fn aim(node: impl Into<String>, target: Entity) -> Self {
        Self {
            chain: SkelIkChain::Aim {
                node: node.into(),
                ik: AimIk::default(),
            },
            target,
        }
    }
}

/// Inverse kinematics on a character's [`SkelPlayer`]: skel's two-bone and aim solvers run
/// every tick after the animation is mixed and before local → world (so a foot planted by IK
/// is what bevy propagates), reaching for Bevy entities.
///
/// Every frame, before the players tick, each job's target is the target entity's
/// `GlobalTransform` translation mapped into the glTF scene's frame (the inverse of the
/// scene root's `GlobalTransform`; poles are mapped as directions). Both are the values of
/// the last transform propagation: an entity moved this frame, or a character moved by root
/// motion, is followed one frame late. The chains are fixed when the character binds;
/// [`jobs_mut`](Self::jobs_mut) changes targets and settings (weights, poles) afterwards.
///
/// ```no_run
/// use bevy::prelude::*;
/// use bevy::gltf::GltfAssetLabel;
/// use bevy::world_serialization::WorldAssetRoot;
/// use skel_bevy::{SkelIk, SkelIkJob, SkelLayer, SkelPlayer};
///
/// fn spawn(mut commands: Commands, server: Res<AssetServer>) {
///     let target = commands.spawn(Transform::from_xyz(0.2, 0.1, 0.3)).id();
///     let scene = server.load(GltfAssetLabel::Scene(0).from_asset("character.glb"));
///     commands.spawn((
///         WorldAssetRoot(scene),
///         SkelPlayer::new().with_layer(SkelLayer::clip("Idle")),
///         SkelIk::new().with_job(SkelIkJob::two_bone("LeftUpLeg", "LeftLeg", "LeftFoot", target)),
///     ));
/// }
/// # let _ = spawn;
/// ```
#[derive(Component, Debug, Clone, Default, PartialEq)]
pub struct SkelIk {
    jobs: Vec<SkelIkJob>,
}

impl SkelIk {
    /// No jobs.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a job, run after the ones before it.
    #[must_use]
    pub fn with_job(mut self, job: SkelIkJob) -> Self {
        self.jobs.push(job);
        self
    }

    /// The jobs, in the order they run.
    #[must_use]
    pub fn jobs(&self) -> &[SkelIkJob] {
        &self.jobs
    }

    /// The jobs, to change targets and settings. Changing a chain's joint names after the
    /// character has bound has no effect; adding or removing jobs then turns IK off.
    pub fn jobs_mut(&mut self) -> &mut [SkelIkJob] {
        &mut self.jobs
    }

    /// skel's jobs for `data`'s nodes (targets at the origin until the first frame): each name
    /// is the first skin joint of that name, else the first node of that name.
    pub(crate) fn resolve(&self, data: &AnimationData) -> Result<Vec<IkJob>, SkelBevyError> {
        // A skin joint first: a mesh node may carry a bone's name (RobotExpressive's do).
        let is_joint = |n: usize| data.skeletons.iter().any(|s| s.joints.contains(&n));
        let node = |job: usize, name: &str| {
            let mut named = (0..data.nodes.len()).filter(|&n| data.nodes[n].name == name);
            let first = named.clone().next();
            named
                .find(|&n| is_joint(n))
                .or(first)
                .ok_or_else(|| SkelBevyError::Ik {
                    job,
                    message: format!("no node named {name:?}"),
                })
        };
        let mut out = Vec::with_capacity(self.jobs.len());
        for (i, job) in self.jobs.iter().enumerate() {
            out.push(match &job.chain {
                SkelIkChain::TwoBone {
                    start,
                    mid,
                    end,
                    ik,
                } => {
                    let (start, mid, end) = (node(i, start)?, node(i, mid)?, node(i, end)?);
                    skel_anim::check_chain(data, start, mid, end).map_err(|e| {
                        SkelBevyError::Ik {
                            job: i,
                            message: e.to_string(),
                        }
                    })?;
                    IkJob::TwoBone {
                        start,
                        mid,
                        end,
                        ik: *ik,
                    }
                }
                SkelIkChain::Aim { node: name, ik } => IkJob::Aim {
                    node: node(i, name)?,
                    ik: *ik,
                },
            });
        }
        Ok(out)
    }
}

fn to_skel(v: Vec3) -> sg::Vec3 {
    sg::Vec3::from_array(v.to_array())
}

/// Sets every bound character's IK targets from its target entities, in the scene's frame.
/// Allocates nothing.
pub(crate) fn aim_ik(
    mut characters: Query<(&SkelIk, &mut SkelPlayer)>,
    globals: Query<&GlobalTransform>,
) {
    for (ik, mut player) in &mut characters {
        let Some(bound) = player.bound.as_mut() else {
            continue;
        };
        let frame = bound
            .frame
            .and_then(|e| globals.get(e).ok())
            .map_or(Affine3A::IDENTITY, GlobalTransform::affine);
        if frame.matrix3.determinant() == 0.0 {
            continue;
        }
        let to_scene = frame.inverse();
        let p = bound.driver.player_mut();
        if p.ik_jobs().len() != ik.jobs.len() {
            continue;
        }
        for (index, job) in ik.jobs.iter().enumerate() {
            let target = globals.get(job.target).ok().map(|g| {
                let t = to_scene.transform_point3(g.translation());
                to_skel(t)
            });
            let Ok(slot) = p.ik_target_mut(index) else {
                continue;
            };
            match (slot, &job.chain) {
                (IkJob::TwoBone { ik: out, .. }, SkelIkChain::TwoBone { ik: want, .. }) => {
                    *out = TwoBoneIk {
                        target: target.unwrap_or(out.target),
                        pole: to_skel(
                            to_scene.transform_vector3(Vec3::from_array(want.pole.to_array())),
                        ),
                        weight: if target.is_some() { want.weight } else { 0.0 },
                        ..*want
                    };
                }
                (IkJob::Aim { ik: out, .. }, SkelIkChain::Aim { ik: want, .. }) => {
                    *out = AimIk {
                        target: target.unwrap_or(out.target),
                        pole: to_skel(
                            to_scene.transform_vector3(Vec3::from_array(want.pole.to_array())),
                        ),
                        weight: if target.is_some() { want.weight } else { 0.0 },
                        ..*want
                    };
                }
                _ => {}
            }
        }
    }
}
