//! What a render plays: a [`Player`] of layers (`--clip`, `--blend`, `--layers`, nothing) or
//! an animation graph driving one (`--graph`, with `--set` and `--travel` on the render's
//! timeline).

use skel::AssetContainer;
use skel::anim::{AnimationEvent, LayerDesc, Player, PoseSink};

use super::clips::{Animation, clip_list, resolve_clip};
use super::error::RenderError;
use super::player::RenderPlayback;
use crate::graph_args::GraphDriver;

/// A render's playback.
#[derive(Debug, Clone)]
pub enum Playing {
    /// Layers on a player.
    Layers(Box<Player>),
    /// A graph driving a player, and the seconds played so far.
    Graph(Box<(GraphDriver, f64)>),
}

impl Playing {
    /// The player that poses.
    #[must_use]
    pub fn player(&self) -> &Player {
        match self {
            Self::Layers(p) => p,
            Self::Graph(g) => g.0.player.player(),
        }
    }

    /// The player that poses, to install hooks.
    pub fn player_mut(&mut self) -> &mut Player {
        match self {
            Self::Layers(p) => p,
            Self::Graph(g) => g.0.player.player_mut(),
        }
    }
}

impl skel::Animate for Playing {
    /// Layers tick; a graph first applies the `--set` / `--travel` changes due at the time
    /// played so far, then ticks.
    fn animate(
        &mut self,
        dt: f32,
        sink: &mut dyn PoseSink,
        on_event: &mut dyn FnMut(&AnimationEvent<'_>),
    ) {
        match self {
            Self::Layers(p) => p.tick_with_events(dt, sink, on_event),
            Self::Graph(g) => {
                let (driver, time) = &mut **g;
                // Names were checked when the graph was built.
                let _ = driver.apply_due(*time);
                driver.player.tick_with_events(dt, sink, on_event);
                *time += f64::from(dt);
            }
        }
    }

    fn player(&self) -> &Player {
        Playing::player(self)
    }

    fn resolve_world_matrices(&mut self) {
        self.player_mut().resolve_world_matrices();
    }

    fn foot_placement_mut(&mut self) -> Option<&mut skel::anim::FootPlacementJob> {
        self.player_mut().foot_placement_mut()
    }
}

impl RenderPlayback for Playing {
    /// A graph has no loop of its own: its longest clip, or a second past its last scheduled
    /// change when that comes later.
    fn loop_duration(&self) -> f32 {
        match self {
            Self::Layers(p) => p.loop_duration(),
            Self::Graph(g) => {
                let player = g.0.player.player();
                let rig = player.rig();
                let longest =
                    g.0.player
                        .instance()
                        .graph()
                        .clips_used()
                        .into_iter()
                        .filter_map(|c| rig.clip_duration(c))
                        .fold(0.0, f32::max);
                #[expect(clippy::cast_possible_truncation, reason = "seconds of a render")]
                let last = g.0.last_scheduled().map_or(0.0, |t| t as f32 + 1.0);
                longest.max(last)
            }
        }
    }
}

/// The playback of `animation` over `container`'s rig, and a line saying what it plays.
/// Without a graph, `terrain` (`--terrain`) stands the humanoid's feet on its ground.
///
/// # Errors
/// An unknown clip, a bad `--blend` spec or a bad layer-stack file; a bad `--terrain` or an
/// asset without humanoid legs.
pub fn make_player(
    container: &AssetContainer,
    animation: &Animation,
    terrain: Option<&str>,
    asset: &str,
) -> Result<(Playing, String), RenderError> {
    let data = &container.animation;
    // With the asset's VRM springs and node constraints, as the load options asked.
    let mut player = container.player().map_err(|source| RenderError::Load {
        asset: asset.to_owned(),
        source,
    })?;
    if let Animation::Graph(args) = animation {
        let graph_error = |e: Box<dyn std::error::Error>| RenderError::Graph {
            asset: asset.to_owned(),
            message: e.to_string(),
        };
        let driver = args
            .driver(&container.rig, &container.secondary)
            .map_err(graph_error)?
            .ok_or_else(|| graph_error("no graph file".into()))?;
        let what = format!(
            "graph {}",
            args.graph
                .as_ref()
                .map(|p| p.display().to_string())
                .unwrap_or_default()
        );
        return Ok((Playing::Graph(Box::new((driver, 0.0))), what));
    }
    let what = match animation {
        Animation::Default if data.clips.is_empty() => "rest pose (no clips)".to_owned(),
        Animation::Default => {
            player.add_layer(LayerDesc::new(0))?;
            format!("clip 0 {:?}", data.clips[0].name)
        }
        Animation::Clip(requested) => {
            let clip = resolve_clip(container, requested, asset)?;
            player.add_layer(LayerDesc::new(clip))?;
            format!("clip {clip} {:?}", data.clips[clip].name)
        }
        Animation::Blend(spec) => {
            let weights =
                skel::anim::parse_blend_spec(data, spec).map_err(|e| RenderError::BadBlend {
                    asset: asset.to_owned(),
                    spec: spec.clone(),
                    reason: e.to_string(),
                    available: clip_list(container),
                })?;
            for (clip, weight) in weights {
                player.add_layer(LayerDesc::new(clip).weight(weight))?;
            }
            format!("blend {spec}")
        }
        Animation::Layers(path) => {
            let stack = crate::layer_file::load(path, data)?;
            let count = stack.layers.len();
            for desc in stack.layers {
                player.add_layer(desc)?;
            }
            for job in stack.ik {
                player.add_ik(job)?;
            }
            player.set_root_motion(stack.root_motion)?;
            format!("{count} layers from {}", path.display())
        }
        // Built above.
        Animation::Graph(_) => String::new(),
    };
    let what = match terrain {
        Some(spec) => {
            player.set_foot_placement(Some(crate::terrain::humanoid_feet_on(
                &container.rig,
                spec,
            )?));
            format!("{what}, feet on {spec}")
        }
        None => what,
    };
    Ok((Playing::Layers(Box::new(player)), what))
}
