//! End-to-end CPU pose pipeline: N characters × J joints per frame (sample every channel,
//! local → world, bone matrices; `NullSink`, so no upload), on the benchmark assets (`support::ASSETS`).
//!
//! Groups (criterion IDs `group/asset/characters`):
//! - `forward`: forward playback at 60 fps, one clip, N = 100 characters staggered through it;
//! - `seek`: a random time every frame for every character (`evaluate_at`);
//! - `scaling`: forward playback at N = 1, 100, 1 000 and 10 000;
//! - `serial` / `rayon`: 1 000 characters with `tick_all` and `par_tick_all` (checked
//!   bit-identical before timing);
//! - `blend1` / `blend3`: a [`WeightedBlend`] of one clip and of three clips (Fox: Survey, Walk,
//!   Run) against `forward` on the same asset;
//! - `culled`: `forward`'s 1 000 CesiumMan with three in four marked not visible (a renderer's
//!   culling), the cost per character of the whole crowd.
//!
//! Before timing, every case's heap allocations per frame are counted and written with its
//! characters and joints to `target/bench/pose_pipeline.json`; `cargo xtask bench` joins them
//! with criterion's medians into one table.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "benches")]

mod support;

use std::hint::black_box;
use std::sync::Arc;
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, Throughput};
use skel_anim::{Animate, AnimationController, NullSink, WeightedBlend, par_tick_all, tick_all};
use skel_test_support::cpu_clock::ThreadCpu;
use support::{CaseRecord, FRAME_MS, Loaded};

/// Frames over which allocations are counted (after a warm-up frame).
const ALLOC_FRAMES: usize = 64;

/// Random times for seeking: `SEEK_TABLE` per character, cycled (a xorshift, so the table is the
/// same on every run).
const SEEK_TABLE: usize = 4096;

fn seek_times(duration: f32) -> Vec<f32> {
    let mut state = 0x9e37_79b9_u32;
    (0..SEEK_TABLE)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            #[expect(clippy::cast_precision_loss, reason = "24 random bits")]
            let unit = (state >> 8) as f32 / (1u32 << 24) as f32;
            unit * duration
        })
        .collect()
}

/// Forward playback of `n` characters of which only every fourth is visible.
fn culled(c: &mut Criterion<ThreadCpu>, asset: &Loaded, n: usize, records: &mut Vec<CaseRecord>) {
    let mut crowd = support::crowd(asset, n);
    for (i, character) in crowd.iter_mut().enumerate() {
        character.visible = i % 4 == 0;
    }
    time_crowd(c, "culled", "culled", asset, crowd, false, records);
}

/// Forward playback of `n` characters: one iteration is one frame.
fn forward(
    c: &mut Criterion<ThreadCpu>,
    group: &str,
    asset: &Loaded,
    n: usize,
    records: &mut Vec<CaseRecord>,
) {
    let crowd = support::crowd(asset, n);
    let (kind, targeted) = if group == "forward" {
        ("forward", true)
    } else {
        ("scaling", false)
    };
    time_crowd(c, group, kind, asset, crowd, targeted, records);
}

/// Counts the allocations of a frame of `crowd` (after one untimed frame), records the case
/// (with the asset's target when `targeted`) and times `tick_all` over it as `group/asset/N`.
fn time_crowd<A: Animate>(
    c: &mut Criterion<ThreadCpu>,
    group: &str,
    kind: &'static str,
    asset: &Loaded,
    mut crowd: Vec<A>,
    targeted: bool,
    records: &mut Vec<CaseRecord>,
) {
    let n = crowd.len();
    let mut sinks = vec![NullSink; n];
    tick_all(&mut crowd, FRAME_MS, &mut sinks).unwrap();
    let allocations = support::allocations_per_frame(ALLOC_FRAMES, || {
        tick_all(&mut crowd, FRAME_MS, &mut sinks).unwrap();
    });
    let mut r = record(group, kind, asset, n, allocations);
    if !targeted {
        r.target_ns = None;
    }
    records.push(r);
    let mut g = c.benchmark_group(group);
    g.throughput(Throughput::Elements((n * asset.joints) as u64));
    g.bench_function(BenchmarkId::new(asset.spec.name, n), |b| {
        b.iter(|| tick_all(black_box(&mut crowd), FRAME_MS, &mut sinks).unwrap());
    });
    g.finish();
}

