//! The slope scene in the browser (`?scene=slope&test=1`): the ground is drawn, foot placement
//! keeps both toes on the slope (and switched off with the page's `#feet` toggle, the uphill
//! toe sinks into it), and the head turns to the point under a hovering pointer (and stops
//! turning with `#look` off). The page publishes what it measures in `data-skel-slope`
//! (`skel_web::SlopeProbe` on the wasm pose); the pointer's point is checked against the page's
//! camera here.

use std::path::Path;
use std::time::Duration;

use serde_json::Value;

use super::controls::wait_ready;
use super::limits::{
    LOOK_GAIN, LOOK_TOLERANCE, MIN_GROUND_COVER, NEAR_PIXELS, SAMPLES, SETTLE, SINK, TOE_TOLERANCE,
};
use super::silhouette::Silhouette;
use crate::webdriver::Session;

/// Where the check hovers, from the canvas's centre (pixels right, down): up and to the right,
/// where the head must turn from looking ahead.
const HOVER: (i32, i32) = (160, -120);

/// One `data-skel-slope` reading.
struct Reading {
    feet_on: bool,
    look_on: bool,
    toe_gap: [f64; 2],
    lowest_gap: f64,
    head_angle: f64,
    target: [f64; 3],
    pointer: Option<[f64; 2]>,
}

impl Reading {
    fn parse(json: &str) -> Result<Self, String> {
        let v: Value = serde_json::from_str(json).map_err(|e| format!("data-skel-slope: {e}"))?;
        let num = |v: &Value| v.as_f64().ok_or(format!("data-skel-slope: {json}"));
        let pointer = match &v["pointer"] {
            Value::Null => None,
            p => Some([num(&p[0])?, num(&p[1])?]),
        };
        Ok(Self {
            feet_on: v["feet_on"].as_bool() == Some(true),
            look_on: v["look_on"].as_bool() == Some(true),
            toe_gap: [num(&v["toe_gap"][0])?, num(&v["toe_gap"][1])?],
            lowest_gap: num(&v["lowest_gap"])?,
            head_angle: num(&v["head_angle"])?,
            target: [
                num(&v["target"][0])?,
                num(&v["target"][1])?,
                num(&v["target"][2])?,
            ],
            pointer,
        })
    }
}

/// Waits [`SETTLE`] (the feet and the head ease), then reads [`SAMPLES`] readings a fifth of a
/// second apart.
fn settled(session: &Session<'_>) -> Result<Vec<Reading>, String> {
    std::thread::sleep(SETTLE);
    let probe = "return [document.body.getAttribute('data-skel-slope'), \
                 document.body.getAttribute('data-skel-error')];";
    let mut out = Vec::with_capacity(SAMPLES);
    for _ in 0..SAMPLES {
        let now = session.execute(probe, &[])?;
        if let Some(error) = now[1].as_str() {
            return Err(format!("the page failed: {error}"));
        }
        out.push(Reading::parse(
            now[0].as_str().ok_or("no data-skel-slope on the page")?,
        )?);
        std::thread::sleep(Duration::from_millis(200));
    }
    Ok(out)
}

/// Clicks the checkbox `#id`.
fn toggle(session: &Session<'_>, id: &str) -> Result<(), String> {
    session
        .execute(
            &format!("document.getElementById('{id}').click(); return null;"),
            &[],
        )
        .map(|_| ())
}

