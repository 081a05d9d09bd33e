//! `skel bench gpu upload`: per-frame bone upload for a crowd, N characters × J bones of
//! matrices each frame, several ways:
//!
//! - `atlas_one_write`: one `rgba32float` texture holding every character's bones (laid out
//!   like a bone texture, [`BoneTextureLayout`]), filled by one `write_texture` of full rows
//!   plus one for the partial last row;
//! - `atlas_skeleton_gpu`: the same through the library, one [`SkeletonGpu`] of N × J bones and
//!   [`SkeletonGpu::write_bone_matrices`] (which also copies the frame into the CPU mirror);
//! - `atlas_per_character`: the same texture, one `write_texture` per character (two when its
//!   bones straddle a texture row);
//! - `separate_skeletons`: N [`SkeletonGpu`]s of J bones, one `write_bone_matrices` each (what
//!   `GpuPoseSink` does for N skinned meshes);
//! - `separate_morph_weights` (with `--targets T`): N [`MorphGpu`]s of T targets, one
//!   `write_weights` each (the morph half of a per-character upload);
//! - `crowd_ring`: one [`CrowdBones`] storage buffer written through its ring of mapped
//!   staging buffers, one `upload` into an encoder (what `skel::Crowd` does).
//!
//! For each, per frame: the CPU time of the write calls ("issue"), the wall-clock time until
//! the queue has executed them ("complete": submit, wait), and the heap allocations on this
//! thread in the write calls and in the whole frame (writes, submit, wait). Medians over
//! `--frames` after `--warmup` untimed frames. (This was the `bone_upload` and `crowd_upload`
//! examples of skel-gpu; same modes and figures.)

use std::io::Write as _;
use std::time::Instant;

use glam::Mat4;
use serde::Serialize;
use skel::anim::MorphTargets;
use skel::gpu::{
    BoneTextureLayout, CROWD_STAGING_SLOTS, CrowdBones, CrowdBonesDescriptor, GpuContext,
    JointIndices, MorphGpu, SkeletonGpu, create_morph, create_skeleton,
};

use super::report::{AdapterReport, median, positive_u32, table_out};

type Error = Box<dyn std::error::Error>;

/// Every mode, in the order they run.
const MODES: [&str; 6] = [
    "atlas_one_write",
    "atlas_skeleton_gpu",
    "atlas_per_character",
    "separate_skeletons",
    "separate_morph_weights",
    "crowd_ring",
];

/// Arguments of `skel bench gpu upload`.
#[derive(Debug, clap::Args)]
pub(super) struct UploadArgs {
    /// Characters (instances) in the crowd.
    #[arg(long, default_value_t = 10_000, value_parser = positive_u32)]
    characters: u32,
    /// Bones per character (19: CesiumMan's).
    #[arg(long, default_value_t = 19, value_parser = positive_u32)]
    bones: u32,
    /// Morph targets per character for the `separate_morph_weights` mode (0 skips it).
    #[arg(long, default_value_t = 0)]
    targets: u32,
    /// Timed frames per mode.
    #[arg(long, default_value_t = 30, value_parser = positive_u32)]
    frames: u32,
    /// Untimed frames per mode first.
    #[arg(long, default_value_t = 5)]
    warmup: u32,
    /// Only these modes, comma-separated (default: every mode).
    #[arg(long, value_delimiter = ',', value_parser = MODES)]
    modes: Vec<String>,
    /// Print one JSON object (the table goes to stderr).
    #[arg(long)]
    json: bool,
}

/// One mode's figures.
#[derive(Debug, Serialize)]
struct ModeReport {
    mode: &'static str,
    /// `write_texture`/`write_buffer` calls per frame (0 for the ring, which copies inside an
    /// encoder).
    write_calls: u32,
    issue_ms_median: f64,
    complete_ms_median: f64,
    /// Heap allocations on this thread in the write calls, last timed frame.
    allocations_issue: u64,
    /// The same over the whole frame: writes, encoder, submit and wait.
    allocations_frame: u64,
}

/// What `skel bench gpu upload --json` prints.
#[derive(Debug, Serialize)]
struct UploadReport {
    schema: &'static str,
    adapter: AdapterReport,
    characters: u32,
    bones_per_character: u32,
    morph_targets: u32,
    bytes_per_frame: u64,
    bone_texture: [u32; 2],
    frames: u32,
    warmup_frames: u32,
    timing: &'static str,
    /// Live allocations and free gaps between them in wgpu-hal's allocator after creating
    /// every resource (Vulkan and DX12 only): each staged upload's best-fit search walks the
    /// gaps.
    live_allocations: Option<usize>,
    allocator_gaps: Option<usize>,
    results: Vec<ModeReport>,
}

