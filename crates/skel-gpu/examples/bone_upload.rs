//! Per-frame bone upload for a crowd: N characters × J bones of matrices each frame, four ways:
//!
//! - `atlas_one_write`: one `rgba32float` texture holding every character's bones (laid out
//!   like a bone texture, [`BoneTextureLayout`]), filled by one `write_texture` of full rows
//!   plus one for the partial last row;
//! - `atlas_skeleton_gpu`: the same through the library, one [`SkeletonGpu`] of N × J bones and
//!   [`SkeletonGpu::write_bone_matrices`] (which also copies the frame into the CPU mirror);
//! - `atlas_per_character`: the same texture, one `write_texture` per character (two when its
//!   bones straddle a texture row);
//! - `separate_skeletons`: N [`SkeletonGpu`]s of J bones, one `write_bone_matrices` each (what
//!   [`GpuPoseSink`](skel_gpu::GpuPoseSink) does for N skinned meshes).
//!
//! For each, per frame: the CPU time of the write calls, and the wall-clock time until the
//! queue has executed them (submit, wait). Median over `--frames` after a warm-up. Runs on any
//! adapter (lavapipe too). Prints JSON on stdout, a table on stderr.
//!
//! ```text
//! WGPU_BACKEND=vulkan cargo run --release -p skel-gpu --example bone_upload -- \
//!     --characters 10000 --bones 19
//! ```
//! Options: `--characters N` (10 000), `--bones J` per character (19, CesiumMan's),
//! `--frames F` (30), `--warmup F` untimed frames (5).

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a benchmark program: fail loudly"
)]

mod support;

const USAGE: &str = "usage: bone_upload [--characters N] [--bones J] [--frames F] [--warmup F]";

use std::time::Instant;

use serde_json::json;
use skel_gpu::{
    BONE_TEXEL_BYTES, BONE_TEXTURE_FORMAT, BoneTextureLayout, GpuContext, JointIndices,
    SkeletonGpu, create_skeleton,
};

struct Options {
    characters: u32,
    bones: u32,
    frames: u32,
    warmup: u32,
}

fn options() -> Options {
    let mut o = Options {
        characters: 10_000,
        bones: 19,
        frames: 30,
        warmup: 5,
    };
    let mut cli = support::Cli::new(USAGE);
    while let Some(arg) = cli.next_option() {
        let value: u32 = cli.value(&arg);
        match arg.as_str() {
            "--characters" => o.characters = value.max(1),
            "--bones" => o.bones = value.max(1),
            "--frames" => o.frames = value.max(1),
            "--warmup" => o.warmup = value,
            other => cli.fail(&format!("unknown option {other}")),
        }
    }
    o
}

/// Writes bones `first..first + count` of `matrices` (16 floats each) into `texture` laid out
/// as `layout`, one `write_texture` per texture row touched.
fn write_bones(
    queue: &wgpu::Queue,
    texture: &wgpu::Texture,
    layout: &BoneTextureLayout,
    matrices: &[f32],
    first: u32,
    count: u32,
) {
    let per_row = layout.bones_per_row();
    let mut bone = first;
    while bone < first + count {
        let (x, y) = layout.texel(bone, 0);
        let run = (per_row - bone % per_row).min(first + count - bone);
        let start = bone as usize * 16;
        let bytes: &[u8] = bytemuck::cast_slice(&matrices[start..start + run as usize * 16]);
        queue.write_texture(
            wgpu::TexelCopyTextureInfo {
                texture,
                mip_level: 0,
                origin: wgpu::Origin3d { x, y, z: 0 },
                aspect: wgpu::TextureAspect::All,
            },
            bytes,
            wgpu::TexelCopyBufferLayout {
                offset: 0,
                bytes_per_row: Some(run * 4 * BONE_TEXEL_BYTES),
                rows_per_image: Some(1),
            },
            wgpu::Extent3d {
                width: run * 4,
                height: 1,
                depth_or_array_layers: 1,
            },
        );
        bone += run;
    }
}

