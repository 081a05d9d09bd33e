//! `skel play ASSET --layers FILE.json --seconds S --fps F [--json]`: one player ticked from
//! time 0 at a fixed step, printing per frame the root-motion delta and the events fired, and at
//! the end the accumulated root motion. With `--graph` instead, an animation graph chooses what
//! plays (see [`play_graph`](super::play_graph)). A VRM's spring bones and node constraints
//! run unless `--no-springs`: the springs step at their fixed 1/60 s within the ticks of
//! 1/FPS, and `--json` prints each spring joint's world position per frame.

use std::io::Write as _;

use clap::Args;
use serde::Serialize;
use skel::anim::{NullSink, Player, Rig};

use super::asset_args::AssetArgs;
use super::play_output::{Event, Motion, spring_nodes, spring_positions, tick_count};

/// Arguments of `skel play`.
#[derive(Debug, Clone, Args)]
pub struct PlayArgs {
    #[command(flatten)]
    asset: AssetArgs,
    /// The layer stack (layers with `speed`, `loop` (`repeat`, `once`, `pingpong`), `start`;
    /// `root_motion`), as for `skel pose --layers`.
    #[arg(
        long,
        value_name = "FILE",
        required_unless_present = "graph",
        conflicts_with = "graph"
    )]
    layers: Option<std::path::PathBuf>,
    #[command(flatten)]
    graph: crate::graph_args::GraphArgs,
    /// How long to play, in seconds.
    #[arg(long, default_value_t = 1.0)]
    seconds: f64,
    /// Ticks per second (the step is 1/FPS; round(SECONDS × FPS) ticks).
    #[arg(long, default_value_t = 60.0)]
    fps: f64,
    /// Print every frame as JSON.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    springs: crate::spring_args::SpringArgs,
}

#[derive(Debug, Serialize)]
struct Frame {
    t: f64,
    root_delta: Motion,
    events: Vec<Event>,
    /// World positions of the spring joints' nodes (`Report::spring_nodes`' order).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    springs: Vec<[f32; 3]>,
}

#[derive(Debug, Serialize)]
struct Report {
    frames: Vec<Frame>,
    root_total: Motion,
    /// The spring joints' nodes, when a VRM's springs run.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    spring_nodes: Vec<usize>,
}

/// Plays the stack and prints the frames.
///
/// # Errors
/// A bad asset, layer file, `--seconds` or `--fps`, or a failed write.
pub fn run(args: &PlayArgs) -> Result<(), Box<dyn std::error::Error>> {
    let ticks = tick_count(args.seconds, args.fps)?;
    let Some(layers) = &args.layers else {
        return super::play_graph::run(
            &args.asset,
            &args.graph,
            &super::play_graph::Rate {
                ticks,
                fps: args.fps,
                springs: args.springs,
            },
            args.json,
        );
    };
    let asset = args.asset.load()?;
    let motion = args.springs.motion(&asset)?;
    let nodes = spring_nodes(&motion);
    let stack = crate::layer_file::load(layers, &asset.animation)?;
    let rig = Rig::new(std::sync::Arc::new(asset.animation))?;
    let mut player = Player::new(&rig);
    for desc in stack.layers {
        player.add_layer(desc)?;
    }
    player.set_root_motion(stack.root_motion)?;
    for job in stack.ik {
        player.add_ik(job)?;
    }
    if let Some(spec) = &args.graph.terrain {
        player.set_foot_placement(Some(crate::terrain::humanoid_feet_on(&rig, spec)?));
    }
    motion.attach(&mut player)?;
    #[expect(
        clippy::cast_possible_truncation,
        reason = "the step is a frame time; f32 is the player's unit"
    )]
    let dt = (1.0 / args.fps) as f32;
    let clips = &rig.data().clips;
    let mut frames = Vec::with_capacity(ticks);
    for i in 0..ticks {
        let mut events = Vec::new();
        player.tick_with_events(dt, &mut NullSink, &mut |e| {
            events.push(Event {
                layer: e.layer,
                clip: clips[e.clip].name.clone(),
                name: e.name.to_owned(),
                time: e.time,
            });
        });
        #[expect(clippy::cast_precision_loss, reason = "frame counts far below 2^52")]
        let t = (i + 1) as f64 / args.fps;
        frames.push(Frame {
            t,
            root_delta: player.root_motion_delta().into(),
            events,
            springs: spring_positions(&mut player, &nodes),
        });
    }
    let report = Report {
        frames,
        root_total: player.root_motion_total().into(),
        spring_nodes: nodes,
    };
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    if args.json {
        serde_json::to_writer(&mut out, &report)?;
        writeln!(out)?;
    } else {
        for f in &report.frames {
            if f.events.is_empty() {
                continue;
            }
            let names: Vec<String> = f
                .events
                .iter()
                .map(|e| format!("{}:{}", e.clip, e.name))
                .collect();
            writeln!(out, "t = {:.4}: {}", f.t, names.join(", "))?;
        }
        let t = report.root_total.translation;
        let r = report.root_total.rotation;
        writeln!(
            out,
            "root motion total: translation [{:.6}, {:.6}, {:.6}], rotation [{:.6}, {:.6}, {:.6}, {:.6}]",
            t[0], t[1], t[2], r[0], r[1], r[2], r[3]
        )?;
        if !report.spring_nodes.is_empty() {
            writeln!(
                out,
                "springs: {} joints, stepped at a fixed 1/60 s",
                report.spring_nodes.len()
            )?;
        }
    }
    out.flush()?;
    Ok(())
}
