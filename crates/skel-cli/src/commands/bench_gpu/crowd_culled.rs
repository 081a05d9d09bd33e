//! `skel bench gpu crowd --posing gpu` with `--bone-layout 3x4`, `--cull` or `--pose-group`:
//! the crowd posed straight through skel-gpu into a bone buffer of the chosen layout
//! ([`BoneLayout`]) with the chosen per-node workgroup size ([`PoseTuning`]), then optionally
//! boxed and frustum-culled on the GPU ([`CrowdCull`]) and compute-skinned, all in one command
//! buffer per frame, each pass timed by GPU timestamps. With `--bounds pose` the pose pass
//! writes the boxes ([`PoseBounds`]) and the culling pass only tests them; the pose pass's time
//! then includes the boxes. `--bounds seen` (baked only) runs the cull between the pose's
//! advance pass, which boxes, and its bone pass, which then poses only the instances the cull
//! kept ([`PoseOptions::skip_unseen`]); the pose time is then the sum of its two passes.
//!
//! The facade's [`Crowd`] (built without compute skinning) supplies the clip set, the meshes
//! and their bone offsets; its own 4×4 bone buffer is left alone. The camera sits at the
//! origin looking down −z (90°, square); instance `i` stands on a grid, in front of the camera
//! when `i` falls in the `--in-view` share of the crowd and behind it otherwise, so the visible
//! count says how many of those in front the boxes keep. Skinning reads the culling pass's
//! visible list (copied into the crowd's list on the GPU); culled, it is dispatched indirectly
//! over the visible slots only ([`CrowdDispatch`], as the facade's `Crowd::skin` does: its small
//! pass falls between the cull's and the skinning's timestamps), unculled over every slot.
//! Morph targets are not applied here.

use glam::{Mat4, Vec3, Vec4};
use serde::Serialize;
use skel::gpu::{
    BakedClips, BoneLayout, CrowdBones, CrowdCull, CrowdCullDescriptor, CrowdDispatch,
    CrowdSkinning, CrowdSkinningBindings, CrowdSkinningInputs, CullInputs, GpuClipSetOptions,
    GpuClips, GpuContext, GpuCrowdPose, GpuCrowdPoseDescriptor, Influences, PoseBounds,
    PoseBoundsTable, PoseInstance, PoseLayout, PoseOptions, PoseTuning, frustum_planes,
};
use skel::{AssetContainer, Crowd, SkinningMethod};

use super::report::median;

/// The bone-layout and culling arguments of `skel bench gpu crowd`.
#[derive(Debug, Clone, clap::Args)]
pub(super) struct CullArgs {
    /// How the GPU pose pass stores each bone matrix: `4x4` (64 bytes) or `3x4` (the top
    /// three rows of the affine matrix, 48 bytes). `3x4` takes the direct path (module docs).
    #[arg(long, default_value = "4x4", value_parser = ["4x4", "3x4"])]
    pub(super) bone_layout: String,
    /// Box and frustum-cull every instance on the GPU after posing (GPU posing only); the JSON
    /// gets the visible count and the culling pass's GPU time.
    #[arg(long)]
    pub(super) cull: bool,
    /// With `--cull`: the share of the crowd placed in front of the camera (the rest behind),
    /// from 0 to 1. A CPU-posed crowd (`--posing cpu`) is culled on the CPU by `Crowd::cull`.
    #[arg(long, default_value_t = 0.5, value_parser = share)]
    pub(super) in_view: f64,
    /// With `--cull`: spread the instances in view evenly over the crowd's order (every
    /// second one for half) instead of taking the first ones, so that neighbours in the bone
    /// buffer are seen and unseen together.
    #[arg(long)]
    pub(super) scatter: bool,
    /// With `--cull`: who boxes the instances: `cull` (the culling pass, from every part's bone
    /// matrix) or `pose` (the pose pass: per-node from the joints it holds, baked from the
    /// boxes baked with its frames; the culling pass then reads one box an instance). `pose`
    /// needs `--layout per-node` or `baked`. `seen` (`--layout baked`): as `pose`, with the
    /// cull between the pose's passes and only the instances it keeps posed. `tick` (`--posing
    /// cpu`, also without `--cull`): `Crowd::tick` boxes each instance it poses (`boxes_in_tick`).
    #[arg(long, default_value = "cull", value_parser = ["cull", "pose", "seen", "tick"])]
    pub(super) bounds: String,
    /// Threads per workgroup of the per-node pose pass: 64, 128 or 256 (more instances a
    /// group). Other than 64 takes the direct path (module docs).
    #[arg(long, default_value_t = 64, value_parser = pose_group)]
    pub(super) pose_group: u32,
}

