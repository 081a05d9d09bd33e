//! A criterion measurement that reads the benchmarking thread's CPU time
//! (`CLOCK_THREAD_CPUTIME_ID`) instead of the wall clock.
//!
//! The development machine has 2 cores shared with compilers and other work; wall-clock samples
//! there include the time the thread waited for a core. CPU time counts only the time it ran
//! (cache refills after a switch included), so single-thread figures stay comparable between a
//! quiet and a busy machine. Parallel benchmarks must use the wall clock: other threads' CPU time
//! is not counted here.

use std::time::Duration;

use criterion::measurement::{Measurement, ValueFormatter, WallTime};

/// The calling thread's CPU time.
#[derive(Debug, Clone, Copy, Default)]
pub struct ThreadCpu;

/// Durations are printed as the wall clock prints them.
static WALL: WallTime = WallTime;

impl Measurement for ThreadCpu {
    type Intermediate = cpu_time::ThreadTime;
    type Value = Duration;

    fn start(&self) -> Self::Intermediate {
        cpu_time::ThreadTime::now()
    }
    fn end(&self, start: Self::Intermediate) -> Self::Value {
        start.elapsed()
    }
    fn add(&self, v1: &Self::Value, v2: &Self::Value) -> Self::Value {
        *v1 + *v2
    }
    fn zero(&self) -> Self::Value {
        Duration::ZERO
    }
    fn to_f64(&self, value: &Self::Value) -> f64 {
        value.as_secs_f64() * 1e9
    }
    fn formatter(&self) -> &dyn ValueFormatter {
        WALL.formatter()
    }
}
