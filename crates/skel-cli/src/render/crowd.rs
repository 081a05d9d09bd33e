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
//! Morphing meshes morph per character: the crowd's compute pass applies each instance's own
//! morph weights (sampled by the pose pass, or its CPU player's) before skinning.

use glam::{Mat4, Vec3};
use skel::anim::{Handedness, LayerDesc, NullSink};
use skel::gpu::{GpuContext, PoseInstance, PoseLayout};
use skel::render::{CROWD_SPACING, CrowdRenderer, crowd_grid, overlook, phase_and_speed};
use skel::{AssetContainer, Crowd, CrowdDescriptor, Posing};

use super::bounds::BoundsSampler;
use super::clips::{Animation, resolve_clip};
use super::crowd_boxes::{Boxes, CrowdBoxes, narrowed};
use super::player::{Player, RenderPlayback as _};
use super::{
    RenderError, RenderJob, RenderReport, check_job, create_target, default_frames, load_asset,
    open_device, output, progress_bar, render_frame,
};

/// The largest `--crowd`: past it the characters of a grid at these image sizes are a few
/// pixels tall, and the compute output grows by 24 bytes per vertex per character.
pub const MAX_CROWD: u32 = 10_000;
/// Poses sampled over the clip to find one character's footprint.
const FOOTPRINT_SAMPLES: usize = 24;

/// Where `--crowd` poses its characters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CrowdPosing {
    /// The GPU pose pass (falls back to the CPU for the rest pose: an asset without clips).
    #[default]
    Gpu,
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
    } = layout(&container, clip, spec.count, job.handedness)?;
    let frames = job
        .frames
        .unwrap_or_else(|| default_frames(duration, job.fps));
    #[expect(clippy::cast_precision_loss, reason = "image sides are far below 2^24")]
    let aspect = job.width as f32 / job.height as f32;
    let camera = overlook(&corners, aspect, job.handedness);

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

/// Where a crowd's characters stand and what frames them.
pub(crate) struct CrowdLayout {
    /// Each character's placement: a square grid centred on the origin.
    pub placements: Vec<Mat4>,
    /// One character's node world matrices at the clip's start (the renderer's rest).
    pub world: Vec<Mat4>,
    /// The corners of every character's box over the clip, placed: what a camera frames.
    pub corners: Vec<Vec3>,
    /// One character's extent over the clip.
    pub extent: Vec3,
    /// The clip's loop duration in seconds (0 for the rest pose).
    pub duration: f32,
}

/// The grid of `count` characters of `container` playing `clip` in `handedness`'s world:
/// spaced by one character's footprint over the clip, centred on the origin (a left-handed
/// world is glTF's mirrored in x, and so is its grid: character i stands in the same cell of
/// the picture either way).
///
/// # Errors
/// [`RenderError::Anim`] for a bad clip.
pub(crate) fn layout(
    container: &AssetContainer,
    clip: Option<usize>,
    count: u32,
    handedness: Handedness,
) -> Result<CrowdLayout, RenderError> {
    // One character over the clip: its footprint (spacing and framing) and its mesh nodes'
    // world matrices.
    let mut probe = Player::new(&container.rig);
    if let Some(clip) = clip {
        probe.add_layer(LayerDesc::new(clip))?;
    }
    let duration = probe.loop_duration();
    let (lo, hi, world) = footprint(container, &mut probe, duration);
    let extent = hi - lo;
    let spacing = extent.x.max(extent.z).max(extent.y * 0.35) * CROWD_SPACING;
    let cells = crowd_grid(count, spacing);
    let centre = Vec3::new((lo.x + hi.x) * 0.5, 0.0, (lo.z + hi.z) * 0.5);
    let mirror = match handedness {
        Handedness::LeftHanded => Vec3::new(-1.0, 1.0, 1.0),
        Handedness::RightHanded => Vec3::ONE,
    };
    let placements: Vec<Mat4> = cells
        .iter()
        .map(|&c| Mat4::from_translation(c * mirror - centre))
        .collect();
    let corners: Vec<Vec3> = placements
        .iter()
        .flat_map(|m| {
            (0..8).map(move |k| {
                let pick = |bit: u32, a: f32, b: f32| if k & bit == 0 { a } else { b };
                m.transform_point3(Vec3::new(
                    pick(1, lo.x, hi.x),
                    pick(2, lo.y, hi.y),
                    pick(4, lo.z, hi.z),
                ))
            })
        })
        .collect();
    Ok(CrowdLayout {
        placements,
        world,
        corners,
        extent,
        duration,
    })
}

/// One character's box over the clip (sampled poses, world space) and its nodes' world
/// matrices at the start. `probe` is left at the end of the clip.
fn footprint(
    container: &AssetContainer,
    probe: &mut Player,
    duration: f32,
) -> (Vec3, Vec3, Vec<Mat4>) {
    let mut sampler = BoundsSampler::new(container);
    let mut points = Vec::new();
    probe.tick_s(0.0, &mut NullSink);
    let world = probe.resolved_world().to_vec();
    sampler.collect(container, probe, &mut points);
    #[expect(clippy::cast_precision_loss, reason = "a handful of samples")]
    let step = duration / FOOTPRINT_SAMPLES as f32;
    if step > 0.0 {
        for _ in 0..FOOTPRINT_SAMPLES {
            probe.tick_s(step, &mut NullSink);
            sampler.collect(container, probe, &mut points);
        }
    }
    let (lo, hi) = points.iter().filter(|p| p.is_finite()).fold(
        (Vec3::splat(f32::INFINITY), Vec3::splat(f32::NEG_INFINITY)),
        |(lo, hi), &p| (lo.min(p), hi.max(p)),
    );
    if lo.cmple(hi).all() {
        (lo, hi, world)
    } else {
        let (lo, hi) = skel::render::rest_bounds(container);
        (lo, hi, world)
    }
}

/// The crowd, every character playing `clip` from its own phase at its own speed, and where
/// it is posed ("GPU" or "CPU").
pub(crate) fn make_crowd(
    ctx: &GpuContext,
    container: &AssetContainer,
    spec: &CrowdSpec,
    clip: Option<usize>,
    duration: f32,
) -> Result<(Crowd, &'static str), RenderError> {
    let crowd_error = |context| move |source| RenderError::Crowd { context, source };
    let on_gpu = spec.posing == CrowdPosing::Gpu && clip.is_some();
    let desc = CrowdDescriptor {
        instances: spec.count,
        clip,
        compute: true,
        posing: if on_gpu {
            Posing::Gpu(PoseLayout::PerBone)
        } else {
            Posing::Cpu
        },
        // Culled on the GPU after the pose pass (the CPU path culls with `Crowd::cull`).
        gpu_cull: on_gpu,
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
        return Ok((crowd, "GPU"));
    }
    for (i, player) in (0..).zip(&mut crowd.players) {
        let (phase, speed) = phase_and_speed(i);
        player.layer_mut(0)?.clock_mut().set_speed_ratio(speed);
        player.seek(phase * duration);
    }
    Ok((crowd, "CPU"))
}
