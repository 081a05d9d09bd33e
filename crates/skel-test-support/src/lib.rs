//! What skel's tests share, written once: when a test may skip and how a skip is recorded,
//! where the shared sample models are, temporary files that clean up after themselves, and GLB
//! files taken apart and put back together ([`glb`]).
//!
//! A test that cannot run here (no GPU adapter, no `../shared`, no X server) passes after a
//! `SKIP` line, because a developer's laptop should not fail for what it lacks. That line is
//! lost in libtest's captured output, so [`skip`] also appends it to the file named by
//! `SKEL_SKIP_LOG`: `cargo xtask ci` sets it and lists every skipped test at the end. CI
//! sets `SKEL_REQUIRE_GPU=1`, `SKEL_REQUIRE_ASSETS=1` and `SKEL_REQUIRE_DISPLAY=1`, which turn
//! each skip into a failure, so that a broken machine cannot pass by skipping.
//!
//! ```
//! // A test that needs a GPU: `GpuContext::new_headless()` in the real ones.
//! let made: Result<u32, String> = Err("no adapter".into());
//! if std::env::var("SKEL_REQUIRE_GPU").as_deref() != Ok("1") {
//!     assert_eq!(skel_test_support::gpu("my_test", made), None);
//! }
//! ```

#[cfg(feature = "bench")]
pub mod cpu_clock;
pub mod glb;

use std::fmt::Display;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

/// Environment variable naming the file every skip is appended to (`test: reason` lines).
pub const SKIP_LOG: &str = "SKEL_SKIP_LOG";

/// Whether the environment variable `var` is `1`: the run must have what it names.
#[must_use]
pub fn required(var: &str) -> bool {
    std::env::var(var).as_deref() == Ok("1")
}

/// Records that `test` did not run its checks because of `reason`: prints
/// `SKIP test: reason` to stderr and appends `test: reason` to the file named by
/// `SKEL_SKIP_LOG` when it is set. Failing to write the log is reported, not fatal: the skip
/// itself already happened.
pub fn skip(test: &str, reason: &str) {
    eprintln!("SKIP {test}: {reason}");
    if let Some(log) = std::env::var_os(SKIP_LOG)
        && let Err(e) = append(Path::new(&log), test, reason)
    {
        eprintln!(
            "skel-test-support: cannot append to {}: {e}",
            Path::new(&log).display()
        );
    }
}

/// Appends `test: reason` (on one line) to `log`.
fn append(log: &Path, test: &str, reason: &str) -> std::io::Result<()> {
    // One write per line: appends from parallel tests do not interleave.
    let line = format!("{test}: {}\n", reason.replace('\n', " "));
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(log)?
        .write_all(line.as_bytes())
}

/// The GPU rule: `made` (a device made the way the test needs it, e.g.
/// `GpuContext::new_headless()`) when it succeeded; otherwise `None` after a [`skip`].
///
/// The caller makes the device so that each crate keeps its own context type and options;
/// only the rule lives here.
///
/// # Panics
/// When `made` is an error and `SKEL_REQUIRE_GPU=1`: a CI machine that should have lavapipe
/// must not pass by skipping.
pub fn gpu<T, E: Display>(test: &str, made: Result<T, E>) -> Option<T> {
    match made {
        Ok(device) => Some(device),
        Err(e) => {
            assert!(
                !required("SKEL_REQUIRE_GPU"),
                "{test}: no GPU adapter and SKEL_REQUIRE_GPU=1: {e}"
            );
            skip(
                test,
                &format!("no GPU adapter ({e}); install mesa-vulkan-drivers"),
            );
            None
        }
    }
}

/// `../shared` beside the workspace: the sample models (`assets/`) and the reference results
/// of an independent engine (`golden/`, `golden-layers/`), never copied into the repository.
/// `SKEL_SHARED` names another folder, for programs run away from the checkout they were
/// built in (the lent machine's runs, `scripts/h200/`).
#[must_use]
pub fn shared_root() -> PathBuf {
    std::env::var_os("SKEL_SHARED").map_or_else(
        || PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared")),
        PathBuf::from,
    )
}