/// A per-node workgroup size (`--pose-group`).
fn pose_group(text: &str) -> Result<u32, String> {
    match text.parse::<u32>() {
        Ok(v) if skel::gpu::POSE_GROUP_THREADS.contains(&v) => Ok(v),
        _ => Err(format!("`{text}` is not 64, 128 or 256")),
    }
}

/// A share from 0 to 1 (`--in-view`).
fn share(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(v) if (0.0..=1.0).contains(&v) => Ok(v),
        _ => Err(format!("`{text}` is not a share from 0 to 1")),
    }
}

impl CullArgs {
    /// Whether the run takes the direct path (with `on_gpu` posing; a CPU-posed crowd culls
    /// on the CPU, in the facade's frame).
    pub(super) fn direct(&self, on_gpu: bool) -> bool {
        (self.cull && on_gpu) || self.bone_layout == "3x4" || self.pose_group != 64
    }

    /// Whether the pose pass writes the boxes (`--cull --bounds pose` or `seen`).
    fn pose_bounds(&self) -> bool {
        self.cull && (self.bounds == "pose" || self.bounds == "seen")
    }

    /// Whether only the instances the cull keeps are posed (`--cull --bounds seen`).
    fn skip_unseen(&self) -> bool {
        self.cull && self.bounds == "seen"
    }

    fn layout(&self) -> BoneLayout {
        if self.bone_layout == "3x4" {
            BoneLayout::Affine3x4
        } else {
            BoneLayout::Mat4
        }
    }
}

/// The bone-layout and culling figures in the report.
#[derive(Debug, Default, Serialize)]
pub(super) struct CullFigures {
    /// `4x4` or `3x4`.
    pub(super) bone_layout: String,
    pub(super) cull: bool,
    /// With `--cull`: who computed the boxes, `cull` (the culling pass, from the bone matrices)
    /// or `pose` (the pose pass).
    pub(super) bounds: Option<String>,
    /// Threads per workgroup of the per-node pose pass (`--pose-group`).
    pub(super) pose_group: u32,
    /// Instances placed in front of the camera, and those the GPU kept (last frame).
    pub(super) placed_in_view: Option<u32>,
    pub(super) visible: Option<u32>,
    /// Median GPU time of the culling pass (boxes unless the pose pass wrote them, frustum
    /// test, list, indirect arguments).
    pub(super) cull_gpu_ms: Option<f64>,
    /// CPU posing (`bounds: "cpu"`): median CPU time of `Crowd::cull` (every instance boxed
    /// from its bone matrices and tested), and per bone boxed.
    pub(super) cull_cpu_ms: Option<f64>,
    pub(super) cull_cpu_ns_per_bone: Option<f64>,
    /// Median GPU time from the start of the pose pass to the end of the culling pass.
    pub(super) pose_cull_gpu_ms: Option<f64>,
    /// With `--bounds seen`: median GPU time of the pose's first pass alone (the advance
    /// pass, which boxes each instance); the bone pass is `pose_gpu_ms` less this.
    pub(super) pose_advance_gpu_ms: Option<f64>,
    /// Median GPU time of the whole frame: from the start of the pose pass to the end of the
    /// last pass (pose, then cull and the list copy, then skinning, as asked).
    pub(super) frame_gpu_ms: Option<f64>,
    /// Chunks the culling pass binds the bone buffer in.
    pub(super) cull_chunks: usize,
}

/// What the direct path measured, medians over the timed frames.
#[derive(Debug, Default)]
pub(super) struct DirectRun {
    pub(super) prepare_cpu_ms: f64,
    pub(super) frame_wall_ms: f64,
    pub(super) pose_gpu_ms: Option<f64>,
    pub(super) skin_gpu_ms: Option<f64>,
    pub(super) bone_bytes_per_frame: u64,
    pub(super) pose_chunks: usize,
    pub(super) upload_bytes_per_frame: u64,
    pub(super) figures: CullFigures,
}

/// One mesh's skinning: pipeline index, bindings, and the outputs they write.
struct MeshSkin {
    pipeline: usize,
    bindings: Vec<CrowdSkinningBindings>,
    _outputs: [wgpu::Buffer; 2],
}

