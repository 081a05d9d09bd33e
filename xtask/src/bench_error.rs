//! `cargo xtask bench --shell-error SNAPSHOT`: the error of ozz-animation's optimised
//! animations (what `gltf2ozz` writes with its defaults) against skel's lossless sampling,
//! measured as the Animation Compression Library measures it: a virtual shell of 3 cm (in the
//! asset's units) around each joint, in the skeleton's model space, at 240 Hz and at every key
//! time of the clip. The metric and the comparison are `crates/skel-gltf/examples/
//! shell_error.rs`; ozz's model matrices come from our harness (`scripts/ozz/harness.cc
//! --model`). This is the bound set for skel's compressed clips: no larger
//! error than ozz's own. Each asset's second row is skel's compressed clips
//! (`RigOptions::compression`, ACL's default bound) measured the same way (`shell_error skel`).

use std::fmt::Write as _;
use std::path::Path;

use serde_json::{Value, json};

use crate::bench_count::{build_example, field, machine, run_line};
use crate::bench_ozz::{Prepared, prepare};

/// Measures every asset that passes `filter`, prints the table and writes
/// `target/bench/shell_error.json`.
pub(crate) fn run(snapshot: &Path, filter: Option<&str>) -> Result<(), String> {
    let Prepared {
        harness,
        work,
        out,
        assets,
        ..
    } = prepare(snapshot, filter)?;
    let program = build_example(&crate::workspace_root(), "shell_error")?;
    let mut rows = Vec::new();
    for asset in assets {
        let dir = work.join("assets").join(asset);
        let times = dir.join("times.txt").to_string_lossy().into_owned();
        let dump = dir.join("model.txt").to_string_lossy().into_owned();
        run_line(&program, &["times", asset, &times])?;
        eprintln!("xtask bench: ozz's model matrices of {asset}");
        run_line(
            &harness,
            &["--model", &dir.to_string_lossy(), &times, &dump],
        )?;
        let line = run_line(&program, &["ozz", asset, &dump])?;
        rows.push(Row::parse(asset, "ozz", &line));
        let line = run_line(&program, &["skel", asset])?;
        rows.push(Row::parse(asset, "skel", &line));
    }
    let table = render(&rows);
    print!("{table}");
    let path = out.join("shell_error.json");
    let doc = json!({
        "schema": "skel-bench-shell-error/1",
        "machine": machine(),
        "rows": rows.iter().map(|r| r.json.clone()).collect::<Vec<_>>(),
    });
    let text = serde_json::to_string_pretty(&doc).map_err(|e| e.to_string())?;
    std::fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()))?;
    eprintln!("xtask bench: wrote {}", path.display());
    Ok(())
}

/// One asset's error figures from one line of `shell_error`.
struct Row {
    asset: String,
    side: &'static str,
    joints: f64,
    times: f64,
    max_cm: f64,
    p99_cm: f64,
    /// Raw f32 keys over the lossy keys' bytes.
    ratio: f64,
    json: Value,
}

impl Row {
    fn parse(asset: &str, side: &'static str, line: &str) -> Self {
        let f = |k: &str| field(line, k).unwrap_or(f64::NAN);
        Self {
            asset: asset.to_owned(),
            side,
            joints: f("joints"),
            times: f("times"),
            max_cm: f("max_cm"),
            p99_cm: f("p99_cm"),
            ratio: f("ratio_raw"),
            json: json!({"asset": asset, "side": side, "line": line}),
        }
    }
}

fn render(rows: &[Row]) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{:<14} {:<6} {:>4} {:>6} {:>12} {:>12} {:>10}",
        "asset", "side", "J", "times", "max (cm)", "p99 (cm)", "raw/size"
    );
    for r in rows {
        let _ = writeln!(
            s,
            "{:<14} {:<6} {:>4} {:>6} {:>12.5} {:>12.5} {:>10.2}",
            r.asset, r.side, r.joints, r.times, r.max_cm, r.p99_cm, r.ratio
        );
    }
    let _ = writeln!(
        s,
        "\nshell error against skel's lossless sampling: points 3 cm along each joint's axes (in \
         the asset's units), model space, 240 Hz and every key time; ACL's default bound is \
         0.01 cm. ozz: gltf2ozz's optimised animations; skel: compressed clips at that bound. \
         raw/size: the clip's f32 keys over the lossy keys' bytes"
    );
    s
}

#[cfg(test)]
mod tests {
    use super::Row;

    #[test]
    fn a_line_parses_into_its_figures() {
        let line = "asset Fox-Survey joints 24 times 301 unit_m 0.01 shell 3 max_cm 0.31 \
                    p99_cm 0.12 p50_cm 0.01 worst b_Tail at 1.5 ratio_raw 4.92";
        let r = Row::parse("Fox-Survey", "ozz", line);
        assert_eq!((r.joints, r.times), (24.0, 301.0));
        assert_eq!((r.max_cm, r.p99_cm, r.ratio), (0.31, 0.12, 4.92));
        assert!(Row::parse("x", "ozz", "no figures").max_cm.is_nan());
    }
}
