//! `skel render`: loads an asset with the `skel` facade, plays a clip (or a blend) with the
//! playback API (`player.rs`), frames it (sample vertices skinned over the clip by
//! [`skel_demo::BoundsSampler`], shared with the crowds), draws it with the facade's
//! `skel::render::AssetRenderer` into an offscreen target, and writes PNG frames, an animated
//! GIF and a contact sheet (`output.rs`).

mod clips;
pub mod crowd;
pub mod crowd_boxes;
mod error;
mod ground;
pub mod output;
mod player;
mod playing;

use std::path::{Path, PathBuf};

use indicatif::{ProgressBar, ProgressStyle};
use skel::anim::{Handedness, NullSink};
use skel::gpu::GpuContext;
use skel::render::{AssetRenderer, BACKGROUND, Camera, MSAA_SAMPLES, OffscreenTarget};
use skel::{AssetContainer, Frame, LoadOptions, MeshPoseSink, Source};
use skel_demo::BoundsSampler;

pub use clips::Animation;
pub use error::{NO_ADAPTER_HINT, RenderError};
pub use output::Outputs;

use player::{Player, RenderPlayback as _};

/// The built-in character (`skel::DEFAULT_CHARACTER`, made by `cargo xtask fixtures`),
/// compiled into the binary so `skel render` works from any directory.
pub const DEFAULT_CHARACTER: &[u8] = skel::DEFAULT_CHARACTER;
/// What the built-in character is called in messages.
pub const DEFAULT_CHARACTER_NAME: &str = "the built-in character (fixtures/default_character.glb)";

/// Frames rendered by default at most (one loop of the clip, capped here).
pub const MAX_DEFAULT_FRAMES: usize = 240;

/// A bone override from the command line.
#[derive(Debug, Clone, PartialEq)]
pub enum BoneOverride {
    /// `--hide-bone NAME`.
    Hide(String),
    /// `--bone-rotation NAME=x,y,z,w`.
    Rotate(String, [f32; 4]),
}

/// Everything `skel render` needs, resolved from the command line.
#[derive(Debug, Clone)]
pub struct RenderJob {
    /// The asset file; `None` renders the built-in character.
    pub asset: Option<PathBuf>,
    /// What to play.
    pub animation: Animation,
    /// Frames to render (`None`: one loop of the clip at `fps`, at most
    /// [`MAX_DEFAULT_FRAMES`]).
    pub frames: Option<usize>,
    /// Frames per second of animation time.
    pub fps: f32,
    /// Image width.
    pub width: u32,
    /// Image height.
    pub height: u32,
    /// Output directory.
    pub out: PathBuf,
    /// World handedness (the picture is the same either way).
    pub handedness: Handedness,
    /// Bone overrides (with bone control).
    pub bones: Vec<BoneOverride>,
    /// Every clip mirrored left for right (`--mirror`).
    pub mirror: bool,
    /// `--terrain plane:…|mesh:…`: the ground the humanoid's feet stand on (a graph's own
    /// foot placement takes it from its [`GraphArgs`](crate::graph_args::GraphArgs) instead).
    pub terrain: Option<String>,
    /// A VRM's springs and node constraints (on by default; off with `--no-springs`).
    pub springs: skel::SecondaryOptions,
    /// `--vrma FILE`: `.vrma` clips retargeted onto the character and added to its clips.
    pub vrma: Vec<PathBuf>,
    /// Show a progress bar (on a terminal).
    pub progress: bool,
}

/// What a render did, for the summary line.
#[derive(Debug, Clone)]
pub struct RenderReport {
    /// Written files.
    pub outputs: Outputs,
    /// The asset as named in messages.
    pub asset: String,
    /// The clip played (name or index), or "rest pose", or the blend spec.
    pub playing: String,
    /// The adapter's name and backend.
    pub adapter: String,
    /// Draw calls per frame.
    pub draws: usize,
    /// Primitives left out (a line or point topology the adapter cannot draw).
    pub skipped_primitives: usize,
    /// Samples per pixel.
    pub samples: u32,
    /// Seconds spent rendering and writing frames.
    pub seconds: f64,
}

