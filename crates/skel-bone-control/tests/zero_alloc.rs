//! The hook reads the override map on every tick without allocating, and the eager bake
//! allocates nothing either (a counting global allocator, counting on this thread only).
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

mod common;

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::Arc;

use common::{bone, clip, rig_arc};
use skel_anim::{AnimationController, NullSink};
use skel_bone_control::enable_bone_control;

/// Forwards to the system allocator and counts, per thread, the calls made while that thread
/// is measuring (the harness runs tests side by side: a global count would see their calls).
struct Counting;

thread_local! {
    // Const-initialised and without destructors: touching them never allocates.
    static COUNTING: Cell<bool> = const { Cell::new(false) };
    static ALLOCATIONS: Cell<usize> = const { Cell::new(0) };
}

fn note() {
    if COUNTING.with(Cell::get) {
        ALLOCATIONS.with(|n| n.set(n.get() + 1));
    }
}

// `GlobalAlloc` is an unsafe trait: implementing it is the only way to see every allocation.
#[expect(
    unsafe_code,
    reason = "a counting global allocator implements GlobalAlloc"
)]
// SAFETY: every method forwards to `System` with the caller's arguments, so `System`'s
// guarantees (valid, aligned, non-overlapping blocks) are ours.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        note();
        // SAFETY: the caller upholds `alloc`'s contract, which `System` needs.
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        note();
        // SAFETY: as for `alloc`.
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` was allocated by this allocator, i.e. by `System`, with `layout`.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        note();
        // SAFETY: `ptr` was allocated by this allocator, i.e. by `System`, with `layout`.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn count(f: impl FnOnce()) -> usize {
    ALLOCATIONS.with(|n| n.set(0));
    COUNTING.with(|on| on.set(true));
    f();
    COUNTING.with(|on| on.set(false));
    ALLOCATIONS.with(Cell::get)
}

#[test]
fn ticks_with_overrides_and_the_eager_bake_allocate_nothing() {
    let data = rig_arc();
    let asset = enable_bone_control(&data).unwrap();
    let sk = &asset.skeletons()[0];
    let mut controller = AnimationController::new(Arc::clone(&data)).unwrap();
    asset.install(&mut controller).unwrap();
    controller.set_clip(Some(clip::MIXAMO_LIKE)).unwrap();
    let mut sink = NullSink;
    // Overrides of every kind on every bone: the active list is full.
    for b in 0..sk.bone_count() {
        sk.set_bone_position(b, [0.1, 0.2, 0.3], &mut sink).unwrap();
        sk.set_bone_rotation_quaternion(b, [0.0, 0.0, 0.0, 1.0], &mut sink)
            .unwrap();
        sk.set_bone_scaling(b, [1.0; 3], &mut sink).unwrap();
    }
    sk.set_bone_visible(bone::HEAD, false, &mut sink).unwrap();

    let ticks = count(|| {
        for _ in 0..100 {
            controller.tick(16.0, &mut sink);
        }
    });
    assert_eq!(ticks, 0, "allocations in 100 ticks with the hook installed");

    let mut blend =
        skel_anim::WeightedBlend::with_weights(Arc::clone(&data), &[(0, 0.7), (0, 0.3)]).unwrap();
    asset.install(&mut blend).unwrap();
    blend.tick(16.0, &mut sink);
    let blend_ticks = count(|| {
        for _ in 0..100 {
            blend.tick(16.0, &mut sink);
        }
    });
    assert_eq!(
        blend_ticks, 0,
        "allocations in 100 blend ticks with the hook installed"
    );

    let setters = count(|| {
        for _ in 0..20 {
            sk.set_bone_pose_deferred(bone::ARM, [0.0, 1.0, 0.0], [0.0, 0.0, 0.0, 1.0])
                .unwrap();
            sk.set_bone_world_pose_deferred(bone::SPINE, [0.0, 1.0, 0.0], [0.0, 0.0, 0.0, 1.0])
                .unwrap();
            sk.set_bone_visible(bone::ARM, false, &mut sink).unwrap();
            sk.clear_bone_override(bone::ARM, &mut sink).unwrap();
            sk.bake_skeleton(&mut sink);
        }
    });
    assert_eq!(setters, 0, "allocations in setters and bakes");
}

#[test]
fn the_counter_counts() {
    // Guards the test above against a counter that never counts.
    let n = count(|| {
        let v: Vec<u64> = Vec::with_capacity(16);
        std::hint::black_box(v);
    });
    assert_eq!(n, 1);
}
