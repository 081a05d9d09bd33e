//! `skel view --graph` as a person would use it: a real X server (Xvfb), a real window, keys
//! sent with xdotool change the graph's parameters and with them its states.
//!
//! Without Xvfb and xdotool these tests print a loud SKIP and pass, unless
//! `SKEL_REQUIRE_DISPLAY=1`; without a GPU adapter they SKIP unless `SKEL_REQUIRE_GPU=1`.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

mod display;

use display::{Viewer, xdotool, xvfb};

#[test]
fn keys_drive_the_graph_of_the_built_in_character() {
    let Some(x) = xvfb("keys_drive_the_graph_of_the_built_in_character") else {
        return;
    };
    let graph = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../graphs/default_character.json"
    );
    let mut viewer = Viewer::spawn(&x, "graph", &["--graph", graph, "--size", "320x240"]);
    let started = viewer.wait_for("locomotion: move; wave: off | speed=0.00 waving=false");
    assert!(
        started,
        "the viewer never showed the graph: {:?}\n{}",
        viewer.seen,
        viewer.stderr()
    );
    viewer.focus(&x);
    // Six steps up: speed 3, past the run threshold (2.5).
    for _ in 0..6 {
        xdotool(&x, &["key", "Up"]);
    }
    let ran = viewer.wait_for("locomotion: run");
    // The first bool (waving) turns the wave layer on.
    xdotool(&x, &["key", "1"]);
    let waved = viewer.wait_for("wave: on");
    let quit = viewer.quit(&x);
    let seen = &viewer.seen;
    assert!(ran, "the Up key never made the character run: {seen:?}");
    assert!(seen.iter().any(|l| l.contains("speed=3.00")), "{seen:?}");
    assert!(waved, "the 1 key never turned the wave on: {seen:?}");
    assert!(quit, "skel view failed after q");
}