fn record(
    group: &str,
    kind: &'static str,
    asset: &Loaded,
    n: usize,
    allocations: f64,
) -> CaseRecord {
    CaseRecord {
        id: format!("{group}/{}/{n}", asset.spec.name),
        kind,
        asset: asset.spec.name,
        characters: n,
        joints: asset.joints,
        allocations_per_frame: allocations,
        ozz_ns: asset.spec.ozz_ns,
        target_ns: asset.spec.target_ns,
    }
}

/// A random time every frame for each of `n` characters.
fn seek(c: &mut Criterion<ThreadCpu>, asset: &Loaded, n: usize, records: &mut Vec<CaseRecord>) {
    let mut crowd = support::crowd(asset, n);
    let times = seek_times(crowd[0].duration());
    let clip = Some(asset.clip);
    let mut frame = 0usize;
    let step = |crowd: &mut [AnimationController], frame: &mut usize| {
        for (i, ch) in crowd.iter_mut().enumerate() {
            let t = times[(*frame * 7919 + i * 104_729) % SEEK_TABLE];
            ch.evaluate_at(clip, t, &mut NullSink).unwrap();
        }
        *frame += 1;
    };
    step(&mut crowd, &mut frame);
    let allocations = support::allocations_per_frame(ALLOC_FRAMES, || step(&mut crowd, &mut frame));
    let mut r = record("seek", "seek", asset, n, allocations);
    r.target_ns = Some(60.0);
    records.push(r);
    let mut g = c.benchmark_group("seek");
    g.throughput(Throughput::Elements((n * asset.joints) as u64));
    g.bench_function(BenchmarkId::new(asset.spec.name, n), |b| {
        b.iter(|| step(black_box(&mut crowd), &mut frame));
    });
    g.finish();
}

/// `tick_all` against `par_tick_all` on `n` characters, after checking that both give the
/// same bits.
fn parallel(c: &mut Criterion, asset: &Loaded, n: usize, records: &mut Vec<CaseRecord>) {
    let mut serial = support::crowd(asset, n);
    let mut par = support::crowd(asset, n);
    let mut sinks = vec![NullSink; n];
    for _ in 0..10 {
        tick_all(&mut serial, FRAME_MS, &mut sinks).unwrap();
        par_tick_all(&mut par, FRAME_MS, &mut sinks).unwrap();
    }
    for (a, b) in serial.iter().zip(&par) {
        let bits = |m: &[glam::Mat4]| {
            bytemuck::cast_slice::<_, f32>(m)
                .iter()
                .map(|v| v.to_bits())
                .collect::<Vec<_>>()
        };
        assert_eq!(
            bits(a.bone_matrices(0).unwrap()),
            bits(b.bone_matrices(0).unwrap())
        );
    }
    let serial_allocs = support::allocations_per_frame(ALLOC_FRAMES, || {
        tick_all(&mut serial, FRAME_MS, &mut sinks).unwrap();
    });
    let mut r = record("serial", "serial", asset, n, serial_allocs);
    r.target_ns = None;
    records.push(r);
    // Allocations on the calling thread, plus those inside every tick on rayon's workers
    // (rayon's own bookkeeping on worker threads is not counted).
    let worker = std::sync::atomic::AtomicU64::new(0);
    let mut counted_frame = || {
        use rayon::prelude::*;
        par.par_iter_mut().for_each(|ch| {
            let info = allocation_counter::measure(|| ch.tick(FRAME_MS, &mut NullSink));
            worker.fetch_add(info.count_total, std::sync::atomic::Ordering::Relaxed);
        });
    };
    // rayon sets up per-thread state on first use: warm up before counting.
    for _ in 0..4 {
        counted_frame();
    }
    // Called from a thread outside the pool, each call goes through rayon's injector queue,
    // which allocates a block per 63 jobs; a frame loop running on a pool thread
    // (`ThreadPool::install`, as the timing below does) pushes onto that thread's own deque.
    let outside = support::allocations_per_frame(ALLOC_FRAMES, &mut counted_frame);
    eprintln!(
        "rayon/{}/{n}: {outside} allocations per frame called from outside the pool",
        asset.spec.name
    );
    worker.store(0, std::sync::atomic::Ordering::Relaxed);
    let pool = rayon::ThreadPoolBuilder::new()
        .build()
        .expect("a rayon thread pool");
    let calling = pool.install(|| support::allocations_per_frame(ALLOC_FRAMES, &mut counted_frame));
    #[expect(clippy::cast_precision_loss, reason = "small counts")]
    let worker_per_frame =
        worker.load(std::sync::atomic::Ordering::Relaxed) as f64 / ALLOC_FRAMES as f64;
    let mut r = record("rayon", "rayon", asset, n, calling + worker_per_frame);
    r.target_ns = None;
    records.push(r);
    let mut g = c.benchmark_group("serial");
    g.throughput(Throughput::Elements((n * asset.joints) as u64));
    g.bench_function(BenchmarkId::new(asset.spec.name, n), |b| {
        b.iter(|| tick_all(black_box(&mut serial), FRAME_MS, &mut sinks).unwrap());
    });
    g.finish();
    let mut g = c.benchmark_group("rayon");
    g.throughput(Throughput::Elements((n * asset.joints) as u64));
    g.bench_function(BenchmarkId::new(asset.spec.name, n), |b| {
        b.iter_custom(|iters| {
            pool.install(|| {
                let start = std::time::Instant::now();
                for _ in 0..iters {
                    par_tick_all(black_box(&mut par), FRAME_MS, &mut sinks).unwrap();
                }
                start.elapsed()
            })
        });
    });
    g.finish();
}

