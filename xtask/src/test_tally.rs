//! `cargo xtask ci`'s account of the tests: how many passed and failed (from libtest's
//! `test result:` lines, read while the output is echoed) and which skipped (from the log
//! that `skel_test_support::skip` appends to). A skipped test passes in libtest's count, so
//! without this list "every test passed" could mean "nothing was checked".

use std::collections::BTreeSet;
use std::io::{BufRead as _, BufReader, Write as _};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};

/// Counts over every `cargo test` run of one `xtask ci`, and the skip log they share.
pub(crate) struct Tally {
    passed: usize,
    failed: usize,
    runs: usize,
    log: PathBuf,
}

impl Tally {
    /// A tally whose skip log is `dir/skipped.log`, emptied now so that only this run's
    /// skips are listed.
    pub(crate) fn new(dir: &Path) -> Result<Self, String> {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        let log = dir.join("skipped.log");
        std::fs::write(&log, "").map_err(|e| format!("cannot write {}: {e}", log.display()))?;
        Ok(Self {
            passed: 0,
            failed: 0,
            runs: 0,
            log,
        })
    }

    /// The file the tests append their skips to (`SKEL_SKIP_LOG`).
    pub(crate) fn log(&self) -> &Path {
        &self.log
    }

    /// Runs `cmd` (a `cargo test`), echoing its stdout line by line while counting the
    /// `test result:` lines in it.
    pub(crate) fn run(&mut self, cmd: &mut Command) -> Result<ExitStatus, String> {
        self.runs += 1;
        let mut child = cmd
            .env(SKIP_LOG_VAR, &self.log)
            .stdout(Stdio::piped())
            .spawn()
            .map_err(|e| format!("cannot run cargo: {e}"))?;
        if let Some(stdout) = child.stdout.take() {
            let mut echo = std::io::stdout().lock();
            for line in BufReader::new(stdout).lines() {
                let line = line.map_err(|e| format!("cannot read cargo test's output: {e}"))?;
                let _ = writeln!(echo, "{line}");
                if let Some((passed, failed)) = parse_result(&line) {
                    self.passed += passed;
                    self.failed += failed;
                }
            }
        }
        child.wait().map_err(|e| format!("cargo test: {e}"))
    }

    /// `N passed, N failed, N skipped`, then one line per skipped test (`test: reason`);
    /// `None` when no test ran.
    pub(crate) fn summary(&self) -> Option<String> {
        if self.runs == 0 {
            return None;
        }
        let text = std::fs::read_to_string(&self.log).unwrap_or_default();
        let skipped: BTreeSet<&str> = text.lines().filter(|l| !l.is_empty()).collect();
        let mut out = format!(
            "{} passed, {} failed, {} skipped",
            self.passed,
            self.failed,
            skipped.len()
        );
        if !skipped.is_empty() {
            out.push_str("\nskipped (counted as passed by libtest; their checks did not run):");
            for line in skipped {
                out.push_str("\n  ");
                out.push_str(line);
            }
        }
        Some(out)
    }
}

/// The environment variable the tests read (`skel_test_support::SKIP_LOG`; xtask does not
/// depend on that crate, so it is spelled here once).
const SKIP_LOG_VAR: &str = "SKEL_SKIP_LOG";

/// `(passed, failed)` from a libtest summary line:
/// `test result: ok. 12 passed; 0 failed; 1 ignored; 0 measured; 0 filtered out; …`.
fn parse_result(line: &str) -> Option<(usize, usize)> {
    let rest = line.trim_start().strip_prefix("test result: ")?;
    let count = |what: &str| {
        rest.split(';').find_map(|part| {
            part.split('.')
                .next_back()?
                .trim()
                .strip_suffix(what)?
                .trim()
                .parse::<usize>()
                .ok()
        })
    };
    Some((count(" passed")?, count(" failed")?))
}

#[cfg(test)]
#[allow(clippy::unwrap_used, reason = "tests")]
mod tests {
    use super::*;

    #[test]
    fn libtest_result_lines_are_counted() {
        assert_eq!(
            parse_result(
                "test result: ok. 12 passed; 0 failed; 1 ignored; 0 measured; 0 filtered out; finished in 0.31s"
            ),
            Some((12, 0))
        );
        assert_eq!(
            parse_result("test result: FAILED. 3 passed; 2 failed; 0 ignored; 0 measured"),
            Some((3, 2))
        );
        assert_eq!(parse_result("test foo ... ok"), None);
    }

    #[test]
    fn the_summary_lists_each_skip_once() {
        let dir = std::env::temp_dir().join(format!("skel-tally-{}", std::process::id()));
        let mut tally = Tally::new(&dir).unwrap();
        tally.runs = 1;
        tally.passed = 7;
        std::fs::write(
            tally.log(),
            "view_n: no Xvfb\nview_n: no Xvfb\nrender: no GPU\n",
        )
        .unwrap();
        assert_eq!(
            tally.summary().unwrap(),
            "7 passed, 0 failed, 2 skipped\n\
             skipped (counted as passed by libtest; their checks did not run):\n  \
             render: no GPU\n  view_n: no Xvfb"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