/// Renders `job` and writes its files.
///
/// # Errors
/// Any [`RenderError`]: no adapter (with what to install), a missing or bad file, an asset
/// without meshes, an unknown clip, GPU or I/O failures.
pub fn run(job: &RenderJob) -> Result<RenderReport, RenderError> {
    let asset_name = check_job(job)?;
    let (ctx, adapter) = open_device()?;
    let mut container = load_asset(&ctx, job, &asset_name, !job.bones.is_empty())?;

    let (mut player, playing) = playing::make_player(
        &container,
        &job.animation,
        job.terrain.as_deref(),
        &asset_name,
    )?;

    let frames = job
        .frames
        .unwrap_or_else(|| default_frames(player.loop_duration(), job.fps));
    let dt = 1.0 / job.fps;

    // Frame the whole clip: pose a copy through the same frame times and skin sample vertices.
    let mut sampler = BoundsSampler::new(&container);
    let mut points = Vec::new();
    let mut probe = player.clone();
    let stride = frames.div_ceil(32).max(1);
    for i in 0..frames {
        probe.tick_s(if i == 0 { 0.0 } else { dt }, &mut NullSink);
        if i % stride == 0 || i + 1 == frames {
            let first = points.len();
            sampler.collect(&container, probe.player(), &mut points);
            // With root motion the character travels: frame where it will be.
            if let Some(moved) = probe.root_instance() {
                for p in &mut points[first..] {
                    *p = moved.transform_point3(*p);
                }
            }
        }
    }
    // Bone overrides come after framing: the camera is the one the plain animation gets, so
    // pictures with and without `--hide-bone` / `--bone-rotation` compare pixel for pixel.
    apply_bone_overrides(&ctx, &mut container, player.player_mut(), &job.bones)?;
    #[expect(clippy::cast_precision_loss, reason = "image sides are far below 2^24")]
    let aspect = job.width as f32 / job.height as f32;
    let target = create_target(&ctx, job.width, job.height)?;
    // `--terrain`: the ground the feet stand on, framed with the character.
    let ground = job
        .terrain
        .as_deref()
        .map(|spec| ground::ground(&ctx, &target.format(), spec, job.handedness, &mut points))
        .transpose()?;
    let camera = Camera::framing(&points, aspect, job.handedness);
    let mut scene = AssetRenderer::new(&ctx, &container, &target.format())?;
    scene.set_camera(&ctx.queue, &camera);
    if let Some(ground) = &ground {
        ground.set_camera(&ctx.queue, &camera);
    }
    // What the facade's frame fills besides the pose: animated properties
    // (KHR_animation_pointer), root motion, markers.
    let mut frame = Frame::new(&container);

    let mut writer = output::FrameWriter::new(&job.out, job.width, job.height, frames, job.fps)?;
    let bar = progress_bar(job.progress, frames, &asset_name);
    let started = std::time::Instant::now();
    let mut rgba = Vec::new();
    for i in 0..frames {
        // Bones, node transforms, properties and root motion (the pose stays in place and
        // the character is moved as a whole), all written into the renderer.
        let step = if i == 0 { 0.0 } else { dt };
        frame.advance(&ctx, &mut container, &mut player, step, &mut scene)?;
        let encoder = ctx
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("skel render frame"),
            });
        render_frame(&ctx, &target, encoder, i, &mut rgba, |pass| {
            if let Some(ground) = &ground {
                ground.draw(pass);
            }
            Ok(scene.draw(&container, pass)?)
        })?;
        writer.push(i, &rgba)?;
        bar.inc(1);
    }
    bar.finish_and_clear();
    let seconds = started.elapsed().as_secs_f64();
    let outputs = writer.finish()?;
    Ok(RenderReport {
        outputs,
        asset: asset_name,
        playing,
        adapter,
        draws: scene.draw_count(),
        skipped_primitives: scene.skipped(),
        samples: target.sample_count(),
        seconds,
    })
}

