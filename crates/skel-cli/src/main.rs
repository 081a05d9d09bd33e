//! `skel`: inspect, pose, render and benchmark skinned glTF assets.
//!
//! Each subcommand lives in `commands/<name>.rs`; this file parses and dispatches.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod commands;

/// GPU skeletal animation from glTF 2.0.
#[derive(Debug, Parser)]
#[command(name = "skel", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result: Result<(), Box<dyn std::error::Error>> = match cli.command {};
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("skel: error: {e}");
            ExitCode::FAILURE
        }
    }
}
