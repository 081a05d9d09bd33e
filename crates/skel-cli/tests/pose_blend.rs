//! `skel pose --blend CLIP=WEIGHT,…`, run as the real binary on the Fox: weights (1, 0) print
//! exactly what `--clip` prints, a clip blended with itself prints that clip, a real blend lies
//! between its clips, and a bad spec or `--clip` together with `--blend` is refused.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

mod common;

use common::{max_diff, pose, skel};
use serde_json::Value;

fn fox(test: &str) -> Option<String> {
    common::shared_asset(test, "Fox/Fox.glb").map(|p| p.display().to_string())
}

/// Every number of every frame's node world matrices, in order.
fn node_numbers(report: &Value) -> Vec<f64> {
    report["frames"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|f| {
            f["nodes"]
                .as_object()
                .unwrap()
                .values()
                .flat_map(|m| m.as_array().unwrap().iter().map(|x| x.as_f64().unwrap()))
                .collect::<Vec<_>>()
        })
        .collect()
}

const TIMES: &str = "0,0.5,1.25,9";

#[test]
fn weights_one_and_zero_print_the_clip_exactly() {
    let Some(fox) = fox("weights_one_and_zero_print_the_clip_exactly") else {
        return;
    };
    let blend = pose(&[
        "pose",
        &fox,
        "--blend",
        "Survey=1,Walk=0",
        "--times",
        TIMES,
        "--json",
    ]);
    let clip = pose(&["pose", &fox, "--clip", "Survey", "--times", TIMES, "--json"]);
    assert_eq!(blend["frames"], clip["frames"]);
    assert_eq!(blend["blend"][0]["name"], "Survey");
    assert_eq!(blend["blend"][1]["weight"], 0.0);
    assert!(
        clip.get("blend").is_none(),
        "the golden-file shape is unchanged"
    );
}

#[test]
fn a_clip_blended_with_itself_prints_that_clip_and_a_real_blend_differs() {
    let Some(fox) = fox("a_clip_blended_with_itself_prints_that_clip_and_a_real_blend_differs")
    else {
        return;
    };
    let clip = node_numbers(&pose(&[
        "pose", &fox, "--clip", "1", "--times", TIMES, "--json",
    ]));
    let twice = node_numbers(&pose(&[
        "pose",
        &fox,
        "--blend",
        "1=0.5,Walk=0.5",
        "--times",
        TIMES,
        "--json",
    ]));
    // The Fox is about 100 units tall: 1e-4 is float rounding of the renormalised quaternions.
    assert!(
        max_diff(&clip, &twice) < 1e-4,
        "{}",
        max_diff(&clip, &twice)
    );
    let run = node_numbers(&pose(&[
        "pose", &fox, "--clip", "Run", "--times", TIMES, "--json",
    ]));
    let mixed = node_numbers(&pose(&[
        "pose",
        &fox,
        "--blend",
        "Walk=0.5,Run=0.5",
        "--times",
        TIMES,
        "--json",
    ]));
    assert!(max_diff(&mixed, &clip) > 1.0 && max_diff(&mixed, &run) > 1.0);
}

#[test]
fn bad_specs_and_clip_with_blend_are_refused() {
    let Some(fox) = fox("bad_specs_and_clip_with_blend_are_refused") else {
        return;
    };
    for spec in ["Jump=1", "Walk", "Walk=-1", "7=1"] {
        let (ok, _, stderr) = skel(&["pose", &fox, "--blend", spec]);
        assert!(!ok, "{spec:?} accepted");
        assert!(stderr.contains("blend spec item"), "{spec:?}: {stderr}");
    }
    let (ok, _, _) = skel(&["pose", &fox, "--blend", "Walk=1", "--clip", "Walk"]);
    assert!(!ok, "--clip and --blend together");
}
