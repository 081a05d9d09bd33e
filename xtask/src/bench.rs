//! `cargo xtask bench`: runs the criterion benches of the pose pipeline (and the upload bench),
//! then joins their medians with the records the benches write (characters, joints,
//! allocations per frame, targets) into one table, printed and written as JSON
//! (`target/bench/summary.json`). `docs/benchmarks.md` explains the method and keeps the
//! history.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Map, Value, json};

/// Options of `cargo xtask bench`.
#[derive(Debug, Clone, Default)]
pub(crate) struct BenchOptions {
    /// Shorter warm-up and measurement (about a minute in all; noisier).
    pub(crate) quick: bool,
    /// Only summarise what the last run left in `target/` (no benchmarking).
    pub(crate) summary_only: bool,
    /// Skip the GPU upload bench.
    pub(crate) no_gpu: bool,
    /// How many times to run the benches; each case reports its median over the rounds.
    pub(crate) rounds: usize,
    /// Only benchmarks whose criterion ID contains this (criterion's own filter).
    pub(crate) filter: Option<String>,
}

/// The bench binaries run, as `(package, bench)`.
const CPU_BENCHES: [(&str, &str); 2] = [("skel-gltf", "pose_pipeline"), ("skel-gltf", "hot_paths")];
const GPU_BENCH: (&str, &str) = ("skel-gpu", "upload");

/// Runs the benches (unless `summary_only`) and prints and writes the summary.
pub(crate) fn run(opts: &BenchOptions) -> Result<(), String> {
    let root = crate::workspace_root();
    let target =
        std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| root.join("target"), PathBuf::from);
    let out = target.join("bench");
    let criterion = target.join("criterion");
    let rounds_path = out.join("rounds.json");
    if !opts.summary_only {
        std::fs::create_dir_all(&out).map_err(|e| format!("{}: {e}", out.display()))?;
        let mut benches: Vec<(&str, &str)> = CPU_BENCHES.to_vec();
        if !opts.no_gpu {
            benches.push(GPU_BENCH);
        }
        let mut rounds: Map<String, Value> = Map::new();
        for round in 0..opts.rounds.max(1) {
            if opts.rounds > 1 {
                eprintln!("xtask bench: round {} of {}", round + 1, opts.rounds);
            }
            for &(package, bench) in &benches {
                run_bench(&root, &out, package, bench, opts)?;
            }
            for name in ["pose_pipeline", "hot_paths", "upload"] {
                for r in read_records(&out, name) {
                    let id = r["id"].as_str().unwrap_or_default().to_owned();
                    if let (Some(m), Some(list)) = (
                        median_ns(&criterion, &id),
                        rounds.entry(id).or_insert_with(|| json!([])).as_array_mut(),
                    ) {
                        list.push(json!(m));
                    }
                }
            }
        }
        let text =
            serde_json::to_string_pretty(&Value::Object(rounds)).map_err(|e| e.to_string())?;
        std::fs::write(&rounds_path, text)
            .map_err(|e| format!("{}: {e}", rounds_path.display()))?;
    }
    let summary = summarise(&criterion, &out)?;
    print!("{}", render_table(&summary));
    let path = out.join("summary.json");
    let text = serde_json::to_string_pretty(&summary).map_err(|e| e.to_string())?;
    std::fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()))?;
    eprintln!("xtask bench: wrote {}", path.display());
    Ok(())
}

