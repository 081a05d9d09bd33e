//! `skel bench gpu`: its help, and bad arguments as one error line (never a panic). The
//! benchmark runs themselves need a GPU worth measuring and are recorded in `docs/h200/`.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

mod common;

use common::skel;

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
    ] {
        let (ok, stdout, stderr) = skel(args);
        assert!(!ok, "{args:?} succeeded: {stdout}");
        assert_eq!(stderr.trim_end().lines().count(), 1, "{args:?}: {stderr}");
        assert!(stderr.starts_with("skel: error: "), "{args:?}: {stderr}");
        assert!(stderr.contains(word), "{args:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
    }
}
