//! `skel pose <asset> [--clip <index|name> | --blend CLIP=WEIGHT,…] --times t1,t2,…
//! [--handedness lh|rh] [--hide-bone NAME]… [--bone-rotation NAME=x,y,z,w]…
//! [--retarget-from SOURCE [--map MAP.json | --auto]] [--fps HZ] [--no-springs] --json`: the
//! CPU reference pose at each time, in the shape of the golden files of `../shared/golden`
//! (format `peer-ref-golden/1`) so that the two can be compared file to file. A VRM's spring
//! bones and node constraints make the pose depend on the motion before it: the character is
//! then played from 0 at `--fps` (see [`pose_springs`](super::pose_springs)).

use std::io::Write as _;

use clap::Args;
use skel::gltf::{CpuPoser, GltfAsset};

use super::asset_args::{AssetArgs, parse_times, resolve_clip};
pub use super::pose_playback::Playback;
use super::pose_playback::{bone_hook, clip_summary};
use super::pose_report::{BlendItem, PoseReport, Poses, report_with, write_summary};
use crate::render::BoneOverride;

/// Arguments of `skel pose`.
#[derive(Debug, Clone, Args)]
pub struct PoseArgs {
    #[command(flatten)]
    asset: AssetArgs,
    /// Clip to pose, by index or name; the rest pose when absent.
    #[arg(long, conflicts_with = "blend")]
    clip: Option<String>,
    /// Pose a weighted blend instead: `CLIP=WEIGHT,CLIP=WEIGHT` (index or name), every clip at
    /// the same time (`skel_anim::WeightedBlend` rules: weights normalised per animated
    /// property, the rest pose filling in below a total of 1).
    #[arg(long, conflicts_with = "layers")]
    blend: Option<String>,
    /// Pose a layer stack from a JSON file (blend and additive layers, masks; see
    /// `skel_anim::Player`), every layer's clip at each time (clamped to that clip).
    #[arg(long, value_name = "FILE", conflicts_with = "clip")]
    layers: Option<std::path::PathBuf>,
    /// Comma-separated times in seconds (parsed as f32, so a key time printed from an f32
    /// hits the key exactly).
    #[arg(long, default_value = "0")]
    times: String,
    /// Print the full pose as JSON (golden-file shape); without it, a summary per time.
    #[arg(long)]
    json: bool,
    /// Hide a bone and the sub-tree it drives (bone control: scale 0 after the channels, so it
    /// stays hidden under any clip). Repeatable.
    #[arg(long = "hide-bone", value_name = "NAME")]
    hide_bone: Vec<String>,
    /// Override a bone's local rotation (bone control: written before the channels, so a clip
    /// that rotates the bone wins). Repeatable.
    #[arg(long = "bone-rotation", value_name = "NAME=X,Y,Z,W", value_parser = super::render::parse_bone_rotation)]
    bone_rotation: Vec<(String, [f32; 4])>,
    #[command(flatten)]
    retarget: super::retarget_map::RetargetFromArgs,
    /// `--graph FILE.json` (with `--set`, `--travel`): an animation graph played from time 0
    /// (steps of at most 1/60 s) poses the character at each time; the times must not
    /// decrease.
    #[command(flatten)]
    graph: crate::graph_args::GraphArgs,
    /// The display rate when the pose depends on the past (a VRM's springs, `--graph`): the
    /// character is played from 0 in frames of 1/FPS s up to each time. The springs step at
    /// their own fixed 1/60 s, so their pose at a time does not depend on it.
    #[arg(long, default_value_t = 60.0, value_parser = parse_fps)]
    fps: f64,
    #[command(flatten)]
    springs: crate::spring_args::SpringArgs,
}

/// `--fps`: a finite rate above 0.
fn parse_fps(text: &str) -> Result<f64, String> {
    let fps: f64 = text
        .parse()
        .map_err(|_| format!("{text:?} is not a number"))?;
    crate::spring_args::check_fps(fps)
}

