//! `cargo xtask plots`: draws the benchmark plots of `docs/plots/` from committed JSON results.
//!
//! A figure in the docs is only as good as the record behind it, so every plot reads a file
//! that is committed next to it (`docs/results/*.json` for CPU figures, the raw JSON of
//! `docs/h200/<date>/` for the GPU ones) and nothing else: no plot carries a number of its
//! own. The SVGs are committed too, so the docs show them on any forge; `--check` redraws them
//! in memory and fails when a committed file differs, i.e. when a result changed and its plot
//! was not redrawn.
//!
//! plotters is built without its `ttf` feature: the SVG backend writes text as `<text>`
//! elements that the viewer lays out, so no font file or system font library is needed, and
//! the output depends on nothing but the JSON (the same bytes on every machine).

use std::path::Path;

use serde_json::Value;

mod acl;
mod charts;
mod culling;
mod inputs;
mod posing;
mod springs;

use charts::{
    compression_error_size, compute_throughput, cpu_vs_ozz_instructions, crowd_frame,
    layers_instructions,
};
use inputs::read_json;
use posing::posing_scaling;

/// Draw docs/plots/*.svg from the committed JSON results (docs/results/, docs/h200/); with
/// --check, fail if a committed SVG differs from what its JSON draws.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// Draw in memory and compare with the committed SVGs instead of writing them.
    #[arg(long)]
    pub(crate) check: bool,
}

/// Where the plots go, relative to the workspace root.
const PLOTS_DIR: &str = "docs/plots";

/// One plot: its file name, the JSON files it reads and how it is drawn from them.
struct Plot {
    /// File name under `docs/plots/`.
    file: &'static str,
    /// The JSON files it reads, relative to the workspace root (a `.jsonl` file holds several
    /// JSON objects one after the other).
    inputs: &'static [&'static str],
    /// Draws the plot from the parsed inputs (in `inputs`' order) into an SVG string.
    draw: fn(&[Vec<Value>]) -> Result<String, String>,
}

/// Every plot the docs show.
const PLOTS: [Plot; 10] = [
    Plot {
        file: "cpu_vs_ozz_instructions.svg",
        inputs: &["docs/results/cpu_vs_ozz.json"],
        draw: cpu_vs_ozz_instructions,
    },
    Plot {
        file: "layers_instructions.svg",
        inputs: &["docs/results/layers.json"],
        draw: layers_instructions,
    },
    Plot {
        file: "compression_error_size.svg",
        inputs: &["docs/results/compression.json"],
        draw: compression_error_size,
    },
    Plot {
        file: "compression_vs_acl.svg",
        inputs: &[
            "docs/results/acl_compare.json",
            "docs/results/acl_compare_variable.json",
            "docs/results/compression.json",
        ],
        draw: acl::compression_vs_acl,
    },
    Plot {
        file: "compute_throughput.svg",
        inputs: &[
            "docs/h200/2026-11-29/compute_throughput.json",
            "docs/h200/2026-12-01/gpu16b_compute_16_r3.json",
        ],
        draw: compute_throughput,
    },
    Plot {
        file: "crowd_frame.svg",
        inputs: &[
            "docs/h200/2026-12-01/gpu16b_crowd_1000.json",
            "docs/h200/2026-12-01/gpu16b_crowd.jsonl",
            "docs/h200/2026-12-01/gpu16b_crowd2.jsonl",
        ],
        draw: crowd_frame,
    },
    Plot {
        file: "posing_scaling.svg",
        inputs: &[
            "docs/h200/2026-12-02/posing_final_gpu.jsonl",
            "docs/h200/2026-12-02/posing_final_cpu.jsonl",
        ],
        draw: posing_scaling,
    },
    Plot {
        file: "pose_cull.svg",
        inputs: &["docs/h200/2026-12-06/cull_cull.jsonl"],
        draw: culling::pose_cull,
    },
    Plot {
        file: "baked_cull.svg",
        inputs: &["docs/h200/2026-12-07/seen/listed_w.jsonl"],
        draw: culling::baked_cull,
    },
    Plot {
        file: "spring_rates.svg",
        inputs: &["docs/results/spring_rates.json"],
        draw: springs::spring_rates,
    },
];

