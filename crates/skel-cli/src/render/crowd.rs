//! `skel render --crowd N`: N instances of the asset in a square grid on the ground, each
//! playing the clip from its own phase at its own speed, posed by a [`skel::Crowd`] (on the
//! GPU by default: every playhead advanced by the pose pass, nothing uploaded per character per
//! frame; or by one CPU player per character), skinned by the crowd's compute pass and drawn in
//! one instanced draw per primitive ([`CrowdRenderer`]). Framing, frames, GIF and contact sheet
//! are those of a one-character render.
//!
//! The crowd is culled against the camera every frame: on the CPU path by [`Crowd::cull`], on
//! the GPU path by [`Crowd::encode_cull`] after the pose pass (nothing read back: the draws
//! are indirect).
//!
//! Where the characters stand, their phases and speeds and the camera that overlooks them
//! are the demos' ([`skel_demo::CrowdLayout`], [`skel_demo::phase_and_speed`],
//! [`OrbitView::overlook`]): `skel view --crowd` and the browser page stand theirs the same way.
//!
//! Morphing meshes morph per character: the crowd's compute pass applies each instance's own
//! morph weights (sampled by the pose pass, or its CPU player's) before skinning.

use skel::gpu::{GpuContext, PoseInstance, PoseLayout};
use skel::render::CrowdRenderer;
use skel::{AssetContainer, Crowd, CrowdDescriptor, Posing};
use skel_demo::{CrowdLayout, OrbitView, phase_and_speed};

use super::clips::{Animation, resolve_clip};
use super::crowd_boxes::{Boxes, CrowdBoxes, narrowed};
use super::{
    RenderError, RenderJob, RenderReport, check_job, create_target, default_frames, load_asset,
    open_device, output, progress_bar, render_frame,
};

/// The largest `--crowd`: past it the characters of a grid at these image sizes are a few
/// pixels tall, and the compute output grows by 24 bytes per vertex per character.
pub const MAX_CROWD: u32 = 10_000;

/// Where `--crowd` poses its characters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CrowdPosing {
    /// The GPU pose pass (falls back to the CPU for the rest pose: an asset without clips).
    #[default]
    Gpu,
    /// The GPU pose pass from baked clips (`PoseLayout::Baked`).
    Baked,
    /// [`Baked`](Self::Baked), posing only the characters the GPU cull keeps
    /// (`CrowdDescriptor::pose_only_seen`).
    BakedSeen,
    /// One CPU player per character, bones uploaded every frame.
    Cpu,
}

/// What `--crowd` asks for.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CrowdSpec {
    /// Characters, 1..=[`MAX_CROWD`].
    pub count: u32,
    /// Where they are posed.
    pub posing: CrowdPosing,
    /// Draw each character's box (`--boxes`; CPU posing): green kept, red culled.
    pub boxes: bool,
    /// Cull against the camera's frustum narrowed to this fraction of the picture
    /// (`--cull-view`; 1: the picture's own).
    pub cull_view: f32,
}

