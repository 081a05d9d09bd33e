//! `skel play ASSET --graph FILE.json [--set T:NAME=VALUE …] [--travel T:LAYER=STATE …]
//! [--seconds S] [--fps F] [--json]`: one character driven by an animation graph, ticked from
//! time 0 at a fixed step. Per frame: the time, each graph layer's state, the transition it is
//! fading through and the clips it plays (weights within a layer summing to 1, times in
//! seconds), the events fired and the root-motion delta.

use std::io::Write as _;
use std::sync::Arc;

use serde::Serialize;
use skel::anim::{NullSink, Rig};

use super::asset_args::AssetArgs;
use super::play_output::{Event, Motion, spring_nodes, spring_positions};
use crate::graph_args::GraphArgs;

#[derive(Debug, Serialize)]
struct Transition {
    from: String,
    to: String,
    progress: f32,
}

#[derive(Debug, Serialize)]
struct ClipOut {
    clip: String,
    weight: f32,
    time: f32,
}

#[derive(Debug, Serialize)]
struct LayerOut {
    name: String,
    state: String,
    transition: Option<Transition>,
    clips: Vec<ClipOut>,
}

#[derive(Debug, Serialize)]
struct Frame {
    t: f64,
    layers: Vec<LayerOut>,
    /// Events fired during the tick; `layer` is the graph layer.
    events: Vec<Event>,
    root_delta: Motion,
    /// World positions of the spring joints' nodes (`Report::spring_nodes`' order).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    springs: Vec<[f32; 3]>,
}

#[derive(Debug, Serialize)]
struct Report {
    /// The spring joints' nodes, when a VRM's springs run.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    spring_nodes: Vec<usize>,
    frames: Vec<Frame>,
    root_total: Motion,
}

/// How long and how fast `skel play --graph` plays, and with which springs.
#[derive(Debug, Clone, Copy)]
pub struct Rate {
    /// Ticks to play.
    pub ticks: usize,
    /// Ticks per second.
    pub fps: f64,
    /// `--no-springs`.
    pub springs: crate::spring_args::SpringArgs,
}

/// Plays `graph` on `asset` for `rate.ticks` ticks of 1/`rate.fps` seconds and prints the
/// frames (as JSON with `json`).
///
/// # Errors
/// A bad asset or graph (file, `--set`, `--travel`), or a failed write.
pub fn run(
    asset: &AssetArgs,
    graph: &GraphArgs,
    rate: &Rate,
    json: bool,
) -> Result<(), Box<dyn std::error::Error>> {
    let (ticks, fps) = (rate.ticks, rate.fps);
    let mut asset = asset.load()?;
    let motion = rate.springs.motion(&asset)?;
    let nodes = spring_nodes(&motion);
    graph.bake_mirrored_clips(&mut asset.animation, &asset.morph_names)?;
    let rig = Rig::new(Arc::new(asset.animation))?;
    let mut driver = graph
        .driver(&rig, &motion)?
        .ok_or("skel play needs --layers or --graph")?;
    #[expect(
        clippy::cast_possible_truncation,
        reason = "the step is a frame time; f32 is the player's unit"
    )]
    let dt = (1.0 / fps) as f32;
    let clips = &rig.data().clips;
    let mut frames = Vec::with_capacity(ticks);
    let mut last_line = String::new();
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    for i in 0..ticks {
        #[expect(clippy::cast_precision_loss, reason = "frame counts far below 2^52")]
        let (start, t) = (i as f64 / fps, (i + 1) as f64 / fps);
        driver.apply_due(start)?;
        let mut fired = Vec::new();
        driver.player.tick_with_events(dt, &mut NullSink, &mut |e| {
            fired.push((e.layer, e.clip, e.name.to_owned(), e.time))
        });
        let events = fired
            .into_iter()
            .map(|(layer, clip, name, time)| Event {
                layer: driver.graph_layer_of(layer).unwrap_or(layer),
                clip: clips[clip].name.clone(),
                name,
                time,
            })
            .collect::<Vec<_>>();
        let inst = driver.player.instance();
        let graph = inst.graph();
        let layers = (0..graph.layer_count())
            .map(|l| LayerOut {
                name: graph.layer_name(l).unwrap_or_default().to_owned(),
                state: inst.state(l).unwrap_or_default().to_owned(),
                transition: inst.transition(l).map(|v| Transition {
                    from: v.from.to_owned(),
                    to: v.to.to_owned(),
                    progress: v.progress,
                }),
                clips: inst
                    .clips(l)
                    .map(|c| ClipOut {
                        clip: c.name.to_owned(),
                        weight: c.weight,
                        time: c.time,
                    })
                    .collect(),
            })
            .collect();
        if !json {
            // One line whenever a state, fade or parameter changes, and one per event.
            let line = driver.summary();
            if line != last_line {
                writeln!(out, "t = {t:.4}: {line}")?;
                last_line = line;
            }
            for e in &events {
                writeln!(out, "t = {t:.4}: event {}:{}", e.clip, e.name)?;
            }
        }
        frames.push(Frame {
            t,
            layers,
            events,
            root_delta: driver.player.player().root_motion_delta().into(),
            springs: spring_positions(driver.player.player_mut(), &nodes),
        });
    }
    let report = Report {
        spring_nodes: nodes,
        frames,
        root_total: driver.player.player().root_motion_total().into(),
    };
    if json {
        serde_json::to_writer(&mut out, &report)?;
        writeln!(out)?;
    }
    out.flush()?;
    Ok(())
}
