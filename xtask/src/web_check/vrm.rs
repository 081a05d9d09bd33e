//! The page plays a VRM avatar's spring bones (issue 44): `fixtures/vrm/v1_600_bones.vrm`
//! (copied beside the page by `xtask web`), 600 joints whose 116 hair strands stand straight
//! out from the head at rest, is opened with `?asset=` as a dropped file would be, its rest
//! pose held. With `?springs=0` the strands keep standing out; with springs (the default)
//! gravity hangs them within a second, so the drawn pixels' mean row moves down the
//! picture. On WebGL2 its 600 bones take two rows of the bone texture (512 a row at 2048
//! texels); the springless pictures of both backends must agree (intersection over union),
//! which a strand read from the wrong row would break.

use std::path::Path;
use std::time::Duration;

use super::controls::wait_ready;
use super::silhouette::Silhouette;
use crate::webdriver::Session;

/// The fixture's name beside `index.html`.
pub(crate) const VRM_FIXTURE: &str = "v1_600_bones.vrm";

/// Fewest rows the hanging strands must move the drawn pixels' mean down by (they move it by
/// tens: the strands hang about 0.2 m of a 2 m picture).
const MIN_DROP_ROWS: f64 = 8.0;

/// How long the springs run before the picture is taken (SwiftShader draws a few frames a
/// second; each frame steps the springs by its time, up to 100 ms).
const HANG: Duration = Duration::from_millis(3000);

/// What the avatar showed on one backend.
pub(super) struct VrmPictures {
    /// Without springs (the rest pose, held).
    pub(super) still: Silhouette,
    /// The drawn pixels' mean row without and with springs.
    pub(super) rows: (f64, f64),
}

/// Opens the avatar with `extra` query parameters, waits `wait` after the first frame, and
/// returns its silhouette (screenshot saved as `shot`).
fn picture(
    session: &Session<'_>,
    base: &str,
    extra: &str,
    wait: Duration,
    shot: &Path,
) -> Result<Silhouette, String> {
    session.navigate(&format!("{base}&asset={VRM_FIXTURE}&t=0{extra}"))?;
    wait_ready(session)?;
    std::thread::sleep(wait);
    let png = session.screenshot("#skel")?;
    std::fs::write(shot, &png).map_err(|e| format!("{}: {e}", shot.display()))?;
    Silhouette::from_png(&png)
}

/// The check on `base` (`http://…/?backend=B`).
///
/// # Errors
/// The page failed, drew nothing, or the strands did not hang.
pub(super) fn check_vrm(
    session: &Session<'_>,
    backend: &str,
    base: &str,
    shots: &Path,
) -> Result<VrmPictures, String> {
    let still = picture(
        session,
        base,
        "&springs=0",
        Duration::from_millis(1000),
        &shots.join(format!("{backend}_vrm_still.png")),
    )?;
    let sprung = picture(
        session,
        base,
        "",
        HANG,
        &shots.join(format!("{backend}_vrm_springs.png")),
    )?;
    let (a, b) = (still.mean_ink_row(), sprung.mean_ink_row());
    let (Some(a), Some(b)) = (a, b) else {
        return Err(format!(
            "{VRM_FIXTURE} drew nothing: {:.2} % and {:.2} % of the canvas",
            still.coverage() * 100.0,
            sprung.coverage() * 100.0
        ));
    };
    eprintln!(
        "xtask web --check: {backend} {VRM_FIXTURE}: drawn pixels' mean row {a:.1} without springs, {b:.1} with ({:.2} % / {:.2} % of the canvas)",
        still.coverage() * 100.0,
        sprung.coverage() * 100.0
    );
    if b - a < MIN_DROP_ROWS {
        return Err(format!(
            "the strands did not hang: mean row {a:.1} without springs, {b:.1} with (at least {MIN_DROP_ROWS} rows lower expected)"
        ));
    }
    Ok(VrmPictures {
        still,
        rows: (a, b),
    })
}