/// The slope scene on `url` (`?backend=B&scene=slope&test=1`).
pub(super) fn check_slope(
    session: &Session<'_>,
    backend: &str,
    url: &str,
    shots: &Path,
) -> Result<(), String> {
    session.navigate(url)?;
    wait_ready(session)?;
    session.hover("#skel", HOVER.0, HOVER.1)?;
    let on = settled(session)?;
    let png = session.screenshot("#skel")?;
    let shot = shots.join(format!("slope-{backend}.png"));
    std::fs::write(&shot, &png).map_err(|e| format!("{}: {e}", shot.display()))?;
    let picture = Silhouette::from_png(&png)?;
    if picture.coverage() < MIN_GROUND_COVER {
        return Err(format!(
            "the slope is not drawn: {:.1} % of the canvas differs from the background (at least {:.0} % expected); see {}",
            picture.coverage() * 100.0,
            MIN_GROUND_COVER * 100.0,
            shot.display()
        ));
    }
    let worst_on = on
        .iter()
        .flat_map(|r| r.toe_gap)
        .fold(0.0_f64, |m, g| m.max(g.abs()));
    if let Some(r) = on.iter().find(|r| !(r.feet_on && r.look_on)) {
        return Err(format!(
            "the page starts with feet {} and look {}, not both on",
            r.feet_on, r.look_on
        ));
    }
    if worst_on > TOE_TOLERANCE {
        let gaps: Vec<[f64; 2]> = on.iter().map(|r| r.toe_gap).collect();
        return Err(format!(
            "foot placement left a toe {worst_on:.4} from the slope (at most {TOE_TOLERANCE}): gaps {gaps:?}"
        ));
    }
    let look_on = on.iter().fold(0.0_f64, |m, r| m.max(r.head_angle));
    if look_on > LOOK_TOLERANCE {
        return Err(format!(
            "the head is {look_on:.3} rad off the pointer's point (at most {LOOK_TOLERANCE})"
        ));
    }
    let off_target = target_off_pointer(session, &on[on.len() - 1], &picture)?;
    toggle(session, "feet")?;
    let feet_off = settled(session)?;
    let sunk = feet_off
        .iter()
        .fold(f64::NEG_INFINITY, |m, r| m.max(r.lowest_gap));
    if feet_off.iter().any(|r| r.feet_on) || sunk > -SINK {
        return Err(format!(
            "with #feet off the lower toe should sink more than {SINK} into the slope; it is at {sunk:.4}"
        ));
    }
    toggle(session, "look")?;
    let look_off = settled(session)?;
    let turned = look_off
        .iter()
        .fold(f64::INFINITY, |m, r| m.min(r.head_angle));
    if look_off.iter().any(|r| r.look_on) || turned - look_on < LOOK_GAIN {
        return Err(format!(
            "the look-at did not turn the head: {look_on:.3} rad from the pointer's point with it, {turned:.3} without (at least {LOOK_GAIN} apart)"
        ));
    }
    eprintln!(
        "xtask web --check: {backend} slope: {:.1} % drawn; feet placed: toes within {worst_on:.4} of the slope (off: the lower toe at {sunk:.4}); head {look_on:.3} rad from the pointer's point ({turned:.3} without the look-at), which projects {off_target:.2} px from the pointer; {}",
        picture.coverage() * 100.0,
        shot.display()
    );
    Ok(())
}

/// Projects the look-at's target with the page's camera (`data-skel-camera`) and requires it
/// within [`NEAR_PIXELS`] of where the check hovered; returns the distance in pixels.
fn target_off_pointer(
    session: &Session<'_>,
    reading: &Reading,
    picture: &Silhouette,
) -> Result<f64, String> {
    if reading.pointer.is_none() {
        return Err("the page never saw the pointer over the canvas".to_owned());
    }
    let camera = session.execute(
        "return document.body.getAttribute('data-skel-camera');",
        &[],
    )?;
    let camera: Vec<f64> = serde_json::from_str(camera.as_str().ok_or("no data-skel-camera")?)
        .map_err(|e| format!("data-skel-camera: {e}"))?;
    if camera.len() != 16 {
        return Err("data-skel-camera is not 16 numbers".to_owned());
    }
    let [x, y, z] = reading.target;
    let row = |r: usize| camera[r] * x + camera[4 + r] * y + camera[8 + r] * z + camera[12 + r];
    let w = row(3);
    let (w_px, h_px) = (f64::from(picture.width), f64::from(picture.height));
    let px = (row(0) / w + 1.0) * 0.5 * w_px;
    let py = (1.0 - row(1) / w) * 0.5 * h_px;
    let (hx, hy) = (
        w_px / 2.0 + f64::from(HOVER.0),
        h_px / 2.0 + f64::from(HOVER.1),
    );
    let off = (px - hx).hypot(py - hy);
    #[expect(clippy::cast_precision_loss, reason = "a few pixels")]
    let near = NEAR_PIXELS as f64;
    if off.is_nan() || off > near {
        return Err(format!(
            "the look-at's target projects to ({px:.1}, {py:.1}), {off:.1} px from the pointer at ({hx}, {hy})"
        ));
    }
    Ok(off)
}
