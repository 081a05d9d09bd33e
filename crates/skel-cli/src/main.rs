//! `skel`: inspect, pose, render and benchmark skinned glTF assets.
//!
//! Each subcommand lives in `commands/<name>.rs`; this file parses and dispatches.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod commands;
mod graph_args;
mod layer_file;
mod render;
mod spring_args;
mod terrain;
mod view;
mod vrma_load;

/// GPU skeletal animation from glTF 2.0.
#[derive(Debug, Parser)]
#[command(name = "skel", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Show what an asset holds: skins (joints, root), meshes (vertices, influences, morph
    /// targets), clips (duration, channels, interpolations).
    Info(commands::info::InfoArgs),
    /// Print the CPU reference pose of a clip (or the rest pose) at given times; --json gives
    /// the golden-file shape (node world matrices, skin matrices, world positions, weights).
    Pose(commands::pose::PoseArgs),
    /// Tick one player of a layer stack (--layers) or an animation graph (--graph, with --set
    /// and --travel) from time 0 at a fixed step and print, per frame, the graph's states and
    /// clips, the root-motion delta and the animation events fired (--json for tools).
    Play(commands::play::PlayArgs),
    /// Render an animated, GPU-skinned glTF asset (default: the built-in character) to PNG
    /// frames, an animated GIF and a contact sheet.
    Render(commands::render::RenderArgs),
    /// Time the CPU pose pipeline and the GPU upload for N characters (median ns per joint
    /// per frame; --json for tools). `skel bench gpu --help`: the GPU benchmarks.
    Bench(commands::bench::BenchArgs),
    /// Open a window on an animated asset: orbit camera, play/pause, next/previous clip,
    /// speed, frame time (the keys are listed by `skel view --help`).
    View(commands::view::ViewArgs),
    /// Bake a source asset's clips onto a target rig (Babylon.js's retargeting rule, humanoid
    /// auto-mapping with --auto) and write the target as one .glb with them.
    Retarget(commands::retarget::RetargetArgs),
    /// Compress the asset's clips (ACL's 0.01 cm on a 3 cm shell in the model's units by
    /// default) and print, per clip, raw and compressed bytes, both ratios, the max and p99
    /// shell error against the clip itself and the build time (--json for tools).
    Compress(commands::compress::CompressArgs),
    /// Mirror the asset's clips left/right (pairs from node names, --pairs or --humanoid; the
    /// plane from the rest pose) and write it as one .glb; --append keeps the originals.
    Mirror(commands::mirror::MirrorArgs),
    /// Print the first triangle a ray hits on the posed character (skinned and morphed, the
    /// CPU reference pose): mesh, primitive, triangle, barycentrics, distance, point (--json
    /// for tools).
    Pick(commands::pick::PickArgs),
}

fn main() -> ExitCode {
    // `skel bench gpu …` parses its own arguments (see commands/bench_gpu.rs).
    let words: Vec<String> = std::env::args().collect();
    let result: Result<(), Box<dyn std::error::Error>> =
        if words.get(1..3) == Some(&["bench".into(), "gpu".into()]) {
            commands::bench_gpu::run(&words[3..])
        } else {
            match Cli::parse().command {
                Command::Info(args) => commands::info::run(&args),
                Command::Pose(args) => commands::pose::run(&args),
                Command::Play(args) => commands::play::run(&args),
                Command::Render(args) => commands::render::run(args),
                Command::Bench(args) => commands::bench::run(&args),
                Command::View(args) => commands::view::run(args),
                Command::Retarget(args) => commands::retarget::run(&args),
                Command::Compress(args) => commands::compress::run(&args),
                Command::Mirror(args) => commands::mirror::run(&args),
                Command::Pick(args) => commands::pick::run(&args),
            }
        };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("skel: error: {e}");
            ExitCode::FAILURE
        }
    }
}
