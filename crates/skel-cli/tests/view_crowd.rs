//! `skel view --crowd N` as a person would use it (Xvfb, lavapipe, xdotool): the crowd is
//! drawn and every character counted as drawn; zooming in culls the characters that leave the
//! window; a click on a character picks it (its index, clip and time printed), a click on the
//! empty sky picks nothing. The same on `--posing gpu` and `baked` (posed, culled and picked on the GPU;
//! no time printed: the playheads live on the GPU).
//!
//! Without Xvfb and xdotool these tests print a loud SKIP and pass, unless
//! `SKEL_REQUIRE_DISPLAY=1`; without a GPU adapter they SKIP unless `SKEL_REQUIRE_GPU=1`.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

mod display;

use display::{Viewer, xdotool, xvfb};

/// `(drawn, culled)` of the last readout line in `seen` (`crowd N | D drawn, C culled | …`).
fn counts(seen: &[String]) -> Option<(u32, u32)> {
    let line = seen.iter().rev().find(|l| l.starts_with("crowd "))?;
    let mut parts = line.split(" | ").nth(1)?.split(", ");
    let number = |s: Option<&str>| s?.split(' ').next()?.parse().ok();
    Some((number(parts.next())?, number(parts.next())?))
}

/// Reads readout lines until `until` holds for the counts (or two minutes pass).
fn wait_counts(viewer: &mut Viewer, until: impl Fn(u32, u32) -> bool) -> Option<(u32, u32)> {
    for _ in 0..120 {
        if !viewer.wait_for("crowd ") {
            return None;
        }
        if let Some((d, c)) = counts(&viewer.seen)
            && until(d, c)
        {
            return Some((d, c));
        }
    }
    None
}

fn click(x: &display::Xvfb, window: &str, at: (u32, u32)) {
    let (px, py) = (at.0.to_string(), at.1.to_string());
    xdotool(x, &["mousemove", "--sync", "--window", window, &px, &py]);
    xdotool(x, &["click", "1"]);
}

#[test]
fn the_crowd_is_culled_as_the_camera_closes_in_and_a_click_picks_a_character() {
    culled_and_picked(
        "the_crowd_is_culled_as_the_camera_closes_in_and_a_click_picks_a_character",
        "cpu",
    );
}

#[test]
fn a_gpu_posed_crowd_is_culled_and_picked_on_the_gpu() {
    culled_and_picked("a_gpu_posed_crowd_is_culled_and_picked_on_the_gpu", "gpu");
}

#[test]
fn a_baked_crowd_is_culled_and_picked_on_the_gpu() {
    culled_and_picked("a_baked_crowd_is_culled_and_picked_on_the_gpu", "baked");
}

fn culled_and_picked(test: &str, posing: &str) {
    let Some(x) = xvfb(test) else {
        return;
    };
    let mut viewer = Viewer::spawn(
        &x,
        &format!("crowd-{posing}"),
        &["--crowd", "9", "--posing", posing, "--size", "320x240"],
    );
    let whole = wait_counts(&mut viewer, |d, _| d > 0);
    assert_eq!(
        whole,
        Some((9, 0)),
        "the framed crowd is not drawn whole: {:?}\n{}",
        viewer.seen,
        viewer.stderr()
    );
    let window = viewer.focus(&x);

    // The window opens on `skel render --crowd`'s picture (skel_demo::OrbitView::overlook:
    // the grid as large as the window allows, centred on screen), where the middle character
    // stands a little right of the window's middle with its legs at the centre: (169, 85) is
    // its chest (projected from the layout: feet at (168, 145), head at (169, 51)). The
    // top-left corner is sky.
    click(&x, &window, (169, 85));
    assert!(
        viewer.wait_for("picked instance "),
        "no pick: {:?}\n{}",
        viewer.seen,
        viewer.stderr()
    );
    let line = viewer.seen.last().unwrap().clone();
    let instance: u32 = line["picked instance ".len()..]
        .split(' ')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert!(instance < 9, "{line}");
    let clip = if posing == "cpu" {
        "clip 0 \"Walk\" at "
    } else {
        "clip 0 \"Walk\"), "
    };
    assert!(line.contains(clip), "{line}");
    // The readout names the picked character from then on.
    assert!(
        viewer.wait_for(&format!("| picked {instance} |")),
        "{:?}",
        viewer.seen
    );
    click(&x, &window, (3, 3));
    assert!(viewer.wait_for("picked nothing"), "{:?}", viewer.seen);

    // The wheel closes in on the middle: the rows at the sides and the front leave the window.
    for _ in 0..12 {
        xdotool(&x, &["click", "4"]);
    }
    let closer = wait_counts(&mut viewer, |_, c| c > 0);
    let quit = viewer.quit(&x);
    let (drawn, culled) = closer.unwrap_or_else(|| panic!("nothing culled: {:?}", viewer.seen));
    assert_eq!(drawn + culled, 9);
    assert!(drawn > 0, "the middle character was culled too");
    assert!(quit, "skel view failed after q: {}", viewer.stderr());
}