/// `../shared/<rel>` (a file or a folder) when it exists; otherwise `None` after a [`skip`].
///
/// # Panics
/// When it is missing and `SKEL_REQUIRE_ASSETS=1`: CI must not pass without the sample data.
#[must_use]
pub fn shared(test: &str, rel: &str) -> Option<PathBuf> {
    let path = shared_root().join(rel);
    if path.exists() {
        return Some(path);
    }
    assert!(
        !required("SKEL_REQUIRE_ASSETS"),
        "{test}: {} is missing and SKEL_REQUIRE_ASSETS=1",
        path.display()
    );
    skip(
        test,
        &format!(
            "{} not found (set SKEL_REQUIRE_ASSETS=1 to fail instead)",
            path.display()
        ),
    );
    None
}

/// `../shared/assets/<rel>`, as [`shared`].
///
/// # Panics
/// As [`shared`].
#[must_use]
pub fn shared_asset(test: &str, rel: &str) -> Option<PathBuf> {
    shared(test, &format!("assets/{rel}"))
}

/// A file under the system's temporary folder, removed when dropped, so a test leaves
/// nothing behind whether it passes or panics. Dereferences to its path.
#[derive(Debug)]
pub struct TempFile {
    path: PathBuf,
}

impl TempFile {
    /// Writes `contents` to a fresh file whose name ends with `name` (so its extension is
    /// kept: `layers.json`), unique to this process and call.
    ///
    /// # Panics
    /// When the file cannot be written: the test cannot go on without it.
    #[must_use]
    pub fn new(name: &str, contents: impl AsRef<[u8]>) -> Self {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let path =
            std::env::temp_dir().join(format!("skel-test-{}-{n}-{name}", std::process::id()));
        if let Err(e) = std::fs::write(&path, contents) {
            panic!("cannot write {}: {e}", path.display());
        }
        Self { path }
    }

    /// Its path.
    #[must_use]
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl std::ops::Deref for TempFile {
    type Target = Path;

    fn deref(&self) -> &Path {
        &self.path
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

/// Möller–Trumbore in f64, both faces: the distance along the unit direction `d` from `o` to
/// where it crosses the triangle `[a, b, c]`, if it does in front of `o`. The brute-force
/// reference of the picking tests (CPU and crowd picking alike).
#[must_use]
pub fn ray_triangle(o: glam::DVec3, d: glam::DVec3, [a, b, c]: [glam::DVec3; 3]) -> Option<f64> {
    let (e1, e2) = (b - a, c - a);
    let p = d.cross(e2);
    let det = e1.dot(p);
    if det.abs() < 1e-18 {
        return None;
    }
    let s = o - a;
    let u = s.dot(p) / det;
    let q = s.cross(e1);
    let v = d.dot(q) / det;
    let t = e2.dot(q) / det;
    (u >= 0.0 && v >= 0.0 && u + v <= 1.0 && t > 0.0).then_some(t)
}

#[cfg(test)]
#[allow(clippy::unwrap_used, reason = "tests")]
mod tests {
    use super::*;

    #[test]
    fn a_temp_file_holds_its_contents_and_goes_on_drop() {
        let file = TempFile::new("stack.json", "{}");
        assert!(file.to_str().unwrap().ends_with("stack.json"));
        assert_eq!(std::fs::read_to_string(&*file).unwrap(), "{}");
        let path = file.path().to_path_buf();
        drop(file);
        assert!(!path.exists());
    }

    #[test]
    fn skips_are_appended_one_line_each() {
        let log = TempFile::new("skips.log", "");
        append(&log, "first", "no GPU adapter (none)").unwrap();
        append(&log, "second", "two\nlines").unwrap();
        assert_eq!(
            std::fs::read_to_string(&*log).unwrap(),
            "first: no GPU adapter (none)\nsecond: two lines\n"
        );
    }

    #[test]
    fn a_missing_shared_path_is_none_unless_required() {
        if !required("SKEL_REQUIRE_ASSETS") {
            assert_eq!(shared("missing", "no/such/thing"), None);
        }
    }
}
