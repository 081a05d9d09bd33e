//! The page's controls in the browser: the animation graph's slider, a mouse drag, the crowd
//! toggle and the file input each change the picture as they should.

use std::path::Path;
use std::time::{Duration, Instant};

use super::limits::{CHECK_CROWD, MESHOPT_FIXTURE, MIN_CROWD_COVER, PICKED_FIXTURE, READY_TIMEOUT};
use super::silhouette::Silhouette;
use crate::webdriver::Session;

/// The graph's controls change what plays: `speed` 3.5 reaches the `run` state.
pub(super) fn check_graph(session: &Session<'_>, url: &str, shots: &Path) -> Result<(), String> {
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

/// A drag turns the camera; a file that is no glTF is refused with its reason and the page
/// plays on; a picked file then replaces the character (which the frame loop does: so the
/// refusal did not stop it), and a meshopt-compressed file replaces that one (decoded in wasm).
pub(super) fn check_gestures(session: &Session<'_>, url: &str, shots: &Path) -> Result<(), String> {
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
    check_crowd(session, &turned, shots)?;
    check_bad_file(session, shots)?;
    let name = pick_and_wait(session, PICKED_FIXTURE)?;
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
    // A meshopt-compressed file loads in the browser too (skel-gltf's Rust decoder).
    let meshopt = pick_and_wait(session, MESHOPT_FIXTURE)?;
    std::thread::sleep(Duration::from_millis(500));
    let png = session.screenshot("#skel")?;
    let drawn = Silhouette::from_png(&png)?;
    let shot = shots.join("meshopt.png");
    std::fs::write(&shot, &png).map_err(|e| format!("{}: {e}", shot.display()))?;
    let iou_meshopt = picked.iou(&drawn);
    eprintln!(
        "xtask web --check: webgpu gestures: {meshopt} (meshopt) loaded from the file input, {:.1} % drawn (IoU {iou_meshopt:.3} with {name})",
        drawn.coverage() * 100.0
    );
    if drawn.coverage() < 0.01 || iou_meshopt > 0.9 {
        return Err(format!(
            "{meshopt} did not replace {name} on the canvas ({:.1} % drawn, IoU {iou_meshopt:.3})",
            drawn.coverage() * 100.0
        ));
    }
    Ok(())
}

/// Opens `fixture` (relative to the workspace) through the page's file input and waits until
/// the status line names it; returns its file name. A page error, or the file never loading
/// (a refusal stays in `data-skel-file-error`), is the error.
fn pick_and_wait(session: &Session<'_>, fixture: &str) -> Result<String, String> {
    session.pick_file("#file", &crate::workspace_root().join(fixture))?;
    let status = "return [document.getElementById('status').textContent, \
                  document.body.getAttribute('data-skel-error'), \
                  document.body.getAttribute('data-skel-file-error')];";
    let name = fixture.rsplit('/').next().unwrap_or(fixture);
    let started = Instant::now();
    loop {
        let now = session.execute(status, &[])?;
        if let Some(error) = now[1].as_str() {
            return Err(format!("the page failed after picking {name}: {error}"));
        }
        if now[0].as_str().is_some_and(|s| s.starts_with(name)) {
            if let Some(stale) = now[2].as_str() {
                return Err(format!("{name} loaded but the refusal stayed: {stale}"));
            }
            return Ok(name.to_owned());
        }
        if started.elapsed() > READY_TIMEOUT {
            let refused = now[2].as_str().unwrap_or("none");
            return Err(format!(
                "{name} never loaded (status: {}, refusal: {refused})",
                now[0]
            ));
        }
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// Picks a file that is no glTF: the page says why in `<body data-skel-file-error>`, naming
/// it, and does not fail (`data-skel-error` unset).
fn check_bad_file(session: &Session<'_>, shots: &Path) -> Result<(), String> {
    let bad = shots.join("not-a-model.glb");
    std::fs::write(&bad, b"these bytes are no glTF")
        .map_err(|e| format!("{}: {e}", bad.display()))?;
    session.pick_file("#file", &bad)?;
    let state = "return [document.body.getAttribute('data-skel-file-error'), \
                 document.body.getAttribute('data-skel-error')];";
    let started = Instant::now();
    loop {
        let now = session.execute(state, &[])?;
        if let Some(error) = now[1].as_str() {
            return Err(format!("a bad file stopped the page: {error}"));
        }
        if let Some(refused) = now[0].as_str() {
            if !refused.starts_with("not-a-model.glb") {
                return Err(format!("the refusal does not name the file: {refused}"));
            }
            eprintln!("xtask web --check: a bad file is refused and the page plays on: {refused}");
            return Ok(());
        }
        if started.elapsed() > READY_TIMEOUT {
            return Err("the page said nothing of a file that is no glTF".into());
        }
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// Ticking `#crowd` draws a crowd of [`CHECK_CROWD`] in a grid (several times one
/// character's pixels, elsewhere), unticking it the one character again.
fn check_crowd(session: &Session<'_>, one: &Silhouette, shots: &Path) -> Result<(), String> {
    let toggle = "document.getElementById('crowd').click(); return null;";
    let crowd = "return [document.body.getAttribute('data-skel-crowd'), \
                 document.body.getAttribute('data-skel-error')];";
    let wait_for = |wanted: &str| -> Result<(), String> {
        let started = Instant::now();
        loop {
            let now = session.execute(crowd, &[])?;
            if let Some(error) = now[1].as_str() {
                return Err(format!("the page failed: {error}"));
            }
            if now[0].as_str() == Some(wanted) {
                return Ok(());
            }
            if started.elapsed() > READY_TIMEOUT {
                return Err(format!(
                    "data-skel-crowd never became {wanted} ({})",
                    now[0]
                ));
            }
            std::thread::sleep(Duration::from_millis(200));
        }
    };
    session.execute(toggle, &[])?;
    wait_for(&CHECK_CROWD.to_string())?;
    std::thread::sleep(Duration::from_millis(800));
    let png = session.screenshot("#skel")?;
    let shot = shots.join("crowd.png");
    std::fs::write(&shot, &png).map_err(|e| format!("{}: {e}", shot.display()))?;
    let grid = Silhouette::from_png(&png)?;
    let (covered, iou) = (grid.coverage() / one.coverage().max(1e-6), grid.iou(one));
    eprintln!(
        "xtask web --check: webgpu crowd of {CHECK_CROWD}: {:.1} % drawn ({covered:.1}× one character's), IoU {iou:.3} with one character",
        grid.coverage() * 100.0
    );
    if covered < MIN_CROWD_COVER || iou > 0.5 {
        return Err(format!(
            "the crowd covers {covered:.1}× one character's pixels (at least {MIN_CROWD_COVER}× expected), IoU {iou:.3}; see {}",
            shot.display()
        ));
    }
    session.execute(toggle, &[])?;
    wait_for("0")
}

/// Waits for `data-skel-ready` (any backend) or fails with `data-skel-error`.
pub(super) fn wait_ready(session: &Session<'_>) -> Result<(), String> {
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