/// Free ranges between live allocations over every memory block: (live, gaps); `None` where
/// the backend gives no allocator report.
fn allocator_gaps(ctx: &GpuContext) -> Option<(usize, usize)> {
    let report = ctx.device.generate_allocator_report()?;
    let mut gaps = 0;
    for block in &report.blocks {
        let mut live: Vec<(u64, u64)> = report
            .allocations
            .get(block.allocations.clone())
            .unwrap_or_default()
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

/// Everything the modes write to.
struct Targets {
    layout: BoneTextureLayout,
    atlas: wgpu::Texture,
    atlas_skeleton: SkeletonGpu,
    separate: Vec<SkeletonGpu>,
    morphs: Vec<MorphGpu>,
    ring: CrowdBones,
    visible: Vec<u32>,
}

/// One frame of `mode`'s writes (an encoder for the ring's copies); returns the write calls.
fn issue(
    ctx: &GpuContext,
    t: &mut Targets,
    mode: &str,
    matrices: &[Mat4],
    (j, weights): (u32, &[f32]),
    encoder: &mut wgpu::CommandEncoder,
) -> Result<u32, Error> {
    let bad = || -> Error { "a bone array of the wrong length".into() };
    Ok(match mode {
        "atlas_one_write" => t.layout.write_all(&ctx.queue, &t.atlas, matrices),
        "atlas_skeleton_gpu" => {
            if !t.atlas_skeleton.write_bone_matrices(&ctx.queue, matrices) {
                return Err(bad());
            }
            // As many writes as atlas_one_write: the same layout.
            let (total, per_row) = (t.layout.bone_count, t.layout.bones_per_row());
            1 + u32::from(total % per_row != 0 && total > per_row)
        }
        "atlas_per_character" => {
            let mut calls = 0;
            for (c, character) in matrices.chunks_exact(j as usize).enumerate() {
                let first = c as u32 * j;
                calls += t.layout.write_bones(&ctx.queue, &t.atlas, first, character);
            }
            calls
        }
        "separate_skeletons" => {
            for (s, m) in t.separate.iter().zip(matrices.chunks_exact(j as usize)) {
                if !s.write_bone_matrices(&ctx.queue, m) {
                    return Err(bad());
                }
            }
            t.separate.len() as u32
        }
        "separate_morph_weights" => {
            for m in &t.morphs {
                m.write_weights(&ctx.queue, weights);
            }
            t.morphs.len() as u32
        }
        _ => {
            t.ring.upload(ctx, encoder, matrices, &t.visible)?;
            0
        }
    })
}

/// Runs `skel bench gpu upload`.
pub(super) fn run(args: &UploadArgs) -> Result<(), Error> {
    let ctx = GpuContext::new_headless()?;
    let adapter = AdapterReport::new(&ctx.adapter_info);
    let mut out = table_out(args.json);
    writeln!(out, "skel bench gpu upload\n{}", adapter.line())?;
    let (n, j) = (args.characters, args.bones);
    let total = n
        .checked_mul(j)
        .ok_or("--characters × --bones overflows u32")?;
    // Frame f's matrices differ from frame f-1's (a translation term changes), so nothing can
    // be skipped as unchanged.
    let mut matrices: Vec<Mat4> = (0..total)
        .map(|b| Mat4::from_translation(glam::Vec3::new(b as f32 * 1e-3, 0.0, 0.0)))
        .collect();
    let layout = BoneTextureLayout::new(total, ctx.limits.max_texture_dimension_2d)?;
    let atlas = layout.create_texture(&ctx.device);
    let skeleton = |bones: u32, data: &[Mat4]| {
        create_skeleton(&ctx, JointIndices::U8(&[]), &[], bones, data, None, None)
    };
    let mut weights = vec![0.0f32; args.targets as usize];
    let morph_targets = MorphTargets {
        target_count: args.targets as usize,
        positions: vec![0.0; args.targets as usize * 3],
        normals: Vec::new(),
    };
    let mut targets = Targets {
        atlas_skeleton: skeleton(total, &matrices)?,
        separate: matrices
            .chunks_exact(j as usize)
            .map(|m| skeleton(j, m))
            .collect::<Result<_, _>>()?,
        morphs: if args.targets > 0 {
            (0..n)
                .map(|_| create_morph(&ctx, &morph_targets, 1, &weights))
                .collect::<Result<_, _>>()?
        } else {
            Vec::new()
        },
        ring: CrowdBones::new(
            &ctx,
            &CrowdBonesDescriptor {
                instances: n,
                bones_per_instance: j,
                staging_slots: CROWD_STAGING_SLOTS,
            },
        )?,
        visible: (0..n).collect(),
        layout,
        atlas,
    };
    ctx.queue.submit([]);
    ctx.device.poll(wgpu::PollType::wait_indefinitely())?;
    let gaps = allocator_gaps(&ctx);

    let modes: Vec<&str> = MODES
        .into_iter()
        .filter(|m| args.modes.is_empty() || args.modes.iter().any(|a| a == m))
        .filter(|&m| m != "separate_morph_weights" || args.targets > 0)
        .collect();
    writeln!(
        out,
        "{n} characters × {j} bones = {:.2} MB per frame; bone texture {} × {}",
        f64::from(total) * 64.0 / 1e6,
        layout.width,
        layout.height
    )?;
    writeln!(
        out,
        "mode                    write calls  issue ms  complete ms  allocations (writes / frame)  (median of {})",
        args.frames
    )?;
    let mut results = Vec::new();
    for &mode in &modes {
        let (mut issued, mut complete) = (Vec::new(), Vec::new());
        let (mut calls, mut alloc_issue, mut alloc_frame) = (0, 0, 0);
        for frame in 0..args.warmup + args.frames {
            matrices[0].w_axis.x = frame as f32;
            if let Some(w) = weights.first_mut() {
                *w = (frame % 10) as f32 * 0.1;
            }
            let mut result = Ok(0);
            let (mut issue_secs, mut complete_secs) = (0.0, 0.0);
            // Nothing in here allocates of its own (no Vec grows): what is counted is wgpu's.
            let whole = allocation_counter::measure(|| {
                let mut encoder = ctx.device.create_command_encoder(&Default::default());
                let start = Instant::now();
                let writes = allocation_counter::measure(|| {
                    result = issue(
                        &ctx,
                        &mut targets,
                        mode,
                        &matrices,
                        (j, &weights),
                        &mut encoder,
                    );
                });
                issue_secs = start.elapsed().as_secs_f64();
                alloc_issue = writes.count_total;
                ctx.queue.submit([encoder.finish()]);
                if let Err(e) = ctx.device.poll(wgpu::PollType::wait_indefinitely()) {
                    result = Err(e.into());
                }
                complete_secs = start.elapsed().as_secs_f64();
            });
            calls = result?;
            alloc_frame = whole.count_total;
            if frame >= args.warmup {
                issued.push(issue_secs);
                complete.push(complete_secs);
            }
        }
        let report = ModeReport {
            mode,
            write_calls: calls,
            issue_ms_median: median(&mut issued) * 1e3,
            complete_ms_median: median(&mut complete) * 1e3,
            allocations_issue: alloc_issue,
            allocations_frame: alloc_frame,
        };
        writeln!(
            out,
            "{mode:<23} {calls:>11}  {:>8.3}  {:>11.3}  {alloc_issue:>11} / {alloc_frame}",
            report.issue_ms_median, report.complete_ms_median
        )?;
        results.push(report);
    }
    // The atlas holds the last frame (every mode ends on the same one): it must read back
    // equal.
    if modes.contains(&"atlas_one_write") || modes.contains(&"atlas_per_character") {
        let back = skel::gpu::readback::read_texture_rgba32float(&ctx, &targets.atlas)?;
        let written: &[f32] = bytemuck::cast_slice(&matrices);
        if back.get(..written.len()) != Some(written) {
            return Err("the bone atlas did not read back as written".into());
        }
    }
    if let Some(e) = ctx.take_uncaptured_error() {
        return Err(format!("wgpu: {e}").into());
    }
    let report = UploadReport {
        schema: "skel-bench-gpu-upload/1",
        adapter,
        characters: n,
        bones_per_character: j,
        morph_targets: args.targets,
        bytes_per_frame: u64::from(total) * 64,
        bone_texture: [layout.width, layout.height],
        frames: args.frames,
        warmup_frames: args.warmup,
        timing: "wall_clock",
        live_allocations: gaps.map(|g| g.0),
        allocator_gaps: gaps.map(|g| g.1),
        results,
    };
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    }
    Ok(())
}
