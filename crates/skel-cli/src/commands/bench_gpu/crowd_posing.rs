//! The posing side of `skel bench gpu crowd`: its arguments (`--posing`, `--layout`,
//! `--blend`, `--lod`), the instances a GPU-posed crowd starts with (phases and speeds spread
//! over the crowd), and the figures of the pose pass (GPU time, bytes written, their share of
//! the copy bandwidth measured in the same run).

use serde::Serialize;
use skel::gpu::{PoseInstance, PoseLayout};
use skel::{Crowd, Posing};

use super::compute_timing::CopyBandwidth;

/// The posing arguments of `skel bench gpu crowd`.
#[derive(Debug, Clone, clap::Args)]
pub(super) struct PosingArgs {
    /// Where instances are posed: `cpu` (one player each, bones uploaded every frame) or `gpu`
    /// (the GPU pose pass; nothing uploaded per character).
    #[arg(long, default_value = "cpu", value_parser = ["cpu", "gpu"])]
    pub(super) posing: String,
    /// Thread layout of the GPU bone pass: `per-bone`, `per-character`, `per-node`, or `baked`
    /// (the clips baked to skinning matrices at load, a lerp of two frames a bone).
    #[arg(long, default_value = "per-bone", value_parser = ["per-bone", "per-character", "per-node", "baked"])]
    pub(super) layout: String,
    /// Each GPU-posed character blends two clips (clip 0 and clip 1, or clip 0 with itself at
    /// another phase when the asset has one clip), weight 0.5.
    #[arg(long)]
    pub(super) blend: bool,
    /// Pose update rate of GPU-posed characters: every frame (1), every 2nd, 4th or 8th,
    /// staggered across the crowd (other values round down to one of these).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=8))]
    pub(super) lod: u32,
    /// GPU-posed characters use the reduced joint set that keeps the bones of the first N
    /// levels of the posed hierarchy (the others follow their nearest kept ancestor).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    pub(super) reduced_levels: Option<u32>,
    /// No compute skinning: pose (and upload) only, for crowds whose skinned output does not
    /// fit in memory (1 000 000 CesiumMan would need 78 GB).
    #[arg(long)]
    pub(super) no_skin: bool,
    /// Largest storage binding of one chunk in MiB (default: the device's limit).
    #[arg(long)]
    pub(super) chunk_mib: Option<u64>,
    /// Size in MiB of the copy-bandwidth buffers measured beside the crowd (0: none).
    #[arg(long, default_value_t = 0)]
    pub(super) copy_mib: u64,
}

impl PosingArgs {
    /// The facade's posing.
    pub(super) fn posing(&self) -> Posing {
        if self.posing == "gpu" {
            Posing::Gpu(self.pose_layout())
        } else {
            Posing::Cpu
        }
    }

    /// The GPU bone pass's thread layout.
    pub(super) fn pose_layout(&self) -> PoseLayout {
        match self.layout.as_str() {
            "per-character" => PoseLayout::PerCharacter,
            "per-node" => PoseLayout::PerNode,
            "baked" => PoseLayout::Baked,
            _ => PoseLayout::PerBone,
        }
    }

    /// The largest chunk in bytes.
    pub(super) fn chunk_bytes(&self) -> Option<u64> {
        self.chunk_mib.map(|m| m << 20)
    }
}

/// Writes every GPU-posed instance's playback: clip 0 at a phase and speed of its own (the
/// second clip blended in with `--blend`), posed every `--lod` frames. On the CPU path, the
/// players get the same phases and speeds.
///
/// Returns the GPU-posed instances (none on the CPU path).
///
/// # Errors
/// From [`Crowd::set_instances`].
pub(super) fn start_instances(
    ctx: &skel::gpu::GpuContext,
    crowd: &mut Crowd,
    clip_count: usize,
    args: &PosingArgs,
) -> Result<Vec<PoseInstance>, skel::SkelError> {
    let phase = |i: usize| i as f32 * 0.013;
    let speed = |i: usize| 0.8 + (i % 7) as f32 * 0.05;
    if !crowd.posed_on_gpu() {
        for (i, p) in crowd.players.iter_mut().enumerate() {
            p.seek(phase(i));
        }
        return Ok(Vec::new());
    }
    let n = crowd.gpu().instance_count() as usize;
    if let (Some(levels), Some(set)) = (args.reduced_levels, crowd.gpu_clip_set()) {
        let node_levels = set.node_levels();
        let keep: Vec<bool> = set
            .bone_nodes
            .iter()
            .map(|&node| node_levels[node as usize] < levels)
            .collect();
        crowd.set_reduced_joints(ctx, &keep)?;
    }
    let second = u16::from(clip_count > 1);
    let instances: Vec<PoseInstance> = (0..n)
        .map(|i| {
            let one = PoseInstance::new(0, phase(i)).speed(speed(i));
            let one = if args.blend {
                one.blend(second, phase(i) * 1.7, speed(i), 0.5)
            } else {
                one
            };
            one.update_every(args.lod)
                .reduced(args.reduced_levels.is_some())
        })
        .collect();
    crowd.set_instances(ctx, 0, &instances)?;
    Ok(instances)
}