/// The camera's planes (`n·p + d ≥ 0` inside): see [`view_projection`].
fn planes() -> [Vec4; 6] {
    frustum_planes(view_projection())
}

/// The camera: at the origin, looking down −z, 90°, square.
pub(super) fn view_projection() -> Mat4 {
    let view = Mat4::look_at_rh(Vec3::ZERO, Vec3::NEG_Z, Vec3::Y);
    Mat4::perspective_rh(std::f32::consts::FRAC_PI_2, 1.0, 0.1, 1.0e6) * view
}

/// Where instance `i` of `n` stands: rows of 32 on the ground, a metre apart, `in_view` of
/// them from 3 m in front of the camera on, the others from 3 m behind it. The ones in front
/// are the first `in_view`, or with `scatter` spread evenly over the crowd (`i` is in front
/// when `⌊(i + 1)·in_view / n⌋ > ⌊i·in_view / n⌋`: every second one for half the crowd).
pub(super) fn placements(n: u32, in_view: u32, scatter: bool) -> Vec<Mat4> {
    let before = |i: u32| (u64::from(i) * u64::from(in_view) / u64::from(n.max(1))) as u32;
    (0..n)
        .map(|i| {
            let (k, side) = match (scatter, i < in_view) {
                (false, true) => (i, -1.0),
                (false, false) => (i - in_view, 1.0),
                (true, _) if before(i + 1) > before(i) => (before(i), -1.0),
                (true, _) => (i - before(i), 1.0),
            };
            let (col, row) = ((k % 32) as f32, (k / 32) as f32);
            Mat4::from_translation(Vec3::new((col - 15.5) * 0.1, -0.8, side * (3.0 + row)))
        })
        .collect()
}