/// Poses the asset at every time and prints the result.
///
/// # Errors
/// When the asset cannot be loaded, a time or the clip is bad, or stdout fails.
pub fn run(args: &PoseArgs) -> Result<(), Box<dyn std::error::Error>> {
    if args.graph.graph.is_some() {
        return run_graph(args);
    }
    let mut asset = args.asset.load()?;
    args.retarget.apply(&mut asset, args.clip.as_deref())?;
    let clip = args
        .clip
        .as_deref()
        .map(|c| resolve_clip(&asset, c))
        .transpose()?;
    let blend = args
        .blend
        .as_deref()
        .map(|spec| skel::anim::parse_blend_spec(&asset.animation, spec))
        .transpose()?;
    let mut root_motion = None;
    let mut ik = Vec::new();
    let mut stack = match &args.layers {
        Some(path) => {
            let resolved = crate::layer_file::load(path, &asset.animation)?;
            root_motion = resolved.root_motion;
            ik = resolved.ik;
            Some(resolved.layers)
        }
        None => None,
    };
    if let Some(weights) = &blend {
        stack = Some(
            weights
                .iter()
                .map(|&(c, w)| skel::anim::LayerDesc::new(c).weight(w))
                .collect(),
        );
    }
    let times = parse_times(&args.times)?;
    let name = args.asset.asset.display().to_string();
    let mut bones: Vec<BoneOverride> = args
        .hide_bone
        .iter()
        .cloned()
        .map(BoneOverride::Hide)
        .collect();
    bones.extend(
        args.bone_rotation
            .iter()
            .map(|(name, q)| BoneOverride::Rotate(name.clone(), *q)),
    );
    let playback = Playback {
        clip,
        layers: stack.as_deref(),
        root_motion,
        ik: &ik,
    };
    let motion = args.springs.motion(&asset)?;
    let mut report = if !motion.is_empty() {
        let play = super::pose_springs::SpringPlay {
            motion: &motion,
            fps: args.fps,
            terrain: args.graph.terrain.as_deref(),
            layers_file: args.layers.is_some(),
        };
        super::pose_springs::report(&asset, &name, &playback, &times, &bones, &play)?
    } else if let Some(spec) = &args.graph.terrain {
        super::pose_terrain::report(&asset, &name, &playback, &times, &bones, spec)?
    } else {
        pose_report(&asset, &name, &playback, &times, &bones)?
    };
    report.blend = blend.map(|weights| {
        weights
            .iter()
            .map(|&(index, weight)| BlendItem {
                index,
                name: asset.animation.clips[index].name.clone(),
                weight,
            })
            .collect()
    });
    report.layers_file = args.layers.as_ref().map(|p| p.display().to_string());
    print_report(&report, args.json)
}

/// `skel pose --graph`: the graph's pose at each time (see [`pose_graph`](super::pose_graph)).
fn run_graph(args: &PoseArgs) -> Result<(), Box<dyn std::error::Error>> {
    let others = [
        ("--clip", args.clip.is_some()),
        ("--blend", args.blend.is_some()),
        ("--layers", args.layers.is_some()),
        ("--hide-bone", !args.hide_bone.is_empty()),
        ("--bone-rotation", !args.bone_rotation.is_empty()),
    ];
    if let Some((flag, _)) = others.iter().find(|(_, given)| *given) {
        return Err(format!("--graph chooses what plays: it does not take {flag}").into());
    }
    let asset = args.asset.load()?;
    let times = parse_times(&args.times)?;
    let name = args.asset.asset.display().to_string();
    let motion = args.springs.motion(&asset)?;
    let report = super::pose_graph::report(&asset, &name, &args.graph, &times, &motion, args.fps)?;
    print_report(&report, args.json)
}

/// Writes `report` to stdout: one JSON object, or the text summary.
fn print_report(report: &PoseReport, json: bool) -> Result<(), Box<dyn std::error::Error>> {
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    if json {
        serde_json::to_writer(&mut out, report)?;
        writeln!(out)?;
    } else {
        write_summary(&mut out, report)?;
    }
    out.flush()?;
    Ok(())
}

/// Poses `clip` (or the rest pose, or with `layers` a layer stack) of `asset` at every time
/// with the CPU reference path ([`CpuPoser`]: `AnimationController::evaluate_at` or a
/// `Player`, then `skin_vertices`).
///
/// `bones` are bone-control overrides (`--hide-bone`, `--bone-rotation`) applied to every pose.
///
/// # Errors
/// When the animation data is invalid, a clip index is out of range, or a bone is unknown.
pub fn pose_report(
    asset: &GltfAsset,
    name: &str,
    playback: &Playback<'_>,
    times: &[f32],
    bones: &[BoneOverride],
) -> Result<PoseReport, Box<dyn std::error::Error>> {
    let summary = clip_summary(asset, playback.clip);
    let mut poser = CpuPoser::new(asset)?;
    poser.set_pose_hook(bone_hook(poser.controller().data(), bones)?);
    let mut cpu = CpuPlayback { poser, playback };
    let mut report = report_with(asset, name, times, &mut cpu)?;
    report.clip = summary;
    Ok(report)
}

/// The CPU reference poser playing a [`Playback`].
struct CpuPlayback<'a> {
    poser: CpuPoser,
    playback: &'a Playback<'a>,
}

impl Poses for CpuPlayback<'_> {
    fn pose_at(&mut self, asset: &GltfAsset, t: f32) -> Result<(), Box<dyn std::error::Error>> {
        let p = self.playback;
        match p.layers {
            Some(layers) => self
                .poser
                .pose_stack(asset, layers, p.root_motion, p.ik, t)?,
            None => self.poser.pose(asset, p.clip, t)?,
        }
        Ok(())
    }
    fn world(&self) -> &[skel::anim::glam::Mat4] {
        self.poser.node_world_matrices()
    }
    fn skin_matrices(&self, skin: usize) -> Option<&[skel::anim::glam::Mat4]> {
        self.poser.skin_matrices(skin)
    }
    fn positions(&self, primitive: usize) -> Option<&[skel::anim::glam::Vec3]> {
        self.poser.positions(primitive)
    }
    fn morph_weights(&self, binding: usize) -> Option<&[f32]> {
        self.poser.morph_weights(binding)
    }
}
