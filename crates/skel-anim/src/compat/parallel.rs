//! Parallel ticking of many instances (the `rayon` feature).
//!
//! Each instance is evaluated by exactly the code [`tick_all`](crate::tick_all) runs, on its own
//! scratch, reading shared keyframes only; no value depends on which thread ran it or in what
//! order, so the results are bit-identical to the serial path.

use rayon::prelude::*;

use crate::compat::instances::check_sinks;
use crate::{AnimError, Animate, PoseSink};

/// [`tick_all`](crate::tick_all) spread over rayon's thread pool (the global one, or the pool
/// whose thread calls it).
///
/// Call it from a thread of the pool (run the frame loop inside `ThreadPool::install`) and a
/// frame allocates nothing; called from any other thread, rayon hands the work over through
/// its injector queue, which allocates one block per 63 calls.
///
/// # Errors
/// [`AnimError::LengthMismatch`] when there is not one sink per instance (nothing is ticked).
pub fn par_tick_all<A: Animate + Send, S: PoseSink + Send>(
    instances: &mut [A],
    delta_ms: f32,
    sinks: &mut [S],
) -> Result<(), AnimError> {
    check_sinks(instances.len(), sinks.len())?;
    instances
        .par_iter_mut()
        .zip(sinks.par_iter_mut())
        .for_each(|(instance, sink)| instance.tick(delta_ms, sink));
    Ok(())
}