/// A weighted blend of `clips` (weights spread evenly) for `n` characters.
fn blend(
    c: &mut Criterion<ThreadCpu>,
    group: &str,
    asset: &Loaded,
    clips: &[usize],
    n: usize,
    records: &mut Vec<CaseRecord>,
) {
    #[expect(clippy::cast_precision_loss, reason = "a few layers")]
    let weights: Vec<(usize, f32)> = clips
        .iter()
        .map(|&c| (c, 1.0 / clips.len() as f32))
        .collect();
    let first = WeightedBlend::with_weights(Arc::clone(&asset.data), &weights).unwrap();
    let crowd: Vec<WeightedBlend> = (0..n)
        .map(|i| {
            let mut b = first.clone();
            for layer in b.layers_mut() {
                let d = layer.clock().to();
                #[expect(clippy::cast_precision_loss, reason = "small counts")]
                layer.clock_mut().seek(d * i as f32 / n as f32);
            }
            b
        })
        .collect();
    time_crowd(c, group, "blend", asset, crowd, false, records);
}

fn main() {
    let mut c = Criterion::default()
        .with_measurement(ThreadCpu)
        .warm_up_time(Duration::from_millis(1000))
        .measurement_time(Duration::from_millis(2000))
        .sample_size(30)
        .configure_from_args();
    // The parallel comparison needs the wall clock (worker threads' CPU time is not the
    // calling thread's).
    let mut wall = Criterion::default()
        .warm_up_time(Duration::from_millis(1000))
        .measurement_time(Duration::from_millis(2000))
        .sample_size(30)
        .configure_from_args();
    let probe = || {
        (
            support::clock_probe::ghz(),
            support::clock_probe::throughput_ghz(),
        )
    };
    let clock_before = probe();
    let mut records = Vec::new();
    let assets: Vec<Loaded> = support::ASSETS
        .iter()
        .filter_map(|&a| support::load(a))
        .collect();
    for asset in &assets {
        forward(&mut c, "forward", asset, 100, &mut records);
    }
    for asset in &assets {
        seek(&mut c, asset, 100, &mut records);
    }
    if let Some(cesium) = assets.iter().find(|a| a.spec.name == "CesiumMan") {
        for n in [1, 100, 1000, 10_000] {
            forward(&mut c, "scaling", cesium, n, &mut records);
        }
        parallel(&mut wall, cesium, 1000, &mut records);
        culled(&mut c, cesium, 1000, &mut records);
    }
    if let Some(fox) = assets.iter().find(|a| a.spec.name == "Fox-Survey") {
        let names = ["Survey", "Walk", "Run"];
        let clips: Vec<usize> = names
            .iter()
            .filter_map(|n| fox.data.clip_index(n))
            .collect();
        blend(&mut c, "blend1", fox, &clips[..1], 100, &mut records);
        blend(&mut c, "blend3", fox, &clips, 100, &mut records);
    }
    support::write_records("pose_pipeline", &records);
    support::write_clock(clock_before, probe());
    c.final_summary();
    wall.final_summary();
}
