//! `cargo xtask web --check` (and a step of `cargo xtask ci`): the built demo page in a real
//! headless Chromium, once per backend (WebGPU, WebGL2), both through SwiftShader with no GPU.
//!
//! Per backend it loads `?backend=B&t=HELD&test=1` (the built-in character's Walk held at one
//! time, so every browser draws the same picture) and requires:
//! - `data-skel-ready="B"` within the timeout (never `data-skel-error`, never a hang);
//! - the CPU pose the page computed in wasm (`data-skel-pose`) equals the native one within
//!   [`POSE_TOLERANCE`] of the character's diagonal ([`skel_web::pose_digest`] on both sides);
//! - the canvas shows the character: enough non-background pixels, centred, as tall as the
//!   framing camera makes it;
//! - GPU skinning matches the CPU reference: every skinned vertex of the native CPU pose,
//!   projected with the page's camera (`data-skel-camera`), lands on a drawn pixel (within
//!   [`NEAR_PIXELS`]);
//! - compute skinning builds on WebGPU and is refused with skel-gpu's typed limit error on
//!   WebGL2 (`data-skel-compute`);
//! - both backends draw the same silhouette (intersection over union ≥ [`MIN_IOU`]);
//! - on WebGPU, the page without `?t=` drives the built-in character by its animation graph:
//!   setting the `speed` slider to 3.5 takes the locomotion layer from `move` to `run`
//!   (`data-skel-state`) and changes the picture; then (held at one time, so that only the
//!   gesture moves the picture) a mouse drag on the canvas turns the camera, ticking the crowd
//!   toggle draws a grid of characters (disabled on WebGL2), and picking a `.glb` in the
//!   page's file input loads and draws it;
//! - on both, the slope scene (`?scene=slope&test=1`) draws the slope, keeps both toes on it
//!   (and, with the page's `#feet` toggle off, the lower toe sinks into it), and turns the
//!   head to the point under a hovering pointer, which projects back onto the pointer (with
//!   `#look` off, the head is measurably further from it).
//!
//! - on both, `animation_pointer.gltf` held at 0 s and 1 s draws its tile red, then blue with
//!   the cells hidden (its `KHR_animation_pointer` tracks through the facade's frame).
//! - on both, the 600-bone VRM avatar `v1_600_bones.vrm` hangs its hair strands by its spring
//!   bones (the drawn pixels move down against `?springs=0`), and its springless pictures on
//!   the two backends agree (its bones wrap into a second bone-texture row on WebGL2).
//!
//! Screenshots land in `web-check/` of the target directory.

use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::webdriver::{Driver, Session};

mod controls;
mod limits;
mod pointer;
mod silhouette;
mod slope;
mod vrm;

use controls::{check_gestures, check_graph};
use limits::{
    CHECK_CROWD, CHROMEDRIVER, CHROMIUM, COMMON, HELD, MIN_IOU, NEAR_PIXELS, POSE_TOLERANCE,
    READY_TIMEOUT, WEBGL2, WEBGPU,
};
pub(crate) use pointer::POINTER_FIXTURE;
use pointer::check_pointer;
use silhouette::Silhouette;
use slope::check_slope;
pub(crate) use vrm::VRM_FIXTURE;
use vrm::check_vrm;

