//! `cargo xtask bench --vs-ozz SNAPSHOT`: skel's pose pipeline next to ozz-animation 0.16 doing
//! the same frame (sampling, local → model, skinning matrices; N characters with their own
//! contexts and time phases), in instructions (valgrind, by difference, as `--instructions`)
//! and in time (interleaved rounds, medians). `scripts/ozz/build.sh` builds ozz and our
//! harness (`scripts/ozz/harness.cc`) from the snapshot into `target/ozz/` and converts the
//! assets with ozz's `gltf2ozz`; nothing of ozz enters the repository. Optional: CI has no ozz.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Value, json};

use crate::bench_count::{
    ASSETS, CHARACTERS, Counted, build_driver, count_pipeline, driver_joints, ensure_valgrind,
    field, run_line, target_dir,
};

/// Timed frames per timing run (and untimed ones before them).
const TIMED_FRAMES: usize = 300;
const TIMED_WARMUP: usize = 60;

/// The shared files the assets come from (`../shared/assets`); the generated rigs are exported.
fn shared_file(asset: &str) -> Option<&'static str> {
    match asset {
        "CesiumMan" => Some("CesiumMan/CesiumMan.glb"),
        "Fox-Survey" => Some("Fox/Fox.glb"),
        "RiggedFigure" => Some("RiggedFigure/RiggedFigure.glb"),
        _ => None,
    }
}

/// The median of `values`; NaN when empty.
fn median(values: &[f64]) -> f64 {
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    match v.len() {
        0 => f64::NAN,
        n if n % 2 == 1 => v[n / 2],
        n => (v[n / 2 - 1] + v[n / 2]) / 2.0,
    }
}

/// What [`prepare`] leaves: the driver, ozz's harness, the work folder (`target/ozz`, one
/// folder per asset under `assets/` with its `.ozz` files and `skin.txt`), the output folder
/// (`target/bench`) and the assets that pass the filter.
pub(crate) struct Prepared {
    pub(crate) driver: PathBuf,
    pub(crate) harness: PathBuf,
    pub(crate) work: PathBuf,
    pub(crate) out: PathBuf,
    pub(crate) assets: Vec<&'static str>,
}

/// Builds the driver, ozz and the harness, and converts the assets (the generated rigs
/// exported as glTF first) with gltf2ozz; writes each asset's `skin.txt`.
pub(crate) fn prepare(snapshot: &Path, filter: Option<&str>) -> Result<Prepared, String> {
    let root = crate::workspace_root();
    let driver = build_driver(&root)?;
    let target = target_dir(&root);
    let work = target.join("ozz");
    let out = target.join("bench");
    let rigs = work.join("rigs");
    for dir in [&rigs, &out] {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    let assets: Vec<&str> = ASSETS
        .iter()
        .copied()
        .filter(|a| filter.is_none_or(|f| a.contains(f)))
        .collect();

    // 1. Every asset as a glTF file for gltf2ozz.
    let mut pairs = Vec::new();
    for &asset in &assets {
        let file = match shared_file(asset) {
            Some(f) => root.join("../shared/assets").join(f),
            None => {
                let f = rigs.join(format!("{asset}.gltf"));
                run_line(&driver, &["export", asset, &f.to_string_lossy()])?;
                f
            }
        };
        pairs.push(format!("{asset}={}", file.display()));
    }
    // 2. ozz, the harness and the conversions.
    let script = root.join("scripts/ozz/build.sh");
    eprintln!(
        "xtask bench: {} {} {}",
        script.display(),
        snapshot.display(),
        work.display()
    );
    let output = Command::new("bash")
        .arg(&script)
        .arg(snapshot)
        .arg(&work)
        .args(&pairs)
        .stderr(std::process::Stdio::inherit())
        .output()
        .map_err(|e| format!("cannot run {}: {e}", script.display()))?;
    if !output.status.success() {
        return Err(format!("{} failed ({})", script.display(), output.status));
    }
    let harness = work.join("harness");
    // 3. The bones each harness character skins, as skel binds them.
    for &asset in &assets {
        let dir = work.join("assets").join(asset);
        run_line(&driver, &["skin", asset, &dir.to_string_lossy()])?;
    }
    Ok(Prepared {
        driver,
        harness,
        work,
        out,
        assets,
    })
}

/// Builds ozz and the harness, converts the assets, counts and times both sides, prints the
/// side-by-side table and writes `target/bench/vs_ozz.json`.
pub(crate) fn run(snapshot: &Path, rounds: usize, filter: Option<&str>) -> Result<(), String> {
    ensure_valgrind()?;
    let Prepared {
        driver,
        harness,
        work,
        out,
        assets,
    } = prepare(snapshot, filter)?;

    // 4. Instructions, by difference, for both.
    let mut rows = Vec::new();
    for &asset in &assets {
        let joints = driver_joints(&driver, asset)?;
        let dir = work
            .join("assets")
            .join(asset)
            .to_string_lossy()
            .into_owned();
        eprintln!("xtask bench: counting {asset} under valgrind (skel, ozz)");
        let skel = count_pipeline(&driver, &["run".into(), asset.into()], joints, &out)?;
        let ozz = count_pipeline(&harness, &[dir], joints, &out)?;
        rows.push(Row {
            asset,
            joints,
            skel,
            ozz,
            skel_ns: Vec::new(),
            ozz_ns: Vec::new(),
            ozz_joints: 0,
        });
    }

    // 5. Time: each round runs every asset on both sides, alternating which goes first.
    let frames = TIMED_FRAMES.to_string();
    let warmup = TIMED_WARMUP.to_string();
    let n = CHARACTERS.to_string();
    for round in 0..rounds {
        eprintln!("xtask bench: timing round {} of {rounds}", round + 1);
        for row in &mut rows {
            let dir = work.join("assets").join(row.asset);
            let dir = dir.to_string_lossy();
            let skel_args = ["run", row.asset, &n, &warmup, &frames];
            let ozz_args = [&*dir, &n, &warmup, &frames];
            for side in [round % 2, 1 - round % 2] {
                if side == 0 {
                    let line = run_line(&driver, &skel_args)?;
                    row.skel_ns.extend(field(&line, "ns_per_frame"));
                } else {
                    let line = run_line(&harness, &ozz_args)?;
                    row.ozz_ns.extend(field(&line, "ns_per_frame"));
                    row.ozz_joints = field(&line, "joints").map_or(0, |j| j as usize);
                }
            }
        }
    }
    let table = render(&rows, rounds);
    print!("{table}");
    let path = out.join("vs_ozz.json");
    let doc = json!({
        "schema": "skel-bench-vs-ozz/1",
        "machine": crate::bench_count::machine(),
        "characters": CHARACTERS,
        "timing": {"rounds": rounds, "warmup_frames": TIMED_WARMUP, "timed_frames": TIMED_FRAMES},
        "rows": rows.iter().map(Row::to_json).collect::<Vec<_>>(),
    });
    let text = serde_json::to_string_pretty(&doc).map_err(|e| e.to_string())?;
    std::fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()))?;
    eprintln!("xtask bench: wrote {}", path.display());
    Ok(())
}