/// Renders a grid of `spec.count` characters of `job`'s asset playing its clip and writes the
/// files a one-character render writes.
///
/// # Errors
/// What [`run`](super::run) reports, and [`RenderError::BadArgument`] for a count out of range
/// or an option the crowd does not take (`--blend`, `--layers`, `--graph`, `--terrain`, bone
/// overrides);
/// [`RenderError::Crowd`] when the asset has no skinned mesh.
pub fn run(job: &RenderJob, spec: &CrowdSpec) -> Result<RenderReport, RenderError> {
    if !(1..=MAX_CROWD).contains(&spec.count) {
        return Err(RenderError::BadArgument {
            what: "--crowd",
            rule: "from 1 to 10000",
            got: spec.count.to_string(),
        });
    }
    let refused = match &job.animation {
        _ if !job.bones.is_empty() => Some("--hide-bone / --bone-rotation"),
        _ if job.terrain.is_some() => Some("--terrain"),
        Animation::Blend(_) => Some("--blend"),
        Animation::Layers(_) => Some("--layers"),
        Animation::Graph(_) => Some("--graph"),
        Animation::Default | Animation::Clip(_) => None,
    };
    if spec.boxes && spec.posing != CrowdPosing::Cpu {
        return Err(RenderError::BadArgument {
            what: "--boxes",
            rule: "used with --posing cpu (the boxes of a CPU-posed crowd)",
            got: "--posing gpu".to_owned(),
        });
    }
    if !(spec.cull_view > 0.0 && spec.cull_view <= 1.0) {
        return Err(RenderError::BadArgument {
            what: "--cull-view",
            rule: "a fraction of the picture, more than 0 and at most 1",
            got: spec.cull_view.to_string(),
        });
    }
    if let Some(flag) = refused {
        return Err(RenderError::BadArgument {
            what: "--crowd",
            rule: "used with --clip alone (one clip per character)",
            got: flag.to_owned(),
        });
    }
    let asset_name = check_job(job)?;
    let (ctx, adapter) = open_device()?;
    let container = load_asset(&ctx, job, &asset_name, false)?;
    let clip = match &job.animation {
        Animation::Clip(requested) => Some(resolve_clip(&container, requested, &asset_name)?),
        _ => (!container.animation.clips.is_empty()).then_some(0),
    };

    let CrowdLayout {
        placements,
        world,
        corners,
        extent,
        duration,
    } = CrowdLayout::new(&container, clip, spec.count, job.handedness)?;
    let frames = job
        .frames
        .unwrap_or_else(|| default_frames(duration, job.fps));
    #[expect(clippy::cast_precision_loss, reason = "image sides are far below 2^24")]
    let aspect = job.width as f32 / job.height as f32;
    let camera = OrbitView::overlook(&corners, aspect, job.handedness).camera(aspect);

    let (mut crowd, posed_on) = make_crowd(&ctx, &container, spec, clip, duration)?;
    let target = create_target(&ctx, job.width, job.height)?;
    let scene = CrowdRenderer::new(
        &ctx,
        &container,
        &crowd,
        &world,
        &placements,
        &target.format(),
    )?;
    scene.set_camera(&ctx.queue, &camera);
    let mut boxes = if spec.boxes {
        let b = CrowdBoxes::new(&ctx, &target.format(), extent.max_element() * 0.006)?;
        b.set_camera(&ctx.queue, &camera);
        Some(b)
    } else {
        None
    };
    let cull_camera = narrowed(camera.view_projection(), spec.cull_view);
    let crowd_error = |context| move |source| RenderError::Crowd { context, source };
    if crowd.posed_on_gpu() {
        crowd
            .set_placements(&ctx, &placements)
            .map_err(crowd_error("placing it for the GPU cull"))?;
    }

    let mut writer = output::FrameWriter::new(&job.out, job.width, job.height, frames, job.fps)?;
    let bar = progress_bar(job.progress, frames, &asset_name);
    let started = std::time::Instant::now();
    let mut rgba = Vec::new();
    for i in 0..frames {
        crowd.tick(if i == 0 { 0.0 } else { 1.0 / job.fps });
        if !crowd.posed_on_gpu() {
            // CPU players: only the characters the camera sees are uploaded, skinned and
            // drawn (the framing shows the whole grid, so all are, unless a pose leaves it).
            crowd
                .cull(cull_camera, &placements)
                .map_err(crowd_error("culling"))?;
            if let Some(b) = &mut boxes {
                b.update(&ctx, &crowd, &placements, None, Boxes::All);
            }
        }
        let mut encoder = ctx
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("skel render crowd frame"),
            });
        crowd
            .upload(&ctx, &mut encoder)
            .map_err(crowd_error("posing"))?;
        if crowd.posed_on_gpu() {
            crowd
                .encode_cull(&ctx, &mut encoder, cull_camera)
                .map_err(crowd_error("culling"))?;
        }
        crowd.skin(&mut encoder);
        scene.place(&mut encoder);
        render_frame(&ctx, &target, encoder, i, &mut rgba, |pass| {
            scene.draw(&container, pass);
            if let Some(b) = &boxes {
                b.draw(pass);
            }
            Ok(())
        })?;
        writer.push(i, &rgba)?;
        bar.inc(1);
    }
    bar.finish_and_clear();
    let seconds = started.elapsed().as_secs_f64();
    let outputs = writer.finish()?;
    let playing = match clip {
        Some(c) => format!("clip {c} {:?}", container.animation.clips[c].name),
        None => "rest pose (no clips)".to_owned(),
    };
    Ok(RenderReport {
        outputs,
        asset: asset_name,
        playing: format!(
            "{playing}; a crowd of {} in a grid, own phases and speeds, posed on the {posed_on}",
            spec.count
        ),
        adapter,
        draws: scene.draw_count(),
        skipped_primitives: scene.skipped,
        samples: target.sample_count(),
        seconds,
    })
}

/// The crowd, every character playing `clip` from its own phase at its own speed, and where
/// it is posed ("GPU", "GPU, baked" or "CPU").
pub(crate) fn make_crowd(
    ctx: &GpuContext,
    container: &AssetContainer,
    spec: &CrowdSpec,
    clip: Option<usize>,
    duration: f32,
) -> Result<(Crowd, &'static str), RenderError> {
    let crowd_error = |context| move |source| RenderError::Crowd { context, source };
    let on_gpu = spec.posing != CrowdPosing::Cpu && clip.is_some();
    let desc = CrowdDescriptor {
        instances: spec.count,
        clip,
        compute: true,
        posing: match spec.posing {
            _ if !on_gpu => Posing::Cpu,
            CrowdPosing::Baked | CrowdPosing::BakedSeen => Posing::Gpu(PoseLayout::Baked),
            _ => Posing::Gpu(PoseLayout::PerBone),
        },
        // Culled on the GPU after the pose pass (the CPU path culls with `Crowd::cull`).
        gpu_cull: on_gpu,
        pose_only_seen: on_gpu && spec.posing == CrowdPosing::BakedSeen,
        ..CrowdDescriptor::default()
    };
    let mut crowd = Crowd::new(ctx, container, &desc).map_err(crowd_error("building it"))?;
    let Some(clip) = clip else {
        return Ok((crowd, "CPU"));
    };
    if on_gpu {
        let id = u16::try_from(clip).unwrap_or(u16::MAX);
        let playback: Vec<PoseInstance> = (0..spec.count)
            .map(|i| {
                let (phase, speed) = phase_and_speed(i);
                PoseInstance::new(id, phase * duration).speed(speed)
            })
            .collect();
        crowd
            .set_instances(ctx, 0, &playback)
            .map_err(crowd_error("setting its playback"))?;
        let label = match spec.posing {
            CrowdPosing::Baked => "GPU, baked",
            CrowdPosing::BakedSeen => "GPU, baked, the seen only",
            _ => "GPU",
        };
        return Ok((crowd, label));
    }
    for (i, player) in (0..).zip(&mut crowd.players) {
        let (phase, speed) = phase_and_speed(i);
        player.layer_mut(0)?.clock_mut().set_speed_ratio(speed);
        player.seek(phase * duration);
    }
    Ok((crowd, "CPU"))
}
