//! The page plays `KHR_animation_pointer` through the facade's frame (issue 43):
//! `fixtures/animation_pointer.gltf` (copied beside the page by `xtask web`) held at 0 s shows
//! its tile red beside the cells quad (red, green, blue and yellow cells); held at 1 s the
//! tile is blue and the cells' group hidden, so no red is left. A page that ignored the
//! property tracks would draw the red tile and the red cell at both times.

use std::path::Path;
use std::time::Duration;

use super::controls::wait_ready;
use crate::webdriver::Session;

/// The fixture's name beside `index.html`.
pub(crate) const POINTER_FIXTURE: &str = "animation_pointer.gltf";

/// Fewest pixels of the tile's colour the canvas must show (the tile covers thousands).
const MIN_TILE_PIXELS: usize = 300;

/// Pixels whose channel `c` is clearly above the other two.
fn dominated_by(image: &image::RgbImage, c: usize) -> usize {
    image
        .pixels()
        .filter(|p| (0..3).all(|k| k == c || i32::from(p[c]) > i32::from(p[k]) + 60))
        .count()
}

/// Loads the fixture held at `t` seconds and returns (red, blue) pixel counts.
fn held_at(
    session: &Session<'_>,
    base: &str,
    t: f32,
    shot: &Path,
) -> Result<(usize, usize), String> {
    session.navigate(&format!("{base}&asset={POINTER_FIXTURE}&t={t}"))?;
    wait_ready(session)?;
    // A few frames after the first (held: every frame is the same).
    std::thread::sleep(Duration::from_millis(1000));
    let png = session.screenshot("#skel")?;
    std::fs::write(shot, &png).map_err(|e| format!("{}: {e}", shot.display()))?;
    let image = image::load_from_memory(&png)
        .map_err(|e| format!("screenshot: {e}"))?
        .to_rgb8();
    Ok((dominated_by(&image, 0), dominated_by(&image, 2)))
}

/// The check on `base` (`http://…/?backend=B`).
///
/// # Errors
/// The page failed, or the colours are not those of the held times.
pub(super) fn check_pointer(
    session: &Session<'_>,
    backend: &str,
    base: &str,
    shots: &Path,
) -> Result<(), String> {
    let (red0, blue0) = held_at(
        session,
        base,
        0.0,
        &shots.join(format!("{backend}_pointer_0s.png")),
    )?;
    let (red1, blue1) = held_at(
        session,
        base,
        1.0,
        &shots.join(format!("{backend}_pointer_1s.png")),
    )?;
    eprintln!(
        "xtask web --check: {backend} animation_pointer.gltf: {red0} red / {blue0} blue pixels at 0 s, {red1} red / {blue1} blue at 1 s"
    );
    if red0 < MIN_TILE_PIXELS {
        return Err(format!(
            "at 0 s the tile should be red: {red0} red, {blue0} blue pixels"
        ));
    }
    if blue1 < MIN_TILE_PIXELS || red1 > 0 {
        return Err(format!(
            "at 1 s the tile should be blue and the cells hidden: {red1} red, {blue1} blue pixels (property animation not drawn?)"
        ));
    }
    Ok(())
}
