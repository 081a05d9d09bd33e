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
//!   gesture moves the picture) a mouse drag on the canvas turns the camera, and picking a
//!   `.glb` in the page's file input loads and draws it.
//!
//! Screenshots land in `target/web-check/`.

use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::webdriver::{Driver, Session};

/// Debian's browser and its WebDriver.
const CHROMIUM: &str = "/usr/bin/chromium";
const CHROMEDRIVER: &str = "/usr/bin/chromedriver";

/// Flags every session gets: headless, no sandbox (containers), nothing that phones home.
const COMMON: [&str; 8] = [
    "--headless",
    "--no-sandbox",
    "--no-first-run",
    "--disable-quic",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--window-size=900,1000",
];
/// WebGPU on SwiftShader's Vulkan (checked on Chromium 156: a canvas draws and reads back).
const WEBGPU: [&str; 5] = [
    "--enable-unsafe-webgpu",
    "--enable-unsafe-swiftshader",
    "--use-angle=swiftshader",
    "--enable-features=Vulkan",
    "--use-vulkan=swiftshader",
];
/// WebGL2 on SwiftShader's GL (Chromium's software fallback without a GPU).
const WEBGL2: [&str; 1] = ["--disable-gpu"];

/// The file the check opens through the page's file input (a small rig that is not the
/// built-in character).
const PICKED_FIXTURE: &str = "fixtures/eight_influences_u8.glb";
/// The time the check holds the clip at (between keys of Walk).
const HELD: f32 = 0.437;
/// How long a backend may take to draw its first frame (SwiftShader compiles slowly).
const READY_TIMEOUT: Duration = Duration::from_secs(180);
/// wasm and native run the same code; only libm's last bits may differ.
const POSE_TOLERANCE: f64 = 1e-6;
/// Two rasterisers of one picture agree on almost every pixel of the silhouette.
const MIN_IOU: f64 = 0.9;
/// How far (pixels, each way) from a projected CPU vertex a drawn pixel may be: rasterisation
/// rules, and a vertex exactly on the silhouette's edge.
const NEAR_PIXELS: i64 = 2;
/// A pixel is the character's when a channel differs from the background by more than this.
const INK_LEVELS: i32 = 24;

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
    let shots = crate::workspace_root().join("target/web-check");
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
    for (backend, flags) in [("webgpu", &WEBGPU[..]), ("webgl2", &WEBGL2[..])] {
        let args: Vec<&str> = COMMON.iter().chain(flags).copied().collect();
        let session = driver.session(CHROMIUM, &args)?;
        let url = format!("http://{addr}/?backend={backend}&t={HELD}&test=1");
        let mut result = check_backend(&session, backend, &url, &native, &shots);
        if backend == "webgpu" && result.is_ok() {
            let url = format!("http://{addr}/?backend={backend}");
            if let Err(e) = check_graph(&session, &url, &shots) {
                result = Err(format!("the animation graph: {e}"));
            } else if let Err(e) = check_gestures(&session, &format!("{url}&t={HELD}"), &shots) {
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

/// The graph's controls change what plays: `speed` 3.5 reaches the `run` state.
fn check_graph(session: &Session<'_>, url: &str, shots: &Path) -> Result<(), String> {
    session.navigate(url)?;
    let state = "return [document.body.getAttribute('data-skel-state'), \
                 document.body.getAttribute('data-skel-error')];";
    let wait_for = |wanted: &str| -> Result<(), String> {
        let started = Instant::now();
        loop {
            let now = session.execute(state, &[])?;
            if let Some(error) = now[1].as_str() {
                return Err(format!("the page failed: {error}"));
            }
            if now[0].as_str().is_some_and(|s| s.contains(wanted)) {
                return Ok(());
            }
            if started.elapsed() > READY_TIMEOUT {
                return Err(format!(
                    "data-skel-state never showed {wanted:?} (last {})",
                    now[0]
                ));
            }
            std::thread::sleep(Duration::from_millis(200));
        }
    };
    wait_for("locomotion: move")?;
    let before = session.screenshot("#skel")?;
    session.execute(
        "const s = document.getElementById('param-speed'); s.value = '3.5'; \
         s.dispatchEvent(new Event('input')); return s.value;",
        &[],
    )?;
    wait_for("locomotion: run")?;
    std::thread::sleep(Duration::from_millis(500));
    let after = session.screenshot("#skel")?;
    for (name, png) in [("graph-idle", &before), ("graph-run", &after)] {
        let shot = shots.join(format!("{name}.png"));
        std::fs::write(&shot, png).map_err(|e| format!("{}: {e}", shot.display()))?;
    }
    let iou = Silhouette::from_png(&before)?.iou(&Silhouette::from_png(&after)?);
    eprintln!(
        "xtask web --check: webgpu graph: speed 3.5 → run; idle and run silhouettes overlap {iou:.3}"
    );
    if iou > 0.97 {
        return Err(format!(
            "the picture did not change with the state (IoU {iou:.3})"
        ));
    }
    Ok(())
}

/// A drag turns the camera; a picked file replaces the character.
fn check_gestures(session: &Session<'_>, url: &str, shots: &Path) -> Result<(), String> {
    session.navigate(url)?;
    wait_ready(session)?;
    std::thread::sleep(Duration::from_millis(500));
    let before = Silhouette::from_png(&session.screenshot("#skel")?)?;
    session.drag("#skel", 160, 0)?;
    std::thread::sleep(Duration::from_millis(500));
    let turned_png = session.screenshot("#skel")?;
    let turned = Silhouette::from_png(&turned_png)?;
    let iou = before.iou(&turned);
    if iou > 0.9 {
        return Err(format!("a drag did not turn the camera (IoU {iou:.3})"));
    }
    let fixture = crate::workspace_root().join(PICKED_FIXTURE);
    session.pick_file("#file", &fixture)?;
    let status = "return [document.getElementById('status').textContent, \
                  document.body.getAttribute('data-skel-error')];";
    let name = PICKED_FIXTURE.rsplit('/').next().unwrap_or(PICKED_FIXTURE);
    let started = Instant::now();
    loop {
        let now = session.execute(status, &[])?;
        if let Some(error) = now[1].as_str() {
            return Err(format!("the page failed after picking {name}: {error}"));
        }
        if now[0].as_str().is_some_and(|s| s.starts_with(name)) {
            break;
        }
        if started.elapsed() > READY_TIMEOUT {
            return Err(format!("{name} never loaded (status: {})", now[0]));
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    std::thread::sleep(Duration::from_millis(500));
    let picked_png = session.screenshot("#skel")?;
    let picked = Silhouette::from_png(&picked_png)?;
    for (file, png) in [("turned", &turned_png), ("picked", &picked_png)] {
        let shot = shots.join(format!("{file}.png"));
        std::fs::write(&shot, png).map_err(|e| format!("{}: {e}", shot.display()))?;
    }
    let iou_picked = turned.iou(&picked);
    eprintln!(
        "xtask web --check: webgpu gestures: a drag turned the camera (IoU {iou:.3} with before); {name} loaded from the file input (IoU {iou_picked:.3} with the character), {:.1} % drawn",
        picked.coverage() * 100.0
    );
    if picked.coverage() < 0.01 || iou_picked > 0.9 {
        return Err(format!(
            "{name} did not replace the character on the canvas ({:.1} % drawn, IoU {iou_picked:.3})",
            picked.coverage() * 100.0
        ));
    }
    Ok(())
}

/// Waits for `data-skel-ready` (any backend) or fails with `data-skel-error`.
fn wait_ready(session: &Session<'_>) -> Result<(), String> {
    let probe = "const b = document.body; return [b.getAttribute('data-skel-ready'), \
                 b.getAttribute('data-skel-error')];";
    let started = Instant::now();
    loop {
        let state = session.execute(probe, &[])?;
        if let Some(error) = state[1].as_str() {
            return Err(format!("the page failed: {error}"));
        }
        if state[0].is_string() {
            return Ok(());
        }
        if started.elapsed() > READY_TIMEOUT {
            return Err(format!("not ready after {READY_TIMEOUT:?}"));
        }
        std::thread::sleep(Duration::from_millis(250));
    }
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

/// Which pixels of a screenshot differ from its background (the top-left pixel's colour).
struct Silhouette {
    width: u32,
    height: u32,
    ink: Vec<bool>,
}

impl Silhouette {
    fn from_png(png: &[u8]) -> Result<Self, String> {
        let image = image::load_from_memory(png)
            .map_err(|e| format!("screenshot: {e}"))?
            .to_rgb8();
        let background = image.get_pixel(0, 0).0;
        let ink = image
            .pixels()
            .map(|p| {
                p.0.iter()
                    .zip(background)
                    .any(|(a, b)| (i32::from(*a) - i32::from(b)).abs() > INK_LEVELS)
            })
            .collect();
        Ok(Self {
            width: image.width(),
            height: image.height(),
            ink,
        })
    }

    /// Whether pixel (`x`, `y`), inside the image, is drawn.
    fn ink_at(&self, x: i64, y: i64) -> bool {
        usize::try_from(y * i64::from(self.width) + x)
            .ok()
            .and_then(|i| self.ink.get(i))
            .copied()
            .unwrap_or(false)
    }

    #[expect(clippy::cast_precision_loss, reason = "pixel counts")]
    fn coverage(&self) -> f64 {
        self.ink.iter().filter(|i| **i).count() as f64 / self.ink.len().max(1) as f64
    }

    /// The framing camera puts the character in the middle, most of the canvas tall.
    #[expect(
        clippy::cast_possible_truncation,
        reason = "a screenshot has far fewer than 2^32 pixels"
    )]
    fn check_character(&self) -> Result<(), String> {
        let coverage = self.coverage();
        if !(0.02..=0.6).contains(&coverage) {
            return Err(format!(
                "{:.1} % of the canvas differs from the background (a character covers 2–60 %)",
                coverage * 100.0
            ));
        }
        let (mut x0, mut y0, mut x1, mut y1) = (u32::MAX, u32::MAX, 0, 0);
        for (i, _) in self.ink.iter().enumerate().filter(|(_, i)| **i) {
            let (x, y) = (i as u32 % self.width, i as u32 / self.width);
            (x0, y0, x1, y1) = (x0.min(x), y0.min(y), x1.max(x), y1.max(y));
        }
        let centre = (
            f64::from(x0 + x1) / 2.0 / f64::from(self.width),
            f64::from(y0 + y1) / 2.0 / f64::from(self.height),
        );
        let tall = f64::from(y1 - y0) / f64::from(self.height);
        if (centre.0 - 0.5).abs() > 0.2 || (centre.1 - 0.5).abs() > 0.2 || tall < 0.4 {
            return Err(format!(
                "the drawn pixels span x {x0}..{x1}, y {y0}..{y1} of {}×{}: not a framed character",
                self.width, self.height
            ));
        }
        Ok(())
    }

    /// Intersection over union of two silhouettes of the same size (0 when sizes differ).
    #[expect(clippy::cast_precision_loss, reason = "pixel counts")]
    fn iou(&self, other: &Self) -> f64 {
        if (self.width, self.height) != (other.width, other.height) {
            return 0.0;
        }
        let both = self
            .ink
            .iter()
            .zip(&other.ink)
            .filter(|(a, b)| **a && **b)
            .count();
        let either = self
            .ink
            .iter()
            .zip(&other.ink)
            .filter(|(a, b)| **a || **b)
            .count();
        both as f64 / either.max(1) as f64
    }
}
