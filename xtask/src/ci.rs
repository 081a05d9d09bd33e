//! `cargo xtask ci`: the checks CI runs, in the order that fails fastest.

use std::process::Command;

use crate::test_tally::Tally;
use crate::workspace::cargo;

/// The facade's examples, run after the tests (on lavapipe in CI): `(name, features)`.
const EXAMPLES: [(&str, &str); 12] = [
    ("load_and_play", ""),
    ("crossfade", ""),
    ("headless_png", ""),
    ("own_render_loop", ""),
    ("bone_control", "bone-control"),
    ("layers", ""),
    ("root_motion", ""),
    ("events", ""),
    ("ik", ""),
    ("crowd", ""),
    ("state_machine", ""),
    ("retarget", ""),
];

/// Installs the Vulkan driver, Xvfb + xdotool and Chromium + chromedriver when missing (unless
/// `no_install`), then runs fmt, clippy, the module-circle check, the file-length check, doc,
/// shader validation, the generated-fixtures and plots checks, the test suite, the examples,
/// the browser check of the demo page and packaging; stops
/// at the first failure. Ends with
/// `N passed, N failed, N skipped` and the skipped tests, whether it passed or not.
pub(crate) fn run(no_install: bool) -> Result<(), String> {
    if no_install {
        eprintln!("xtask ci: --no-install: tests needing a missing driver or X server will skip");
    } else {
        crate::install::vulkan("xtask ci");
        crate::install::display("xtask ci");
        crate::install::browser("xtask ci");
    }
    let root = crate::workspace_root();
    let mut tally = Tally::new(&root.join("target/xtask-ci"))?;
    eprintln!(
        "xtask ci: tests log their skips to {}",
        tally.log().display()
    );
    let result = checks(&mut tally);
    if let Some(summary) = tally.summary() {
        eprintln!("xtask ci: {summary}");
    }
    result
}

/// The checks of [`run`] that need no build of the workspace: fmt, module and folder circles,
/// file lengths, shader validation, and the fixtures and plots against their generators. A
/// few seconds: the gate to run before a commit (module circles and long files have reached
/// CI when only `cargo test` was run first).
pub(crate) fn quick() -> Result<(), String> {
    let root = crate::workspace_root();
    eprintln!("xtask check: fmt");
    cargo(&["fmt", "--all", "--", "--check"])?;
    eprintln!("xtask check: module circles");
    crate::module_graph::check(&root)?;
    eprintln!(
        "xtask check: file lengths (at most {} lines)",
        crate::file_length::MAX_LINES
    );
    crate::file_length::check(&root)?;
    eprintln!("xtask check: validate-shaders");
    crate::validate_shaders::run().map_err(|e| format!("validate-shaders failed:\n{e}"))?;
    crate::fixtures::run(true)?;
    crate::plots::run(true)?;
    eprintln!("xtask check: passed (clippy, doc and the tests are `cargo xtask ci`'s)");
    Ok(())
}

