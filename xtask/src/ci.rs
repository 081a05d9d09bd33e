//! `cargo xtask ci`: the checks CI runs, in the order that fails fastest.

use std::process::Command;

/// The facade's examples, run after the tests (on lavapipe in CI): `(name, features)`.
const EXAMPLES: [(&str, &str); 5] = [
    ("load_and_play", ""),
    ("crossfade", ""),
    ("headless_png", ""),
    ("own_render_loop", ""),
    ("bone_control", "bone-control"),
];

/// Runs `cargo ARGS` in the workspace root.
fn cargo(args: &[&str]) -> Result<(), String> {
    eprintln!("xtask ci: cargo {}", args.join(" "));
    let status = Command::new(env!("CARGO"))
        .args(args)
        .current_dir(crate::workspace_root())
        .status()
        .map_err(|e| format!("cannot run cargo: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("cargo {} failed ({status})", args.join(" ")))
    }
}

/// Runs fmt, clippy, doc, shader validation, the generated-fixtures check and the test suite;
/// stops at the first failure.
pub(crate) fn run() -> Result<(), String> {
    let root = crate::workspace_root();
    let steps: [&[&str]; 5] = [
        &["fmt", "--all", "--", "--check"],
        &[
            "clippy",
            "--workspace",
            "--all-targets",
            "--all-features",
            "--",
            "-D",
            "warnings",
        ],
        &["doc", "--workspace", "--no-deps"],
        &["test", "--workspace"],
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
        if args == ["test", "--workspace"] {
            eprintln!("xtask ci: validate-shaders");
            crate::validate_shaders::run().map_err(|e| format!("validate-shaders failed:\n{e}"))?;
            eprintln!("xtask ci: fixtures --check");
            crate::fixtures::run(true)?;
        }
        eprintln!("xtask ci: cargo {}", args.join(" "));
        let mut cmd = Command::new(env!("CARGO"));
        cmd.args(args).current_dir(&root);
        if args[0] == "doc" {
            cmd.env("RUSTDOCFLAGS", "-D warnings");
        }
        let status = cmd.status().map_err(|e| format!("cannot run cargo: {e}"))?;
        if !status.success() {
            return Err(format!("cargo {} failed ({status})", args.join(" ")));
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
    // The crates package as crates.io would take them (every file they include is inside
    // them, metadata complete); nothing is published. PACKAGE_ARGS says why not verified.
    cargo(&PACKAGE_ARGS)
}

/// `cargo package` over every publishable crate. `--no-verify`: verifying rebuilds every
/// crate and its dependencies from the unpacked archives in a separate target directory, a
/// second full build of wgpu (measured in README.md, "Publishing"), while everything it
/// would catch beyond the archive's contents (a file outside the crate, a missing
/// dependency) already fails this packaging step or the workspace build above.
const PACKAGE_ARGS: [&str; 5] = [
    "package",
    "--workspace",
    "--exclude",
    "xtask",
    "--no-verify",
];
