//! How fast this machine's core runs right now, measured rather than assumed: the shared
//! machines these benches run on change speed with their neighbours' load (the same binary
//! has measured 1.6× apart on two days), so the summary records the clock next to the times.

use std::hint::black_box;
use std::time::Instant;

/// Iterations of the probe's dependency chain (about 0.1 s at 2 GHz).
const STEPS: u64 = 60_000_000;

/// The core's effective clock in GHz, from a chain of dependent 64-bit integer multiplies:
/// each `imul` waits for the previous one, and its latency is 3 cycles on every x86-64 core of
/// the last fifteen years (Intel since Nehalem, AMD since Zen), whatever the pipeline width.
/// The best of three runs, so that a moment of preemption does not count.
#[must_use]
pub fn ghz() -> f64 {
    (0..3).map(|_| once()).fold(0.0, f64::max)
}

fn once() -> f64 {
    let k = black_box(0x9E37_79B9_7F4A_7C15_u64);
    let mut x = black_box(1_u64);
    let start = Instant::now();
    for _ in 0..STEPS {
        x = x.wrapping_mul(k);
    }
    let seconds = start.elapsed().as_secs_f64();
    black_box(x);
    #[expect(clippy::cast_precision_loss, reason = "a step count far below 2^52")]
    let cycles = 3.0 * STEPS as f64;
    cycles / seconds / 1e9
}