/// Writes every bone: the full rows in one call, the partial last row in another.
fn write_all(
    queue: &wgpu::Queue,
    texture: &wgpu::Texture,
    layout: &BoneTextureLayout,
    matrices: &[f32],
) {
    let per_row = layout.bones_per_row();
    let full_rows = layout.bone_count / per_row;
    if full_rows > 0 {
        let end = (full_rows * per_row) as usize * 16;
        queue.write_texture(
            texture.as_image_copy(),
            bytemuck::cast_slice(&matrices[..end]),
            wgpu::TexelCopyBufferLayout {
                offset: 0,
                bytes_per_row: Some(layout.width * BONE_TEXEL_BYTES),
                rows_per_image: Some(full_rows),
            },
            wgpu::Extent3d {
                width: layout.width,
                height: full_rows,
                depth_or_array_layers: 1,
            },
        );
    }
    let rest = layout.bone_count - full_rows * per_row;
    if rest > 0 {
        write_bones(queue, texture, layout, matrices, full_rows * per_row, rest);
    }
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let o = options();
    let ctx = GpuContext::new_headless().expect("a wgpu adapter");
    let info = ctx.adapter_info.clone();
    eprintln!(
        "adapter {} ({:?}, {:?}), driver {} {}",
        info.name, info.device_type, info.backend, info.driver, info.driver_info
    );
    let (n, j) = (o.characters, o.bones);
    let total = n * j;
    // Frame f's matrices differ from frame f-1's (a translation term changes), so nothing can
    // be skipped as unchanged.
    let mut matrices: Vec<f32> = (0..total)
        .flat_map(|b| {
            let t = b as f32 * 1e-3;
            [
                1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, t, 0.0, 0.0, 1.0,
            ]
        })
        .collect();
    let layout = BoneTextureLayout::new(total, ctx.limits.max_texture_dimension_2d).unwrap();
    let atlas = ctx.device.create_texture(&wgpu::TextureDescriptor {
        label: Some("bone atlas"),
        size: layout.extent(),
        mip_level_count: 1,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format: BONE_TEXTURE_FORMAT,
        usage: wgpu::TextureUsages::TEXTURE_BINDING
            | wgpu::TextureUsages::COPY_DST
            | wgpu::TextureUsages::COPY_SRC,
        view_formats: &[],
    });
    let skeleton = |bones: u32, data: &[f32]| {
        create_skeleton(&ctx, JointIndices::U8(&[]), &[], bones, data, None, None).unwrap()
    };
    let atlas_skeleton = skeleton(total, &matrices);
    let mut separate: Vec<SkeletonGpu> = (0..n)
        .map(|c| {
            let at = (c * j) as usize * 16;
            skeleton(j, &matrices[at..at + j as usize * 16])
        })
        .collect();

    let modes = [
        "atlas_one_write",
        "atlas_skeleton_gpu",
        "atlas_per_character",
        "separate_skeletons",
    ];
    let mut results = Vec::new();
    eprintln!(
        "\n{n} characters × {j} bones = {:.2} MB per frame; bone texture {} × {}",
        f64::from(total) * 64.0 / 1e6,
        layout.width,
        layout.height
    );
    eprintln!(
        "mode                   write calls  issue ms  complete ms  (median of {})",
        o.frames
    );
    for mode in modes {
        let (mut issue, mut complete) = (Vec::new(), Vec::new());
        let mut calls = 0u32;
        for frame in 0..o.warmup + o.frames {
            matrices[12] = frame as f32;
            let start = Instant::now();
            calls = match mode {
                "atlas_one_write" => {
                    write_all(&ctx.queue, &atlas, &layout, &matrices);
                    1 + u32::from(
                        total % layout.bones_per_row() != 0 && total > layout.bones_per_row(),
                    )
                }
                "atlas_skeleton_gpu" => {
                    assert!(atlas_skeleton.write_bone_matrices(&ctx.queue, &matrices));
                    1 + u32::from(
                        total % layout.bones_per_row() != 0 && total > layout.bones_per_row(),
                    )
                }
                "atlas_per_character" => {
                    for c in 0..n {
                        write_bones(&ctx.queue, &atlas, &layout, &matrices, c * j, j);
                    }
                    n + (0..n)
                        .filter(|c| {
                            let first = c * j;
                            first / layout.bones_per_row()
                                != (first + j - 1) / layout.bones_per_row()
                        })
                        .count() as u32
                }
                _ => {
                    for (c, s) in separate.iter_mut().enumerate() {
                        let at = c * j as usize * 16;
                        assert!(
                            s.write_bone_matrices(&ctx.queue, &matrices[at..at + j as usize * 16])
                        );
                    }
                    n
                }
            };
            let issued = start.elapsed().as_secs_f64();
            ctx.queue.submit([]);
            ctx.device
                .poll(wgpu::PollType::wait_indefinitely())
                .unwrap();
            let done = start.elapsed().as_secs_f64();
            if frame >= o.warmup {
                issue.push(issued);
                complete.push(done);
            }
        }
        let (issue, complete) = (median(issue), median(complete));
        eprintln!(
            "{mode:<22} {calls:>11}  {:>8.3}  {:>11.3}",
            issue * 1e3,
            complete * 1e3
        );
        results.push(json!({
            "mode": mode,
            "write_texture_calls": calls,
            "issue_ms_median": issue * 1e3,
            "complete_ms_median": complete * 1e3,
        }));
    }
    // The atlas holds the last frame either way: check it read back equal.
    let back = skel_gpu::readback::read_texture_rgba32float(&ctx, &atlas).unwrap();
    assert_eq!(&back[..matrices.len()], &matrices[..], "atlas content");

    let report = json!({
        "benchmark": "skel-gpu bone_upload",
        "adapter": support::adapter_json(&info),
        "characters": n,
        "bones_per_character": j,
        "bytes_per_frame": u64::from(total) * 64,
        "bone_texture": [layout.width, layout.height],
        "frames": o.frames,
        "warmup_frames": o.warmup,
        "timing": "wall_clock",
        "results": results,
    });
    println!("{}", serde_json::to_string_pretty(&report).unwrap());
}