/// One asset's measurements on both sides.
struct Row<'a> {
    asset: &'a str,
    /// skel's J (distinct joints over the skins): both sides are divided by it.
    joints: usize,
    skel: Counted,
    ozz: Counted,
    /// ns per frame (N characters) of each timing run.
    skel_ns: Vec<f64>,
    ozz_ns: Vec<f64>,
    /// Joints of ozz's skeleton (gltf2ozz's, from the skins' roots down).
    ozz_joints: usize,
}

impl Row<'_> {
    #[expect(clippy::cast_precision_loss, reason = "small counts")]
    fn per_joint(&self, ns: &[f64]) -> f64 {
        median(ns) / (CHARACTERS * self.joints) as f64
    }

    fn to_json(&self) -> Value {
        json!({
            "asset": self.asset,
            "joints": self.joints,
            "ozz_skeleton_joints": self.ozz_joints,
            "skel": self.skel.to_json(),
            "ozz": self.ozz.to_json(),
            "instructions_ratio": self.skel.per_joint_frame / self.ozz.per_joint_frame,
            "skel_ns_per_frame": self.skel_ns,
            "ozz_ns_per_frame": self.ozz_ns,
            "skel_median_ns_per_joint_frame": self.per_joint(&self.skel_ns),
            "ozz_median_ns_per_joint_frame": self.per_joint(&self.ozz_ns),
            "time_ratio": median(&self.skel_ns) / median(&self.ozz_ns),
        })
    }
}

fn render(rows: &[Row<'_>], rounds: usize) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{:<14} {:>4} {:>11} {:>11} {:>9} {:>11} {:>11} {:>9}",
        "asset", "J", "skel instr", "ozz instr", "skel/ozz", "skel ns", "ozz ns", "skel/ozz"
    );
    for r in rows {
        let _ = writeln!(
            s,
            "{:<14} {:>4} {:>11.1} {:>11.1} {:>9.3} {:>11.2} {:>11.2} {:>9.3}",
            r.asset,
            r.joints,
            r.skel.per_joint_frame,
            r.ozz.per_joint_frame,
            r.skel.per_joint_frame / r.ozz.per_joint_frame,
            r.per_joint(&r.skel_ns),
            r.per_joint(&r.ozz_ns),
            median(&r.skel_ns) / median(&r.ozz_ns),
        );
    }
    let _ = writeln!(
        s,
        "\nper joint-frame, N = {CHARACTERS}, forward playback at 60 fps, J = skel's joints on both \
         sides; instructions: valgrind cachegrind, by difference of two runs; time: wall clock, \
         median of {rounds} interleaved rounds of {TIMED_FRAMES} frames"
    );
    s
}

#[cfg(test)]
mod tests {
    use super::median;

    #[test]
    fn median_of_odd_and_even_counts() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0, 3.0, 2.0]), 2.5);
        assert!(median(&[]).is_nan());
    }
}
