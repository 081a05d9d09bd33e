//! Chain IK solves as a plain program for instruction counts (valgrind `--tool=cachegrind
//! --cache-sim=no`, the difference of two runs that differ only in SOLVES) and times: the
//! `ik` bench's six-joint chain (`benches/ik.rs`), ten iterations run in full, pole on, the
//! target moved a little every solve so that no two solves are alike.
//!
//! ```text
//! chain_solves fabrik|fabrik_limits|ccd|fabrik_batch SOLVES [ITERATIONS]
//! ```
//!
//! `fabrik_batch` solves the same chains through `ChainIk::solve_batch`, 64 jobs a call (a
//! crowd's arms), four at a time in SIMD lanes.
//!
//! ITERATIONS (default 10) separates a solve's fixed cost from its iterations' (time a few
//! counts and take the differences).
//!
//! Prints `solver S solves N ns_per_solve T checksum C`. `scripts/ik/count.sh` drives it.

#[path = "../benches/ik_chain/mod.rs"]
mod ik_chain;

use std::hint::black_box;
use std::process::ExitCode;
use std::time::Instant;

use glam::{Quat, Vec3};
use ik_chain::chain;
use skel_anim::AnimError;
use skel_anim::ik::{ChainIk, ChainJob, ChainSolution, ChainSolver, JointLimit};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(solver), Some(Ok(solves))) = (args.first(), args.get(1).map(|n| n.parse::<u32>()))
    else {
        eprintln!("usage: chain_solves fabrik|fabrik_limits|ccd|fabrik_batch SOLVES [ITERATIONS]");
        return ExitCode::FAILURE;
    };
    let iterations = match args.get(2).map(|n| n.parse::<u32>()) {
        None => 10,
        Some(Ok(n)) => n,
        Some(Err(_)) => {
            eprintln!("chain_solves: ITERATIONS must be a whole number");
            return ExitCode::FAILURE;
        }
    };
    let (kind, limits) = match solver.as_str() {
        "fabrik" => (ChainSolver::Fabrik, vec![]),
        "fabrik_limits" => (
            ChainSolver::Fabrik,
            vec![JointLimit::cone(Vec3::Y, 0.6, 0.3); 6],
        ),
        "ccd" => (ChainSolver::Ccd, vec![]),
        "fabrik_batch" => return batch(solves, iterations),
        other => {
            eprintln!("chain_solves: no solver {other:?}");
            return ExitCode::FAILURE;
        }
    };
    let models = chain();
    let mut out = [Quat::IDENTITY; 6];
    let mut checksum = 0.0_f64;
    let start = Instant::now();
    for k in 0..solves {
        let ik = ChainIk {
            solver: kind,
            target: target(k),
            pole: Some(Vec3::Z),
            iterations,
            tolerance: 0.0,
            ..ChainIk::default()
        };
        match ik.solve(black_box(&models), &limits, &mut out) {
            Ok(_) => checksum += f64::from(out[2].x + out[4].y),
            Err(e) => {
                eprintln!("chain_solves: {e}");
                return ExitCode::FAILURE;
            }
        }
    }
    let ns = start.elapsed().as_secs_f64() * 1e9 / f64::from(solves.max(1));
    println!("solver {solver} solves {solves} ns_per_solve {ns:.1} checksum {checksum:.6}");
    ExitCode::SUCCESS
}

/// The wobbling target of solve `k`.
fn target(k: u32) -> Vec3 {
    #[expect(clippy::cast_precision_loss, reason = "a small wobble of the target")]
    let wobble = (k % 64) as f32 * 1e-3;
    Vec3::new(0.9 - wobble, 1.7, 0.3 + wobble)
}

/// `solves` FABRIK solves of the chain through `ChainIk::solve_batch`, 64 jobs a call.
fn batch(solves: u32, iterations: u32) -> ExitCode {
    const JOBS: usize = 64;
    let models = chain();
    let mut out = [[Quat::IDENTITY; 6]; JOBS];
    let mut solutions: Vec<Result<ChainSolution, AnimError>> =
        (0..JOBS).map(|_| Ok(ChainSolution::default())).collect();
    let mut checksum = 0.0_f64;
    let start = Instant::now();
    let mut done = 0;
    while done < solves {
        let count = JOBS.min((solves - done) as usize);
        let mut jobs: [ChainJob; JOBS] = std::array::from_fn(|_| ChainJob {
            ik: ChainIk::default(),
            models: black_box(&models),
            limits: &[],
            from_rest: &[],
            corrections: &mut [],
        });
        for ((k, job), out) in jobs.iter_mut().enumerate().zip(&mut out) {
            job.ik = ChainIk {
                target: target(done + k as u32),
                pole: Some(Vec3::Z),
                iterations,
                tolerance: 0.0,
                ..ChainIk::default()
            };
            job.corrections = out;
        }
        if let Err(e) = ChainIk::solve_batch(&mut jobs[..count], &mut solutions[..count]) {
            eprintln!("chain_solves: {e}");
            return ExitCode::FAILURE;
        }
        for (solution, out) in solutions[..count].iter().zip(&out) {
            if let Err(e) = solution {
                eprintln!("chain_solves: {e}");
                return ExitCode::FAILURE;
            }
            checksum += f64::from(out[2].x + out[4].y);
        }
        done += count as u32;
    }
    let ns = start.elapsed().as_secs_f64() * 1e9 / f64::from(solves.max(1));
    println!("solver fabrik_batch solves {solves} ns_per_solve {ns:.1} checksum {checksum:.6}");
    ExitCode::SUCCESS
}
