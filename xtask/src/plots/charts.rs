//! The charts of `cargo xtask plots`: one function per plot, each turning the parsed JSON
//! inputs into SVG text, plus the bar-chart and canvas helpers they share.

use plotters::coord::Shift;
use plotters::prelude::*;
use serde_json::Value;

use super::inputs::{array, median, num, only, text};

/// Width and height of every plot, in SVG user units (pixels).
const SIZE: (u32, u32) = (820, 480);

/// The series colours, one per series in order (colour-blind-safe Okabe–Ito hues).
pub(super) const COLOURS: [RGBColor; 4] = [
    RGBColor(0, 114, 178),
    RGBColor(213, 94, 0),
    RGBColor(0, 158, 115),
    RGBColor(204, 121, 167),
];

/// Draws grouped bars: one group per category, one bar per series, labelled with its value.
fn grouped_bars(
    area: &DrawingArea<SVGBackend<'_>, Shift>,
    title: &str,
    y_desc: &str,
    categories: &[String],
    series: &[(&str, Vec<f64>)],
) -> Result<(), String> {
    let top = series
        .iter()
        .flat_map(|(_, values)| values.iter().copied())
        .fold(0.0_f64, f64::max);
    let count = categories.len();
    let mut chart = ChartBuilder::on(area)
        .caption(title, ("sans-serif", 18))
        .margin(12)
        .x_label_area_size(36)
        .y_label_area_size(56)
        .build_cartesian_2d(-0.5..count as f64 - 0.5, 0.0..top * 1.35)
        .map_err(err)?;
    let names = categories.to_vec();
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(count)
        .x_label_formatter(&|x| category_label(&names, *x))
        .y_desc(y_desc)
        .label_style(("sans-serif", 13))
        .light_line_style(BLACK.mix(0.04))
        .draw()
        .map_err(err)?;
    let width = 0.8 / series.len() as f64;
    for (s, (label, values)) in series.iter().enumerate() {
        let colour = COLOURS[s % COLOURS.len()];
        let left = |i: usize| i as f64 - 0.4 + s as f64 * width;
        chart
            .draw_series(values.iter().enumerate().map(|(i, &v)| {
                Rectangle::new(
                    [(left(i), 0.0), (left(i) + width * 0.92, v)],
                    colour.filled(),
                )
            }))
            .map_err(err)?
            .label(*label)
            .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 12, y + 5)], colour.filled()));
        chart
            .draw_series(values.iter().enumerate().map(|(i, &v)| {
                Text::new(
                    format!("{v:.1}"),
                    (left(i) + width * 0.1, v + top * 0.04),
                    ("sans-serif", 11),
                )
            }))
            .map_err(err)?;
    }
    legend(&mut chart, SeriesLabelPosition::UpperRight)?;
    Ok(())
}

/// The category name at an integer x of a bar chart, nothing between them.
pub(super) fn category_label(names: &[String], x: f64) -> String {
    let i = x.round();
    if (x - i).abs() > 1e-6 || i < 0.0 {
        return String::new();
    }
    names.get(i as usize).cloned().unwrap_or_default()
}

