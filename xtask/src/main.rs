//! `cargo xtask`: the project's chores in one place (see `cargo xtask --help`).
//!
//! Each subcommand lives in its own module; this file only dispatches.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod bench;
mod bench_count;
mod bench_error;
mod bench_ozz;
mod bevy_window;
mod bless;
mod ci;
mod demo;
mod file_length;
mod fixtures;
mod fuzz;
mod install;
mod module_graph;
mod npm;
mod plots;
mod test_tally;
mod validate_shaders;
mod wasm;
mod wasm_build;
mod web;
mod web_check;
mod web_serve;
mod webdriver;
mod workspace;

/// Development chores for the skel workspace.
#[derive(Debug, Parser)]
#[command(name = "cargo xtask", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// fmt --check, clippy -D warnings, module and folder circles, file lengths (≤ 500 lines),
    /// doc, fixtures and plots --check, test: what CI runs. Installs the Vulkan driver and
    /// Xvfb + xdotool first when missing; ends with passed/failed/skipped.
    Ci {
        /// Do not install anything: tests that need what is missing skip (and are listed).
        #[arg(long)]
        no_install: bool,
    },
    /// The checks of `ci` that need no build (seconds): fmt --check, module and folder
    /// circles, file lengths, shader validation, fixtures and plots --check. Run it before
    /// committing.
    Check,
    /// Print every crate's modules and, per module, the modules whose items it uses (with
    /// the first reference), and any circle: a map for reorganising code.
    ModuleGraph {
        /// Graphviz output instead (`cargo xtask module-graph --dot | dot -Tsvg > g.svg`).
        #[arg(long)]
        dot: bool,
    },
    /// Parse and validate every WGSL file and every generated skinning variant with naga.
    ValidateShaders,
    /// Render the built-in character to out/ (PNG frames, anim.gif, contact sheet); installs
    /// Mesa's software Vulkan driver first when no Vulkan driver is present.
    Demo {
        /// Extra arguments for `skel render` (e.g. `--size 640x480 --frames 24`).
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<String>,
    },
    /// Write the generated glTF fixtures under fixtures/ (synthetic models, the default
    /// character, the malformed corpus); with --check, fail if the committed files differ.
    Fixtures {
        /// Regenerate into a temporary directory and compare instead of writing.
        #[arg(long)]
        check: bool,
    },
    /// Run the CPU pose-pipeline benches (and the GPU upload bench), print one table
    /// (ns/joint/frame, µs/character, allocations/frame, targets) and write
    /// target/bench/summary.json.
    Bench {
        /// Shorter warm-up and measurement: about a minute in all, noisier.
        #[arg(long)]
        quick: bool,
        /// Only summarise the results the last run left in target/.
        #[arg(long)]
        summary_only: bool,
        /// Skip the GPU upload bench.
        #[arg(long)]
        no_gpu: bool,
        /// Run every bench this many times and report each case's median over the rounds
        /// (criterion's median within a round): shared machines drift between runs.
        #[arg(long, default_value_t = 1)]
        rounds: usize,
        /// Count instructions per joint-frame of the pose pipeline with valgrind instead of
        /// timing (by difference of two runs; deterministic): the figure for A/B decisions.
        #[arg(long)]
        instructions: bool,
        /// Compare with ozz-animation 0.16 built from this source snapshot (a git directory
        /// holding the tag 0.16.0, or a source tree): instructions and time side by side
        /// (`--rounds` timing rounds, 7 when not given). See docs/benchmarks.md.
        #[arg(long, value_name = "DIR")]
        vs_ozz: Option<PathBuf>,
        /// Measure the shell error (the Animation Compression Library's metric: 3 cm around
        /// each joint, model space) of ozz-animation's optimised animations, built from this
        /// snapshot as for --vs-ozz, against skel's lossless sampling. See docs/benchmarks.md.
        #[arg(long, value_name = "DIR")]
        shell_error: Option<PathBuf>,
        /// Only benchmarks whose ID contains this (criterion's filter); with --instructions or
        /// --vs-ozz, only assets whose name contains it.
        filter: Option<String>,
    },
    Plots(plots::Args),
    /// Build the npm package `skel-anim` (crates/skel-js: wasm-bindgen's ES module and types,
    /// the three.js and Babylon.js adapters) into a folder ready for `npm pack`. See docs/npm.md.
    Npm(npm::Args),
    /// Regenerate the reference images of skel-cli's render tests on this machine's adapter.
    Bless,
    /// Build the browser demo (crates/skel-web) with wasm-bindgen into a folder with
    /// index.html and serve it on 127.0.0.1; with --out, only build; with --check, draw it in
    /// headless Chromium on WebGPU and WebGL2 and check it. See docs/web.md.
    Web {
        /// Build into this folder and exit (serve it with any static server).
        #[arg(long, value_name = "DIR")]
        out: Option<PathBuf>,
        /// Build, then check the page in Debian's headless Chromium (installed when missing)
        /// instead of serving it.
        #[arg(long)]
        check: bool,
        /// The port to serve on (0 picks a free one).
        #[arg(long, default_value_t = 8000)]
        port: u16,
    },
    /// Build and run skel-bevy's windowed example (`--example character`) under Xvfb on
    /// Mesa's lavapipe, walk it for some frames and save a screenshot (docs/bevy.md).
    BevyWindow {
        /// Where the screenshot goes.
        #[arg(long, default_value = "docs/bevy-character.png")]
        out: PathBuf,
        /// Frames before the screenshot.
        #[arg(long, default_value_t = 150)]
        frames: u32,
    },
    /// Replay the fuzz regressions, then build the cargo-fuzz targets (fuzz/) and run each for
    /// N seconds, one after the other; prints executions, corpus size and outcome.
    Fuzz {
        /// Seconds to run each target.
        #[arg(long)]
        seconds: u64,
        /// Run only this target (load_gltf, controller_api or graph_json).
        #[arg(long)]
        target: Option<String>,
    },
}

// Every subcommand needs the root; defined in a module of its own so that they depend on it,
// not on this file that depends on them.
pub(crate) use workspace::workspace_root;

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Ci { no_install } => ci::run(no_install),
        Command::Check => ci::quick(),
        Command::ModuleGraph { dot } => module_graph::run(dot),
        Command::ValidateShaders => validate_shaders::run(),
        Command::Demo { args } => demo::run(&args),
        Command::Fixtures { check } => fixtures::run(check),
        Command::Bench {
            quick,
            summary_only,
            no_gpu,
            rounds,
            instructions,
            vs_ozz,
            shell_error,
            filter,
        } => match (shell_error, vs_ozz, instructions) {
            (Some(dir), _, _) => bench_error::run(&dir, filter.as_deref()),
            (None, Some(dir), _) => {
                bench_ozz::run(&dir, if rounds > 1 { rounds } else { 7 }, filter.as_deref())
            }
            (None, None, true) => bench_count::run(filter.as_deref()),
            (None, None, false) => bench::run(&bench::BenchOptions {
                quick,
                summary_only,
                no_gpu,
                rounds,
                filter,
            }),
        },
        Command::Plots(args) => plots::run(args.check),
        Command::Npm(args) => npm::run(args),
        Command::Bless => bless::run(),
        Command::Web { out, port, check } => web::run(out, port, check),
        Command::BevyWindow { out, frames } => bevy_window::run(&out, frames),
        Command::Fuzz { seconds, target } => fuzz::run(seconds, target.as_deref()),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("xtask: {e}");
            ExitCode::FAILURE
        }
    }
}
