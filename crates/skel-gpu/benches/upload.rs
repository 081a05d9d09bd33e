//! Bone upload for a crowd: 1 000 characters × 64 joints per frame, two ways.
//!
//! - `upload/separate`: one bone texture per character, 1 000 `write_bone_matrices` calls (the
//!   per-character [`GpuPoseSink`](skel_gpu::GpuPoseSink) path).
//! - `upload/batched`: one bone texture holding every character's bones (64 000 bones, wrapped
//!   into rows by [`BoneTextureLayout`](skel_gpu::BoneTextureLayout)), filled by copying each
//!   character's matrices into one CPU buffer and uploading it with one
//!   `write_bone_matrices` call (at most two `write_texture`s). The gather copy is timed too.
//!
//! Each iteration is one frame: the writes and one `submit`, wall clock; the device is then
//! drained outside the timed part so staging memory does not pile up. Records for
//! `cargo xtask bench` go to `target/bench/upload.json`. Without an adapter the bench prints a
//! SKIP line (and fails when `SKEL_REQUIRE_GPU=1`).

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "benches")]

use std::hint::black_box;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use criterion::Criterion;
use skel_gpu::glam::Mat4;
use skel_gpu::{GpuContext, JointIndices, SkeletonGpu, create_skeleton};

const CHARACTERS: usize = 1000;
const JOINTS: usize = 64;

/// Distinct, finite bone matrices for character `c` (the values do not matter to the copy).
fn bones_of(c: usize) -> Vec<Mat4> {
    (0..JOINTS)
        .map(|b| {
            Mat4::from_cols_array(&std::array::from_fn(|e| {
                ((c * 31 + b * 16 + e) % 97) as f32 * 0.01
            }))
        })
        .collect()
}

fn skeleton(ctx: &GpuContext, bones: usize, data: &[Mat4]) -> SkeletonGpu {
    create_skeleton(
        ctx,
        JointIndices::U32(&[0, 0, 0, 0]),
        &[1.0, 0.0, 0.0, 0.0],
        u32::try_from(bones).unwrap(),
        data,
        None,
        None,
    )
    .unwrap()
}

fn drain(ctx: &GpuContext) {
    let _ = ctx.device.poll(wgpu::PollType::wait_indefinitely());
}

/// One frame's upload, timed; the device drains after the clock stops.
fn frames(ctx: &GpuContext, iters: u64, mut frame: impl FnMut()) -> Duration {
    let mut total = Duration::ZERO;
    for _ in 0..iters {
        let start = Instant::now();
        frame();
        ctx.queue.submit([]);
        total += start.elapsed();
        drain(ctx);
    }
    total
}

fn allocations(ctx: &GpuContext, mut frame: impl FnMut()) -> f64 {
    const FRAMES: u64 = 16;
    let mut count = 0;
    for _ in 0..FRAMES {
        let info = allocation_counter::measure(|| {
            frame();
            ctx.queue.submit([]);
        });
        count += info.count_total;
        drain(ctx);
    }
    count as f64 / FRAMES as f64
}

fn main() {
    let Some(ctx) = skel_test_support::gpu("upload bench", GpuContext::new_headless()) else {
        return;
    };
    let adapter = format!("{} ({:?})", ctx.adapter_info.name, ctx.adapter_info.backend);
    eprintln!("upload bench on {adapter}");
    let per_character: Vec<Vec<Mat4>> = (0..CHARACTERS).map(bones_of).collect();
    let mut separate: Vec<SkeletonGpu> = per_character
        .iter()
        .map(|b| skeleton(&ctx, JOINTS, b))
        .collect();
    let mut batch = vec![Mat4::ZERO; CHARACTERS * JOINTS];
    let crowd = skeleton(&ctx, CHARACTERS * JOINTS, &batch);

    let mut separate_frame = || {
        for (gpu, bones) in separate.iter_mut().zip(&per_character) {
            assert!(gpu.write_bone_matrices(&ctx.queue, bones));
        }
    };
    let separate_allocs = allocations(&ctx, &mut separate_frame);
    let mut batched_frame = || {
        for (dst, bones) in batch.chunks_exact_mut(JOINTS).zip(&per_character) {
            dst.copy_from_slice(bones);
        }
        assert!(crowd.write_bone_matrices(&ctx.queue, black_box(&batch)));
    };
    let batched_allocs = allocations(&ctx, &mut batched_frame);

    let mut c = Criterion::default()
        .warm_up_time(Duration::from_millis(1000))
        .measurement_time(Duration::from_millis(3000))
        .sample_size(20)
        .configure_from_args();
    let mut g = c.benchmark_group("upload");
    g.throughput(criterion::Throughput::Bytes(
        (CHARACTERS * JOINTS * 64) as u64,
    ));
    g.bench_function(criterion::BenchmarkId::new("separate", "1000x64"), |b| {
        b.iter_custom(|iters| frames(&ctx, iters, &mut separate_frame));
    });
    g.bench_function(criterion::BenchmarkId::new("batched", "1000x64"), |b| {
        b.iter_custom(|iters| frames(&ctx, iters, &mut batched_frame));
    });
    g.finish();
    c.final_summary();

    let record = |id: &str, kind: &str, allocs: f64| {
        serde_json::json!({
            "id": id,
            "kind": kind,
            "asset": adapter,
            "characters": CHARACTERS,
            "joints": JOINTS,
            "allocations_per_frame": allocs,
            "ozz_ns": null,
            "target_ns": null,
        })
    };
    let records = serde_json::json!([
        record(
            "upload/separate/1000x64",
            "upload-separate",
            separate_allocs
        ),
        record("upload/batched/1000x64", "upload-batched", batched_allocs),
    ]);
    let dir = std::env::var_os("SKEL_BENCH_DIR").map_or_else(
        || PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../target/bench")),
        PathBuf::from,
    );
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("upload.json"),
        serde_json::to_string_pretty(&records).unwrap(),
    )
    .unwrap();
}
