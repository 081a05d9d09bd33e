//! A VRM avatar's secondary motion, attached to every player the facade makes for it: spring
//! bones (`VRMC_springBone`, VRM 0.x `secondaryAnimation`) and node constraints
//! (`VRMC_node_constraint`), read by `skel_gltf` ([`GltfAsset::vrm`]) and run by skel-anim's
//! [`Player`] after the layers, the graph and IK, before skinning (docs/vrm.md).

use std::sync::Arc;

use skel_anim::constraint::NodeConstraints;
use skel_anim::spring::{SpringBones, SpringOptions};
use skel_anim::{Player, SpringJob};
use skel_gltf::GltfAsset;

use crate::SkelError;

/// Whether a VRM's secondary motion runs, and how its springs step. Part of
/// [`LoadOptions`](crate::LoadOptions) (`with_springs`, `with_node_constraints`); both on by
/// default, so a loaded avatar's hair swings without another call.
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub struct SecondaryOptions {
    /// The spring bones' settings (fixed step, host loop, profile; see
    /// [`SpringOptions`]), or `None` to leave the springs out: the chains then hold the
    /// pose the clips give them.
    pub springs: Option<SpringOptions>,
    /// Run the file's node constraints (default true).
    pub node_constraints: bool,
}

impl Default for SecondaryOptions {
    fn default() -> Self {
        Self {
            springs: Some(SpringOptions::default()),
            node_constraints: true,
        }
    }
}

impl SecondaryOptions {
    /// Neither springs nor constraints: every player poses what its layers give.
    pub const OFF: Self = Self {
        springs: None,
        node_constraints: false,
    };

    /// These options with the springs stepped as `springs` says, or left out with `None`.
    #[must_use]
    pub fn with_springs(mut self, springs: Option<SpringOptions>) -> Self {
        self.springs = springs;
        self
    }

    /// These options with the node constraints run or not.
    #[must_use]
    pub fn with_node_constraints(mut self, on: bool) -> Self {
        self.node_constraints = on;
        self
    }
}

/// The springs and constraints of one asset, built once and shared by `Arc` between its
/// players (each player keeps its own spring state). Empty for an asset without VRM data.
///
/// ```
/// use skel::SecondaryMotion;
/// use skel::anim::spring::SpringOptions;
/// use skel::anim::{NullSink, Player, Rig};
///
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures/vrm/v1_hair.vrm");
/// let asset = skel::gltf::load_path(path.as_ref(), &Default::default())?;
/// // Springs stepped at 1/120 s instead of the default 1/60 s.
/// let step = SpringOptions { step: 1.0 / 120.0, ..SpringOptions::default() };
/// let options = skel::SecondaryOptions::default().with_springs(Some(step));
/// let motion = SecondaryMotion::from_asset(&asset, &options)?;
/// assert_eq!(motion.springs().map(|s| s.joint_nodes().count()), Some(12));
/// let rig = Rig::new(std::sync::Arc::new(asset.animation))?;
/// let mut player = Player::new(&rig);
/// motion.attach(&mut player)?;
/// player.tick(0.5, &mut NullSink); // the hair swings under its gravity
/// assert!(player.springs().is_some());
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone, Default)]
pub struct SecondaryMotion {
    springs: Option<Arc<SpringBones>>,
    constraints: Option<Arc<NodeConstraints>>,
}

impl SecondaryMotion {
    /// What `asset`'s VRM data asks for, as `options` allow: springs made on the asset's
    /// nodes, constraints sorted in their dependency order. Empty when the asset has no VRM
    /// data, no spring joints and no constraints, or `options` turn them off.
    ///
    /// # Errors
    /// [`SkelError::Secondary`] when the file's springs or constraints do not fit its nodes
    /// (a joint whose child is not below it, a constraint circle), naming which.
    pub fn from_asset(asset: &GltfAsset, options: &SecondaryOptions) -> Result<Self, SkelError> {
        let Some(vrm) = asset.vrm() else {
            return Ok(Self::default());
        };
        let nodes = &asset.animation.nodes;
        let springs = match (&vrm.spring_bones, options.springs) {
            (Some(bones), Some(spring_options)) if !bones.desc.springs.is_empty() => {
                let springs =
                    SpringBones::new(&bones.desc, nodes, spring_options).map_err(|source| {
                        SkelError::Secondary {
                            what: "spring bones",
                            source,
                        }
                    })?;
                let has_joints = springs.joint_nodes().next().is_some();
                has_joints.then(|| Arc::new(springs))
            }
            _ => None,
        };
        let constraints = if options.node_constraints && !vrm.constraints.is_empty() {
            let c = NodeConstraints::new(&vrm.constraints, nodes).map_err(|source| {
                SkelError::Secondary {
                    what: "node constraints",
                    source,
                }
            })?;
            Some(Arc::new(c))
        } else {
            None
        };
        Ok(Self {
            springs,
            constraints,
        })
    }

    /// Whether there is nothing to attach.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.springs.is_none() && self.constraints.is_none()
    }

    /// The springs, if any.
    #[must_use]
    pub fn springs(&self) -> Option<&Arc<SpringBones>> {
        self.springs.as_ref()
    }

    /// The node constraints, if any.
    #[must_use]
    pub fn constraints(&self) -> Option<&Arc<NodeConstraints>> {
        self.constraints.as_ref()
    }

    /// Installs the springs (with a fresh state, started from the first pose the player
    /// makes) and the constraints on `player`, replacing any it had; with nothing to attach,
    /// leaves the player as it is. A player made for a graph takes them the same way: the
    /// graph drives its layers, the springs run after them and IK.
    ///
    /// # Errors
    /// [`SkelError::Anim`] when `player` was made for a rig of another node count.
    pub fn attach(&self, player: &mut Player) -> Result<(), SkelError> {
        if let Some(springs) = &self.springs {
            player.set_springs(Some(SpringJob::new(Arc::clone(springs))))?;
        }
        if let Some(constraints) = &self.constraints {
            player.set_constraints(Some(Arc::clone(constraints)))?;
        }
        Ok(())
    }
}
