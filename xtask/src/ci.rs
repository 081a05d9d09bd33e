//! `cargo xtask ci`: the checks CI runs, in the order that fails fastest.

use std::process::Command;

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
    Ok(())
}