/// Runs the direct path over `crowd`'s clips and meshes: `instances` posed into a bone buffer
/// of `args.bone_layout`, culled with `--cull`, skinned unless `no_skin`.
#[expect(
    clippy::too_many_arguments,
    reason = "the bench's pieces, each used once"
)]
#[expect(clippy::too_many_lines, reason = "one frame loop, read top to bottom")]
pub(super) fn run(
    ctx: &GpuContext,
    asset: &AssetContainer,
    source: &skel::gltf::GltfAsset,
    crowd: &Crowd,
    instances: &[PoseInstance],
    desc: &GpuCrowdPoseDescriptor,
    (frames, no_skin, skinning): (usize, bool, SkinningMethod),
    args: &CullArgs,
) -> Result<DirectRun, Box<dyn std::error::Error>> {
    let set = crowd
        .gpu_clip_set()
        .ok_or("the direct path needs --posing gpu")?;
    let n = u32::try_from(instances.len())?;
    let inputs = CullInputs::new(
        &asset.animation,
        skel::gltf::CharacterBounds::new(source).parts(),
    )?;
    let mut clips = GpuClips::new(ctx, set)?;
    if desc.layout == PoseLayout::Baked {
        let options = GpuClipSetOptions::for_skeletons(asset.rig.data());
        let mut baked = BakedClips::new(&asset.rig, set, &options)?;
        if args.pose_bounds() {
            baked.bake_boxes(set, &inputs)?;
        }
        clips.upload_baked(ctx, &baked)?;
    }
    let mut bones = CrowdBones::new_gpu_posed_with_layout(ctx, n, set.bone_count(), args.layout())?;
    let planes = planes();
    let in_view = (f64::from(n) * args.in_view).round() as u32;
    let mut table = None;
    let cull = if args.cull {
        let pass = CrowdCull::new(
            ctx,
            &bones,
            &CrowdCullDescriptor {
                parts: &inputs.parts,
                bones: &inputs.bones,
                index_count: 0,
                first_index: 0,
                base_vertex: 0,
                max_chunk_bytes: desc.max_chunk_bytes,
            },
        )?;
        pass.set_placements(ctx, &placements(n, in_view, args.scatter))?;
        if args.pose_bounds() {
            table = Some(PoseBoundsTable::new(set, &inputs)?);
        }
        Some(pass)
    } else {
        bones.set_visible(ctx, &(0..n).collect::<Vec<u32>>())?;
        None
    };
    let options = PoseOptions {
        tuning: PoseTuning {
            group_threads: args.pose_group,
        },
        bounds: table
            .as_ref()
            .zip(cull.as_ref())
            .map(|(table, cull)| PoseBounds { table, cull }),
        skip_unseen: args.skip_unseen(),
    };
    let mut pose = GpuCrowdPose::with_options(ctx, &clips, &bones, instances, desc, &options)?;
    let mut pipelines: Vec<CrowdSkinning> = Vec::new();
    let mut skins = Vec::new();
    if !no_skin {
        for m in crowd.meshes() {
            let mesh = &asset.meshes[m.mesh];
            let Some(skeleton) = mesh.skeleton.as_ref() else {
                continue;
            };
            let kind = Influences::for_count(m.influences);
            let method = if skinning == SkinningMethod::DualQuaternion {
                m.skinning
            } else {
                SkinningMethod::Linear
            };
            let pipeline = match pipelines
                .iter()
                .position(|p| p.influences() == kind && p.method() == method)
            {
                Some(i) => i,
                None => {
                    pipelines.push(CrowdSkinning::with_method(ctx, kind, method)?);
                    pipelines.len() - 1
                }
            };
            let bytes = (u64::from(m.vertex_count) * 12 * u64::from(n)).max(16);
            let out = |label| {
                ctx.device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some(label),
                    size: bytes,
                    usage: wgpu::BufferUsages::STORAGE,
                    mapped_at_creation: false,
                })
            };
            let outputs = [out("bench skinned positions"), out("bench skinned normals")];
            let inputs = CrowdSkinningInputs {
                bones: &bones,
                bone_offset: m.bone_offset,
                skeleton: &skeleton.gpu,
                rest_positions: &mesh.positions,
                rest_normals: &mesh.normals,
                out_positions: &outputs[0],
                out_normals: &outputs[1],
                morph: None,
            };
            let bindings = pipelines[pipeline].bind_chunked(ctx, &inputs, desc.max_chunk_bytes)?;
            skins.push(MeshSkin {
                pipeline,
                bindings,
                _outputs: outputs,
            });
        }
    }
    // Culled, skinning covers the visible slots only: each chunk's grid written on the GPU
    // from the list's count.
    let indirect = (cull.is_some() && !skins.is_empty()).then(|| {
        let chunks: Vec<(u32, u32, u32)> = skins
            .iter()
            .flat_map(|s| &s.bindings)
            .map(|b| (b.vertex_count(), b.slots().0, b.slots().1))
            .collect();
        CrowdDispatch::new(ctx, bones.instances_buffer(), &chunks)
    });
    let timestamps = ctx.features().contains(wgpu::Features::TIMESTAMP_QUERY);
    let queries = timestamps.then(|| {
        let set = ctx.device.create_query_set(&wgpu::QuerySetDescriptor {
            label: Some("bench gpu crowd (direct)"),
            ty: wgpu::QueryType::Timestamp,
            count: 8,
        });
        let resolve = ctx.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("bench gpu crowd (direct) timestamps"),
            size: 64,
            usage: wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        });
        (set, resolve)
    });
    let writes = |begin: u32| {
        queries
            .as_ref()
            .map(|(set, _)| wgpu::ComputePassTimestampWrites {
                query_set: set,
                beginning_of_pass_write_index: Some(begin),
                end_of_pass_write_index: Some(begin + 1),
            })
    };
    let period = f64::from(ctx.queue.get_timestamp_period());
    // Pose (0, 1), cull (2, 3), skin (4, 5) and, skipping unseen instances, the bone pass
    // after the cull (6, 7).
    let seen = pose.skips_unseen();
    let queries_used = if seen { 8 } else { 6 };
    let list_bytes = (u64::from(n) + 1) * 4;
    let (mut prepare, mut wall) = (Vec::new(), Vec::new());
    let (mut pose_gpu, mut cull_gpu, mut span_cull, mut span_frame, mut skin_gpu) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let mut advance_gpu = Vec::new();
    let mut upload_bytes = 0;
    for frame in 0..10 + frames {
        let t0 = std::time::Instant::now();
        let before = pose.uploaded_bytes();
        pose.prepare(ctx, 1.0 / 60.0);
        upload_bytes = pose.uploaded_bytes() - before;
        let prepare_ms = t0.elapsed().as_secs_f64() * 1e3;
        let t1 = std::time::Instant::now();
        let mut encoder = ctx.device.create_command_encoder(&Default::default());
        {
            let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some("bench pose"),
                timestamp_writes: writes(0),
            });
            if pose.skips_unseen() {
                pose.record_advance(&mut pass);
            } else {
                pose.record(&mut pass);
            }
        }
        if let Some(pass) = &cull {
            if pose.writes_bounds() {
                pass.encode_from_boxes(ctx, &mut encoder, &planes, writes(2))?;
            } else {
                pass.encode_timed(ctx, &mut encoder, &planes, writes(2))?;
            }
        }
        if pose.skips_unseen() {
            let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some("bench pose bones (seen)"),
                timestamp_writes: writes(6),
            });
            pose.record_bones(&mut pass);
        }
        if let Some(pass) = &cull {
            encoder.copy_buffer_to_buffer(
                pass.visible_buffer(),
                0,
                bones.instances_buffer(),
                0,
                list_bytes,
            );
        }
        if let Some(d) = &indirect {
            d.encode(&mut encoder);
        }
        if !skins.is_empty() {
            let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some("bench skin"),
                timestamp_writes: writes(4),
            });
            let mut chunk = 0;
            for s in &skins {
                for b in &s.bindings {
                    match &indirect {
                        Some(d) => pipelines[s.pipeline].dispatch_indirect(
                            &mut pass,
                            b,
                            d.args_buffer(),
                            chunk * skel::gpu::DISPATCH_ARGS_BYTES,
                        ),
                        None => pipelines[s.pipeline].dispatch(&mut pass, b, n),
                    }
                    chunk += 1;
                }
            }
        }
        if let Some((set, resolve)) = &queries {
            encoder.resolve_query_set(set, 0..queries_used, resolve, 0);
        }
        ctx.queue.submit([encoder.finish()]);
        let _ = ctx.device.poll(wgpu::PollType::wait_indefinitely());
        let wall_ms = t1.elapsed().as_secs_f64() * 1e3;
        if frame < 10 {
            continue;
        }
        prepare.push(prepare_ms);
        wall.push(wall_ms);
        if let Some((_, resolve)) = &queries {
            let t: Vec<u64> =
                skel::gpu::readback::read_buffer_as(ctx, resolve, 0, queries_used as usize)?;
            let ms = |a: usize, b: usize| t[b].saturating_sub(t[a]) as f64 * period / 1e6;
            if seen {
                advance_gpu.push(ms(0, 1));
                pose_gpu.push(ms(0, 1) + ms(6, 7));
            } else {
                pose_gpu.push(ms(0, 1));
            }
            if cull.is_some() {
                cull_gpu.push(ms(2, 3));
                span_cull.push(ms(0, if seen { 7 } else { 3 }));
            }
            if !skins.is_empty() {
                skin_gpu.push(ms(4, 5));
            }
            let last = if !skins.is_empty() {
                5
            } else if seen {
                7
            } else if cull.is_some() {
                3
            } else {
                1
            };
            span_frame.push(ms(0, last));
        }
    }
    let med = |v: &mut Vec<f64>| (!v.is_empty()).then(|| median(v));
    let visible = match &cull {
        Some(pass) => {
            let list: Vec<u32> =
                skel::gpu::readback::read_buffer_as(ctx, pass.visible_buffer(), 0, 1)?;
            list.first().copied()
        }
        None => None,
    };
    Ok(DirectRun {
        prepare_cpu_ms: median(&mut prepare),
        frame_wall_ms: median(&mut wall),
        pose_gpu_ms: med(&mut pose_gpu),
        skin_gpu_ms: med(&mut skin_gpu),
        bone_bytes_per_frame: pose.bone_bytes_per_frame(),
        pose_chunks: pose.chunk_count(),
        upload_bytes_per_frame: upload_bytes,
        figures: CullFigures {
            bone_layout: args.bone_layout.clone(),
            cull: args.cull,
            bounds: args.cull.then(|| args.bounds.clone()),
            pose_group: pose.group_threads(),
            placed_in_view: args.cull.then_some(in_view),
            visible,
            cull_gpu_ms: med(&mut cull_gpu),
            pose_cull_gpu_ms: med(&mut span_cull),
            pose_advance_gpu_ms: med(&mut advance_gpu),
            frame_gpu_ms: med(&mut span_frame),
            cull_chunks: cull.as_ref().map_or(0, CrowdCull::chunk_count),
            ..CullFigures::default()
        },
    })
}
