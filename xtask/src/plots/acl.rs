//! The plot of compressed clips beside the Animation Compression Library: each clip's largest
//! shell error against its size in ACL's accounting (every bone × sample × 10 f32 over the
//! compressed bytes), for ACL 2.1 at its defaults, skel's two key formats and
//! ozz-animation's optimised animations where the clip is one of its benchmark's.

use plotters::prelude::*;
use serde_json::Value;

use super::charts::{COLOURS, err, legend, svg};
use super::inputs::{array, num, only, text};

/// Largest shell error against ACL's ratio, one point per clip and side: ACL and skel's
/// `KeyFormat::Fixed` from `acl_compare.json` (input 0), skel's `KeyFormat::Variable` from
/// `acl_compare_variable.json` (input 1), ozz-animation's from `compression.json` (input 2:
/// its size from the animated raw bytes over its ratio, against the clip's every-bone raw
/// size).
pub(super) fn compression_vs_acl(inputs: &[Vec<Value>]) -> Result<String, String> {
    let (fixed, variable, ozz) = (only(inputs, 0)?, only(inputs, 1)?, only(inputs, 2)?);
    let ratio = |side: &Value, raw: f64| -> Result<f64, String> {
        Ok(raw / num(side, "compressed_bytes")?)
    };
    let mut points: Vec<(f64, f64, usize)> = Vec::new();
    for clip in array(fixed, "clips")? {
        let (acl, skel) = (field(clip, "acl")?, field(clip, "skel")?);
        let raw = num(skel, "raw_bytes_all_bones")?;
        points.push((ratio(acl, raw)?, num(acl, "max_error_cm")?, 0));
        points.push((ratio(skel, raw)?, num(skel, "max_error_cm")?, 2));
    }
    for clip in array(variable, "clips")? {
        let skel = field(clip, "skel_variable")?;
        let raw = num(skel, "raw_bytes_all_bones")?;
        points.push((ratio(skel, raw)?, num(skel, "max_error_cm")?, 1));
    }
    // compression.json's asset names beside the clips they played.
    for (asset, id) in [
        ("CesiumMan", "CesiumMan-0"),
        ("Fox \"Survey\"", "Fox-Survey"),
        ("Walk67", "Walk67"),
        ("Rig368", "Rig368"),
    ] {
        let row = array(ozz, "rows")?
            .iter()
            .find(|r| r.get("asset").and_then(Value::as_str) == Some(asset))
            .ok_or_else(|| format!("compression.json: no {asset}"))?;
        let clip = array(variable, "clips")?
            .iter()
            .find(|c| c.get("id").and_then(Value::as_str) == Some(id))
            .ok_or_else(|| format!("acl_compare_variable.json: no {id}"))?;
        let raw = num(field(clip, "skel_variable")?, "raw_bytes_all_bones")?;
        let bytes = num(row, "raw_f32_bytes")? / num(row, "ozz_ratio")?;
        points.push((raw / bytes, num(row, "ozz_max_cm")?, 3));
    }
    let date = text(variable, "date")?;
    svg(|area| {
        let mut chart = ChartBuilder::on(area)
            .caption(
                format!(
                    "21 clips beside ACL 2.1 and ozz: largest shell error against size ({date})"
                ),
                ("sans-serif", 18),
            )
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(64)
            .build_cartesian_2d((1.0..80.0).log_scale(), (0.00005..10.0).log_scale())
            .map_err(err)?;
        chart
            .configure_mesh()
            .x_desc(
                "every bone × sample × 10 f32 / compressed bytes (ACL's ratio, higher is smaller)",
            )
            .y_desc("largest shell error (cm, 3 cm shell)")
            .x_label_formatter(&|x| format!("{x}"))
            .y_label_formatter(&|y| format!("{y}"))
            .label_style(("sans-serif", 13))
            .light_line_style(BLACK.mix(0.04))
            .draw()
            .map_err(err)?;
        chart
            .draw_series(LineSeries::new(
                [(1.0, 0.01), (80.0, 0.01)],
                BLACK.mix(0.5).stroke_width(1),
            ))
            .map_err(err)?
            .label("ACL's default bound, 0.01 cm")
            .legend(|(x, y)| PathElement::new([(x, y), (x + 14, y)], BLACK.mix(0.5)));
        for (side, label) in [
            (0, "ACL 2.1, default settings (error at its samples)"),
            (1, "skel KeyFormat::Variable (max at 240 Hz and keys)"),
            (2, "skel KeyFormat::Fixed"),
            (
                3,
                "ozz-animation 0.16, gltf2ozz's optimised defaults (max at 240 Hz and keys)",
            ),
        ] {
            let colour = COLOURS[side];
            chart
                .draw_series(
                    points
                        .iter()
                        .filter(|p| p.2 == side)
                        .map(|&(x, y, _)| Circle::new((x, y), 4, colour.filled())),
                )
                .map_err(err)?
                .label(label)
                .legend(move |(x, y)| Circle::new((x + 6, y), 4, colour.filled()));
        }
        legend(&mut chart, SeriesLabelPosition::UpperLeft)
    })
}

/// The object `key` of `value`.
fn field<'a>(value: &'a Value, key: &str) -> Result<&'a Value, String> {
    value.get(key).ok_or_else(|| format!("no \"{key}\""))
}
