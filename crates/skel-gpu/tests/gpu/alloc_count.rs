//! Counting allocations (this test binary only, through the `allocation-counter` crate's
//! global allocator), to see what the per-frame upload path allocates. Counted per thread,
//! because tests run side by side.

/// Heap allocations made by this thread while `f` runs.
pub fn allocations_during(f: impl FnOnce()) -> u64 {
    allocation_counter::measure(f).count_total
}
