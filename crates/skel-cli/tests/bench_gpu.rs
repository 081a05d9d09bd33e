//! `skel bench gpu`: its help, bad arguments as one error line (never a panic), and tiny runs of
//! `compute`, `upload` and `draw` on whatever adapter there is (lavapipe in CI: they check the JSON
//! shape and the skinning check, not speed). Figures worth reading need a real GPU and are
//! recorded in `docs/h200/`.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

mod common;

use common::skel;
use serde_json::Value;

#[test]
fn help_lists_the_crowd_benchmark() {
    let (ok, stdout, stderr) = skel(&["bench", "gpu", "--help"]);
    assert!(ok, "{stderr}");
    assert!(stdout.contains("crowd"), "{stdout}");
    let (ok, stdout, _) = skel(&["bench", "gpu", "crowd", "--help"]);
    assert!(ok);
    assert!(
        stdout.contains("--characters") && stdout.contains("--json"),
        "{stdout}"
    );
    for (sub, option) in [
        ("compute", "--vertices"),
        ("upload", "--characters"),
        ("draw", "--characters"),
    ] {
        assert!(stdout_of(&["bench", "gpu", "--help"]).contains(sub));
        let help = stdout_of(&["bench", "gpu", sub, "--help"]);
        assert!(
            help.contains(option) && help.contains("--json"),
            "{sub}: {help}"
        );
    }
}

fn stdout_of(args: &[&str]) -> String {
    let (ok, stdout, stderr) = skel(args);
    assert!(ok, "{args:?}: {stderr}");
    stdout
}