/// Draws every plot into `docs/plots/`, or with `check` compares them with the committed files
/// and fails naming each one that is missing, stale or no longer drawn.
pub(crate) fn run(check: bool) -> Result<(), String> {
    let root = crate::workspace_root();
    let rendered = render_all(&root)?;
    let dir = root.join(PLOTS_DIR);
    if !check {
        std::fs::create_dir_all(&dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        for (file, svg) in &rendered {
            let path = dir.join(file);
            std::fs::write(&path, svg)
                .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
            eprintln!("xtask plots: wrote {}", path.display());
        }
        return Ok(());
    }
    let mut problems = Vec::new();
    for (file, svg) in &rendered {
        match std::fs::read_to_string(dir.join(file)) {
            Ok(committed) if committed == *svg => {}
            Ok(_) => problems.push(format!(
                "{PLOTS_DIR}/{file} differs from what its JSON draws"
            )),
            Err(_) => problems.push(format!("{PLOTS_DIR}/{file} is missing")),
        }
    }
    // An SVG that no plot draws any more would go on showing a figure nobody can reproduce.
    for entry in
        std::fs::read_dir(&dir).map_err(|e| format!("cannot read {}: {e}", dir.display()))?
    {
        let name = entry.map_err(|e| e.to_string())?.file_name();
        let name = name.to_string_lossy();
        if name.ends_with(".svg") && !rendered.iter().any(|(file, _)| *file == name) {
            problems.push(format!("{PLOTS_DIR}/{name} is drawn by no plot"));
        }
    }
    if problems.is_empty() {
        eprintln!(
            "xtask plots --check: {} plots match their JSON",
            rendered.len()
        );
        Ok(())
    } else {
        Err(format!(
            "{}\nrun `cargo xtask plots` and commit docs/plots/",
            problems.join("\n")
        ))
    }
}

/// Parses every plot's inputs under `root` and draws it: `(file name, SVG text)` per plot.
fn render_all(root: &Path) -> Result<Vec<(&'static str, String)>, String> {
    PLOTS
        .iter()
        .map(|plot| {
            let inputs = plot
                .inputs
                .iter()
                .map(|input| read_json(&root.join(input)))
                .collect::<Result<Vec<_>, _>>()?;
            let svg = (plot.draw)(&inputs).map_err(|e| format!("{}: {e}", plot.file))?;
            Ok((plot.file, svg))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::charts::category_label;
    use super::inputs::median;
    use super::*;

    /// Every plot's inputs parse and every plot renders: into a temporary directory, so that
    /// the test never touches the committed SVGs.
    #[test]
    fn every_plot_renders_from_its_committed_json() {
        let root = crate::workspace_root();
        let rendered = render_all(&root).unwrap();
        assert_eq!(rendered.len(), PLOTS.len());
        let dir = std::env::temp_dir().join(format!("skel-xtask-plots-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        for (file, svg) in &rendered {
            assert!(svg.starts_with("<svg"), "{file} is not an SVG");
            // Text stays text: no glyph outlines, so no font library was needed to draw it.
            assert!(svg.contains("<text"), "{file} has no text");
            assert!(svg.contains("<rect") || svg.contains("<circle") || svg.contains("<polyline"));
            std::fs::write(dir.join(file), svg).unwrap();
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// Each plot's inputs exist and hold JSON, named one by one so a failure says which.
    #[test]
    fn every_input_parses() {
        let root = crate::workspace_root();
        for plot in &PLOTS {
            for input in plot.inputs {
                let values = read_json(&root.join(input)).unwrap();
                assert!(!values.is_empty(), "{input}");
            }
        }
    }

    /// The crowd plot's medians take the upper middle value of an even count.
    #[test]
    fn median_takes_the_upper_middle() {
        assert_eq!(median(&mut [3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&mut [4.0, 1.0, 3.0, 2.0]), 3.0);
    }

    /// Bar labels sit on whole category positions only.
    #[test]
    fn category_labels_only_at_whole_positions() {
        let names = vec!["a".to_string(), "b".to_string()];
        assert_eq!(category_label(&names, 1.0), "b");
        assert_eq!(category_label(&names, 0.5), "");
        assert_eq!(category_label(&names, 2.0), "");
        assert_eq!(category_label(&names, -1.0), "");
    }
}