/// Every step of [`run`] after the installs.
fn checks(tally: &mut Tally) -> Result<(), String> {
    let root = crate::workspace_root();
    let steps: [&[&str]; 6] = [
        &["fmt", "--all", "--", "--check"],
        &[
            "clippy",
            "--workspace",
            "--exclude",
            "skel-bevy",
            "--all-targets",
            "--all-features",
            "--",
            "-D",
            "warnings",
        ],
        // skel-bevy without its `window` feature: the windowed example needs bevy's renderer
        // and winit, about 150 crates and a long build more than CI's headless tests
        // (`cargo xtask bevy-window` builds and runs it).
        &[
            "clippy",
            "-p",
            "skel-bevy",
            "--all-targets",
            "--timings",
            "--",
            "-D",
            "warnings",
        ],
        &["doc", "--workspace", "--no-deps"],
        // `--timings`: target/cargo-timings/ says what the build spent where (bevy's share).
        &["test", "--workspace", "--timings"],
        // The optional parallel path must give bit-identical results to the serial one.
        &[
            "test",
            "-p",
            "skel-anim",
            "--features",
            "rayon",
            "--test",
            "instances",
        ],
    ];
    for args in steps {
        if args == ["test", "--workspace", "--timings"] {
            eprintln!("xtask ci: validate-shaders");
            crate::validate_shaders::run().map_err(|e| format!("validate-shaders failed:\n{e}"))?;
            eprintln!("xtask ci: fixtures --check");
            crate::fixtures::run(true)?;
            // A committed plot must be what its committed JSON draws, as a fixture must be
            // what the generator writes.
            eprintln!("xtask ci: plots --check");
            crate::plots::run(true)?;
        }
        if args[0] == "doc" {
            // After the native clippy: the library crates for a browser.
            crate::wasm::check()?;
        }
        eprintln!("xtask ci: cargo {}", args.join(" "));
        let mut cmd = Command::new(env!("CARGO"));
        cmd.args(args).current_dir(&root);
        if args[0] == "doc" {
            cmd.env("RUSTDOCFLAGS", "-D warnings");
        }
        let status = if args[0] == "test" {
            if let Some(seed) = proptest_seed(&root) {
                cmd.env("PROPTEST_RNG_SEED", &seed);
            }
            tally.run(&mut cmd)?
        } else {
            cmd.status().map_err(|e| format!("cannot run cargo: {e}"))?
        };
        if !status.success() {
            return Err(format!("cargo {} failed ({status})", args.join(" ")));
        }
        if args[0] == "clippy" && args[1] == "--workspace" {
            // Modules using each other's items, which lints do not see.
            eprintln!("xtask ci: module circles (cargo xtask module-graph shows every edge)");
            crate::module_graph::check(&root)?;
            // Files that no longer fit on a few screens, which lints do not see either.
            eprintln!(
                "xtask ci: file lengths (at most {} lines)",
                crate::file_length::MAX_LINES
            );
            crate::file_length::check(&root)?;
        }
    }
    // Every example builds and runs to the end: the rendering ones draw and save a picture.
    for (name, features) in EXAMPLES {
        let mut args = vec!["run", "-q", "-p", "skel", "--example", name];
        if !features.is_empty() {
            args.extend(["--features", features]);
        }
        cargo(&args)?;
    }
    // The demo page in a real browser, WebGPU and WebGL2 (docs/web.md). In CI a missing
    // browser fails; elsewhere (`--no-install` on a machine without one) it is skipped.
    if crate::install::on_path("chromedriver") || std::env::var_os("CI").is_some() {
        eprintln!("xtask ci: the browser check (cargo xtask web --check)");
        crate::web::run(Some(root.join("target/web")), 0, true)?;
    } else {
        eprintln!(
            "xtask ci: SKIPPED the browser check: no chromedriver (bash scripts/install-browser.sh)"
        );
    }
    // The crates package as crates.io would take them (every file they include is inside
    // them, metadata complete); nothing is published. PACKAGE_ARGS says why not verified.
    eprintln!("xtask ci: files included from outside their crate");
    let outside = includes_outside_crates(&crate::workspace_root().join("crates"));
    if !outside.is_empty() {
        return Err(format!(
            "these includes reach outside their crate, which a published crate cannot:\n  {}",
            outside.join("\n  ")
        ));
    }
    cargo(&PACKAGE_ARGS)
}

/// The property tests' seed: `PROPTEST_RNG_SEED` when set, else one drawn from the commit
/// (its hash's first 16 hex digits), so that a run of `cargo xtask ci` on a clean clone meets
/// the same cases as CI on that commit, and a failure there is reproduced by its seed. Each
/// commit still draws new cases. `None` (random seeds) outside a git checkout.
fn proptest_seed(root: &std::path::Path) -> Option<String> {
    if let Ok(seed) = std::env::var("PROPTEST_RNG_SEED") {
        eprintln!("xtask ci: property tests seeded by PROPTEST_RNG_SEED={seed}");
        return None;
    }
    let out = Command::new("git")
        .args(["rev-parse", "HEAD"])
        .current_dir(root)
        .output()
        .ok()?;
    let hash = String::from_utf8(out.stdout).ok()?;
    let seed = seed_of_commit(hash.trim())?;
    eprintln!(
        "xtask ci: property tests seeded from commit {} (PROPTEST_RNG_SEED={seed} reproduces)",
        hash.trim()
    );
    Some(seed.to_string())
}

/// The first 16 hex digits of a commit hash as a number.
fn seed_of_commit(hash: &str) -> Option<u64> {
    u64::from_str_radix(hash.get(..16)?, 16).ok()
}

/// Every `include_str!("…")` / `include_bytes!("…")` / `#[path = "…"]` in the `.rs` files of
/// each crate under `crates` whose target is not inside that crate: `file: path` lines. This is
/// what `cargo package`'s verification would find by building; it takes milliseconds.
fn includes_outside_crates(crates: &std::path::Path) -> Vec<String> {
    let mut problems = Vec::new();
    let Ok(entries) = std::fs::read_dir(crates) else {
        return vec![format!("cannot read {}", crates.display())];
    };
    for krate in entries.filter_map(Result::ok).map(|e| e.path()) {
        let Ok(root) = krate.canonicalize() else {
            continue;
        };
        for path in crate::workspace::rust_files(&krate) {
            let text = std::fs::read_to_string(&path).unwrap_or_default();
            for target in included_paths(&text) {
                let resolved = path.parent().unwrap_or(&krate).join(&target);
                let inside = resolved.canonicalize().is_ok_and(|r| r.starts_with(&root));
                if !inside {
                    problems.push(format!("{}: {target}", path.display()));
                }
            }
        }
    }
    problems
}

