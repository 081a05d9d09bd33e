//! `skel pose <asset> [--clip <index|name> | --blend CLIP=WEIGHT,…] --times t1,t2,…
//! [--handedness lh|rh] [--hide-bone NAME]… [--bone-rotation NAME=x,y,z,w]…
//! [--retarget-from SOURCE [--map MAP.json | --auto]] --json`: the CPU
//! reference pose at each time, in the shape of the golden files of `../shared/golden` (format
//! `peer-ref-golden/1`) so that the two can be compared file to file.

use std::io::Write as _;

use clap::Args;
use serde::Serialize;
use serde::ser::SerializeMap as _;
use skel::anim::{Handedness, Interpolation, NullSink};
use skel::gltf::{CpuPoser, GltfAsset};

use super::asset_args::{AssetArgs, parse_times, resolve_clip};
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
}

/// Poses the asset at every time and prints the result.
///
/// # Errors
/// When the asset cannot be loaded, a time or the clip is bad, or stdout fails.
pub fn run(args: &PoseArgs) -> Result<(), Box<dyn std::error::Error>> {
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
    let mut report = pose_report(&asset, &name, &playback, &times, &bones)?;
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
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    if args.json {
        serde_json::to_writer(&mut out, &report)?;
        writeln!(out)?;
    } else {
        write_summary(&mut out, &report)?;
    }
    out.flush()?;
    Ok(())
}

/// Serialises `(index, value)` pairs as a JSON object keyed by the index, in index order
/// (the golden files' `nodes` and `skins`).
#[derive(Debug)]
struct IndexMap<T>(Vec<(usize, T)>);

impl<T: Serialize> Serialize for IndexMap<T> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(self.0.len()))?;
        for (k, v) in &self.0 {
            map.serialize_entry(&k.to_string(), v)?;
        }
        map.end()
    }
}

/// The whole output of `skel pose --json`.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PoseReport {
    format: &'static str,
    engine: &'static str,
    engine_version: &'static str,
    asset: String,
    handedness: &'static str,
    clip: Option<ClipSummary>,
    /// The blended clips and weights, with `--blend` (absent otherwise, as in the golden files).
    #[serde(skip_serializing_if = "Option::is_none")]
    blend: Option<Vec<BlendItem>>,
    /// The layer-stack file, with `--layers`.
    #[serde(skip_serializing_if = "Option::is_none")]
    layers_file: Option<String>,
    clip_count: usize,
    times: Vec<f32>,
    meshes: Vec<MeshHeader>,
    frames: Vec<Frame>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct ClipSummary {
    index: usize,
    name: String,
    duration: f32,
    channels: usize,
    interpolations: Vec<&'static str>,
}

