//! The crowd-posing plot: how long posing a crowd of CesiumMan takes against the number of
//! characters, on the GPU (`skel bench gpu crowd --posing gpu`, per layout) and on the CPU
//! (`--posing cpu`: pose on 16 threads plus the bone upload the GPU path does not need).

use plotters::prelude::*;
use serde_json::Value;

use super::charts::{COLOURS, err, legend, svg};
use super::inputs::{median, num, text};

/// One line of the plot: its label and its (characters, milliseconds) points, in order.
type Line = (String, Vec<(f64, f64)>);

/// Medians per character count of `value(run)` over the runs that `keep` selects: one clip,
/// every frame posed (no blend, LOD 1), as the headline figures are taken.
fn medians(
    runs: &[&Value],
    keep: impl Fn(&Value) -> bool,
    value: impl Fn(&Value) -> Result<f64, String>,
) -> Result<Vec<(f64, f64)>, String> {
    let chosen: Vec<&Value> = runs
        .iter()
        .copied()
        .filter(|r| keep(r))
        .filter(|r| r.get("blend") == Some(&Value::Bool(false)) && num(r, "lod") == Ok(1.0))
        .collect();
    let mut sizes: Vec<f64> = chosen
        .iter()
        .map(|r| num(r, "characters"))
        .collect::<Result<_, _>>()?;
    sizes.sort_by(f64::total_cmp);
    sizes.dedup();
    sizes
        .into_iter()
        .map(|size| {
            let mut values = chosen
                .iter()
                .filter(|r| num(r, "characters") == Ok(size))
                .map(|r| value(r))
                .collect::<Result<Vec<_>, _>>()?;
            Ok((size, median(&mut values)))
        })
        .collect()
}

/// Pose time against character count, GPU layouts and the CPU path, from the H200 runs.
/// Inputs: files of GPU runs (any layouts), then, last, the file of CPU runs.
pub(super) fn posing_scaling(inputs: &[Vec<Value>]) -> Result<String, String> {
    let (cpu, gpu) = inputs.split_last().ok_or("no runs")?;
    let gpu: Vec<&Value> = gpu.iter().flatten().collect();
    let cpu: Vec<&Value> = cpu.iter().collect();
    let mut lines: Vec<Line> = Vec::new();
    for layout in ["per-node", "per-bone"] {
        let points = medians(
            &gpu,
            |r| text(r, "layout") == Ok(layout),
            |r| num(r, "pose_gpu_ms"),
        )?;
        lines.push((format!("GPU pose pass, {layout} (timestamps)"), points));
    }
    let points = medians(
        &cpu,
        |r| text(r, "posing") == Ok("cpu"),
        |r| Ok(num(r, "pose_ms")? + num(r, "upload_total_ms")?),
    )?;
    lines.push(("CPU pose (16 threads) + bone upload".into(), points));
    if lines.iter().any(|(_, points)| points.is_empty()) {
        return Err("a series has no runs".into());
    }
    let x_max = lines
        .iter()
        .flat_map(|(_, p)| p.iter().map(|&(x, _)| x))
        .fold(1.0, f64::max);
    let (y_min, y_max) = lines
        .iter()
        .flat_map(|(_, p)| p.iter().map(|&(_, y)| y))
        .fold((f64::INFINITY, 0.0_f64), |(lo, hi), y| {
            (lo.min(y), hi.max(y))
        });
    svg(|area| {
        let mut chart = ChartBuilder::on(area)
            .caption(
                "Posing a crowd of CesiumMan (19 joints) on an NVIDIA H200",
                ("sans-serif", 18),
            )
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(56)
            .build_cartesian_2d(
                (5e3..x_max * 2.0).log_scale(),
                (y_min / 2.0..y_max * 2.0).log_scale(),
            )
            .map_err(err)?;
        chart
            .configure_mesh()
            .x_desc("characters")
            .y_desc("milliseconds per frame")
            .x_label_formatter(&|x| format!("{x:.0}"))
            .label_style(("sans-serif", 13))
            .light_line_style(BLACK.mix(0.04))
            .draw()
            .map_err(err)?;
        for (i, (label, points)) in lines.iter().enumerate() {
            let style = COLOURS[i % COLOURS.len()].stroke_width(2);
            chart
                .draw_series(LineSeries::new(points.iter().copied(), style).point_size(3))
                .map_err(err)?
                .label(label.as_str())
                .legend(move |(x, y)| PathElement::new([(x, y), (x + 14, y)], style));
        }
        legend(&mut chart, SeriesLabelPosition::UpperLeft)
    })
}
