//! The plugin's spring work allocates nothing per frame: a VRM avatar walking with its springs
//! on costs the app no more allocations per frame than the same avatar with them off (Bevy's
//! own frame allocates; the difference is what the springs add).

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

mod common;

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

use bevy::prelude::*;
use common::vrm::{app_with, vrm_with_nod};
use skel_bevy::{SkelLayer, SkelPlayer, SkelSprings};

/// The system allocator, counting allocations.
struct Counting;

static ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);

// `GlobalAlloc` is an unsafe trait: implementing it is the only way to see every allocation.
#[expect(
    unsafe_code,
    reason = "a counting global allocator implements GlobalAlloc"
)]
// SAFETY: every method forwards to `System` with the caller's arguments, so `System`'s
// guarantees (valid, aligned, non-overlapping blocks) are ours.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: the caller's layout, passed on.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: the caller's pointer and layout, from `alloc`.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: the caller's pointer, layout and size, passed on.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// Allocations per frame over 120 frames, after 60 frames of warm-up, of an avatar playing
/// "Nod" and walking, with `settings`.
fn per_frame(settings: SkelSprings) -> Vec<usize> {
    let (mut app, _dir) = app_with(&vrm_with_nod("v1_hair.vrm"), "allocations");
    let player = SkelPlayer::new().with_layer(SkelLayer::clip("Nod"));
    let character = common::spawn(&mut app, "avatar.glb", (player, settings));
    common::run_until_bound(&mut app, character);
    let mut counts = Vec::with_capacity(180);
    for k in 0..180u16 {
        let x = f32::from(k) * 0.01;
        app.world_mut()
            .get_mut::<Transform>(character)
            .unwrap()
            .translation = Vec3::new(x.sin(), 0.0, x);
        let before = ALLOCATIONS.load(Ordering::Relaxed);
        app.update();
        counts.push(ALLOCATIONS.load(Ordering::Relaxed) - before);
    }
    let p = app.world().get::<SkelPlayer>(character).unwrap();
    assert_eq!(
        p.player().unwrap().springs().is_some(),
        settings.springs.is_some()
    );
    counts.split_off(60)
}

#[test]
fn springs_add_no_allocation_per_frame() {
    let on = per_frame(SkelSprings::default());
    let off = per_frame(SkelSprings::OFF);
    let (min_on, max_on) = (on.iter().min().unwrap(), on.iter().max().unwrap());
    let (min_off, max_off) = (off.iter().min().unwrap(), off.iter().max().unwrap());
    println!("allocations per frame: springs on {min_on}..={max_on}, off {min_off}..={max_off}");
    // One allocation a frame by the springs would add 120.
    let (sum_on, sum_off) = (on.iter().sum::<usize>(), off.iter().sum::<usize>());
    assert!(
        sum_on <= sum_off,
        "the springs add allocations: {sum_on} against {sum_off} in 120 frames"
    );
}
