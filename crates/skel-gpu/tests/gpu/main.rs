//! skel-gpu on a real wgpu adapter (lavapipe in CI): one test binary, one shared device.
//!
//! Without an adapter every test prints a loud SKIP and passes, unless `SKEL_REQUIRE_GPU=1`
//! (CI sets it), in which case it fails. Run with
//! `WGPU_BACKEND=vulkan XDG_RUNTIME_DIR=$(mktemp -d) cargo test -p skel-gpu`.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

mod affine_bones;
mod alloc_count;
mod baked_bounds;
mod baked_seen;
mod bone_counts;
mod buffers;
mod common;
mod compressed_clips;
mod compute;
mod crowd_dispatch;
mod crowd_morph;
mod crowd_pick;
mod crowd_pick_morph;
mod cull;
mod cull_draw;
mod end_to_end;
mod errors;
mod morph;
mod morph_texture;
mod pose;
mod pose_bounds;
mod probe;
mod recovery;
mod sink;
mod skeleton;
