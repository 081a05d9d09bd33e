//! The file-length step of `cargo xtask ci`: no `.rs` file of a crate's `src/`, `tests/`,
//! `benches/` or `examples/` (and the same in `xtask/`) may be longer than [`MAX_LINES`].
//!
//! One concept per file, files that fit on a few screens (`STYLE.md`): a file past this
//! length is nearly always two things that grew together, and it only gets longer unless
//! something stops it. A lint cannot, so this does, naming every offender with its length.

use std::path::{Path, PathBuf};

/// The most lines a source file may have.
pub(crate) const MAX_LINES: usize = 500;

/// The folders of a crate whose `.rs` files are checked: everything cargo compiles as a
/// target. Others (`fuzz/`, generated data, vendored code) are not the crate's own sources.
const CHECKED: [&str; 4] = ["src", "tests", "benches", "examples"];

/// Every `.rs` file longer than [`MAX_LINES`] under the checked folders of each crate of the
/// workspace at `root`: its path relative to `root` and its line count, sorted by path.
pub(crate) fn too_long(root: &Path) -> Vec<(PathBuf, usize)> {
    let mut out = Vec::new();
    for krate in crate::workspace::crate_dirs(root) {
        for folder in CHECKED {
            for file in crate::workspace::rust_files(&krate.join(folder)) {
                let Ok(text) = std::fs::read_to_string(&file) else {
                    continue;
                };
                let lines = text.lines().count();
                if lines > MAX_LINES {
                    let shown = file.strip_prefix(root).unwrap_or(&file).to_path_buf();
                    out.push((shown, lines));
                }
            }
        }
    }
    out.sort();
    out
}

/// The `xtask ci` step: fails listing every file over [`MAX_LINES`] with its length.
pub(crate) fn check(root: &Path) -> Result<(), String> {
    let long = too_long(root);
    if long.is_empty() {
        return Ok(());
    }
    let list: Vec<String> = long
        .iter()
        .map(|(file, lines)| format!("  {}: {lines} lines", file.display()))
        .collect();
    Err(format!(
        "{} file(s) over {MAX_LINES} lines; split each by concept:\n{}",
        long.len(),
        list.join("\n")
    ))
}

#[cfg(test)]
#[allow(clippy::unwrap_used, reason = "tests")]
mod tests {
    use super::*;

    /// A workspace under the temporary directory with `files` (path, line count); removed on
    /// drop.
    struct Planted(PathBuf);

    impl Planted {
        fn new(name: &str, files: &[(&str, usize)]) -> Self {
            let root = std::env::temp_dir()
                .join(format!("skel-file-length-{name}-{}", std::process::id()));
            let _ = std::fs::remove_dir_all(&root);
            for dir in ["crates/a", "xtask"] {
                std::fs::create_dir_all(root.join(dir)).unwrap();
                std::fs::write(root.join(dir).join("Cargo.toml"), "[package]\n").unwrap();
            }
            for (path, lines) in files {
                let file = root.join(path);
                std::fs::create_dir_all(file.parent().unwrap()).unwrap();
                std::fs::write(file, "// line\n".repeat(*lines)).unwrap();
            }
            Self(root)
        }
    }

    impl Drop for Planted {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    #[test]
    fn files_over_the_limit_are_listed_with_their_lengths() {
        let ws = Planted::new(
            "over",
            &[
                ("crates/a/src/lib.rs", MAX_LINES),
                ("crates/a/src/deep/er/big.rs", MAX_LINES + 1),
                ("crates/a/tests/long.rs", 700),
                ("crates/a/benches/b.rs", 10),
                ("crates/a/examples/topic/main.rs", 600),
                ("xtask/src/main.rs", 501),
                // Not a checked folder, not a Rust file.
                ("crates/a/fuzz/huge.rs", 900),
                ("crates/a/src/data.txt", 900),
            ],
        );
        assert_eq!(
            too_long(&ws.0),
            [
                (PathBuf::from("crates/a/examples/topic/main.rs"), 600),
                (PathBuf::from("crates/a/src/deep/er/big.rs"), 501),
                (PathBuf::from("crates/a/tests/long.rs"), 700),
                (PathBuf::from("xtask/src/main.rs"), 501),
            ]
        );
        let message = check(&ws.0).unwrap_err();
        assert!(message.contains("4 file(s) over 500 lines"), "{message}");
        assert!(
            message.contains("  crates/a/tests/long.rs: 700 lines"),
            "{message}"
        );
    }

    #[test]
    fn a_workspace_within_the_limit_passes() {
        let ws = Planted::new("within", &[("crates/a/src/lib.rs", MAX_LINES)]);
        assert!(check(&ws.0).is_ok());
    }

    /// The files this crate owns stay within the limit (others' are listed by the ci step).
    #[test]
    fn xtask_itself_is_within_the_limit() {
        let long: Vec<_> = too_long(&crate::workspace_root())
            .into_iter()
            .filter(|(file, _)| file.starts_with("xtask"))
            .collect();
        assert!(long.is_empty(), "{long:?}");
    }
}