/// Checks `--fps`, `--frames` and the asset path; the asset's name for messages.
fn check_job(job: &RenderJob) -> Result<String, RenderError> {
    if !(job.fps.is_finite() && job.fps > 0.0) {
        return Err(RenderError::BadArgument {
            what: "--fps",
            rule: "a positive number",
            got: job.fps.to_string(),
        });
    }
    if job.frames == Some(0) {
        return Err(RenderError::BadArgument {
            what: "--frames",
            rule: "at least 1",
            got: "0".into(),
        });
    }
    if let Some(path) = &job.asset
        && !path.is_file()
    {
        return Err(RenderError::MissingFile { path: path.clone() });
    }
    Ok(job.asset.as_ref().map_or_else(
        || DEFAULT_CHARACTER_NAME.to_owned(),
        |p| p.display().to_string(),
    ))
}

/// A headless device, and its adapter's name and backend for the summary line.
fn open_device() -> Result<(GpuContext, String), RenderError> {
    let ctx = GpuContext::new_headless().map_err(|e| match e {
        skel::gpu::GpuError::NoAdapter { reason, .. } => RenderError::NoAdapter { reason },
        other => RenderError::Gpu {
            context: "creating the device",
            source: other,
        },
    })?;
    let adapter = format!("{} ({:?})", ctx.adapter_info.name, ctx.adapter_info.backend);
    Ok((ctx, adapter))
}

/// Loads the job's asset (or the built-in character) with decoded images, and checks that
/// it has a mesh.
fn load_asset(
    ctx: &GpuContext,
    job: &RenderJob,
    asset_name: &str,
    bone_control: bool,
) -> Result<AssetContainer, RenderError> {
    let mirroring = match &job.animation {
        Animation::Graph(graph) => graph.clip_mirroring(job.mirror),
        _ if job.mirror => skel::ClipMirroring::Replace,
        _ => skel::ClipMirroring::None,
    };
    let mut options = LoadOptions::default()
        .with_mirror(mirroring)
        .with_handedness(job.handedness)
        .with_bone_control(bone_control);
    options.decode_images = true;
    options.secondary = job.springs;
    let source = match &job.asset {
        Some(path) => Source::Path(path),
        None => Source::Bytes {
            bytes: DEFAULT_CHARACTER,
            base_dir: None,
        },
    };
    let container = crate::vrma_load::load_with_vrma(ctx, source, &options, &job.vrma).map_err(
        |e| match e {
            crate::vrma_load::VrmaLoadError::Load(source) => RenderError::Load {
                asset: asset_name.to_owned(),
                source,
            },
            vrma @ crate::vrma_load::VrmaLoadError::Vrma { .. } => {
                RenderError::Vrma(vrma.to_string())
            }
        },
    )?;
    if container.meshes.is_empty() {
        return Err(RenderError::NoMesh {
            asset: asset_name.to_owned(),
            nodes: container.nodes.len(),
        });
    }
    Ok(container)
}

/// One loop of a clip of `duration` seconds at `fps`, between 1 and [`MAX_DEFAULT_FRAMES`].
#[must_use]
pub fn default_frames(duration: f32, fps: f32) -> usize {
    let frames = (duration * fps).round();
    if frames.is_finite() && frames >= 1.0 {
        // Saturating float → int conversion, then the cap.
        (frames as usize).min(MAX_DEFAULT_FRAMES)
    } else {
        1
    }
}

