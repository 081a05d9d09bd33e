//! `skel view --graph` moves IK targets with the mouse, in a real window (Xvfb) with real
//! pointer events (xdotool): Shift + left drag moves the selected target, Tab selects the
//! next one, a right drag moves it too, and every change is a stdout line the graph's own
//! readout agrees with; the selected target is drawn where it is. Without Xvfb and xdotool these tests SKIP unless
//! `SKEL_REQUIRE_DISPLAY=1`; without an adapter, unless `SKEL_REQUIRE_GPU=1`.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

mod display;

use display::{Viewer, Xvfb, screenshot, xdotool};

/// The point of the last line of `seen` that starts with `prefix` (`… = X,Y,Z` or
/// `… at X,Y,Z`).
fn point(seen: &[String], prefix: &str) -> [f64; 3] {
    let line = seen
        .iter()
        .rev()
        .find(|l| l.starts_with(prefix))
        .unwrap_or_else(|| panic!("no line {prefix:?} in {seen:?}"));
    let numbers: Vec<f64> = line
        .rsplit(' ')
        .next()
        .unwrap()
        .split(',')
        .map(|x| x.parse().unwrap())
        .collect();
    [numbers[0], numbers[1], numbers[2]]
}

/// Waits for the next line that starts with `prefix` and returns its point.
fn next_point(viewer: &mut Viewer, prefix: &str) -> [f64; 3] {
    assert!(
        viewer.wait_for(prefix),
        "no line {prefix:?}: {:?}",
        viewer.seen
    );
    point(&viewer.seen, prefix)
}

/// Moves the pointer to (x, y) of `window` and lets the viewer see it.
fn pointer(x: &Xvfb, window: &str, at: (u32, u32)) {
    xdotool(
        x,
        &[
            "mousemove",
            "--sync",
            "--window",
            window,
            &at.0.to_string(),
            &at.1.to_string(),
        ],
    );
}

#[test]
fn the_mouse_moves_the_graphs_ik_targets() {
    let Some(x) = display::xvfb("the_mouse_moves_the_graphs_ik_targets") else {
        return;
    };
    let graph = concat!(env!("CARGO_MANIFEST_DIR"), "/../../graphs/ik_gallery.json");
    let mut viewer = Viewer::spawn(
        &x,
        "targets",
        &[
            "--graph",
            graph,
            "--set",
            "0:two_bone=1",
            "--size",
            "320x240",
        ],
    );
    assert!(
        viewer.wait_for("| target hand (Tab next"),
        "the viewer never named the selected target: {:?}\n{}",
        viewer.seen,
        viewer.stderr()
    );
    let window = viewer.focus(&x);

    // Shift + left drag upwards: the hand's target rises, on the plane facing the camera.
    pointer(&x, &window, (160, 150));
    xdotool(&x, &["keydown", "shift"]);
    xdotool(&x, &["mousedown", "1"]);
    let pressed = next_point(&mut viewer, "target hand = ");
    pointer(&x, &window, (160, 70));
    let dragged = next_point(&mut viewer, "target hand = ");
    xdotool(&x, &["mouseup", "1"]);
    xdotool(&x, &["keyup", "shift"]);
    let rise = dragged[1] - pressed[1];
    let across = (dragged[0] - pressed[0]).hypot(dragged[2] - pressed[2]);
    // The camera looks 15° down (it opens where `skel render` frames the character): screen
    // up is mostly world up.
    assert!(
        rise > 0.2 && across < 0.5 * rise,
        "dragging up moved the target from {pressed:?} to {dragged:?}"
    );
    // The graph holds the new value (its readout, to two decimals).
    let readout = format!("hand={:.2},{:.2},{:.2}", dragged[0], dragged[1], dragged[2]);
    assert!(
        viewer.wait_for(&readout),
        "the graph does not show {readout}: {:?}",
        viewer.seen
    );

    // Tab: the next target; a right drag sideways moves it along the screen's horizontal.
    xdotool(&x, &["key", "Tab"]);
    assert!(
        viewer.wait_for("target reach selected at 0.3500,1.7500,0.3000"),
        "{:?}",
        viewer.seen
    );
    pointer(&x, &window, (100, 100));
    xdotool(&x, &["mousedown", "3"]);
    let pressed = next_point(&mut viewer, "target reach = ");
    pointer(&x, &window, (180, 100));
    let moved = next_point(&mut viewer, "target reach = ");
    xdotool(&x, &["mouseup", "3"]);
    // The readout that follows the move still has the hand where the first drag left it.
    assert!(viewer.wait_for("graph base:"), "{:?}", viewer.seen);
    assert!(
        viewer.seen.last().unwrap().contains(&readout),
        "{:?}",
        viewer.seen
    );
    let quit = viewer.quit(&x);
    let across = (moved[0] - pressed[0]).hypot(moved[2] - pressed[2]);
    assert!(
        across > 0.2 && (moved[1] - pressed[1]).abs() < 1e-3,
        "dragging right moved the target from {pressed:?} to {moved:?}"
    );
    assert!(quit, "skel view failed after q: {}", viewer.stderr());
}

/// Pixels of the amber target marker: strong red and green, almost no blue (the shoes have
/// little green, the skin much blue, the shirt little red).
fn marker_pixels(image: &image::RgbImage) -> Vec<(u32, u32)> {
    image
        .enumerate_pixels()
        .filter(|(_, _, p)| {
            let [r, g, b] = p.0;
            r > 150 && g > 80 && b < 50 && r >= g
        })
        .map(|(x, y, _)| (x, y))
        .collect()
}

/// The last of 30 frames of `skel view ARGS` at 320×240.
fn shot(x: &Xvfb, name: &str, args: &[&str]) -> image::RgbImage {
    let mut all = vec!["--size", "320x240"];
    all.extend_from_slice(args);
    screenshot(x, &format!("marker-{name}"), "30", &all).0
}

#[test]
fn the_selected_target_is_drawn_where_it_is() {
    let Some(x) = display::xvfb("the_selected_target_is_drawn_where_it_is") else {
        return;
    };
    let gallery = concat!(env!("CARGO_MANIFEST_DIR"), "/../../graphs/ik_gallery.json");
    // The hand's target (weight 0: the arm stays down) on either side of the character.
    let centre = |set: &str| {
        let pixels = marker_pixels(&shot(&x, set, &["--graph", gallery, "--set", set]));
        assert!(pixels.len() > 20, "{set}: {} marker pixels", pixels.len());
        let n = pixels.len() as f64;
        let sum = pixels.iter().fold((0.0, 0.0), |(sx, sy), &(x, y)| {
            (sx + f64::from(x), sy + f64::from(y))
        });
        (sum.0 / n, sum.1 / n)
    };
    let (a, b) = (centre("0:hand=0.5,1.2,0.3"), centre("0:hand=-0.5,1.2,0.3"));
    assert!(
        (a.0 - b.0).abs() > 40.0 && (a.1 - b.1).abs() < 15.0,
        "the marker stood at {a:?} and at {b:?}"
    );
    // A graph without IK targets draws none.
    let plain = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../graphs/default_character.json"
    );
    let none = marker_pixels(&shot(&x, "plain", &["--graph", plain]));
    assert!(
        none.len() < 3,
        "{} marker pixels without targets",
        none.len()
    );
}