/// Renders `draw` onto a fresh SVG canvas and returns the SVG text.
pub(super) fn svg(
    draw: impl FnOnce(&DrawingArea<SVGBackend<'_>, Shift>) -> Result<(), String>,
) -> Result<String, String> {
    let mut out = String::new();
    {
        let area = SVGBackend::with_string(&mut out, SIZE).into_drawing_area();
        area.fill(&WHITE).map_err(err)?;
        draw(&area)?;
        area.present().map_err(err)?;
    }
    Ok(out)
}

/// Instructions per joint-frame, skel lossless and compressed against ozz, per asset.
pub(super) fn cpu_vs_ozz_instructions(inputs: &[Vec<Value>]) -> Result<String, String> {
    let result = only(inputs, 0)?;
    let rows = array(result, "rows")?;
    let categories = rows
        .iter()
        .map(|r| {
            Ok(format!(
                "{} ({})",
                asset_name(text(r, "asset")?),
                num(r, "joints")?
            ))
        })
        .collect::<Result<Vec<_>, String>>()?;
    let column = |key: &str| {
        rows.iter()
            .map(|r| num(r, key))
            .collect::<Result<Vec<_>, _>>()
    };
    let series = [
        ("skel, lossless", column("skel_lossless_instructions")?),
        ("skel, compressed", column("skel_compressed_instructions")?),
        ("ozz-animation 0.16", column("ozz_instructions")?),
    ];
    svg(|area| {
        grouped_bars(
            area,
            &format!(
                "CPU pose: instructions per joint-frame, 100 characters ({})",
                text(result, "date")?
            ),
            "instructions per joint-frame",
            &categories,
            &series,
        )
    })
}

/// Instructions per joint-frame of one layer and of the three-layer stack, per asset and kernels.
pub(super) fn layers_instructions(inputs: &[Vec<Value>]) -> Result<String, String> {
    let result = only(inputs, 0)?;
    let rows = array(result, "rows")?;
    let categories = rows
        .iter()
        .map(|r| {
            // "AVX2+FMA" or "baseline (SSE2)": the instruction set is what tells them apart.
            let kernels = if text(r, "kernels")?.contains("SSE2") {
                "SSE2"
            } else {
                "AVX2"
            };
            Ok(format!("{} {kernels}", asset_name(text(r, "asset")?)))
        })
        .collect::<Result<Vec<_>, String>>()?;
    let column = |key: &str| {
        rows.iter()
            .map(|r| num(r, key))
            .collect::<Result<Vec<_>, _>>()
    };
    let series = [
        ("one layer", column("one_layer")?),
        ("three layers", column("three_layers")?),
    ];
    svg(|area| {
        grouped_bars(
            area,
            &format!(
                "Layer stacks: instructions per joint-frame, 100 characters ({})",
                text(result, "date")?
            ),
            "instructions per joint-frame",
            &categories,
            &series,
        )
    })
}

/// The asset's name without its clip (`Fox "Survey"` → `Fox`), to keep axis labels short.
fn asset_name(asset: &str) -> &str {
    asset.split(' ').next().unwrap_or(asset)
}

/// Largest shell error against compression ratio, skel and ozz, one point per asset.
pub(super) fn compression_error_size(inputs: &[Vec<Value>]) -> Result<String, String> {
    let result = only(inputs, 0)?;
    let rows = array(result, "rows")?;
    let mut points = Vec::new();
    for r in rows {
        let name = asset_name(text(r, "asset")?).to_string();
        points.push((
            name.clone(),
            num(r, "skel_ratio")?,
            num(r, "skel_max_cm")?,
            0,
        ));
        points.push((name, num(r, "ozz_ratio")?, num(r, "ozz_max_cm")?, 1));
    }
    let date = text(result, "date")?;
    svg(|area| {
        let mut chart = ChartBuilder::on(area)
            .caption(
                format!("Compressed clips: largest shell error against size ({date})"),
                ("sans-serif", 18),
            )
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(64)
            .build_cartesian_2d(0.0..6.0, (0.0003..1.0).log_scale())
            .map_err(err)?;
        chart
            .configure_mesh()
            .x_desc("raw f32 keys / played keys (higher is smaller)")
            .y_desc("largest shell error (cm, 3 cm shell)")
            .y_label_formatter(&|y| format!("{y}"))
            .label_style(("sans-serif", 13))
            .light_line_style(BLACK.mix(0.04))
            .draw()
            .map_err(err)?;
        chart
            .draw_series(LineSeries::new(
                [(0.0, 0.01), (6.0, 0.01)],
                BLACK.mix(0.5).stroke_width(1),
            ))
            .map_err(err)?
            .label("ACL's default bound, 0.01 cm")
            .legend(|(x, y)| PathElement::new([(x, y), (x + 14, y)], BLACK.mix(0.5)));
        for (side, label) in [
            (0, "skel, ACL's default bound"),
            (1, "ozz-animation, gltf2ozz defaults"),
        ] {
            let colour = COLOURS[side];
            chart
                .draw_series(
                    points
                        .iter()
                        .filter(|p| p.3 == side)
                        .map(|(name, x, y, _)| {
                            EmptyElement::at((*x, *y))
                                + Circle::new((0, 0), 5, colour.filled())
                                + Text::new(name.clone(), (7, -14), ("sans-serif", 12))
                        }),
                )
                .map_err(err)?
                .label(label)
                .legend(move |(x, y)| Circle::new((x + 6, y), 5, colour.filled()));
        }
        legend(&mut chart, SeriesLabelPosition::UpperRight)
    })
}

/// Compute skinning throughput against mesh size, u8 joints and unorm16 weights, per influence
/// count and vertex streams (the 2026-11-29 sizes), with the 16-influence points of 2026-12-01.
pub(super) fn compute_throughput(inputs: &[Vec<Value>]) -> Result<String, String> {
    let sizes = array(only(inputs, 0)?, "results")?;
    let sixteen = array(only(inputs, 1)?, "results")?;
    let headline = |r: &&Value| {
        text(r, "joint_format") == Ok("u8")
            && text(r, "weight_format") == Ok("unorm16")
            && text(r, "joints") == Ok("random")
    };
    let normals = |r: &Value| r.get("normals").and_then(Value::as_bool).unwrap_or(false);
    let mut lines = Vec::new();
    for (influences, with_normals) in [(4.0, false), (4.0, true), (8.0, false), (8.0, true)] {
        let mut points = sizes
            .iter()
            .filter(headline)
            .filter(|r| num(r, "influences") == Ok(influences) && normals(r) == with_normals)
            .map(|r| {
                Ok((
                    num(r, "vertices")? / 1e6,
                    num(r, "vertices_per_second")? / 1e9,
                ))
            })
            .collect::<Result<Vec<_>, String>>()?;
        points.sort_by(|a, b| a.0.total_cmp(&b.0));
        if points.is_empty() {
            return Err(format!("no u8/unorm16 rows for {influences} influences"));
        }
        lines.push((influences, with_normals, points));
    }
    let extra = sixteen
        .iter()
        .filter(headline)
        .filter(|r| num(r, "influences") == Ok(16.0))
        .map(|r| {
            Ok((
                num(r, "vertices")? / 1e6,
                num(r, "vertices_per_second")? / 1e9,
                normals(r),
            ))
        })
        .collect::<Result<Vec<_>, String>>()?;
    if extra.is_empty() {
        return Err("no u8/unorm16 rows for 16 influences".into());
    }
    svg(|area| {
        let mut chart = ChartBuilder::on(area)
            .caption(
                "Compute skinning on an NVIDIA H200: u8 joints, unorm16 weights, 64 bones",
                ("sans-serif", 18),
            )
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(56)
            .build_cartesian_2d((0.8..70.0).log_scale(), 0.0..90.0)
            .map_err(err)?;
        chart
            .configure_mesh()
            .x_desc("mesh vertices (millions)")
            .y_desc("G vertices / s")
            .x_label_formatter(&|x| format!("{x}"))
            .x_max_light_lines(1)
            .label_style(("sans-serif", 13))
            .light_line_style(BLACK.mix(0.04))
            .draw()
            .map_err(err)?;
        for (i, (influences, with_normals, points)) in lines.iter().enumerate() {
            let colour = COLOURS[(i / 2) % COLOURS.len()];
            let style = if *with_normals {
                colour.stroke_width(2)
            } else {
                colour.mix(0.6).stroke_width(2)
            };
            let label = format!(
                "{influences} influences, {} (2026-11-29)",
                if *with_normals {
                    "positions + normals"
                } else {
                    "positions"
                }
            );
            chart
                .draw_series(LineSeries::new(points.iter().copied(), style).point_size(3))
                .map_err(err)?
                .label(label)
                .legend(move |(x, y)| PathElement::new([(x, y), (x + 14, y)], style));
        }
        let colour = COLOURS[2];
        chart
            .draw_series(extra.iter().map(|&(x, y, with_normals)| {
                let shade = if with_normals {
                    colour.to_rgba()
                } else {
                    colour.mix(0.6)
                };
                TriangleMarker::new((x, y), 6, shade.filled())
            }))
            .map_err(err)?
            .label("16 influences, positions / + normals (2026-12-01)")
            .legend(move |(x, y)| TriangleMarker::new((x + 6, y), 6, colour.filled()));
        legend(&mut chart, SeriesLabelPosition::UpperLeft)
    })
}

/// The three stages of a `skel::Crowd` frame of CesiumMan, stacked, for 1 000 and 10 000
/// characters: medians over the linear-skinning runs of each size, stage by stage.
pub(super) fn crowd_frame(inputs: &[Vec<Value>]) -> Result<String, String> {
    let runs: Vec<&Value> = inputs
        .iter()
        .flatten()
        .filter(|r| text(r, "skinning") == Ok("linear"))
        .collect();
    let mut sizes: Vec<f64> = runs
        .iter()
        .map(|r| num(r, "characters"))
        .collect::<Result<_, _>>()?;
    sizes.sort_by(f64::total_cmp);
    sizes.dedup();
    const STAGES: [(&str, &str); 3] = [
        ("pose_ms", "CPU pose, rayon, 16 threads"),
        ("upload_total_ms", "bone upload, until the GPU copied it"),
        ("skin_gpu_ms", "compute skinning (GPU timestamps)"),
    ];
    let mut bars = Vec::new();
    for &size in &sizes {
        let of_size: Vec<&&Value> = runs
            .iter()
            .filter(|r| num(r, "characters") == Ok(size))
            .collect();
        let stages = STAGES
            .iter()
            .map(|(key, _)| {
                let mut values = of_size
                    .iter()
                    .map(|r| num(r, key))
                    .collect::<Result<Vec<_>, _>>()?;
                Ok(median(&mut values))
            })
            .collect::<Result<Vec<_>, String>>()?;
        bars.push((size, of_size.len(), stages));
    }
    let top = bars
        .iter()
        .map(|(_, _, s)| s.iter().sum::<f64>())
        .fold(0.0, f64::max);
    let categories: Vec<String> = bars
        .iter()
        .map(|(size, n, _)| {
            format!(
                "{size} CesiumMan ({n} run{})",
                if *n == 1 { "" } else { "s" }
            )
        })
        .collect();
    svg(|area| {
        let mut chart = ChartBuilder::on(area)
            .caption(
                "skel::Crowd frame on an NVIDIA H200 (2026-12-01, medians)",
                ("sans-serif", 18),
            )
            .margin(12)
            .x_label_area_size(36)
            .y_label_area_size(56)
            .build_cartesian_2d(-0.5..bars.len() as f64 - 0.5, 0.0..top * 1.25)
            .map_err(err)?;
        chart
            .configure_mesh()
            .disable_x_mesh()
            .x_labels(bars.len())
            .x_label_formatter(&|x| category_label(&categories, *x))
            .y_desc("ms per frame")
            .label_style(("sans-serif", 13))
            .light_line_style(BLACK.mix(0.04))
            .draw()
            .map_err(err)?;
        for (s, (_, label)) in STAGES.iter().enumerate() {
            let colour = COLOURS[s];
            let segment = |i: usize, stages: &[f64]| {
                let below: f64 = stages[..s].iter().sum();
                (i as f64, below, below + stages[s])
            };
            chart
                .draw_series(bars.iter().enumerate().map(|(i, (_, _, stages))| {
                    let (x, y0, y1) = segment(i, stages);
                    Rectangle::new([(x - 0.25, y0), (x + 0.25, y1)], colour.filled())
                }))
                .map_err(err)?
                .label(*label)
                .legend(move |(x, y)| {
                    Rectangle::new([(x, y - 5), (x + 12, y + 5)], colour.filled())
                });
            chart
                .draw_series(bars.iter().enumerate().map(|(i, (_, _, stages))| {
                    let (x, y0, y1) = segment(i, stages);
                    Text::new(
                        format!("{:.3} ms", stages[s]),
                        (x + 0.27, (y0 + y1) / 2.0),
                        ("sans-serif", 12),
                    )
                }))
                .map_err(err)?;
        }
        legend(&mut chart, SeriesLabelPosition::UpperLeft)
    })
}

/// Draws the series' legend in the one style every plot uses, at `position`.
pub(super) fn legend<'a, DB: DrawingBackend + 'a, CT: CoordTranslate>(
    chart: &mut ChartContext<'a, DB, CT>,
    position: SeriesLabelPosition,
) -> Result<(), String> {
    chart
        .configure_series_labels()
        .position(position)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK.mix(0.3))
        .label_font(("sans-serif", 13))
        .draw()
        .map_err(err)
}

/// A plotters error as text (they carry the backend's error).
pub(super) fn err<E: std::fmt::Debug>(e: E) -> String {
    format!("plotters: {e:?}")
}
