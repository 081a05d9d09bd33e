//! `cargo xtask fuzz --seconds N [--target T]`: replays the fuzz regressions, builds the
//! cargo-fuzz targets in `fuzz/` and runs each for N seconds (one libFuzzer job, one target after
//! the other), then prints the executions, the corpus size and the outcome of each.
//!
//! libFuzzer needs nightly compiler flags; `RUSTC_BOOTSTRAP=1` lets the installed stable
//! toolchain accept them, and it is set on the cargo-fuzz child processes only: the library
//! build never sees it. The `fuzz/` crate is excluded from the workspace for the same reason.
//!
//! Seeds: every file under `fixtures/` (valid models, the malformed corpus, past crashes under
//! `fixtures/fuzz-regressions/`) is copied into `fuzz/corpus/load_gltf/` at run time, and the
//! public sample models in `../shared/assets` (when present) are read as a second, read-only
//! corpus directory; nothing is copied into the repository and corpora are not committed
//! (`fuzz/corpus` is ignored).

use std::fs;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::SystemTime;

/// The fuzz targets, in the order they run.
pub(crate) const TARGETS: [&str; 7] = [
    "load_gltf",
    "pointer",
    "meshopt",
    "controller_api",
    "graph_json",
    "stored_keys",
    "vrm",
];

/// Per-input time limit: an input slower than this is reported as a hang.
const INPUT_TIMEOUT_S: u32 = 30;
/// Memory limit of the fuzzing process: more is reported as an out-of-memory crash (a header
/// field that makes the loader allocate gigabytes is a bug).
const RSS_LIMIT_MB: u32 = 2048;

/// What one run reported.
#[derive(Debug, Default)]
struct Outcome {
    target: String,
    seconds: u64,
    executions: Option<u64>,
    exec_per_sec: Option<u64>,
    new_units: Option<u64>,
    peak_rss_mb: Option<u64>,
    corpus_files: usize,
    crashed: bool,
    artifacts: Vec<PathBuf>,
    log: PathBuf,
}

/// Runs the subcommand.
pub(crate) fn run(seconds: u64, target: Option<&str>) -> Result<(), String> {
    let targets: Vec<&str> = match target {
        None => TARGETS.to_vec(),
        Some(t) if TARGETS.contains(&t) => vec![t],
        Some(t) => {
            return Err(format!(
                "unknown fuzz target {t:?} (targets: {})",
                TARGETS.join(", ")
            ));
        }
    };
    if seconds == 0 {
        return Err("--seconds must be at least 1".into());
    }
    let root = crate::workspace_root();
    check_cargo_fuzz(&root)?;
    replay_regressions(&root)?;
    build(&root, &targets)?;
    let mut outcomes = Vec::new();
    for t in &targets {
        outcomes.push(run_target(&root, t, seconds)?);
    }
    eprintln!("\nxtask fuzz: summary");
    for o in &outcomes {
        eprintln!("  {}", summary_line(o));
        for a in &o.artifacts {
            eprintln!("    crash input: {}", a.display());
        }
    }
    if outcomes.iter().any(|o| o.crashed) {
        Err(
            "a fuzz target crashed: minimise the input (`RUSTC_BOOTSTRAP=1 cargo fuzz tmin TARGET FILE`), \
             fix it, and add it under fixtures/fuzz-regressions/TARGET/"
                .into(),
        )
    } else {
        Ok(())
    }
}

fn summary_line(o: &Outcome) -> String {
    let n = |v: Option<u64>| v.map_or_else(|| "?".to_owned(), |v| v.to_string());
    format!(
        "{}: {} s, {} executions ({} exec/s), {} new units, corpus {} files, peak RSS {} MB: {} (log: {})",
        o.target,
        o.seconds,
        n(o.executions),
        n(o.exec_per_sec),
        n(o.new_units),
        o.corpus_files,
        n(o.peak_rss_mb),
        if o.crashed { "CRASH" } else { "no crash" },
        o.log.display()
    )
}

fn cargo(root: &Path) -> Command {
    let mut cmd = Command::new(env!("CARGO"));
    cmd.current_dir(root);
    cmd
}

fn check_cargo_fuzz(root: &Path) -> Result<(), String> {
    let out = cargo(root)
        .args(["fuzz", "--version"])
        .output()
        .map_err(|e| format!("cannot run cargo: {e}"))?;
    if out.status.success() {
        Ok(())
    } else {
        Err("cargo-fuzz is not installed: `cargo install cargo-fuzz`".into())
    }
}

