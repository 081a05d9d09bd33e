//! `skel render --graph`: the built-in character's graph rendered on the GPU (lavapipe in CI)
//! with a `--set` on the render's timeline: a character set running moves far more than one
//! left standing, and a bad parameter is refused before anything is drawn.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

#[path = "render/run.rs"]
mod run;

use run::{gpu_available, render, skel, workspace};

/// Mean absolute difference of two frames' RGB channels, 0..=255.
fn mean_diff(a: &std::path::Path, b: &std::path::Path) -> f64 {
    let (a, b) = (
        image::open(a).unwrap().into_rgb8(),
        image::open(b).unwrap().into_rgb8(),
    );
    assert_eq!(a.dimensions(), b.dimensions());
    let total: u64 = a
        .as_raw()
        .iter()
        .zip(b.as_raw())
        .map(|(x, y)| u64::from(x.abs_diff(*y)))
        .sum();
    total as f64 / a.as_raw().len() as f64
}

#[test]
fn a_graph_renders_and_its_parameters_change_the_picture() {
    let test = "a_graph_renders_and_its_parameters_change_the_picture";
    if !gpu_available(test) {
        return;
    }
    let graph = workspace().join("graphs/default_character.json");
    let graph = graph.to_str().unwrap();
    let args = [
        "--graph", graph, "--frames", "12", "--fps", "10", "--size", "128x128",
    ];
    let still = render("graph-still", &args);
    let ran = render(
        "graph-run",
        &[&args[..], &["--set", "0.3:speed=3"]].concat(),
    );
    let frame = |dir: &std::path::Path, i: usize| dir.join(format!("frame_{i:04}.png"));
    // Standing, the character hardly moves in 1.1 s; set running (the frames framed alike
    // within each render), it does.
    let idle = mean_diff(&frame(&still, 0), &frame(&still, 11));
    let runs = mean_diff(&frame(&ran, 0), &frame(&ran, 11));
    assert!(
        runs > 0.5 && runs > 3.0 * idle,
        "running {runs} vs standing {idle}"
    );
    let bad = skel(&[
        "render", "--graph", graph, "--set", "0:sped=3", "--frames", "1",
    ]);
    assert!(!bad.ok && bad.stderr.contains("sped"), "{}", bad.stderr);
    let _ = std::fs::remove_dir_all(still);
    let _ = std::fs::remove_dir_all(ran);
}