#[test]
fn bad_arguments_are_one_error_line() {
    for (args, word) in [
        (&["bench", "gpu", "crowd", "--bogus"][..], "--bogus"),
        (&["bench", "gpu", "crowd", "--characters", "abc"][..], "abc"),
        (
            &["bench", "gpu", "crowd", "--skinning", "cubic"][..],
            "cubic",
        ),
        (&["bench", "gpu", "warp"][..], "warp"),
        (&["bench", "gpu", "compute", "--bogus"][..], "--bogus"),
        (&["bench", "gpu", "compute", "--vertices", "1,x"][..], "x"),
        (&["bench", "gpu", "compute", "--vertices", "0"][..], "0"),
        (&["bench", "gpu", "compute", "--formats", "f16"][..], "f16"),
        (&["bench", "gpu", "compute", "--influences", "5"][..], "5"),
        (&["bench", "gpu", "compute", "--use-sweep"][..], "--sweep"),
        (&["bench", "gpu", "upload", "--frames", "0"][..], "0"),
        (&["bench", "gpu", "upload", "--characters", "-3"][..], "-3"),
        (&["bench", "gpu", "upload", "--json", "extra"][..], "extra"),
        (&["bench", "gpu", "upload", "--modes", "all"][..], "all"),
        (&["bench", "gpu", "draw", "--bogus"][..], "--bogus"),
        (&["bench", "gpu", "draw", "--width", "0"][..], "0"),
        (&["bench", "gpu", "draw", "--poses", "many"][..], "many"),
        (&["bench", "gpu", "crowd", "--in-view", "10"][..], "10"),
        (&["bench", "gpu", "crowd", "--in-view", "NaN"][..], "NaN"),
        (
            &["bench", "gpu", "crowd", "--bone-layout", "3x3"][..],
            "3x3",
        ),
    ] {
        let (ok, stdout, stderr) = skel(args);
        assert!(!ok, "{args:?} succeeded: {stdout}");
        assert_eq!(stderr.trim_end().lines().count(), 1, "{args:?}: {stderr}");
        assert!(stderr.starts_with("skel: error: "), "{args:?}: {stderr}");
        assert!(stderr.contains(word), "{args:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
    }
}

/// Runs `skel bench gpu <args> --json` and parses it; `None` (SKIP) without an adapter unless
/// `SKEL_REQUIRE_GPU=1`.
fn run_json(test: &str, args: &[&str]) -> Option<Value> {
    let mut all = vec!["bench", "gpu"];
    all.extend_from_slice(args);
    all.push("--json");
    let (ok, stdout, stderr) = skel(&all);
    if !ok && stderr.contains("adapter") && !skel_test_support::required("SKEL_REQUIRE_GPU") {
        skel_test_support::skip(test, stderr.trim());
        return None;
    }
    assert!(ok, "{all:?}: {stderr}");
    Some(serde_json::from_str(&stdout).unwrap())
}

#[test]
fn compute_skins_every_configuration_correctly() {
    let Some(report) = run_json(
        "bench gpu compute",
        &[
            "compute",
            "--vertices",
            "5000",
            "--formats",
            "quick",
            "--influences",
            "4,16",
            "--rounds",
            "1",
            "--iterations",
            "2",
            "--warmup-ms",
            "0",
            "--copy-mib",
            "4",
        ],
    ) else {
        return;
    };
    assert_eq!(report["schema"], "skel-bench-gpu-compute/1");
    let results = report["results"].as_array().unwrap();
    // 2 influence counts × 2 formats × (positions, positions + normals).
    assert_eq!(results.len(), 8, "{report}");
    for row in results {
        assert_eq!(row["vertices"], 5000);
        let error = row["max_error_of_diagonal"].as_f64().unwrap();
        assert!(error <= 1e-5, "{row}");
        assert!(row["vertices_per_second"].as_f64().unwrap() > 0.0, "{row}");
        assert!(
            row["share_of_copy_bandwidth"].as_f64().unwrap() > 0.0,
            "{row}"
        );
    }
    assert!(
        report["copy_bandwidth"]["compute_copy_gb_per_second"]
            .as_f64()
            .unwrap()
            > 0.0
    );
}

#[test]
fn upload_reports_every_mode_and_the_ring_allocates_a_fixed_handful() {
    let Some(report) = run_json(
        "bench gpu upload",
        &[
            "upload",
            "--characters",
            "40",
            "--bones",
            "19",
            "--targets",
            "2",
            "--frames",
            "3",
            "--warmup",
            "4",
        ],
    ) else {
        return;
    };
    assert_eq!(report["schema"], "skel-bench-gpu-upload/1");
    let modes: Vec<&str> = report["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["mode"].as_str().unwrap())
        .collect();
    assert_eq!(
        modes,
        [
            "atlas_one_write",
            "atlas_skeleton_gpu",
            "atlas_per_character",
            "separate_skeletons",
            "separate_morph_weights",
            "crowd_ring",
        ]
    );
    let mode = |m: &str| {
        report["results"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["mode"] == m)
            .unwrap()
            .clone()
    };
    assert_eq!(mode("separate_skeletons")["write_calls"], 40);
    let ring = mode("crowd_ring")["allocations_issue"].as_u64().unwrap();
    let per_character = mode("separate_skeletons")["allocations_issue"]
        .as_u64()
        .unwrap();
    // The ring's upload allocates only inside wgpu's command recording and mapping, a fixed
    // handful per frame (2 in a release build, more in this debug one); one staged write per
    // character allocates several per character.
    assert!(ring <= 32, "crowd_ring: {ring} allocations");
    assert!(
        per_character >= 2 * 40,
        "separate_skeletons: {per_character}"
    );
}

#[test]
fn draw_draws_the_crowd_and_the_posed_comparison() {
    let Some(report) = run_json(
        "bench gpu draw",
        &[
            "draw",
            "--characters",
            "4",
            "--frames",
            "2",
            "--width",
            "96",
            "--height",
            "64",
            "--warmup-ms",
            "0",
            "--poses",
            "2",
        ],
    ) else {
        return;
    };
    assert_eq!(report["schema"], "skel-bench-gpu-draw/1");
    assert_eq!(report["characters"], 4);
    assert_eq!(report["target"], serde_json::json!([96, 64]));
    // The characters cover part of the picture, not none and not all of it.
    let covered = report["pixels_covered"].as_f64().unwrap();
    assert!(covered > 0.0 && covered < 1.0, "{report}");
    assert!(report["frame_wall_ms_median"].as_f64().unwrap() > 0.0);
}

#[test]
fn crowd_posed_on_the_gpu_uploads_nothing_per_character() {
    let args = ["crowd", "--characters", "64", "--frames", "2"];
    let gpu = [
        &args[..],
        &[
            "--posing",
            "gpu",
            "--blend",
            "--lod",
            "2",
            "--reduced-levels",
            "2",
        ],
    ]
    .concat();
    let (Some(on_gpu), Some(on_cpu)) = (
        run_json("bench gpu crowd --posing gpu", &gpu),
        run_json("bench gpu crowd --posing cpu", &args),
    ) else {
        return;
    };
    assert_eq!(on_gpu["posing"], "gpu");
    assert_eq!(on_gpu["blend"], true);
    assert_eq!(on_gpu["lod"], 2);
    assert_eq!(on_gpu["upload_bytes_per_character"], 0.0, "{on_gpu}");
    assert_eq!(on_gpu["upload_bytes_per_frame"], 256, "{on_gpu}");
    assert_eq!(on_gpu["pose_chunks"], 1);
    // The reduced joint set of the first two levels keeps some bones, not all.
    assert_eq!(on_gpu["reduced_levels"], 2);
    let kept = on_gpu["reduced_kept_bones"].as_u64().unwrap();
    let all = on_gpu["bones_per_character"].as_u64().unwrap();
    assert!(kept > 0 && kept < all, "{on_gpu}");
    // The CPU path uploads every bone of every character and the visible list.
    let bones = on_cpu["bones_per_character"].as_u64().unwrap();
    assert_eq!(
        on_cpu["upload_bytes_per_frame"].as_u64().unwrap(),
        64 * bones * 64 + 65 * 4,
        "{on_cpu}"
    );
}

#[test]
fn culled_crowd_keeps_the_half_in_view_and_3x4_writes_three_quarters() {
    let args = [
        "crowd",
        "--characters",
        "64",
        "--frames",
        "2",
        "--posing",
        "gpu",
    ];
    let culled = [&args[..], &["--cull", "--bone-layout", "3x4"]].concat();
    let (Some(affine), Some(full)) = (
        run_json("bench gpu crowd --cull --bone-layout 3x4", &culled),
        run_json("bench gpu crowd --posing gpu", &args),
    ) else {
        return;
    };
    assert_eq!(affine["bone_layout"], "3x4", "{affine}");
    assert_eq!(affine["cull"], true, "{affine}");
    // Half the crowd stands in front of the camera, half behind it: the GPU keeps the half.
    assert_eq!(affine["placed_in_view"], 32, "{affine}");
    assert_eq!(affine["visible"], 32, "{affine}");
    assert_eq!(full["bone_layout"], "4x4", "{full}");
    assert_eq!(full["cull"], false, "{full}");
    // 48 bytes a bone instead of 64.
    let (a, f) = (
        affine["pose_bytes_written"].as_u64().unwrap(),
        full["pose_bytes_written"].as_u64().unwrap(),
    );
    assert_eq!(a * 4, f * 3, "{affine} {full}");
    // Baked, boxed by the pose and culled: posing everyone, or only those the cull keeps.
    // Scattered, every second instance is in view.
    for (bounds, scatter) in [("pose", false), ("seen", false), ("seen", true)] {
        let extra: &[&str] = if scatter { &["--scatter"] } else { &[] };
        let baked = [
            &culled[..],
            &["--layout", "baked", "--bounds", bounds],
            extra,
        ]
        .concat();
        let Some(run) = run_json("bench gpu crowd --layout baked --cull --bounds", &baked) else {
            return;
        };
        assert_eq!(run["bounds"], bounds, "{run}");
        assert_eq!(run["visible"], 32, "{run}");
        // Posing only the seen, the advance pass is timed alone, as part of the pose.
        let (advance, pose) = (&run["pose_advance_gpu_ms"], &run["pose_gpu_ms"]);
        if bounds == "seen" && !pose.is_null() {
            let (a, p) = (advance.as_f64().unwrap(), pose.as_f64().unwrap());
            assert!(a > 0.0 && a <= p, "{run}");
        } else {
            assert!(advance.is_null(), "{run}");
        }
    }
    // A CPU-posed crowd culls on the CPU (`Crowd::cull`) with the same camera and grid.
    let on_cpu = [
        "crowd",
        "--characters",
        "64",
        "--frames",
        "2",
        "--posing",
        "cpu",
        "--cull",
    ];
    let Some(cpu) = run_json("bench gpu crowd --posing cpu --cull", &on_cpu) else {
        return;
    };
    assert_eq!(cpu["cull"], true, "{cpu}");
    assert_eq!(cpu["bounds"], "cpu", "{cpu}");
    assert_eq!(cpu["placed_in_view"], 32, "{cpu}");
    assert_eq!(cpu["visible"], 32, "{cpu}");
    assert!(cpu["cull_cpu_ns_per_bone"].as_f64().unwrap() > 0.0, "{cpu}");
    // Boxed in the tick (`boxes_in_tick`): the same verdicts.
    let in_tick = [&on_cpu[..], &["--bounds", "tick"]].concat();
    let Some(tick) = run_json(
        "bench gpu crowd --posing cpu --cull --bounds tick",
        &in_tick,
    ) else {
        return;
    };
    assert_eq!(tick["bounds"], "tick", "{tick}");
    assert_eq!(tick["visible"], 32, "{tick}");
    // The 3×4 layout needs the bones posed on the GPU.
    let (ok, _, stderr) = skel(&[
        "bench",
        "gpu",
        "crowd",
        "--characters",
        "4",
        "--frames",
        "1",
        "--bone-layout",
        "3x4",
    ]);
    assert!(!ok && stderr.contains("--posing gpu"), "{stderr}");
}
