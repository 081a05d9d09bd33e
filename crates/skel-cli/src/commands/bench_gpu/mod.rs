//! `skel bench gpu …`: the GPU benchmarks, one subcommand each.
//!
//! - `crowd` ([`crowd`]): a crowd of one asset through the facade's crowd API; with
//!   `--bone-layout 3x4` or `--cull`, posed, culled and skinned straight through skel-gpu
//!   ([`crowd_culled`]);
//! - `compute` ([`compute`]): compute-skinning throughput on synthetic meshes, against the
//!   device's measured copy bandwidth;
//! - `upload` ([`upload`]): per-frame bone upload for N characters, several ways;
//! - `draw` ([`draw`]): vertex-shader skinning of a crowd in one instanced draw (raster time,
//!   reported apart from the compute figures).
//!
//! Parsed on its own (`main.rs` hands it the arguments after `bench gpu`), so that `skel bench`
//! keeps its positional asset argument. Every subcommand prints text, or one JSON object with
//! `--json` (the shapes are in `docs/bench-json.md`); a bad option or value is one error line
//! and a non-zero exit, never a panic.

mod compute;
mod compute_cases;
mod compute_data;
mod compute_timing;
mod crowd;
mod crowd_culled;
mod crowd_posing;
mod draw;
mod draw_scene;
mod report;
mod upload;

use clap::Parser;

/// GPU benchmarks of skel (one JSON object with --json).
#[derive(Debug, Parser)]
#[command(name = "skel bench gpu")]
pub struct BenchGpuCli {
    #[command(subcommand)]
    command: BenchGpuCommand,
}

#[derive(Debug, clap::Subcommand)]
enum BenchGpuCommand {
    /// A crowd of one asset: pose, bone upload, compute skinning, allocations per frame.
    Crowd(crowd::CrowdArgs),
    /// Compute-skinning throughput on synthetic meshes (4/8/16 influences, compact formats),
    /// with the device's copy bandwidth measured in the same run.
    Compute(compute::ComputeArgs),
    /// Per-frame bone upload of N characters: one batched write, per-character writes,
    /// separate skeletons, and the crowd's staging ring.
    Upload(upload::UploadArgs),
    /// Vertex-shader skinning of a crowd in one instanced draw, offscreen: render-pass time,
    /// and the same draw without skinning.
    Draw(draw::DrawArgs),
}

/// Runs `skel bench gpu …` with `args` (the words after `gpu`).
///
/// # Errors
/// Parsing errors come back as one line, clap's first (printed by the caller; `--help` is
/// printed and is not an error); loading, GPU and crowd errors as they are.
pub fn run(args: &[String]) -> Result<(), Box<dyn std::error::Error>> {
    let words = std::iter::once("skel bench gpu".to_owned()).chain(args.iter().cloned());
    let cli = match BenchGpuCli::try_parse_from(words) {
        Ok(cli) => cli,
        Err(e) if !e.use_stderr() => {
            print!("{e}");
            return Ok(());
        }
        // One line: clap's first (the rule broken and the word; when it ends in a colon, the
        // word is on the next line), then where help is.
        Err(e) => {
            let text = e.to_string();
            let mut lines = text.lines().map(str::trim).filter(|l| !l.is_empty());
            let first = lines.next().unwrap_or_default();
            let mut line = first.trim_start_matches("error: ").to_owned();
            if line.ends_with(':')
                && let Some(next) = lines.next()
            {
                line = format!("{line} {next}");
            }
            return Err(format!("{line} (see `skel bench gpu --help`)").into());
        }
    };
    match cli.command {
        BenchGpuCommand::Crowd(a) => crowd::run(&a),
        BenchGpuCommand::Compute(a) => compute::run(&a),
        BenchGpuCommand::Upload(a) => upload::run(&a),
        BenchGpuCommand::Draw(a) => draw::run(&a),
    }
}
