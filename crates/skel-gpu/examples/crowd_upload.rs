//! Per-frame upload cost after loading a crowd, split into bone and morph-weight uploads, with
//! the allocator's view of the loaded resources.
//!
//! Creates N characters the way `skel bench` does (one [`SkeletonGpu`] of J bones and one
//! [`MorphGpu`] of T targets each, one vertex: the upload cost depends on bones and targets,
//! not vertices), waits for the GPU, then reports:
//!
//! - `gaps`: free ranges between live allocations in wgpu-hal's allocator report (Vulkan and
//!   DX12 only), i.e. what each later allocation's best-fit search walks through. Every
//!   per-frame `Queue::write_buffer`/`write_texture` allocates a staging buffer, so this is
//!   what made uploads slow down as more characters were loaded (see `src/staging.rs`);
//! - the median CPU time per character of all bone uploads of a frame, then of all morph
//!   weight uploads (each pass followed by one submit, then a wait outside the timing).
//!
//! ```text
//! WGPU_BACKEND=vulkan cargo run --release -p skel-gpu --example crowd_upload -- \
//!     --characters 1000 --bones 22 --targets 3
//! ```
//! Options: `--characters N` (1 000), `--bones J` (22, the built-in character's), `--targets T`
//! (3), `--frames F` (60). Prints one JSON object on stdout.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::cast_precision_loss,
    reason = "a benchmark program: fail loudly; counts far below 2^52"
)]

mod support;

use std::time::Instant;

use serde_json::json;
use skel_anim::MorphTargets;
use skel_gpu::{GpuContext, JointIndices, MorphGpu, SkeletonGpu, create_morph, create_skeleton};

const USAGE: &str = "usage: crowd_upload [--characters N] [--bones J] [--targets T] [--frames F]";

struct Options {
    characters: usize,
    bones: u32,
    targets: usize,
    frames: usize,
}

fn options() -> Options {
    let mut o = Options {
        characters: 1000,
        bones: 22,
        targets: 3,
        frames: 60,
    };
    let mut cli = support::Cli::new(USAGE);
    while let Some(arg) = cli.next_option() {
        let value: usize = cli.value(&arg);
        match arg.as_str() {
            "--characters" => o.characters = value.max(1),
            "--bones" => o.bones = u32::try_from(value.max(1)).expect("a bone count"),
            "--targets" => o.targets = value.max(1),
            "--frames" => o.frames = value.max(1),
            other => cli.fail(&format!("unknown option {other}")),
        }
    }
    o
}

/// Free ranges between live allocations, over every memory block; `None` where the backend
/// gives no allocator report.
fn allocator_gaps(ctx: &GpuContext) -> Option<(usize, usize)> {
    let report = ctx.device.generate_allocator_report()?;
    let mut gaps = 0;
    for block in &report.blocks {
        let mut live: Vec<(u64, u64)> = report.allocations[block.allocations.clone()]
            .iter()
            .map(|a| (a.offset, a.size))
            .collect();
        live.sort_unstable();
        let mut end = 0;
        for (offset, size) in live {
            gaps += usize::from(offset > end);
            end = end.max(offset + size);
        }
    }
    Some((report.allocations.len(), gaps))
}

fn median_us(mut per_character: Vec<f64>) -> f64 {
    per_character.sort_by(f64::total_cmp);
    per_character[per_character.len() / 2]
}

fn main() {
    let o = options();
    let ctx = GpuContext::new_headless().expect("a wgpu adapter");
    let identity = [
        1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0,
    ];
    let mut bones: Vec<f32> = identity.repeat(o.bones as usize);
    let mut weights = vec![0.0f32; o.targets];
    let targets = MorphTargets {
        target_count: o.targets,
        positions: vec![0.0; o.targets * 3],
        normals: Vec::new(),
    };
    let load = Instant::now();
    let mut crowd: Vec<(SkeletonGpu, MorphGpu)> = Vec::with_capacity(o.characters);
    for _ in 0..o.characters {
        let skeleton = create_skeleton(
            &ctx,
            JointIndices::U32(&[0, 0, 0, 0]),
            &[1.0, 0.0, 0.0, 0.0],
            o.bones,
            &bones,
            None,
            None,
        )
        .unwrap();
        let morph = create_morph(&ctx, &targets, 1, &weights).unwrap();
        crowd.push((skeleton, morph));
    }
    ctx.queue.submit([]);
    let _ = ctx.device.poll(wgpu::PollType::wait_indefinitely());
    let load_ms = load.elapsed().as_secs_f64() * 1e3;
    let gaps = allocator_gaps(&ctx);

    let n = o.characters as f64;
    let (mut bone_us, mut morph_us) = (Vec::new(), Vec::new());
    for frame in 0..o.frames + 5 {
        bones[12] = frame as f32 * 0.01;
        weights[0] = (frame % 10) as f32 * 0.1;
        let start = Instant::now();
        for (skeleton, _) in &crowd {
            assert!(skeleton.write_bone_matrices(&ctx.queue, &bones));
        }
        ctx.queue.submit([]);
        let bones_done = start.elapsed();
        let _ = ctx.device.poll(wgpu::PollType::wait_indefinitely());
        let start = Instant::now();
        for (_, morph) in &crowd {
            morph.write_weights(&ctx.queue, &weights);
        }
        ctx.queue.submit([]);
        let morph_done = start.elapsed();
        let _ = ctx.device.poll(wgpu::PollType::wait_indefinitely());
        if frame >= 5 {
            bone_us.push(bones_done.as_secs_f64() * 1e6 / n);
            morph_us.push(morph_done.as_secs_f64() * 1e6 / n);
        }
    }
    let report = json!({
        "adapter": format!("{} ({:?})", ctx.adapter_info.name, ctx.adapter_info.backend),
        "characters": o.characters,
        "bones": o.bones,
        "targets": o.targets,
        "frames": o.frames,
        "load_ms": load_ms,
        "live_allocations": gaps.map(|g| g.0),
        "allocator_gaps": gaps.map(|g| g.1),
        "bone_upload_us_per_character": median_us(bone_us),
        "morph_upload_us_per_character": median_us(morph_us),
    });
    println!("{}", serde_json::to_string_pretty(&report).unwrap());
}
