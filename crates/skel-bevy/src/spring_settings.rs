//! [`SkelSprings`]: whether a character's VRM spring bones and node constraints run and how
//! the springs step (the systems that run them are in `springs.rs`).

use bevy::prelude::Component;
use skel_anim::spring::{HostLoop, SpringOptions};

use crate::SkelBevyError;

/// Whether a character's VRM secondary motion runs, and how its springs step. Without this
/// component a character whose rig has spring bones or node constraints runs them with the
/// defaults ([`SkelSprings::default`]): a loaded avatar's hair swings without another line.
///
/// The springs run inside skel's player, as skel's command line and renderer run them: at a
/// fixed step (1/60 s by default) with an accumulator, each step on the pose the layers (or
/// the graph) and IK give at that step's own instant, so the hair moves the same at any frame
/// rate whose frames land on the same instants; the frame shows the last step's rotations,
/// written after the layers, IK, foot placement and the node constraints (which run before
/// the springs, as three-vrm runs them) and before the joints' `Transform`s.
///
/// The springs feel the character move: each frame the plugin hands them the world transform
/// of the character's scene, from this frame's `Transform`s (a controller that moved the
/// character in `Update` is seen the same frame; root motion the plugin applies, the next).
/// A jump farther than [`SpringOptions::teleport_distance`] (1 m) or a turn past
/// [`SpringOptions::teleport_angle`] (90°) within one step is a teleport: the chains move with
/// it instead of swinging across it.
///
/// ```
/// use skel_bevy::SkelSprings;
/// use skel_bevy::anim::spring::HostLoop;
///
/// // Springs stepped at 120 Hz, measured as in three-vrm's own examples' loop.
/// let springs = SkelSprings::default()
///     .with_step(1.0 / 120.0)
///     .with_host_loop(HostLoop::PreviousChild);
/// assert_eq!(springs.springs.map(|s| s.step), Some(1.0 / 120.0));
/// // The chains hold the pose the clips give them; node constraints still run.
/// let still = SkelSprings::default().with_springs(None);
/// assert!(still.node_constraints && still.springs.is_none());
/// ```
#[derive(Component, Debug, Clone, Copy, PartialEq)]
pub struct SkelSprings {
    /// How the spring bones step (fixed step, host loop, profile, teleport thresholds, the
    /// most steps a long frame runs), or `None` to leave them out.
    pub springs: Option<SpringOptions>,
    /// Whether the file's node constraints run.
    pub node_constraints: bool,
}

impl Default for SkelSprings {
    /// Springs with skel's defaults (three-vrm's rule, 1/60 s, [`HostLoop::WorldCurrent`]:
    /// an ECS's order, world matrices current before the springs step) and node constraints.
    fn default() -> Self {
        Self {
            springs: Some(SpringOptions::default()),
            node_constraints: true,
        }
    }
}

impl SkelSprings {
    /// Neither springs nor node constraints: the character poses what its layers give.
    pub const OFF: Self = Self {
        springs: None,
        node_constraints: false,
    };

    /// The same with the springs stepped as `springs` says, or left out with `None`.
    #[must_use]
    pub fn with_springs(mut self, springs: Option<SpringOptions>) -> Self {
        self.springs = springs;
        self
    }

    /// The same with the springs' fixed step, in seconds (no effect with the springs off).
    /// A step that is not positive and finite runs no steps.
    #[must_use]
    pub fn with_step(mut self, seconds: f32) -> Self {
        if let Some(s) = &mut self.springs {
            s.step = seconds;
        }
        self
    }

    /// The same with the world matrices a spring joint measures its bone against (see
    /// [`HostLoop`]; no effect with the springs off).
    #[must_use]
    pub fn with_host_loop(mut self, host_loop: HostLoop) -> Self {
        if let Some(s) = &mut self.springs {
            s.host_loop = host_loop;
        }
        self
    }

    /// The same with the node constraints run or not.
    #[must_use]
    pub fn with_node_constraints(mut self, on: bool) -> Self {
        self.node_constraints = on;
        self
    }
}

/// Why a character's [`SkelSprings`] could not be installed (the file's springs or
/// constraints do not fit its nodes): the character plays without what failed until the
/// component changes.
#[derive(Component, Debug)]
pub struct SkelSpringsError(pub SkelBevyError);
