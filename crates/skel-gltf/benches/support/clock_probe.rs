//! How fast this machine's core runs right now, measured rather than assumed: the shared
//! machines these benches run on change speed with their neighbours' load (the same binary
//! has measured 1.6× apart on two days), so the summary records the clock next to the times.

use std::hint::black_box;
use std::time::Instant;

/// Iterations of the probe's dependency chain (about 0.1 s at 2 GHz).
const STEPS: u64 = 60_000_000;

/// The core's effective clock in GHz, from a chain of dependent steps `x = x · x + k` on 64-bit
/// integers: each step waits for the previous one, and costs an `imul` (3 cycles of latency on
/// every x86-64 core of the last fifteen years: Intel since Nehalem, AMD since Zen) and an add
/// (1 cycle), whatever the pipeline width. Squaring cannot be reassociated or strength-reduced
/// the way multiplying by a constant can (the compiler turned that into a shorter chain). The
/// best of three runs, so that a moment of preemption does not count.
#[must_use]
pub fn ghz() -> f64 {
    (0..3).map(|_| once()).fold(0.0, f64::max)
}

/// The same steps on eight independent chains, as "GHz" (steps per nanosecond): bound by the
/// multiplier's throughput (one `imul` a cycle) rather than its latency, so it reads the clock
/// too when the core is ours alone, and less when another virtual machine shares the physical
/// core (SMT) or the host preempts us. The best of three runs.
#[must_use]
pub fn throughput_ghz() -> f64 {
    (0..3).map(|_| once_wide()).fold(0.0, f64::max)
}

fn once_wide() -> f64 {
    let k = black_box(0x9E37_79B9_7F4A_7C15_u64);
    let mut x: [u64; 8] = black_box([3, 5, 7, 9, 11, 13, 15, 17]);
    let start = Instant::now();
    for _ in 0..STEPS / 8 {
        for v in &mut x {
            *v = v.wrapping_mul(*v).wrapping_add(k);
        }
    }
    let seconds = start.elapsed().as_secs_f64();
    black_box(x);
    #[expect(clippy::cast_precision_loss, reason = "a step count far below 2^52")]
    let steps = (STEPS / 8 * 8) as f64;
    steps / seconds / 1e9
}

fn once() -> f64 {
    let k = black_box(0x9E37_79B9_7F4A_7C15_u64);
    let mut x = black_box(3_u64);
    let start = Instant::now();
    for _ in 0..STEPS {
        x = x.wrapping_mul(x).wrapping_add(k);
    }
    let seconds = start.elapsed().as_secs_f64();
    black_box(x);
    #[expect(clippy::cast_precision_loss, reason = "a step count far below 2^52")]
    let cycles = 4.0 * STEPS as f64;
    cycles / seconds / 1e9
}