/// Runs the check on the page built in `dir`.
///
/// # Errors
/// The first backend that fails, with what it showed.
pub(crate) fn run(dir: &Path) -> Result<(), String> {
    for tool in [CHROMIUM, CHROMEDRIVER] {
        if !Path::new(tool).is_file() {
            return Err(format!(
                "{tool} is missing: bash scripts/install-browser.sh installs Debian's chromium and chromium-driver"
            ));
        }
    }
    let shots = crate::bench_count::target_dir(&crate::workspace_root()).join("web-check");
    std::fs::create_dir_all(&shots).map_err(|e| format!("{}: {e}", shots.display()))?;
    let addr = crate::web_serve::spawn(dir)?;
    let driver = Driver::start(CHROMEDRIVER)?;
    let native = skel_web::pose_digest(
        skel::DEFAULT_CHARACTER,
        Some(skel_web::TEST_CLIP),
        &skel_web::TEST_TIMES,
    )
    .map_err(|e| format!("native pose: {e}"))?;
    let mut silhouettes = Vec::new();
    let mut avatars = Vec::new();
    for (backend, flags) in [("webgpu", &WEBGPU[..]), ("webgl2", &WEBGL2[..])] {
        let args: Vec<&str> = COMMON.iter().chain(flags).copied().collect();
        let session = driver.session(CHROMIUM, &args)?;
        let url = format!("http://{addr}/?backend={backend}&t={HELD}&test=1");
        let mut result = check_backend(&session, backend, &url, &native, &shots);
        if result.is_ok() {
            let url = format!("http://{addr}/?backend={backend}&scene=slope&test=1");
            if let Err(e) = check_slope(&session, backend, &url, &shots) {
                result = Err(format!("the slope scene: {e}"));
            }
        }
        if result.is_ok() {
            let url = format!("http://{addr}/?backend={backend}");
            if let Err(e) = check_pointer(&session, backend, &url, &shots) {
                result = Err(format!("the pointer-animated fixture: {e}"));
            }
        }
        if result.is_ok() {
            let url = format!("http://{addr}/?backend={backend}");
            match check_vrm(&session, backend, &url, &shots) {
                Ok(pictures) => avatars.push(pictures),
                Err(e) => result = Err(format!("the VRM avatar: {e}")),
            }
        }
        if backend == "webgpu" && result.is_ok() {
            let url = format!("http://{addr}/?backend={backend}");
            if let Err(e) = check_graph(&session, &url, &shots) {
                result = Err(format!("the animation graph: {e}"));
            } else if let Err(e) = check_gestures(
                &session,
                &format!("{url}&t={HELD}&crowd={CHECK_CROWD}"),
                &shots,
            ) {
                result = Err(format!("the page's controls: {e}"));
            }
        }
        if result.is_err() {
            for line in session.console() {
                eprintln!("xtask web --check: {backend} console: {line}");
            }
        }
        silhouettes.push(result.map_err(|e| format!("{backend}: {e}"))?);
    }
    let iou = silhouettes[0].iou(&silhouettes[1]);
    eprintln!("xtask web --check: WebGPU and WebGL2 silhouettes overlap {iou:.3} (IoU)");
    if iou < MIN_IOU {
        return Err(format!(
            "WebGPU and WebGL2 draw different pictures: IoU {iou:.3} < {MIN_IOU} (see {})",
            shots.display()
        ));
    }
    let iou = avatars[0].still.iou(&avatars[1].still);
    eprintln!(
        "xtask web --check: {VRM_FIXTURE} without springs: WebGPU and WebGL2 overlap {iou:.3} (IoU); mean rows {:.1} / {:.1}",
        avatars[0].rows.0, avatars[1].rows.0
    );
    if iou < MIN_IOU {
        return Err(format!(
            "WebGPU and WebGL2 draw {VRM_FIXTURE} differently: IoU {iou:.3} < {MIN_IOU} (its bones past 512 read from the wrong texture row?)"
        ));
    }
    Ok(())
}

/// One backend: ready, pose, picture. Returns its silhouette.
fn check_backend(
    session: &Session<'_>,
    backend: &str,
    url: &str,
    native: &skel_web::PoseDigest,
    shots: &Path,
) -> Result<Silhouette, String> {
    let started = Instant::now();
    session.navigate(url)?;
    let probe = "const b = document.body; return [b.getAttribute('data-skel-ready'), \
                 b.getAttribute('data-skel-error')];";
    loop {
        let state = session.execute(probe, &[])?;
        if let Some(error) = state[1].as_str() {
            return Err(format!("the page failed: {error}"));
        }
        match state[0].as_str() {
            Some(ready) if ready == backend => break,
            Some(other) => return Err(format!("ready on {other}, not {backend}")),
            None if started.elapsed() > READY_TIMEOUT => {
                return Err(format!("not ready after {READY_TIMEOUT:?}"));
            }
            None => std::thread::sleep(Duration::from_millis(250)),
        }
    }
    let ready_s = started.elapsed().as_secs_f64();
    // A few more frames (the picture is held, so any frame is the same).
    std::thread::sleep(Duration::from_millis(1000));
    let pose = session.execute("return document.body.getAttribute('data-skel-pose');", &[])?;
    let wasm = parse_digest(pose.as_str().ok_or("no data-skel-pose on the page")?)?;
    let (nodes, positions) = skel_web::digest_difference(native, &wasm)
        .ok_or("the page's pose has another shape than the native one")?;
    if nodes > POSE_TOLERANCE || positions > POSE_TOLERANCE {
        return Err(format!(
            "the wasm pose differs from native: nodes {nodes:.2e}, positions {positions:.2e} of the diagonal (> {POSE_TOLERANCE:e})"
        ));
    }
    let png = session.screenshot("#skel")?;
    let shot = shots.join(format!("{backend}.png"));
    std::fs::write(&shot, &png).map_err(|e| format!("{}: {e}", shot.display()))?;
    let silhouette = Silhouette::from_png(&png)?;
    silhouette.check_character()?;
    let (inside, total) = cpu_vertices_on_ink(session, native, &silhouette)?;
    if inside < total {
        return Err(format!(
            "GPU skinning differs from the CPU reference: {} of {total} CPU-skinned vertices project off the drawn character",
            total - inside
        ));
    }
    let compute = session.execute(
        "return document.body.getAttribute('data-skel-compute');",
        &[],
    )?;
    let compute = compute.as_str().unwrap_or("(none)");
    let crowd_disabled =
        session.execute("return document.getElementById('crowd').disabled;", &[])?;
    if crowd_disabled.as_bool() != Some(backend == "webgl2") {
        return Err(format!(
            "the crowd toggle should be {} on {backend}",
            if backend == "webgl2" {
                "disabled"
            } else {
                "enabled"
            }
        ));
    }
    let expected = if backend == "webgpu" {
        compute == "ok"
    } else {
        compute.contains("max_compute_invocations_per_workgroup")
    };
    if !expected {
        return Err(format!("compute skinning on {backend}: {compute}"));
    }
    eprintln!(
        "xtask web --check: {backend} ready in {ready_s:.1} s; wasm pose within {:.1e} of native; {:.1} % of the canvas drawn; {inside}/{total} CPU-skinned vertices on drawn pixels; compute skinning: {compute}; {}",
        nodes.max(positions),
        silhouette.coverage() * 100.0,
        shot.display()
    );
    Ok(silhouette)
}

