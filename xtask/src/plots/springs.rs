//! The spring rate-independence plot (docs/vrm.md): one hair chain's deflection over time at
//! five display rates, with skel's fixed 1/60 s step (the lines lie on one another) and
//! stepped once per frame as three-vrm steps (they fan out). From
//! `docs/results/spring_rates.json`, written by `cargo run -p skel --example spring_rates`.

use plotters::prelude::*;
use serde_json::Value;

use super::charts::{err, legend, svg};
use super::inputs::{array, num, only};

/// Five colours, one per display rate (the charts' four and a dark grey).
const RATE_COLOURS: [RGBColor; 5] = [
    RGBColor(0, 114, 178),
    RGBColor(213, 94, 0),
    RGBColor(0, 158, 115),
    RGBColor(204, 121, 167),
    RGBColor(80, 80, 80),
];

/// One rate's line: its frames per second and its `(t, degrees)` points.
type Line = (f64, Vec<(f64, f64)>);

/// `(t, degrees)` of `key` (`"fixed"` or `"display"`) of one rate's record.
fn series(rate: &Value, key: &str) -> Result<Vec<(f64, f64)>, String> {
    let fps = num(rate, "fps")?;
    array(rate, key)?
        .iter()
        .enumerate()
        .map(|(k, v)| {
            let degrees = v
                .as_f64()
                .ok_or_else(|| format!("{key}[{k}] is not a number"))?;
            #[expect(clippy::cast_precision_loss, reason = "frame counts far below 2^52")]
            let t = (k + 1) as f64 / fps;
            Ok((t, degrees))
        })
        .collect()
}

/// Deflection against time, fixed step (left) and one step per frame (right).
pub(super) fn spring_rates(inputs: &[Vec<Value>]) -> Result<String, String> {
    let result = only(inputs, 0)?;
    let rates = array(result, "rates")?;
    if rates.is_empty() {
        return Err("no rates".into());
    }
    let mut top: f64 = 0.0;
    let mut panels: [Vec<Line>; 2] = [Vec::new(), Vec::new()];
    for rate in rates {
        for (panel, key) in panels.iter_mut().zip(["fixed", "display"]) {
            let points = series(rate, key)?;
            top = points.iter().fold(top, |m, &(_, y)| m.max(y));
            panel.push((num(rate, "fps")?, points));
        }
    }
    let end = panels[0]
        .iter()
        .flat_map(|(_, p)| p.last().map(|&(t, _)| t))
        .fold(0.0, f64::max);
    svg(|area| {
        let (left, right) = area.split_horizontally(410);
        let titles = ["skel: fixed 1/60 s step", "one step per frame (three-vrm)"];
        for ((part, title), lines) in [left, right].iter().zip(titles).zip(&panels) {
            let mut chart = ChartBuilder::on(part)
                .caption(title, ("sans-serif", 16))
                .margin(10)
                .x_label_area_size(36)
                .y_label_area_size(44)
                .build_cartesian_2d(0.0..end, 0.0..top * 1.1)
                .map_err(err)?;
            chart
                .configure_mesh()
                .x_desc("seconds")
                .y_desc("hair deflection (degrees)")
                .label_style(("sans-serif", 12))
                .light_line_style(BLACK.mix(0.04))
                .draw()
                .map_err(err)?;
            for (i, (fps, points)) in lines.iter().enumerate() {
                let style = RATE_COLOURS[i % RATE_COLOURS.len()].stroke_width(1);
                chart
                    .draw_series(LineSeries::new(points.iter().copied(), style))
                    .map_err(err)?
                    .label(format!("{fps:.0} Hz"))
                    .legend(move |(x, y)| PathElement::new([(x, y), (x + 14, y)], style));
            }
            legend(&mut chart, SeriesLabelPosition::UpperRight)?;
        }
        Ok(())
    })
}