/// The pose pass's figures in the report.
#[derive(Debug, Default, Serialize)]
pub(super) struct PoseFigures {
    /// `cpu` or `gpu`.
    pub(super) posing: String,
    /// The GPU bone pass's thread layout (GPU path).
    pub(super) layout: Option<String>,
    pub(super) blend: bool,
    pub(super) lod: u32,
    /// `--reduced-levels`, and the bones that keep their own matrix in the reduced joint set
    /// (GPU path; `null` without it).
    pub(super) reduced_levels: Option<u32>,
    pub(super) reduced_kept_bones: Option<usize>,
    /// Median GPU time of the pose pass (advance + bones), timestamps; GPU path.
    pub(super) pose_gpu_ms: Option<f64>,
    /// Bone matrix bytes the pose pass writes per frame (characters posed this frame × bones ×
    /// 64, or 48 with `--bone-layout 3x4`).
    pub(super) pose_bytes_written: u64,
    /// Those bytes over the pose pass's GPU time.
    pub(super) pose_gb_per_s: Option<f64>,
    /// `pose_gb_per_s` over the compute-copy bandwidth measured in this run.
    pub(super) pose_share_of_copy_bandwidth: Option<f64>,
    /// Chunks of the bone buffer (GPU path) and of the first mesh's skinned output.
    pub(super) pose_chunks: usize,
    /// Bytes written to the GPU in the last timed frame, and per character after taking off
    /// what does not grow with the crowd (the per-frame uniforms).
    pub(super) upload_bytes_per_frame: u64,
    pub(super) upload_bytes_per_character: f64,
    /// Resampled key data of the GPU path and its bytes per clip-second (clip 0).
    pub(super) clip_bytes: u64,
    pub(super) clip_bytes_per_second: f64,
    /// Largest resampling error of any clip against the lossless CPU pose, in mesh units.
    pub(super) clip_max_error: f64,
    pub(super) copy_bandwidth: Option<CopyBandwidth>,
}

impl PoseFigures {
    /// The figures of `crowd` that do not depend on timing.
    pub(super) fn of(crowd: &Crowd, args: &PosingArgs) -> Self {
        let mut f = Self {
            posing: args.posing.clone(),
            blend: args.blend && crowd.posed_on_gpu(),
            lod: if crowd.posed_on_gpu() { args.lod } else { 1 },
            ..Self::default()
        };
        if let (Some(pose), Some(set)) = (crowd.gpu_pose(), crowd.gpu_clip_set()) {
            f.layout = Some(args.layout.clone());
            f.pose_chunks = pose.chunk_count();
            f.clip_bytes = set.frame_bytes();
            f.clip_bytes_per_second = set
                .clips
                .first()
                .map_or(0.0, |c| f64::from(c.bytes_per_second(set.row_vec4s)));
            f.clip_max_error = set
                .clips
                .iter()
                .map(|c| f64::from(c.max_error))
                .fold(0.0, f64::max);
            if args.reduced_levels.is_some() {
                f.reduced_levels = args.reduced_levels;
                f.reduced_kept_bones = Some(
                    (0..set.reduced_bones.len())
                        .filter(|&b| set.reduced_bones[b] as usize == b)
                        .count(),
                );
            }
        }
        let bones = u64::from(crowd.gpu().bones_per_instance()) * 64;
        f.pose_bytes_written =
            u64::from(crowd.gpu().instance_count()) * bones / u64::from(f.lod.max(1));
        f
    }

    /// Fills the timing-dependent figures.
    pub(super) fn finish(&mut self, pose_gpu_ms: Option<f64>) {
        self.pose_gpu_ms = pose_gpu_ms;
        self.pose_gb_per_s = pose_gpu_ms
            .filter(|&ms| ms > 0.0)
            .map(|ms| self.pose_bytes_written as f64 / (ms * 1e-3) / 1e9);
        if let (Some(p), Some(c)) = (self.pose_gb_per_s, &self.copy_bandwidth) {
            self.pose_share_of_copy_bandwidth = Some(p / c.compute_copy_gb_per_second);
        }
    }
}
