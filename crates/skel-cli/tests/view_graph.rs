//! `skel view --graph` as a person would use it: a real X server (Xvfb), a real window, keys
//! sent with xdotool change the graph's parameters and with them its states.
//!
//! Without Xvfb and xdotool these tests print a loud SKIP and pass, unless
//! `SKEL_REQUIRE_DISPLAY=1`; without a GPU adapter they SKIP unless `SKEL_REQUIRE_GPU=1`.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use std::io::{BufRead as _, BufReader, Read as _};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

/// A child process (Xvfb, the viewer) killed when dropped: nothing outlives the test.
struct KillOnDrop(Child);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts Xvfb and returns it with its display, or `None` (after the SKIP line) when Xvfb,
/// xdotool or an adapter is missing.
fn xvfb(test: &str) -> Option<(KillOnDrop, String)> {
    let required = skel_test_support::required("SKEL_REQUIRE_DISPLAY");
    let have = |tool: &str| {
        Command::new("which")
            .arg(tool)
            .output()
            .is_ok_and(|o| o.status.success())
    };
    if !(have("Xvfb") && have("xdotool")) {
        assert!(
            !required,
            "{test}: Xvfb or xdotool missing and SKEL_REQUIRE_DISPLAY=1"
        );
        skel_test_support::skip(test, "Xvfb or xdotool missing to test skel view --graph");
        return None;
    }
    skel_test_support::gpu(test, skel::gpu::GpuContext::new_headless())?;
    let mut child = Command::new("Xvfb")
        .args([
            "-displayfd",
            "1",
            "-screen",
            "0",
            "1024x768x24",
            "-nolisten",
            "tcp",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start Xvfb");
    let mut number = String::new();
    let mut out = child.stdout.take().unwrap();
    let mut byte = [0_u8; 1];
    while out.read(&mut byte).unwrap_or(0) == 1 && byte[0] != b'\n' {
        number.push(char::from(byte[0]));
    }
    assert!(!number.is_empty(), "Xvfb did not report its display");
    Some((KillOnDrop(child), format!(":{}", number.trim())))
}

fn xdotool(display: &str, args: &[&str]) -> String {
    let out = Command::new("xdotool")
        .args(args)
        .env("DISPLAY", display)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "xdotool {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// Reads viewer lines into `seen` until one contains `needle` (`false` after two minutes,
/// or when the viewer exits: it prints a line a second, so a missing state cannot hang).
fn wait_for(rx: &mpsc::Receiver<String>, seen: &mut Vec<String>, needle: &str) -> bool {
    let end = std::time::Instant::now() + Duration::from_secs(120);
    while let Ok(line) = rx.recv_timeout(end.saturating_duration_since(std::time::Instant::now())) {
        let found = line.contains(needle);
        seen.push(line);
        if found {
            return true;
        }
    }
    false
}

#[test]
fn keys_drive_the_graph_of_the_built_in_character() {
    let Some((_x, display)) = xvfb("keys_drive_the_graph_of_the_built_in_character") else {
        return;
    };
    let graph = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../graphs/default_character.json"
    );
    let log = std::env::temp_dir().join(format!("skel-view-graph-{}.txt", std::process::id()));
    let child = Command::new(env!("CARGO_BIN_EXE_skel"))
        .args(["view", "--graph", graph, "--size", "320x240"])
        .env("DISPLAY", &display)
        .env_remove("WAYLAND_DISPLAY")
        .env("XDG_RUNTIME_DIR", std::env::temp_dir())
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
    let window = xdotool(&display, &["search", "--sync", "--name", "skel view"]);
    let window = window.lines().next().unwrap().trim().to_owned();
    xdotool(&display, &["windowfocus", "--sync", &window]);
    // Six steps up: speed 3, past the run threshold (2.5).
    for _ in 0..6 {
        xdotool(&display, &["key", "Up"]);
    }
    let ran = wait_for(&rx, &mut seen, "locomotion: run");
    // The first bool (waving) turns the wave layer on.
    xdotool(&display, &["key", "1"]);
    let waved = wait_for(&rx, &mut seen, "wave: on");
    xdotool(&display, &["key", "q"]);
    let status = child.0.wait().unwrap();
    let _ = std::fs::remove_file(&log);
    assert!(ran, "the Up key never made the character run: {seen:?}");
    assert!(seen.iter().any(|l| l.contains("speed=3.00")), "{seen:?}");
    assert!(waved, "the 1 key never turned the wave on: {seen:?}");
    assert!(status.success(), "skel view failed after q");
}
