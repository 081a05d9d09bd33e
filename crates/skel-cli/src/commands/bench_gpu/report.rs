//! What every `skel bench gpu` subcommand shares: medians, the adapter a report was measured
//! on, where the text tables go, and positive counts for clap.

use serde::Serialize;

/// The median of `v` (sorted in place; the upper one of an even count), 0 for none.
pub(super) fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied().unwrap_or(0.0)
}

/// Threads rayon's global pool uses (one per logical CPU unless `RAYON_NUM_THREADS` says).
pub(super) fn rayon_threads() -> usize {
    std::env::var("RAYON_NUM_THREADS")
        .ok()
        .and_then(|v| v.parse().ok())
        .filter(|&n: &usize| n > 0)
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, std::num::NonZero::get))
}

/// The adapter a report was measured on, as the `compute` and `upload` JSON name it.
#[derive(Debug, Serialize)]
pub(super) struct AdapterReport {
    name: String,
    backend: String,
    device_type: String,
    driver: String,
    driver_info: String,
}

impl AdapterReport {
    pub(super) fn new(info: &wgpu::AdapterInfo) -> Self {
        Self {
            name: info.name.clone(),
            backend: format!("{:?}", info.backend),
            device_type: format!("{:?}", info.device_type),
            driver: info.driver.clone(),
            driver_info: info.driver_info.clone(),
        }
    }

    /// One line for the text output.
    pub(super) fn line(&self) -> String {
        format!(
            "adapter: {} ({}, {}), driver {} {}",
            self.name, self.device_type, self.backend, self.driver, self.driver_info
        )
    }
}

/// Where the text tables go: stdout, unless the JSON object takes stdout (then stderr, so a
/// JSON run still shows its progress and tables).
pub(super) fn table_out(json: bool) -> Box<dyn std::io::Write> {
    if json {
        Box::new(std::io::stderr())
    } else {
        Box::new(std::io::stdout())
    }
}

/// A positive count for a clap argument (`--frames 0` is an error, not a division by zero).
pub(super) fn positive_u32(s: &str) -> Result<u32, String> {
    match s.parse::<u32>() {
        Ok(0) => Err("must be at least 1".to_owned()),
        Ok(n) => Ok(n),
        Err(e) => Err(e.to_string()),
    }
}