#[derive(Debug, Serialize)]
struct BlendItem {
    index: usize,
    name: String,
    weight: f32,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct MeshHeader {
    key: String,
    node: usize,
    mesh: usize,
    primitive: usize,
    name: String,
    skinned: bool,
    vertex_count: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    skin: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    joints: Option<Vec<usize>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    influence_sets: Option<usize>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct SkinPose {
    joints: Vec<usize>,
    joint_world: Vec<f32>,
    skin_matrices: Vec<f32>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct MeshPose {
    key: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    morph_weights: Option<Vec<f32>>,
    positions: Vec<f32>,
}

#[derive(Debug, Serialize)]
struct Frame {
    t: f32,
    nodes: IndexMap<Vec<f32>>,
    skins: IndexMap<SkinPose>,
    meshes: Vec<MeshPose>,
}

/// Enables bone control on the poser's animation data, applies `bones` and installs the hook,
/// so every pose (single clip or blend) follows the seed's rules.
fn apply_bone_overrides(
    poser: &mut CpuPoser,
    bones: &[BoneOverride],
) -> Result<(), Box<dyn std::error::Error>> {
    if bones.is_empty() {
        return Ok(());
    }
    let control = skel::bone_control::enable_bone_control(poser.controller().data())?;
    for op in bones {
        let (BoneOverride::Hide(name) | BoneOverride::Rotate(name, _)) = op;
        let Some((skeleton, bone)) = control
            .skeletons()
            .iter()
            .find_map(|s| s.bone_index_by_name(name).map(|b| (s, b)))
        else {
            return Err(format!("no bone named {name:?} in any skin of the asset").into());
        };
        match op {
            BoneOverride::Hide(_) => skeleton.set_bone_visible(bone, false, &mut NullSink)?,
            BoneOverride::Rotate(_, q) => {
                skeleton.set_bone_rotation_quaternion(bone, *q, &mut NullSink)?;
            }
        }
    }
    poser.set_pose_hook(Some(control.pose_hook()));
    Ok(())
}

fn interpolation_name(i: Interpolation) -> &'static str {
    match i {
        Interpolation::Step => "STEP",
        Interpolation::Linear => "LINEAR",
        Interpolation::CubicSpline => "CUBICSPLINE",
    }
}

/// What `skel pose` plays: one clip (or the rest pose), or a layer stack with optional root
/// motion (the root held in place).
#[derive(Debug, Clone, Copy)]
pub struct Playback<'a> {
    /// The clip, without a stack.
    pub clip: Option<usize>,
    /// The layer stack.
    pub layers: Option<&'a [skel::anim::LayerDesc]>,
    /// Root motion extracted from the stack.
    pub root_motion: Option<skel::anim::RootMotion>,
    /// IK jobs solved after the stack's layers.
    pub ik: &'a [skel::anim::IkJob],
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
    let clips = &asset.animation.clips;
    let clip_summary = playback
        .clip
        .and_then(|c| clips.get(c).map(|data| (c, data)))
        .map(|(c, data)| {
            let mut interpolations: Vec<_> = data
                .samplers
                .iter()
                .map(|s| interpolation_name(s.interpolation()))
                .collect();
            interpolations.sort_unstable();
            interpolations.dedup();
            ClipSummary {
                index: c,
                name: data.name.clone(),
                duration: data.duration(),
                channels: data.channels.len(),
                interpolations,
            }
        });
    let meshes = asset
        .primitives
        .iter()
        .map(|p| MeshHeader {
            key: p.key.clone(),
            node: p.node,
            mesh: p.mesh,
            primitive: p.primitive,
            name: asset
                .meshes
                .get(p.mesh)
                .map(|m| m.name.clone())
                .unwrap_or_default(),
            skinned: p.is_skinned(),
            vertex_count: p.vertex_count(),
            skin: p.skin.filter(|_| p.is_skinned()),
            joints: p
                .skin
                .filter(|_| p.is_skinned())
                .and_then(|s| asset.skins.get(s))
                .map(|s| s.joints.clone()),
            influence_sets: p.is_skinned().then_some(p.influence_sets),
        })
        .collect();
    let mut poser = CpuPoser::new(asset)?;
    apply_bone_overrides(&mut poser, bones)?;
    let mut frames = Vec::with_capacity(times.len());
    for &t in times {
        match playback.layers {
            Some(layers) => {
                poser.pose_stack(asset, layers, playback.root_motion, playback.ik, t)?
            }
            None => poser.pose(asset, playback.clip, t)?,
        }
        let world = poser.node_world_matrices();
        let nodes = IndexMap(
            (0..asset.nodes.len())
                .map(|n| (n, world[n].to_cols_array().to_vec()))
                .collect(),
        );
        let skins = IndexMap(
            asset
                .skins
                .iter()
                .enumerate()
                .map(|(s, skin)| {
                    let joint_world = skin
                        .joints
                        .iter()
                        .flat_map(|&j| world[j].to_cols_array())
                        .collect();
                    let pose = SkinPose {
                        joints: skin.joints.clone(),
                        joint_world,
                        skin_matrices: bytemuck::cast_slice(
                            poser.skin_matrices(s).unwrap_or_default(),
                        )
                        .to_vec(),
                    };
                    (s, pose)
                })
                .collect(),
        );
        let meshes = asset
            .primitives
            .iter()
            .enumerate()
            .map(|(i, p)| MeshPose {
                key: p.key.clone(),
                morph_weights: p
                    .morph_binding
                    .and_then(|b| poser.morph_weights(b))
                    .map(<[f32]>::to_vec),
                positions: bytemuck::cast_slice(poser.positions(i).unwrap_or_default()).to_vec(),
            })
            .collect();
        frames.push(Frame {
            t,
            nodes,
            skins,
            meshes,
        });
    }
    Ok(PoseReport {
        format: "peer-ref-golden/1",
        engine: "skel",
        engine_version: env!("CARGO_PKG_VERSION"),
        asset: name.to_owned(),
        handedness: match asset.animation.handedness {
            Handedness::LeftHanded => "left-handed: root nodes mirrored in x (diag(-1,1,1,1))",
            Handedness::RightHanded => "right-handed: glTF native, no conversion",
        },
        clip: clip_summary,
        blend: None,
        layers_file: None,
        clip_count: clips.len(),
        times: times.to_vec(),
        meshes,
        frames,
    })
}

/// Without `--json`: the world-space bounds of every primitive at every time.
fn write_summary(out: &mut impl std::io::Write, report: &PoseReport) -> std::io::Result<()> {
    match (&report.clip, &report.blend) {
        _ if report.layers_file.is_some() => {
            writeln!(
                out,
                "layers {}",
                report.layers_file.as_deref().unwrap_or_default()
            )?;
        }
        (_, Some(items)) => {
            write!(out, "blend")?;
            for b in items {
                write!(out, " {} {:?}={}", b.index, b.name, b.weight)?;
            }
            writeln!(out)?;
        }
        (Some(c), None) => writeln!(out, "clip {} {:?} ({} s)", c.index, c.name, c.duration)?,
        (None, None) => writeln!(out, "rest pose")?,
    }
    for frame in &report.frames {
        writeln!(out, "t = {}", frame.t)?;
        for m in &frame.meshes {
            let mut lo = [f32::INFINITY; 3];
            let mut hi = [f32::NEG_INFINITY; 3];
            for v in m.positions.chunks_exact(3) {
                for c in 0..3 {
                    lo[c] = lo[c].min(v[c]);
                    hi[c] = hi[c].max(v[c]);
                }
            }
            write!(out, "  {}: bounds {lo:?} .. {hi:?}", m.key)?;
            if let Some(w) = &m.morph_weights {
                write!(out, ", morph weights {w:?}")?;
            }
            writeln!(out)?;
        }
    }
    Ok(())
}
