//! `skel render --crowd N`: N instances of the asset in a square grid on the ground, each
//! playing the clip from its own phase at its own speed, posed by a [`skel::Crowd`] (on the
//! GPU by default: every playhead advanced by the pose pass, nothing uploaded per character per
//! frame; or by one CPU player per character), skinned by the crowd's compute pass and drawn in
//! one instanced draw per primitive ([`CrowdScene`]). Framing, frames, GIF and contact sheet
//! are those of a one-character render.
//!
//! Morphing meshes morph per character: the crowd's compute pass applies each instance's own
//! morph weights (sampled by the pose pass, or its CPU player's) before skinning.

use glam::{Mat4, Vec3};
use skel::anim::{Handedness, LayerDesc, NullSink};
use skel::gpu::{GpuContext, PoseInstance, PoseLayout};
use skel::render::Camera;
use skel::{AssetContainer, Crowd, CrowdDescriptor, Posing};

use super::bounds::BoundsSampler;
use super::clips::{Animation, resolve_clip};
use super::crowd_draw::CrowdScene;
use super::player::{Player, RenderPlayback as _};
use super::{
    RenderError, RenderJob, RenderReport, check_job, create_target, default_frames, load_asset,
    open_device, output, progress_bar, render_frame,
};

/// The largest `--crowd`: past it the characters of a grid at these image sizes are a few
/// pixels tall, and the compute output grows by 24 bytes per vertex per character.
pub const MAX_CROWD: u32 = 10_000;
/// Space between neighbours, as a multiple of one character's footprint over the clip.
const SPACING: f32 = 1.25;
/// The crowd camera's yaw from the characters' front and its elevation.
const OVERLOOK_YAW_DEGREES: f32 = 30.0;
const OVERLOOK_PITCH_DEGREES: f32 = 30.0;
/// How much of the frame (NDC, each side) the grid may take.
const OVERLOOK_FILL: f32 = 0.9;
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
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CrowdSpec {
    /// Characters, 1..=[`MAX_CROWD`].
    pub count: u32,
    /// Where they are posed.
    pub posing: CrowdPosing,
}

/// Character `index`'s start time as a fraction of the clip and its playback speed: spread by
/// the golden ratio, so neighbours differ and no two characters of a grid move alike.
#[must_use]
pub fn phase_and_speed(index: u32) -> (f32, f32) {
    const GOLDEN: f64 = 0.618_033_988_749_895;
    let i = f64::from(index);
    let phase = (i * GOLDEN).fract();
    let speed = 0.8 + 0.4 * (i * GOLDEN * GOLDEN + 0.5).fract();
    #[expect(clippy::cast_possible_truncation, reason = "values in [0, 1.2]")]
    (phase as f32, speed as f32)
}

/// `count` places in a square grid on the ground (`y = 0`), `spacing` apart, centred on the
/// origin: row after row of `ceil(sqrt(count))`.
#[must_use]
pub fn grid(count: u32, spacing: f32) -> Vec<Vec3> {
    let columns = (1..=count).find(|c| c * c >= count).unwrap_or(1);
    let rows = count.div_ceil(columns);
    #[expect(clippy::cast_precision_loss, reason = "at most MAX_CROWD cells")]
    let centre = |n: u32, i: u32| (i as f32 - (n as f32 - 1.0) * 0.5) * spacing;
    (0..count)
        .map(|i| Vec3::new(centre(columns, i % columns), 0.0, centre(rows, i / columns)))
        .collect()
}