/// The literal paths given to `include_str!`, `include_bytes!` and `#[path = …]` in `text`.
fn included_paths(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for opener in ["include_str!(\"", "include_bytes!(\"", "#[path = \""] {
        let mut rest = text;
        while let Some(at) = rest.find(opener) {
            rest = &rest[at + opener.len()..];
            if let Some(end) = rest.find('"') {
                out.push(rest[..end].to_owned());
            }
        }
    }
    out
}

/// `cargo package` over every publishable crate. `--no-verify`: verifying rebuilds every
/// crate and its dependencies from the unpacked archives in a separate target directory, a
/// second full build of wgpu (measured in README.md, "Publishing"), while everything it
/// would catch beyond the archive's contents (a file outside the crate, a missing
/// dependency) already fails this packaging step or the workspace build above.
///
/// `cargo package --workspace` packages `publish = false` crates too, and cannot package one
/// that depends on another by path alone (skel-cli and skel-web on skel-demo): every
/// unpublished crate is excluded ([`UNPUBLISHED`]; a test holds the list to the manifests).
const PACKAGE_ARGS: [&str; 15] = [
    "package",
    "--workspace",
    "--exclude",
    "xtask",
    "--exclude",
    UNPUBLISHED[0],
    "--exclude",
    UNPUBLISHED[1],
    "--exclude",
    UNPUBLISHED[2],
    "--exclude",
    UNPUBLISHED[3],
    "--exclude",
    UNPUBLISHED[4],
    "--no-verify",
];

/// The crates under `crates/` whose manifests say `publish = false`.
const UNPUBLISHED: [&str; 5] = [
    "skel-cli",
    "skel-demo",
    "skel-js",
    "skel-test-support",
    "skel-web",
];

#[cfg(test)]
#[allow(clippy::unwrap_used, reason = "tests")]
mod tests {
    use super::*;

    #[test]
    fn a_commit_gives_its_seed_and_a_non_hash_none() {
        assert_eq!(
            super::seed_of_commit("cca48c7a0000000100000000000000000000ffff"),
            Some(0xcca4_8c7a_0000_0001)
        );
        assert_eq!(super::seed_of_commit("cca48c7"), None);
        assert_eq!(super::seed_of_commit("not a hash at all, no"), None);
    }

    #[test]
    fn an_include_outside_the_crate_is_reported() {
        let base = std::env::temp_dir().join(format!("skel-ci-includes-{}", std::process::id()));
        let src = base.join("crates/a/src");
        std::fs::create_dir_all(&src).unwrap();
        std::fs::write(base.join("crates/a/inside.txt"), "x").unwrap();
        std::fs::write(base.join("outside.txt"), "x").unwrap();
        std::fs::write(
            src.join("lib.rs"),
            "const A: &str = include_str!(\"../inside.txt\");",
        )
        .unwrap();
        assert!(includes_outside_crates(&base.join("crates")).is_empty());
        std::fs::write(
            src.join("lib.rs"),
            "const A: &[u8] = include_bytes!(\"../../../outside.txt\");",
        )
        .unwrap();
        let problems = includes_outside_crates(&base.join("crates"));
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert!(problems[0].ends_with("../../../outside.txt"));
        let _ = std::fs::remove_dir_all(&base);
    }

    #[test]
    fn the_package_step_leaves_out_exactly_the_unpublished_crates() {
        let crates = crate::workspace_root().join("crates");
        let mut unpublished: Vec<String> = std::fs::read_dir(&crates)
            .unwrap()
            .filter_map(Result::ok)
            .filter(|e| {
                std::fs::read_to_string(e.path().join("Cargo.toml"))
                    .is_ok_and(|m| m.lines().any(|l| l.trim() == "publish = false"))
            })
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        unpublished.sort();
        assert_eq!(unpublished, UNPUBLISHED);
        for name in UNPUBLISHED {
            assert!(PACKAGE_ARGS.windows(2).any(|w| w == ["--exclude", name]));
        }
    }

    #[test]
    fn the_workspace_crates_include_only_their_own_files() {
        let problems = includes_outside_crates(&crate::workspace_root().join("crates"));
        assert!(problems.is_empty(), "{problems:?}");
    }
}