fn apply_bone_overrides(
    ctx: &GpuContext,
    container: &mut AssetContainer,
    player: &mut Player,
    bones: &[BoneOverride],
) -> Result<(), RenderError> {
    if bones.is_empty() {
        return Ok(());
    }
    let Some(control) = container.bone_control.clone() else {
        return Err(RenderError::BoneControl(
            "the asset was loaded without bone control".into(),
        ));
    };
    player.set_pose_hook(Some(control.pose_hook()));
    for op in bones {
        let name = match op {
            BoneOverride::Hide(n) | BoneOverride::Rotate(n, _) => n,
        };
        let Some(skeleton) = control
            .skeletons()
            .iter()
            .find(|s| s.get_bone_by_name(name).is_some())
        else {
            let known: Vec<&str> = control
                .skeletons()
                .iter()
                .flat_map(|s| s.bones().iter().map(|b| b.name.as_str()))
                .collect();
            return Err(RenderError::BoneControl(format!(
                "no bone named {name:?}; bones: {}",
                if known.is_empty() {
                    "none (the asset has no skin)".to_owned()
                } else {
                    known.join(", ")
                }
            )));
        };
        let Some(bone) = skeleton.get_bone_by_name(name) else {
            continue;
        };
        let mut sink = MeshPoseSink::new(&ctx.queue, &mut container.meshes);
        let result = match op {
            BoneOverride::Hide(_) => skeleton.set_bone_visible(bone, false, &mut sink),
            BoneOverride::Rotate(_, q) => {
                skeleton.set_bone_rotation_quaternion(bone, *q, &mut sink)
            }
        };
        result.map_err(|e| RenderError::BoneControl(format!("{name}: {e}")))?;
    }
    Ok(())
}

fn create_target(
    ctx: &GpuContext,
    width: u32,
    height: u32,
) -> Result<OffscreenTarget, RenderError> {
    // 4× MSAA is what WebGPU guarantees for these formats; fall back to 1 sample on an adapter
    // that refuses it.
    match ctx.capture("creating the 4× MSAA target", || {
        OffscreenTarget::new(&ctx.device, width, height, MSAA_SAMPLES)
    }) {
        Ok(Ok(target)) => Ok(target),
        Ok(Err(e)) => Err(e.into()),
        Err(_) => Ok(OffscreenTarget::new(&ctx.device, width, height, 1)?),
    }
}

fn progress_bar(show: bool, frames: usize, asset: &str) -> ProgressBar {
    if !show {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(u64::try_from(frames).unwrap_or(u64::MAX));
    if let Ok(style) = ProgressStyle::with_template(
        "{msg} [{bar:32.cyan/blue}] {pos}/{len} frames ({per_sec}, eta {eta})",
    ) {
        bar.set_style(style.progress_chars("=> "));
    }
    let short = Path::new(asset)
        .file_name()
        .map_or(asset.to_owned(), |f| f.to_string_lossy().into_owned());
    bar.set_message(format!("rendering {short}"));
    bar
}

/// Draws frame `frame` into `target` with `draw` (one pass, cleared to [`BACKGROUND`]) after
/// what `encoder` already holds, reads it back into `rgba`, and fails on an error the device
/// raised meanwhile.
pub(super) fn render_frame(
    ctx: &GpuContext,
    target: &OffscreenTarget,
    mut encoder: wgpu::CommandEncoder,
    frame: usize,
    rgba: &mut Vec<u8>,
    draw: impl FnOnce(&mut wgpu::RenderPass<'_>) -> Result<(), RenderError>,
) -> Result<(), RenderError> {
    {
        let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
            label: Some("skel render"),
            color_attachments: &[Some(target.color_attachment(BACKGROUND))],
            depth_stencil_attachment: Some(target.depth_attachment()),
            timestamp_writes: None,
            occlusion_query_set: None,
            multiview_mask: None,
        });
        draw(&mut pass)?;
    }
    target.encode_readback(&mut encoder);
    ctx.queue.submit([encoder.finish()]);
    target.read_rgba(&ctx.device, rgba)?;
    match ctx.take_uncaptured_error() {
        Some(message) => Err(RenderError::Frame { frame, message }),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::default_frames;

    #[test]
    fn default_frames_cover_one_loop_with_a_cap() {
        assert_eq!(default_frames(2.0, 30.0), 60);
        assert_eq!(default_frames(0.0, 30.0), 1);
        assert_eq!(default_frames(100.0, 30.0), super::MAX_DEFAULT_FRAMES);
        assert_eq!(default_frames(f32::NAN, 30.0), 1);
        assert_eq!(default_frames(0.02, 30.0), 1);
    }
}
