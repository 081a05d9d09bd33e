//! `SkelIk`: skel's IK jobs (two-bone, aim, chains, look-at) on a character, their targets
//! Bevy entities whose `GlobalTransform`s are read every frame.

use bevy::prelude::*;
use skel_anim::{
    AimIk, AnimationData, BodyJoints, ChainIk, ChainJoints, Effector, FullBodyIk, IkJob,
    JointLimit, JointShare, LookAtIk, LookAtJoints, TwoBoneIk,
};

use crate::SkelBevyError;

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
    /// A chain of 2 to 16 joints (root first) whose tip reaches the target, by FABRIK or CCD
    /// (skel's [`ChainIk`]), each joint within its limit measured from the rest pose.
    Chain {
        /// The joints, root first, each an ancestor of the next.
        joints: Vec<String>,
        /// One limit per joint (empty: none).
        limits: Vec<JointLimit>,
        /// skel's settings: solver, iterations, tolerance, pole (a direction in Bevy's
        /// world), weight. Its `target` is overwritten every frame from the target entity.
        ik: ChainIk,
    },
    /// A turn towards the target spread over several joints (spine, neck, head; skel's
    /// [`LookAtIk`]), each taking its share within its limit.
    LookAt {
        /// The joints, base first; the last one's forward axis faces the target.
        joints: Vec<String>,
        /// One share per joint (empty: weight 1 and a quarter turn each).
        shares: Vec<JointShare>,
        /// skel's settings: forward axis, eye offset, weight. Its `target` is overwritten
        /// every frame from the target entity.
        ik: LookAtIk,
    },
    /// Hands, feet and head reaching at once (skel's [`FullBodyIk`]): the pelvis moves and
    /// the spine bends when a limb alone cannot reach. The job's own target entity is not
    /// read; each effector has its own.
    FullBody {
        /// The pelvis joint.
        pelvis: String,
        /// The spine joints, base first (up to 4).
        spine: Vec<String>,
        /// The effectors: which, its joints (root, middle, end; neck and head for the head)
        /// and the entity it reaches for.
        effectors: Vec<(Effector, Vec<String>, Entity)>,
        /// skel's settings: each goal's pole (a direction in Bevy's world) and weight, the
        /// spine's shares, the pelvis's limit, rounds. Targets are overwritten every frame.
        ik: FullBodyIk,
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

    /// A chain job with skel's default settings (FABRIK, 16 iterations, no pole, no limits,
    /// weight 1).
    #[must_use]
    pub fn chain<S: Into<String>>(joints: impl IntoIterator<Item = S>, target: Entity) -> Self {
        Self {
            chain: SkelIkChain::Chain {
                joints: joints.into_iter().map(Into::into).collect(),
                limits: Vec::new(),
                ik: ChainIk::default(),
            },
            target,
        }
    }

    /// A look-at job with skel's default settings (forward +z, shares of weight 1 and a
    /// quarter turn).
    #[must_use]
    pub fn look_at<S: Into<String>>(joints: impl IntoIterator<Item = S>, target: Entity) -> Self {
        Self {
            chain: SkelIkChain::LookAt {
                joints: joints.into_iter().map(Into::into).collect(),
                shares: Vec::new(),
                ik: LookAtIk::default(),
            },
            target,
        }
    }

    /// A full-body job with skel's default settings; each effector given is weighted 1 and
    /// reaches for its entity (the job's own `target` is `pelvis`'s entity slot, unused).
    #[must_use]
    pub fn full_body<S: Into<String>>(
        pelvis: impl Into<String>,
        spine: impl IntoIterator<Item = S>,
        effectors: Vec<(Effector, Vec<String>, Entity)>,
    ) -> Self {
        let mut ik = FullBodyIk::default();
        for (effector, _, _) in &effectors {
            ik.goal_mut(*effector).weight = 1.0;
        }
        let target = effectors.first().map_or(Entity::PLACEHOLDER, |e| e.2);
        Self {
            chain: SkelIkChain::FullBody {
                pelvis: pelvis.into(),
                spine: spine.into_iter().map(Into::into).collect(),
                effectors,
                ik,
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

/// Inverse kinematics on a character's [`SkelPlayer`](crate::SkelPlayer): skel's two-bone and aim solvers run
/// every tick after the animation is mixed and before local → world (so a foot planted by IK
/// is what bevy propagates), reaching for Bevy entities.
///
/// Every frame, after the players advance and root motion has moved the characters and
/// before they pose, each job's target is the target entity's world position mapped into the
/// glTF scene's frame (poles are mapped as directions). Both are composed from this frame's
/// `Transform`s up the `ChildOf` chain, not read from the last propagation's
/// `GlobalTransform`s, so a target moved in `Update`, a character moved by a controller and
/// one moved by its root motion are all followed in the same frame. (A target that is itself
/// a joint another character's skel pose writes later in the frame is read as it was.)
///
/// Changing the jobs after binding takes effect on the next frame: targets and settings as
/// they are, and a change of joints (or of the number of jobs) resolves the chains again. A
/// chain that does not resolve then turns the character's IK off and is reported as
/// [`SkelIkError`] on the character (logged once), which the next good change removes.
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

    /// The jobs, to change targets, settings, joints, or add and remove jobs (joints are
    /// resolved again on the next frame when they changed).
    pub fn jobs_mut(&mut self) -> &mut Vec<SkelIkJob> {
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
            let nodes = |names: &[String]| {
                names
                    .iter()
                    .map(|n| node(i, n))
                    .collect::<Result<Vec<_>, _>>()
            };
            let rig_error = |e: skel_anim::AnimError| SkelBevyError::Ik {
                job: i,
                message: e.to_string(),
            };
            out.push(match &job.chain {
                SkelIkChain::TwoBone {
                    start,
                    mid,
                    end,
                    ik,
                } => {
                    let (start, mid, end) = (node(i, start)?, node(i, mid)?, node(i, end)?);
                    skel_anim::check_chain(data, start, mid, end).map_err(rig_error)?;
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
                SkelIkChain::Chain { joints, limits, ik } => {
                    let mut list = ChainJoints::new(&nodes(joints)?).map_err(rig_error)?;
                    for (j, limit) in limits.iter().enumerate() {
                        list = list.with_limit(j, *limit).map_err(rig_error)?;
                    }
                    list.check(data).map_err(rig_error)?;
                    IkJob::Chain {
                        joints: list,
                        ik: *ik,
                    }
                }
                SkelIkChain::FullBody {
                    pelvis,
                    spine,
                    effectors,
                    ik,
                } => {
                    let bad = |message: String| SkelBevyError::Ik { job: i, message };
                    let spine_nodes = nodes(spine)?;
                    if spine_nodes.len() > skel_anim::ik::MAX_SPINE_JOINTS {
                        return Err(bad(format!("a spine of {} joints", spine_nodes.len())));
                    }
                    let mut joints = BodyJoints {
                        pelvis: node(i, pelvis)?,
                        spine: [0; skel_anim::ik::MAX_SPINE_JOINTS],
                        spine_count: spine_nodes.len(),
                        limbs: [None; 4],
                        neck: None,
                    };
                    joints.spine[..spine_nodes.len()].copy_from_slice(&spine_nodes);
                    for (effector, names, _) in effectors {
                        let limb = nodes(names)?;
                        match (*effector, limb.as_slice()) {
                            (Effector::Head, &[neck, head]) => joints.neck = Some([neck, head]),
                            (Effector::Head, _) => {
                                return Err(bad("the head takes neck and head".into()));
                            }
                            (e, &[a, b, c]) => joints.limbs[e as usize] = Some([a, b, c]),
                            _ => return Err(bad("a limb takes 3 joints".into())),
                        }
                    }
                    joints.check(data).map_err(rig_error)?;
                    IkJob::FullBody { joints, ik: *ik }
                }
                SkelIkChain::LookAt { joints, shares, ik } => {
                    let nodes = nodes(joints)?;
                    let shares = if shares.is_empty() {
                        vec![JointShare::default(); nodes.len()]
                    } else {
                        shares.clone()
                    };
                    let list = LookAtJoints::new(&nodes, &shares).map_err(rig_error)?;
                    list.check(data).map_err(rig_error)?;
                    IkJob::LookAt {
                        joints: list,
                        ik: *ik,
                    }
                }
            });
        }
        Ok(out)
    }
}

/// Why a character's changed [`SkelIk`] jobs could not be resolved (a bad joint name or
/// chain): its IK is off until the jobs change again.
#[derive(Component, Debug)]
pub struct SkelIkError(pub SkelBevyError);

impl SkelIkChain {
    /// Whether `other` moves the same joints (settings aside).
    fn same_joints(&self, other: &Self) -> bool {
        match (self, other) {
            (
                Self::TwoBone {
                    start, mid, end, ..
                },
                Self::TwoBone {
                    start: s,
                    mid: m,
                    end: e,
                    ..
                },
            ) => start == s && mid == m && end == e,
            (Self::Aim { node, .. }, Self::Aim { node: n, .. }) => node == n,
            (
                Self::Chain { joints, limits, .. },
                Self::Chain {
                    joints: j,
                    limits: l,
                    ..
                },
            ) => joints == j && limits == l,
            (
                Self::FullBody {
                    pelvis,
                    spine,
                    effectors,
                    ..
                },
                Self::FullBody {
                    pelvis: p,
                    spine: s,
                    effectors: e,
                    ..
                },
            ) => {
                pelvis == p
                    && spine == s
                    && effectors.len() == e.len()
                    && effectors
                        .iter()
                        .zip(e)
                        .all(|(a, b)| a.0 == b.0 && a.1 == b.1)
            }
            (
                Self::LookAt { joints, shares, .. },
                Self::LookAt {
                    joints: j,
                    shares: s,
                    ..
                },
            ) => joints == j && shares == s,
            _ => false,
        }
    }
}

/// A character's IK as bound: the chains its player's jobs were resolved from.
#[derive(Debug, Default)]
pub(crate) struct BoundIk {
    chains: Vec<SkelIkChain>,
}

impl BoundIk {
    /// The chains of `ik` as resolved at bind.
    pub(crate) fn of(ik: Option<&SkelIk>) -> Self {
        Self {
            chains: ik
                .map(|ik| ik.jobs.iter().map(|j| j.chain.clone()).collect())
                .unwrap_or_default(),
        }
    }

    /// Whether `ik`'s jobs move the joints the player's jobs were resolved for.
    pub(crate) fn matches(&self, ik: &SkelIk) -> bool {
        self.chains.len() == ik.jobs.len()
            && self
                .chains
                .iter()
                .zip(&ik.jobs)
                .all(|(a, b)| a.same_joints(&b.chain))
    }
}