/// Renders a grid of `spec.count` characters of `job`'s asset playing its clip and writes the
/// files a one-character render writes.
///
/// # Errors
/// What [`run`](super::run) reports, and [`RenderError::BadArgument`] for a count out of range
/// or an option the crowd does not take (`--blend`, `--layers`, `--graph`, bone overrides);
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
        Animation::Blend(_) => Some("--blend"),
        Animation::Layers(_) => Some("--layers"),
        Animation::Graph(_) => Some("--graph"),
        Animation::Default | Animation::Clip(_) => None,
    };
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

    // One character over the clip: its footprint (spacing and framing) and its mesh nodes'
    // world matrices.
    let mut probe = Player::new(&container.rig);
    if let Some(clip) = clip {
        probe.add_layer(LayerDesc::new(clip))?;
    }
    let duration = probe.loop_duration();
    let frames = job
        .frames
        .unwrap_or_else(|| default_frames(duration, job.fps));
    let (lo, hi, world) = footprint(&container, &mut probe, duration);
    let extent = hi - lo;
    let spacing = extent.x.max(extent.z).max(extent.y * 0.35) * SPACING;
    let cells = grid(spec.count, spacing);
    // Centre the grid on the origin. A left-handed world is glTF's mirrored in x, and so is
    // its grid: character i stands in the same cell of the picture either way.
    let centre = Vec3::new((lo.x + hi.x) * 0.5, 0.0, (lo.z + hi.z) * 0.5);
    let mirror = match job.handedness {
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
    #[expect(clippy::cast_precision_loss, reason = "image sides are far below 2^24")]
    let aspect = job.width as f32 / job.height as f32;
    let camera = overlook(&corners, aspect, job.handedness);

    let (mut crowd, posed_on) = make_crowd(&ctx, &container, spec, clip, duration)?;
    let target = create_target(&ctx, job.width, job.height)?;
    let scene = CrowdScene::new(
        &ctx,
        &container,
        &crowd,
        &world,
        &placements,
        &target.format(),
    )?;
    scene.set_camera(&ctx.queue, &camera);

    let mut writer = output::FrameWriter::new(&job.out, job.width, job.height, frames, job.fps)?;
    let bar = progress_bar(job.progress, frames, &asset_name);
    let started = std::time::Instant::now();
    let mut rgba = Vec::new();
    let crowd_error = |context| move |source| RenderError::Crowd { context, source };
    for i in 0..frames {
        crowd.tick(if i == 0 { 0.0 } else { 1.0 / job.fps });
        let mut encoder = ctx
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("skel render crowd frame"),
            });
        crowd
            .upload(&ctx, &mut encoder)
            .map_err(crowd_error("posing"))?;
        crowd.skin(&mut encoder);
        render_frame(&ctx, &target, encoder, i, &mut rgba, |pass| {
            scene.draw(&container, crowd.visible_count(), pass);
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

/// An orbit camera from the front, a little to the right and well above (so that rows behind
/// show over the ones in front), pulled back just far enough that every point is inside the
/// frame with a margin: the one-character framing's view is too low for a grid.
fn overlook(points: &[Vec3], aspect: f32, handedness: Handedness) -> Camera {
    let (lo, hi) = points.iter().fold(
        (Vec3::splat(f32::INFINITY), Vec3::splat(f32::NEG_INFINITY)),
        |(lo, hi), &p| (lo.min(p), hi.max(p)),
    );
    let mut target = (lo + hi) * 0.5;
    let radius = (hi - lo).length().max(1e-3);
    let (yaw, pitch) = (
        OVERLOOK_YAW_DEGREES.to_radians(),
        OVERLOOK_PITCH_DEGREES.to_radians(),
    );
    let camera = |target, distance| Camera::orbit(target, distance, yaw, pitch, aspect, handedness);
    let mut distance = radius;
    // Fit the distance, then move the target to the middle of what the points cover on
    // screen (perspective makes the near rows larger) and fit again.
    for _ in 0..3 {
        let extent = |distance| {
            let view_projection = camera(target, distance).view_projection();
            points.iter().fold(
                (glam::Vec2::splat(f32::INFINITY), glam::Vec2::NEG_INFINITY),
                |(lo, hi), &p| {
                    let clip = view_projection * p.extend(1.0);
                    let ndc = if clip.w > 0.0 {
                        glam::Vec2::new(clip.x, clip.y) / clip.w
                    } else {
                        glam::Vec2::splat(f32::INFINITY)
                    };
                    (lo.min(ndc), hi.max(ndc))
                },
            )
        };
        let fits = |distance| {
            let (lo, hi) = extent(distance);
            lo.abs().max(hi.abs()).max_element() <= OVERLOOK_FILL
        };
        // Bisect between a distance inside the points and one far enough for any of them.
        let (mut near, mut far) = (radius * 0.05, radius * 20.0);
        for _ in 0..40 {
            let mid = 0.5 * (near + far);
            if fits(mid) {
                far = mid;
            } else {
                near = mid;
            }
        }
        distance = far;
        let (lo, hi) = extent(distance);
        let fitted = camera(target, distance);
        let middle = (lo + hi) * 0.5;
        // NDC → world at the target's depth: 1 / the projection's scale per axis.
        let projection = fitted.projection;
        target += fitted.right * (middle.x * distance / projection.x_axis.x)
            + fitted.up * (middle.y * distance / projection.y_axis.y);
    }
    camera(target, distance)
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
    probe.tick_ms(0.0, &mut NullSink);
    let world = probe.resolved_world().to_vec();
    sampler.collect(container, probe, &mut points);
    #[expect(clippy::cast_precision_loss, reason = "a handful of samples")]
    let step_ms = duration * 1000.0 / FOOTPRINT_SAMPLES as f32;
    if step_ms > 0.0 {
        for _ in 0..FOOTPRINT_SAMPLES {
            probe.tick_ms(step_ms, &mut NullSink);
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
fn make_crowd(
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

#[cfg(test)]
mod tests {
    use super::{grid, phase_and_speed};

    #[test]
    fn grids_are_square_and_centred() {
        let cells = grid(9, 2.0);
        assert_eq!(cells.len(), 9);
        assert_eq!(cells[0], glam::Vec3::new(-2.0, 0.0, -2.0));
        assert_eq!(cells[4], glam::Vec3::ZERO);
        assert_eq!(cells[8], glam::Vec3::new(2.0, 0.0, 2.0));
        // 10 characters: 4 columns, 3 rows.
        let ten = grid(10, 1.0);
        assert_eq!(ten[3].x, 1.5);
        assert_eq!(ten[9].z, 1.0);
        assert_eq!(grid(1, 5.0), vec![glam::Vec3::ZERO]);
    }

    #[test]
    fn phases_and_speeds_differ_between_neighbours() {
        let all: Vec<(f32, f32)> = (0..16).map(phase_and_speed).collect();
        for (a, b) in all.iter().zip(&all[1..]) {
            assert!((a.0 - b.0).abs() > 0.1, "{a:?} {b:?}");
        }
        assert!(
            all.iter()
                .all(|&(p, s)| (0.0..1.0).contains(&p) && (0.8..=1.2).contains(&s))
        );
        assert_eq!(phase_and_speed(3), phase_and_speed(3));
    }
}
