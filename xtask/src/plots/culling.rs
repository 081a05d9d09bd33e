//! The GPU culling plot: one frame of 1 000 000 GPU-posed CesiumMan with half the crowd in
//! view, as `skel bench gpu crowd --posing gpu --cull` measures it: the pose pass and the cull
//! pass stacked, for each bone layout and for the boxes made by the cull pass (from every
//! bone matrix) or by the pose pass (one box an instance), against the 0.5 ms target.

use plotters::prelude::*;
use serde_json::Value;

use super::charts::{COLOURS, category_label, err, legend, svg};
use super::inputs::{median, num, text};

/// The frame time the crowd-culling issue asks for, in milliseconds.
const TARGET_MS: f64 = 0.5;

/// One bar: its label, and the pose and cull medians in milliseconds.
type Bar = (String, f64, f64);

/// A stacked segment of a bar: its legend, and where it starts and ends on the bar.
type Stage = (&'static str, fn(&Bar) -> (f64, f64));

/// The runs' configurations in the order they are drawn: bone layout, who makes the boxes,
/// the pose pass's threads per workgroup.
const CONFIGS: [(&str, &str, f64); 5] = [
    ("4x4", "cull", 64.0),
    ("3x4", "cull", 64.0),
    ("3x4", "pose", 64.0),
    ("3x4", "pose", 128.0),
    ("3x4", "pose", 256.0),
];

/// Pose + cull of 1 000 000 CesiumMan per configuration. Inputs: files of GPU runs, each
/// drawn as its own set of bars (the device and the build named by the caption of the docs).
pub(super) fn pose_cull(inputs: &[Vec<Value>]) -> Result<String, String> {
    let mut bars: Vec<Bar> = Vec::new();
    for (set, runs) in inputs.iter().enumerate() {
        for (layout, boxes, group) in CONFIGS {
            let chosen: Vec<&Value> = runs
                .iter()
                .filter(|r| num(r, "characters") == Ok(1_000_000.0))
                .filter(|r| r.get("cull") == Some(&Value::Bool(true)))
                .filter(|r| text(r, "bone_layout") == Ok(layout))
                .filter(|r| text(r, "bounds") == Ok(boxes))
                .filter(|r| num(r, "pose_group") == Ok(group))
                .collect();
            if chosen.is_empty() {
                continue;
            }
            let mut pose = chosen
                .iter()
                .map(|r| num(r, "pose_gpu_ms"))
                .collect::<Result<Vec<_>, _>>()?;
            let mut cull = chosen
                .iter()
                .map(|r| num(r, "cull_gpu_ms"))
                .collect::<Result<Vec<_>, _>>()?;
            let label = if boxes == "cull" {
                format!("{layout}, cull boxes")
            } else {
                format!("{layout}, pose boxes, {group}")
            };
            let label = if inputs.len() > 1 {
                format!("{label} [{}]", set + 1)
            } else {
                label
            };
            bars.push((label, median(&mut pose), median(&mut cull)));
        }
    }
    if bars.is_empty() {
        return Err("no culled run of 1 000 000 characters".to_owned());
    }
    let first = inputs.iter().flatten().next().ok_or("no runs")?;
    let caption = format!(
        "1 000 000 CesiumMan posed and culled on an {} (half in view, medians)",
        text(first, "adapter")?
    );
    stacked_bars(caption, &bars)
}

/// The bars `(label, pose, cull)` stacked, their sums written above them, against the target.
fn stacked_bars(caption: String, bars: &[Bar]) -> Result<String, String> {
    let top = bars
        .iter()
        .map(|(_, pose, cull)| pose + cull)
        .fold(TARGET_MS, f64::max);
    let names: Vec<String> = bars.iter().map(|(label, _, _)| label.clone()).collect();
    svg(|area| {
        let mut chart = ChartBuilder::on(area)
            .caption(caption, ("sans-serif", 18))
            .margin(12)
            .x_label_area_size(36)
            .y_label_area_size(56)
            .build_cartesian_2d(-0.5..bars.len() as f64 - 0.5, 0.0..top * 1.3)
            .map_err(err)?;
        chart
            .configure_mesh()
            .disable_x_mesh()
            .x_labels(bars.len())
            .x_label_formatter(&|x| category_label(&names, *x))
            .y_desc("ms per frame (GPU timestamps)")
            .label_style(("sans-serif", 11))
            .light_line_style(BLACK.mix(0.04))
            .draw()
            .map_err(err)?;
        let stages: [Stage; 2] = [
            ("pose pass (boxes included where it makes them)", |b| {
                (0.0, b.1)
            }),
            ("cull pass (boxes, frustum, visible list)", |b| {
                (b.1, b.1 + b.2)
            }),
        ];
        for (s, (label, span)) in stages.into_iter().enumerate() {
            let colour = COLOURS[s];
            chart
                .draw_series(bars.iter().enumerate().map(|(i, bar)| {
                    let (y0, y1) = span(bar);
                    Rectangle::new(
                        [(i as f64 - 0.3, y0), (i as f64 + 0.3, y1)],
                        colour.filled(),
                    )
                }))
                .map_err(err)?
                .label(label)
                .legend(move |(x, y)| {
                    Rectangle::new([(x, y - 5), (x + 12, y + 5)], colour.filled())
                });
        }
        chart
            .draw_series(bars.iter().enumerate().map(|(i, (_, pose, cull))| {
                Text::new(
                    format!("{:.2} ms", pose + cull),
                    (i as f64 - 0.25, pose + cull + top * 0.03),
                    ("sans-serif", 12),
                )
            }))
            .map_err(err)?;
        let target = COLOURS[3];
        chart
            .draw_series(LineSeries::new(
                [(-0.5, TARGET_MS), (bars.len() as f64 - 0.5, TARGET_MS)],
                target.stroke_width(2),
            ))
            .map_err(err)?
            .label("target: 0.5 ms for pose, boxes and cull")
            .legend(move |(x, y)| PathElement::new([(x, y), (x + 12, y)], target.stroke_width(2)));
        legend(&mut chart, SeriesLabelPosition::UpperLeft)
    })
}

/// The baked runs drawn, in order: the build, `--bounds` (empty: no cull), whether the
/// instances in view are scattered, whether a tenth is in view (else half), and the label.
const BAKED_RUNS: [(&str, &str, bool, bool, &str); 6] = [
    ("base", "", false, false, "pose alone"),
    ("base", "pose", false, false, "everyone posed"),
    ("base", "seen", false, false, "seen, every box read"),
    ("skel", "seen", false, false, "seen, listed"),
    ("skel", "seen", true, false, "listed, scattered"),
    ("skel", "seen", false, true, "listed, a tenth"),
];

/// Pose + cull of 1 000 000 baked CesiumMan (3×4 bones, boxes by the advance pass): posing
/// everyone, posing only the instances the cull keeps after reading every box (`base`), and
/// over the cull's list (`skel`). Input: one file of runs, each with the `build` it ran and
/// its `args` (added to the bench's JSON when the file was committed).
pub(super) fn baked_cull(inputs: &[Vec<Value>]) -> Result<String, String> {
    let runs = inputs.first().ok_or("no input")?;
    let mut bars: Vec<Bar> = Vec::new();
    for (build, bounds, scatter, tenth, label) in BAKED_RUNS {
        let chosen: Vec<&Value> = runs
            .iter()
            .filter(|r| num(r, "characters") == Ok(1_000_000.0))
            .filter(|r| text(r, "build") == Ok(build))
            .filter(|r| text(r, "bounds").unwrap_or("") == bounds)
            .filter(|r| text(r, "args").is_ok_and(|a| a.contains("--scatter") == scatter))
            .filter(|r| text(r, "args").is_ok_and(|a| a.contains("--in-view 0.1") == tenth))
            .collect();
        if chosen.is_empty() {
            return Err(format!(
                "no run of {build} with bounds {bounds:?} ({label})"
            ));
        }
        let mut pose = chosen
            .iter()
            .map(|r| num(r, "pose_gpu_ms"))
            .collect::<Result<Vec<_>, _>>()?;
        let mut cull: Vec<f64> = chosen
            .iter()
            .filter_map(|r| num(r, "cull_gpu_ms").ok())
            .collect();
        let cull = if cull.is_empty() {
            0.0
        } else {
            median(&mut cull)
        };
        bars.push((label.to_owned(), median(&mut pose), cull));
    }
    let first = runs.first().ok_or("no runs")?;
    let caption = format!(
        "1 000 000 baked CesiumMan on an {} (3×4, half in view unless said, medians)",
        text(first, "adapter")?
    );
    stacked_bars(caption, &bars)
}