fn run_bench(
    root: &Path,
    out: &Path,
    package: &str,
    bench: &str,
    opts: &BenchOptions,
) -> Result<(), String> {
    let mut args: Vec<String> = ["bench", "-p", package, "--bench", bench, "--", "--noplot"]
        .iter()
        .map(|s| (*s).to_owned())
        .collect();
    if opts.quick {
        for a in [
            "--warm-up-time",
            "0.3",
            "--measurement-time",
            "0.8",
            "--sample-size",
            "15",
        ] {
            args.push(a.to_owned());
        }
    }
    if let Some(f) = &opts.filter {
        args.push(f.clone());
    }
    eprintln!("xtask bench: cargo {}", args.join(" "));
    let mut cmd = Command::new(env!("CARGO"));
    cmd.args(&args).current_dir(root).env("SKEL_BENCH_DIR", out);
    if package == GPU_BENCH.0 {
        // Mesa's Vulkan drivers complain on every instance without a runtime directory, and a
        // test means Vulkan (lavapipe here, see ../shared/notes/GPU.md) unless told otherwise.
        if std::env::var_os("XDG_RUNTIME_DIR").is_none() {
            let dir = std::env::temp_dir().join("skel-xdg-runtime");
            std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
            cmd.env("XDG_RUNTIME_DIR", dir);
        }
        if std::env::var_os("WGPU_BACKEND").is_none() {
            cmd.env("WGPU_BACKEND", "vulkan");
        }
    }
    let status = cmd.status().map_err(|e| format!("cannot run cargo: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("cargo {} failed ({status})", args.join(" ")))
    }
}

/// criterion's median time per iteration (ns) of benchmark `id`, from its last run.
fn median_ns(criterion: &Path, id: &str) -> Option<f64> {
    let path = criterion.join(id).join("new").join("estimates.json");
    let text = std::fs::read_to_string(path).ok()?;
    let v: Value = serde_json::from_str(&text).ok()?;
    v["median"]["point_estimate"].as_f64()
}

fn read_records(out: &Path, name: &str) -> Vec<Value> {
    let path = out.join(format!("{name}.json"));
    std::fs::read_to_string(path)
        .ok()
        .and_then(|t| serde_json::from_str::<Vec<Value>>(&t).ok())
        .unwrap_or_default()
}

/// The median of `values` (the mean of the middle two for an even count); `None` when empty.
fn median_of(values: &[f64]) -> Option<f64> {
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    let n = v.len();
    match n {
        0 => None,
        _ if n % 2 == 1 => Some(v[n / 2]),
        _ => Some((v[n / 2 - 1] + v[n / 2]) / 2.0),
    }
}

/// One row per benchmark case with its time (the median over the last run's rounds, from
/// `rounds.json`), plus the targets checked against them.
fn summarise(criterion: &Path, out: &Path) -> Result<Value, String> {
    let rounds: Value = std::fs::read_to_string(out.join("rounds.json"))
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or(Value::Null);
    let mut rows = Vec::new();
    for name in ["pose_pipeline", "hot_paths", "upload"] {
        for r in read_records(out, name) {
            let id = r["id"].as_str().unwrap_or_default().to_owned();
            let per_round: Vec<f64> = rounds[&id]
                .as_array()
                .map(|v| v.iter().filter_map(Value::as_f64).collect())
                .unwrap_or_default();
            let Some(median) = median_of(&per_round).or_else(|| median_ns(criterion, &id)) else {
                continue;
            };
            let characters = r["characters"].as_f64().unwrap_or(1.0).max(1.0);
            let joints = r["joints"].as_f64().unwrap_or(1.0).max(1.0);
            let mut row = r.clone();
            row["median_ns"] = json!(median);
            if per_round.len() > 1 {
                row["round_medians_ns"] = json!(per_round);
            }
            row["ns_per_joint_frame"] = json!(median / (characters * joints));
            row["us_per_character"] = json!(median / characters / 1000.0);
            rows.push(row);
        }
    }
    if rows.is_empty() {
        return Err(
            "no benchmark results found: run `cargo xtask bench` without --summary-only".into(),
        );
    }
    let targets = check_targets(&rows);
    // The core's clock as the pose bench measured it before and after its cases (absent for
    // results older than the probe).
    let core_clock = std::fs::read_to_string(out.join("clock.json"))
        .ok()
        .and_then(|t| serde_json::from_str::<Value>(&t).ok())
        .unwrap_or(Value::Null);
    Ok(json!({
        "schema": "skel-bench-summary/1",
        "clock": "pose benches: the benchmarking thread's CPU time; serial/rayon and upload: wall clock",
        "core_clock_ghz": core_clock,
        "rows": rows,
        "targets": targets,
    }))
}

fn find<'a>(rows: &'a [Value], id: &str) -> Option<&'a Value> {
    rows.iter().find(|r| r["id"] == id)
}

fn per_joint(rows: &[Value], id: &str) -> Option<f64> {
    find(rows, id).and_then(|r| r["ns_per_joint_frame"].as_f64())
}