/// Projects the native CPU pose at [`HELD`] (the page's left-handed world: x mirrored) with
/// the page's camera and counts the vertices that land within [`NEAR_PIXELS`] of a drawn
/// pixel: `(inside, total)`.
fn cpu_vertices_on_ink(
    session: &Session<'_>,
    native: &skel_web::PoseDigest,
    silhouette: &Silhouette,
) -> Result<(usize, usize), String> {
    let camera = session.execute(
        "return document.body.getAttribute('data-skel-camera');",
        &[],
    )?;
    let camera: Vec<f32> = serde_json::from_str(camera.as_str().ok_or("no data-skel-camera")?)
        .map_err(|e| format!("data-skel-camera: {e}"))?;
    let camera = <[f32; 16]>::try_from(camera.as_slice())
        .map_err(|_| "data-skel-camera is not 16 numbers".to_owned())?;
    let view_projection = skel::render::Mat4::from_cols_array(&camera);
    let held = skel_web::TEST_TIMES
        .iter()
        .position(|t| *t == HELD)
        .ok_or("HELD is not one of skel_web::TEST_TIMES")?;
    let per_time = native.positions.len() / skel_web::TEST_TIMES.len();
    let block = &native.positions[held * per_time..(held + 1) * per_time];
    let (w, h) = (i64::from(silhouette.width), i64::from(silhouette.height));
    let mut inside = 0;
    for p in block.chunks_exact(3) {
        let clip = view_projection * skel::render::Vec3::new(-p[0], p[1], p[2]).extend(1.0);
        let ndc = clip.truncate() / clip.w;
        #[expect(clippy::cast_possible_truncation, reason = "pixel coordinates")]
        let (x, y) = (
            ((ndc.x + 1.0) * 0.5 * w as f32).floor() as i64,
            ((1.0 - ndc.y) * 0.5 * h as f32).floor() as i64,
        );
        let near = (-NEAR_PIXELS..=NEAR_PIXELS).any(|dy| {
            (-NEAR_PIXELS..=NEAR_PIXELS).any(|dx| {
                let (px, py) = (x + dx, y + dy);
                (0..w).contains(&px) && (0..h).contains(&py) && silhouette.ink_at(px, py)
            })
        });
        inside += usize::from(near);
    }
    Ok((inside, block.len() / 3))
}

/// The page's `data-skel-pose` JSON.
fn parse_digest(json: &str) -> Result<skel_web::PoseDigest, String> {
    let value: Value = serde_json::from_str(json).map_err(|e| format!("data-skel-pose: {e}"))?;
    #[expect(
        clippy::cast_possible_truncation,
        reason = "the page printed f32s; they parse back exactly"
    )]
    let floats = |key: &str| -> Vec<f32> {
        value[key]
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(Value::as_f64)
                    .map(|x| x as f32)
                    .collect()
            })
            .unwrap_or_default()
    };
    #[expect(clippy::cast_possible_truncation, reason = "as above")]
    let diagonal = value["diagonal"].as_f64().unwrap_or(0.0) as f32;
    Ok(skel_web::PoseDigest {
        nodes: floats("nodes"),
        positions: floats("positions"),
        diagonal,
    })
}
