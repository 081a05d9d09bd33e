//! `cargo xtask bench --instructions`: instructions per joint-frame of the pose pipeline,
//! counted by valgrind (`cachegrind --cache-sim=no`) as the difference of two runs of the
//! driver program (`crates/skel-gltf/examples/pose_frames.rs`) that differ only in the number
//! of timed frames, so loading, set-up and warm-up cancel out. Unlike time, the count does not
//! move with the neighbours on a shared machine: use it for every A/B decision, and time
//! (interleaved rounds, medians) to confirm. `docs/benchmarks.md` has the method.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Value, json};

/// The benchmark assets, in the order of the tables (names as `pose_frames list` gives them).
pub(crate) const ASSETS: [&str; 5] = [
    "CesiumMan",
    "Fox-Survey",
    "RiggedFigure",
    "Walk67",
    "Rig368",
];
/// Characters per frame (the N).
pub(crate) const CHARACTERS: usize = 100;
/// Untimed frames before the counted ones (cursors placed, caches and branch history warm).
pub(crate) const WARMUP: usize = 10;
/// Timed frames of the short and the long run: the count is (long − short) / the difference.
pub(crate) const FRAMES: (usize, usize) = (20, 80);

/// The driver's executable, built in release (the `bench` profile's settings).
pub(crate) fn build_driver(root: &Path) -> Result<PathBuf, String> {
    build_example(root, "pose_frames")
}

/// Example `name` of skel-gltf, built in release; its executable.
pub(crate) fn build_example(root: &Path, name: &str) -> Result<PathBuf, String> {
    let args = ["build", "--release", "-p", "skel-gltf", "--example", name];
    eprintln!("xtask bench: cargo {}", args.join(" "));
    let status = Command::new(env!("CARGO"))
        .args(args)
        .current_dir(root)
        .status()
        .map_err(|e| format!("cannot run cargo: {e}"))?;
    if !status.success() {
        return Err(format!("cargo {} failed ({status})", args.join(" ")));
    }
    Ok(target_dir(root).join("release/examples").join(name))
}

/// `CARGO_TARGET_DIR`, or `target/` under the workspace root.
pub(crate) fn target_dir(root: &Path) -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| root.join("target"), PathBuf::from)
}

/// Installs valgrind with apt-get when `valgrind` is not on the path.
pub(crate) fn ensure_valgrind() -> Result<(), String> {
    let found = Command::new("valgrind")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if found {
        return Ok(());
    }
    eprintln!("xtask bench: valgrind missing; installing it with apt-get");
    apt_install("valgrind")
}

/// `apt-get install -y PACKAGE` (through sudo unless root), after `apt-get update` if the first
/// attempt fails.
pub(crate) fn apt_install(package: &str) -> Result<(), String> {
    let root = Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0");
    let apt = |args: &[&str]| {
        let mut cmd = if root {
            Command::new("apt-get")
        } else {
            let mut c = Command::new("sudo");
            c.arg("apt-get");
            c
        };
        cmd.args(args)
            .env("DEBIAN_FRONTEND", "noninteractive")
            .status()
            .is_ok_and(|s| s.success())
    };
    if apt(&["install", "-y", package]) || (apt(&["update"]) && apt(&["install", "-y", package])) {
        Ok(())
    } else {
        Err(format!("apt-get install {package} failed"))
    }
}