/// The targets, each with the measured value and whether it is met.
fn check_targets(rows: &[Value]) -> Vec<Value> {
    let mut targets = Vec::new();
    for r in rows
        .iter()
        .filter(|r| r["kind"] == "forward" || r["kind"] == "seek")
    {
        if let (Some(limit), Some(v)) = (r["target_ns"].as_f64(), r["ns_per_joint_frame"].as_f64())
        {
            targets.push(json!({
                "target": format!("{} {} ≤ {limit} ns/joint/frame", r["kind"].as_str().unwrap_or(""), r["asset"].as_str().unwrap_or("")),
                "measured": v,
                "ratio_to_limit": v / limit,
                "met": v <= limit,
            }));
        }
    }
    let scaling: Vec<(f64, f64)> = rows
        .iter()
        .filter(|r| r["kind"] == "scaling")
        .filter_map(|r| Some((r["characters"].as_f64()?, r["ns_per_joint_frame"].as_f64()?)))
        .collect();
    if let Some(&(_, reference)) = scaling.iter().find(|(n, _)| (*n - 100.0).abs() < 0.5) {
        let worst = scaling
            .iter()
            .map(|(_, v)| (v / reference - 1.0).abs())
            .fold(0.0, f64::max);
        targets.push(json!({
            "target": "linear in characters: N = 1, 100, 1 000, 10 000 within ±30 % of N = 100 (ns/joint/frame)",
            "measured": worst,
            "per_n": scaling.iter().map(|(n, v)| json!({"characters": n, "ns_per_joint_frame": v})).collect::<Vec<_>>(),
            "met": worst <= 0.30,
        }));
    }
    let median_of = |kind: &str| {
        rows.iter()
            .find(|r| r["kind"] == kind)
            .and_then(|r| r["median_ns"].as_f64())
    };
    if let (Some(s), Some(p)) = (median_of("serial"), median_of("rayon")) {
        targets.push(json!({
            "target": "rayon ≥ 1.8× serial at 1 000 characters (2 cores, wall clock)",
            "measured": s / p,
            "met": s / p >= 1.8,
        }));
    }
    if let (Some(b3), Some(one)) = (
        per_joint(rows, "blend3/Fox-Survey/100"),
        per_joint(rows, "forward/Fox-Survey/100"),
    ) {
        targets.push(json!({
            "target": "blending 3 clips ≤ 2.5× single-clip forward playback (Fox, N = 100)",
            "measured": b3 / one,
            "met": b3 / one <= 2.5,
        }));
    }
    let allocating: Vec<&str> = rows
        .iter()
        .filter(|r| r["allocations_per_frame"].as_f64().unwrap_or(0.0) > 0.0)
        .filter_map(|r| r["id"].as_str())
        .collect();
    targets.push(json!({
        "target": "zero heap allocations per frame in every path",
        "measured": allocating.len(),
        "allocating": allocating,
        "met": allocating.is_empty(),
    }));
    if let (Some(b), Some(s)) = (median_of("upload-batched"), median_of("upload-separate")) {
        targets.push(json!({
            "target": "upload of 1 000 characters × 64 joints: one batched write no slower than 1 000 separate writes",
            "measured": s / b,
            "met": b <= s,
        }));
    }
    targets
}

fn render_table(summary: &Value) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{:<34} {:>7} {:>6} {:>13} {:>10} {:>11} {:>8}",
        "benchmark", "chars", "J", "ns/joint/fr", "µs/char", "allocs/fr", "target"
    );
    let empty = Vec::new();
    for r in summary["rows"].as_array().unwrap_or(&empty) {
        let target = r["target_ns"]
            .as_f64()
            .map_or_else(String::new, |t| format!("≤ {t}"));
        let _ = writeln!(
            s,
            "{:<34} {:>7} {:>6} {:>13.2} {:>10.3} {:>11} {:>8}",
            r["id"].as_str().unwrap_or(""),
            r["characters"].as_u64().unwrap_or(0),
            r["joints"].as_u64().unwrap_or(0),
            r["ns_per_joint_frame"].as_f64().unwrap_or(f64::NAN),
            r["us_per_character"].as_f64().unwrap_or(f64::NAN),
            r["allocations_per_frame"].as_f64().unwrap_or(f64::NAN),
            target
        );
    }
    let probe = &summary["core_clock_ghz"];
    if let (Some(before), Some(after)) = (probe["ghz_before"].as_f64(), probe["ghz_after"].as_f64())
    {
        let _ = writeln!(
            s,
            "\ncore clock (dependent multiply-add chain): {before:.2} GHz before the pose benches, {after:.2} GHz after"
        );
        let wide = |k: &str| probe[k].as_f64().unwrap_or(f64::NAN);
        let _ = writeln!(
            s,
            "core throughput (eight chains, steps/ns; the clock when the core is ours alone): {:.2} before, {:.2} after",
            wide("throughput_ghz_before"),
            wide("throughput_ghz_after")
        );
    }
    let _ = writeln!(s, "\ntargets:");
    for t in summary["targets"].as_array().unwrap_or(&empty) {
        let _ = writeln!(
            s,
            "  [{}] {} — measured {:.3}",
            if t["met"].as_bool() == Some(true) {
                "met"
            } else {
                "NOT MET"
            },
            t["target"].as_str().unwrap_or(""),
            t["measured"].as_f64().unwrap_or(f64::NAN)
        );
    }
    s
}
