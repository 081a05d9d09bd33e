//! What poses a bound character: skel's player with the component's layers, or that player
//! driven by an animation graph.

use std::sync::Arc;

use skel_anim::{AnimationEvent, Player, PoseSink, RootMotion};
use skel_graph::{Graph, GraphPlayer};

use crate::SkelBevyError;

/// The per-character animation state a [`SkelPlayer`](crate::SkelPlayer) holds once bound.
#[derive(Debug)]
pub(crate) enum Driver {
    /// The component's layers on skel's player (boxed, as the graph player is: both are
    /// large and a bound character holds one).
    Layers(Box<Player>),
    /// A graph driving the player.
    Graph(Box<GraphPlayer>),
}

/// What binding puts on the player besides the layers.
#[derive(Debug, Default)]
pub(crate) struct Setup<'a> {
    /// Root motion, resolved to a node.
    pub(crate) root_motion: Option<RootMotion>,
    /// IK jobs, in [`SkelIk`](crate::SkelIk)'s order (their indices in the player).
    pub(crate) ik: Vec<skel_anim::IkJob>,
    /// The graph compiled against the rig.
    pub(crate) graph: Option<&'a Arc<Graph>>,
}

impl Driver {
    /// Wraps `player` (its layers already added) with `setup`.
    pub(crate) fn new(mut player: Player, setup: Setup<'_>) -> Result<Self, SkelBevyError> {
        if let Some(rm) = setup.root_motion {
            player.set_root_motion(Some(rm))?;
        }
        for job in setup.ik {
            player.add_ik(job)?;
        }
        Ok(match setup.graph {
            Some(graph) => Self::Graph(Box::new(GraphPlayer::new(graph, player)?)),
            None => Self::Layers(Box::new(player)),
        })
    }

    /// skel's player.
    pub(crate) fn player(&self) -> &Player {
        match self {
            Self::Layers(p) => p,
            Self::Graph(g) => g.player(),
        }
    }

    /// skel's player, mutably.
    pub(crate) fn player_mut(&mut self) -> &mut Player {
        match self {
            Self::Layers(p) => p,
            Self::Graph(g) => g.player_mut(),
        }
    }

    /// The graph player, when a graph drives the character.
    pub(crate) fn graph_player(&self) -> Option<&GraphPlayer> {
        match self {
            Self::Layers(_) => None,
            Self::Graph(g) => Some(g),
        }
    }

    /// The graph player, mutably.
    pub(crate) fn graph_player_mut(&mut self) -> Option<&mut GraphPlayer> {
        match self {
            Self::Layers(_) => None,
            Self::Graph(g) => Some(g),
        }
    }

    /// Advances by `dt` seconds (the graph first, when there is one): clocks, fades, the
    /// markers passed (to `on_event`) and the root-motion delta; no pose yet, so that IK
    /// targets can be set in the frame the delta moves the character to.
    pub(crate) fn advance_with_events(
        &mut self,
        dt: f32,
        on_event: &mut dyn FnMut(&AnimationEvent<'_>),
    ) {
        match self {
            Self::Layers(p) => p.advance_with_events(dt, on_event),
            Self::Graph(g) => g.advance_with_events(dt, on_event),
        }
    }

    /// Poses into `sink` at the times the last advance reached (nothing for an invisible
    /// player, as skel's own tick).
    pub(crate) fn evaluate(&mut self, sink: &mut dyn PoseSink) {
        let player = self.player_mut();
        if player.visible() {
            player.evaluate(sink);
        }
    }
}