/// Replays every saved crash input (`fixtures/fuzz-regressions/`) and the harness's own tests,
/// so that a fixed crash that comes back fails fast, before minutes of fuzzing.
fn replay_regressions(root: &Path) -> Result<(), String> {
    eprintln!("xtask fuzz: replaying fixtures/fuzz-regressions/ (cargo test in fuzz/)");
    let status = cargo(root)
        .args(["test", "--manifest-path", "fuzz/Cargo.toml"])
        .status()
        .map_err(|e| format!("cannot run cargo: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("the fuzz harness tests failed ({status})"))
    }
}

fn build(root: &Path, targets: &[&str]) -> Result<(), String> {
    for t in targets {
        eprintln!("xtask fuzz: building {t} (cargo fuzz build, RUSTC_BOOTSTRAP=1)");
        let status = cargo(root)
            .args(["fuzz", "build", t])
            .env("RUSTC_BOOTSTRAP", "1")
            .status()
            .map_err(|e| format!("cannot run cargo fuzz: {e}"))?;
        if !status.success() {
            return Err(format!("cargo fuzz build {t} failed ({status})"));
        }
    }
    Ok(())
}

/// Every file under `dir`, recursively, sorted.
fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in fs::read_dir(&d).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.is_file() {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

/// Copies every file under `fixtures/` into `corpus` (named after its path), so that the run
/// starts from every valid and malformed file the project has.
fn seed_from_fixtures(root: &Path, corpus: &Path) -> Result<usize, String> {
    let fixtures = root.join("fixtures");
    let mut copied = 0;
    for file in files_under(&fixtures) {
        let rel = file.strip_prefix(&fixtures).unwrap_or(&file);
        let name = format!(
            "fixture-{}",
            rel.to_string_lossy().replace(['/', '\\'], "-")
        );
        fs::copy(&file, corpus.join(name))
            .map_err(|e| format!("cannot copy seed {}: {e}", file.display()))?;
        copied += 1;
    }
    Ok(copied)
}

fn run_target(root: &Path, target: &str, seconds: u64) -> Result<Outcome, String> {
    let corpus = root.join("fuzz/corpus").join(target);
    fs::create_dir_all(&corpus).map_err(|e| format!("cannot create {}: {e}", corpus.display()))?;
    let mut corpus_dirs = vec![corpus.clone()];
    if target == "load_gltf" {
        let seeds = seed_from_fixtures(root, &corpus)?;
        eprintln!("xtask fuzz: {target}: {seeds} seeds from fixtures/");
        let shared = root.join("../shared/assets");
        if shared.is_dir() {
            eprintln!(
                "xtask fuzz: {target}: reading {} as a read-only seed corpus",
                shared.display()
            );
            corpus_dirs.push(shared);
        }
    } else {
        let saved = root.join("fixtures/fuzz-regressions").join(target);
        if saved.is_dir() {
            corpus_dirs.push(saved);
        }
        // Committed seeds (graph files for `graph_json`), read-only like the saved inputs.
        let seeds = root.join("fuzz/seeds").join(target);
        if seeds.is_dir() {
            corpus_dirs.push(seeds);
        }
    }
    let artifacts = root.join("fuzz/artifacts").join(target);
    let before = files_under(&artifacts);
    let log_dir = root.join("target/fuzz-logs");
    fs::create_dir_all(&log_dir)
        .map_err(|e| format!("cannot create {}: {e}", log_dir.display()))?;
    let log_path = log_dir.join(format!("{target}.log"));
    let mut log = fs::File::create(&log_path)
        .map_err(|e| format!("cannot create {}: {e}", log_path.display()))?;

    eprintln!(
        "xtask fuzz: running {target} for {seconds} s (one job; log {})",
        log_path.display()
    );
    let started = SystemTime::now();
    let mut cmd = cargo(root);
    cmd.args(["fuzz", "run", target])
        .args(&corpus_dirs)
        .arg("--")
        .arg(format!("-max_total_time={seconds}"))
        .arg(format!("-timeout={INPUT_TIMEOUT_S}"))
        .arg(format!("-rss_limit_mb={RSS_LIMIT_MB}"))
        .arg("-print_final_stats=1")
        .env("RUSTC_BOOTSTRAP", "1")
        .stderr(Stdio::piped());
    let mut child = cmd
        .spawn()
        .map_err(|e| format!("cannot run cargo fuzz: {e}"))?;
    let mut outcome = Outcome {
        target: target.to_owned(),
        seconds,
        log: log_path.clone(),
        ..Outcome::default()
    };
    if let Some(stderr) = child.stderr.take() {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            let _ = writeln!(log, "{line}");
            parse_stat(&line, &mut outcome);
            // Every new unit is a line: keep the console to libFuzzer's periodic pulses,
            // its final report and anything that is not a progress line.
            let progress = line.contains(" NEW ") || line.contains(" REDUCE ");
            if !progress && !line.starts_with('"') {
                eprintln!("{line}");
            }
        }
    }
    let status = child
        .wait()
        .map_err(|e| format!("cannot wait for cargo fuzz: {e}"))?;
    let elapsed = started.elapsed().map(|d| d.as_secs()).unwrap_or(seconds);
    outcome.seconds = elapsed.min(seconds);
    outcome.corpus_files = files_under(&corpus).len();
    outcome.crashed = !status.success();
    outcome.artifacts = files_under(&artifacts)
        .into_iter()
        .filter(|a| !before.contains(a))
        .collect();
    eprintln!("xtask fuzz: {}", summary_line(&outcome));
    Ok(outcome)
}

/// Picks libFuzzer's final statistics (`-print_final_stats=1`) out of a line.
fn parse_stat(line: &str, o: &mut Outcome) {
    let Some(rest) = line.strip_prefix("stat::") else {
        return;
    };
    let Some((key, value)) = rest.split_once(':') else {
        return;
    };
    let value = value.trim().parse::<u64>().ok();
    match key {
        "number_of_executed_units" => o.executions = value,
        "average_exec_per_sec" => o.exec_per_sec = value,
        "new_units_added" => o.new_units = value,
        "peak_rss_mb" => o.peak_rss_mb = value,
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn final_stats_are_parsed() {
        let mut o = Outcome::default();
        for line in [
            "Done 8055 runs in 41 second(s)",
            "stat::number_of_executed_units: 8055",
            "stat::average_exec_per_sec:     196",
            "stat::new_units_added:          718",
            "stat::slowest_unit_time_sec:    0",
            "stat::peak_rss_mb:              480",
        ] {
            parse_stat(line, &mut o);
        }
        assert_eq!(o.executions, Some(8055));
        assert_eq!(o.exec_per_sec, Some(196));
        assert_eq!(o.new_units, Some(718));
        assert_eq!(o.peak_rss_mb, Some(480));
    }

    #[test]
    fn unknown_targets_are_refused_before_anything_runs() {
        let err = run(1, Some("nope"));
        assert!(matches!(err, Err(e) if e.contains("unknown fuzz target")));
    }
}
