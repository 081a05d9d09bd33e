//! `skel view --graph` as a person would use it: a real X server (Xvfb), a real window, keys
//! sent with xdotool change the graph's parameters and with them its states.
//!
//! Without Xvfb and xdotool these tests print a loud SKIP and pass, unless
//! `SKEL_REQUIRE_DISPLAY=1`; without a GPU adapter they SKIP unless `SKEL_REQUIRE_GPU=1`.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

mod display;

use std::io::{BufRead as _, BufReader};
use std::process::Stdio;
use std::sync::mpsc;

use display::{KillOnDrop, view, wait_for, xdotool, xvfb};

#[test]
fn keys_drive_the_graph_of_the_built_in_character() {
    let Some(x) = xvfb("keys_drive_the_graph_of_the_built_in_character") else {
        return;
    };
    let graph = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../graphs/default_character.json"
    );
    let log = std::env::temp_dir().join(format!("skel-view-graph-{}.txt", std::process::id()));
    let child = view(&x, &["--graph", graph, "--size", "320x240"])
        .stdout(Stdio::piped())
        .stderr(std::fs::File::create(&log).unwrap())
        .spawn()
        .unwrap();
    let mut child = KillOnDrop(child);
    let (tx, rx) = mpsc::channel();
    let stdout = child.0.stdout.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    let mut seen = Vec::new();
    let started = wait_for(
        &rx,
        &mut seen,
        "locomotion: move; wave: off | speed=0.00 waving=false",
    );
    let stderr = || std::fs::read_to_string(&log).unwrap_or_default();
    assert!(
        started,
        "the viewer never showed the graph: {seen:?}\n{}",
        stderr()
    );
    let window = xdotool(&x, &["search", "--sync", "--name", "skel view"]);
    let window = window.lines().next().unwrap().trim().to_owned();
    xdotool(&x, &["windowfocus", "--sync", &window]);
    // Six steps up: speed 3, past the run threshold (2.5).
    for _ in 0..6 {
        xdotool(&x, &["key", "Up"]);
    }
    let ran = wait_for(&rx, &mut seen, "locomotion: run");
    // The first bool (waving) turns the wave layer on.
    xdotool(&x, &["key", "1"]);
    let waved = wait_for(&rx, &mut seen, "wave: on");
    xdotool(&x, &["key", "q"]);
    let status = child.0.wait().unwrap();
    let _ = std::fs::remove_file(&log);
    assert!(ran, "the Up key never made the character run: {seen:?}");
    assert!(seen.iter().any(|l| l.contains("speed=3.00")), "{seen:?}");
    assert!(waved, "the 1 key never turned the wave on: {seen:?}");
    assert!(status.success(), "skel view failed after q");
}