/// Instructions executed by `program args` under cachegrind (its `summary:` line).
pub(crate) fn count(program: &Path, args: &[String], scratch: &Path) -> Result<u64, String> {
    let out = scratch.join("cachegrind.out");
    let output = Command::new("valgrind")
        .arg("--tool=cachegrind")
        .arg("--cache-sim=no")
        .arg(format!("--cachegrind-out-file={}", out.display()))
        .arg(program)
        .args(args)
        .output()
        .map_err(|e| format!("cannot run valgrind: {e}"))?;
    if !output.status.success() {
        return Err(format!(
            "valgrind {} {} failed: {}",
            program.display(),
            args.join(" "),
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    let text = std::fs::read_to_string(&out).map_err(|e| format!("{}: {e}", out.display()))?;
    text.lines()
        .find_map(|l| l.strip_prefix("summary:"))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|v| v.parse().ok())
        .ok_or_else(|| format!("{}: no summary line", out.display()))
}

/// One program's figure for one asset: the two raw counts and the per-joint-frame result.
#[derive(Debug, Clone)]
pub(crate) struct Counted {
    /// Instructions of the short and of the long run.
    pub(crate) runs: (u64, u64),
    /// (long − short) / (frame difference × characters × joints).
    pub(crate) per_joint_frame: f64,
}

impl Counted {
    pub(crate) fn to_json(&self) -> Value {
        json!({
            "instructions_short_run": self.runs.0,
            "instructions_long_run": self.runs.1,
            "instructions_per_joint_frame": self.per_joint_frame,
        })
    }
}

/// Counts `program` run as `prefix… CHARACTERS WARMUP FRAMES` at both frame counts.
pub(crate) fn count_pipeline(
    program: &Path,
    prefix: &[String],
    joints: usize,
    scratch: &Path,
) -> Result<Counted, String> {
    let args = |frames: usize| {
        let mut a = prefix.to_vec();
        a.extend([CHARACTERS, WARMUP, frames].map(|v| v.to_string()));
        a
    };
    let short = count(program, &args(FRAMES.0), scratch)?;
    let long = count(program, &args(FRAMES.1), scratch)?;
    #[expect(clippy::cast_precision_loss, reason = "counts far below 2^52")]
    let per_joint_frame = long.saturating_sub(short) as f64
        / ((FRAMES.1 - FRAMES.0) * CHARACTERS * joints.max(1)) as f64;
    Ok(Counted {
        runs: (short, long),
        per_joint_frame,
    })
}

/// The joint count the driver reports for `asset` (the `joints` of its `run` line, the same J
/// as the criterion benches).
pub(crate) fn driver_joints(driver: &Path, asset: &str) -> Result<usize, String> {
    let line = run_line(driver, &["run", asset, "1", "0", "0"])?;
    field(&line, "joints")
        .map(|v| v as usize)
        .ok_or_else(|| format!("pose_frames run {asset}: no joint count in {line:?}"))
}

/// Runs `program args` and returns its stdout's last line.
pub(crate) fn run_line(program: &Path, args: &[&str]) -> Result<String, String> {
    let output = Command::new(program)
        .args(args)
        .output()
        .map_err(|e| format!("cannot run {}: {e}", program.display()))?;
    if !output.status.success() {
        return Err(format!(
            "{} {} failed: {}",
            program.display(),
            args.join(" "),
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    Ok(String::from_utf8_lossy(&output.stdout)
        .lines()
        .last()
        .unwrap_or_default()
        .to_owned())
}

/// The number after `key` in a `key value key value …` line.
pub(crate) fn field(line: &str, key: &str) -> Option<f64> {
    let mut words = line.split_whitespace();
    while let Some(w) = words.next() {
        if w == key {
            return words.next()?.parse().ok();
        }
    }
    None
}

/// The machine, for the records: /proc/cpuinfo's first model name and the logical CPU count,
/// and the time of the measurement (seconds since 1970, UTC).
pub(crate) fn machine() -> Value {
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let model = cpuinfo
        .lines()
        .find_map(|l| l.strip_prefix("model name"))
        .map(|v| v.trim_start_matches([' ', '\t', ':']).to_owned());
    let cpus = cpuinfo
        .lines()
        .filter(|l| l.starts_with("processor"))
        .count();
    let unix = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    json!({"cpu": model, "logical_cpus": cpus, "unix_time": unix})
}

/// `cargo xtask bench --instructions [FILTER]`: prints skel's instructions per joint-frame per
/// asset and writes `target/bench/instructions.json`.
pub(crate) fn run(filter: Option<&str>) -> Result<(), String> {
    let root = crate::workspace_root();
    ensure_valgrind()?;
    let driver = build_driver(&root)?;
    let out = target_dir(&root).join("bench");
    std::fs::create_dir_all(&out).map_err(|e| format!("{}: {e}", out.display()))?;
    let mut table = String::new();
    let _ = writeln!(
        table,
        "{:<14} {:>5} {:>16} {:>16} {:>14}",
        "asset", "J", "instr (20 fr)", "instr (80 fr)", "instr/joint-fr"
    );
    let mut rows = Vec::new();
    for asset in ASSETS
        .iter()
        .filter(|a| filter.is_none_or(|f| a.contains(f)))
    {
        let joints = driver_joints(&driver, asset)?;
        eprintln!("xtask bench: counting {asset} under valgrind");
        let c = count_pipeline(&driver, &["run".into(), (*asset).into()], joints, &out)?;
        let _ = writeln!(
            table,
            "{asset:<14} {joints:>5} {:>16} {:>16} {:>14.1}",
            c.runs.0, c.runs.1, c.per_joint_frame
        );
        let mut row = c.to_json();
        row["asset"] = json!(asset);
        row["joints"] = json!(joints);
        rows.push(row);
    }
    print!("{table}");
    println!(
        "\nN = {CHARACTERS} characters, forward playback at 60 fps; valgrind cachegrind \
         --cache-sim=no; ({} − {} frames) after {WARMUP} warm-up frames",
        FRAMES.1, FRAMES.0
    );
    let path = out.join("instructions.json");
    let doc = json!({
        "schema": "skel-bench-instructions/1",
        "machine": machine(),
        "characters": CHARACTERS, "warmup": WARMUP, "frames": [FRAMES.0, FRAMES.1],
        "rows": rows,
    });
    let text = serde_json::to_string_pretty(&doc).map_err(|e| e.to_string())?;
    std::fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()))?;
    eprintln!("xtask bench: wrote {}", path.display());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::field;

    #[test]
    fn field_reads_the_number_after_its_key() {
        let line = "frames 80 characters 100 joints 19 ns_per_frame 41234.5 checksum -98.1";
        assert_eq!(field(line, "joints"), Some(19.0));
        assert_eq!(field(line, "ns_per_frame"), Some(41_234.5));
        assert_eq!(field(line, "checksum"), Some(-98.1));
        assert_eq!(field(line, "bones"), None);
        assert_eq!(field("joints", "joints"), None);
        assert_eq!(field("joints many", "joints"), None);
    }
}
