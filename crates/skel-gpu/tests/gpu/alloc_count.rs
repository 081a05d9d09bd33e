//! A counting global allocator (this test binary only), to see what the per-frame upload path
//! allocates. Counted per thread and only while measuring, because tests run side by side.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

struct CountingAllocator;

thread_local! {
    // Const-initialised and without destructors: touching them never allocates.
    static MEASURING: Cell<bool> = const { Cell::new(false) };
    static CALLS: Cell<usize> = const { Cell::new(0) };
}

fn count() {
    if MEASURING.with(Cell::get) {
        CALLS.with(|c| c.set(c.get() + 1));
    }
}

// `GlobalAlloc` is an unsafe trait: implementing it is the only way to see every allocation.
// Each method forwards its arguments unchanged to `System`, whose contract is the same.
#[expect(
    unsafe_code,
    reason = "a counting global allocator implements GlobalAlloc"
)]
// SAFETY: every method forwards to `System` with the caller's arguments, so `System`'s
// guarantees (valid, aligned, non-overlapping blocks) are ours.
unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count();
        // SAFETY: the caller upholds `alloc`'s contract (non-zero size), which `System` needs.
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        count();
        // SAFETY: as for `alloc`.
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count();
        // SAFETY: `ptr` was allocated by this allocator, i.e. by `System`, with `layout`.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        count();
        // SAFETY: `ptr` was allocated by this allocator, i.e. by `System`, with `layout`.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: CountingAllocator = CountingAllocator;

/// Allocator calls (alloc, realloc, dealloc) made by this thread while `f` runs.
pub fn allocations_during(f: impl FnOnce()) -> usize {
    let before = CALLS.with(Cell::get);
    MEASURING.with(|m| m.set(true));
    f();
    MEASURING.with(|m| m.set(false));
    CALLS.with(Cell::get) - before
}
