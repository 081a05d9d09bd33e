//! `skel render`: draw an animated, GPU-skinned glTF asset to PNG frames, an animated GIF and a
//! contact sheet.

use std::io::IsTerminal as _;
use std::path::PathBuf;

use skel::anim::Handedness;

use crate::render::{self, Animation, BoneOverride, RenderJob};

/// Arguments of `skel render`.
#[derive(Debug, clap::Args)]
pub struct RenderArgs {
    /// A .gltf or .glb file. Without one, the built-in character is rendered (a 20+ joint
    /// humanoid made by `cargo xtask fixtures`, compiled into the binary).
    pub asset: Option<PathBuf>,
    /// The clip to play: its index or its name (default: the first clip; the rest pose when
    /// the asset has none).
    #[arg(long, conflicts_with = "blend")]
    pub clip: Option<String>,
    /// Play a weighted blend of clips instead: `CLIP=WEIGHT,CLIP=WEIGHT` (index or name).
    #[arg(long, value_name = "SPEC")]
    pub blend: Option<String>,
    /// Play a layer stack from a JSON file (blend and additive layers, masks, playback
    /// settings; the format of `skel pose --layers`).
    #[arg(long, value_name = "FILE", conflicts_with_all = ["clip", "blend"])]
    pub layers: Option<std::path::PathBuf>,
    /// Number of frames (default: one loop of the clip at --fps, at most 240; 1 without a clip).
    #[arg(long)]
    pub frames: Option<usize>,
    /// Frames per second of animation time (also the GIF's rate).
    #[arg(long, default_value_t = 30.0)]
    pub fps: f32,
    /// Image size, WIDTHxHEIGHT.
    #[arg(long, default_value = "512x512", value_parser = parse_size)]
    pub size: (u32, u32),
    /// Output directory (created if missing).
    #[arg(long, default_value = "out")]
    pub out: PathBuf,
    /// World handedness: lh (the seed's and Babylon.js's default; glTF mirrored in x) or rh
    /// (glTF's own). The picture is the same; this exercises the chosen pose path.
    #[arg(long, value_enum, default_value_t = HandednessArg::Lh)]
    pub handedness: HandednessArg,
    /// Hide a bone and its sub-tree (bone control; repeatable).
    #[arg(long = "hide-bone", value_name = "NAME")]
    pub hide_bone: Vec<String>,
    /// Override a bone's local rotation, `NAME=x,y,z,w` (bone control; repeatable).
    #[arg(long = "bone-rotation", value_name = "NAME=X,Y,Z,W", value_parser = parse_bone_rotation)]
    pub bone_rotation: Vec<(String, [f32; 4])>,
    /// Render a grid of N copies of the asset instead, each playing the clip (`--clip`, or
    /// the first) from its own phase at its own speed, posed as one crowd and drawn instanced.
    #[arg(long, value_name = "N")]
    pub crowd: Option<u32>,
    /// Where `--crowd` poses its characters: gpu (the pose pass advances every playhead),
    /// baked (the same from clips baked to skinning matrices at load) or cpu (one player per
    /// character).
    #[arg(long, value_enum, default_value_t = PosingArg::Gpu, requires = "crowd")]
    pub posing: PosingArg,
    /// Draw each character's box of a `--posing cpu` crowd (the box its joints' spheres give
    /// for the pose it is drawn in): green where the culling kept it, red where it culled it.
    #[arg(long, requires = "crowd")]
    pub boxes: bool,
    /// Cull the crowd against the camera's frustum narrowed to this fraction of the picture
    /// (default 1: the picture's own), to see the culling at work inside the frame (with
    /// `--boxes` on `--posing cpu`; on the GPU path the GPU culls, nothing is read back).
    #[arg(
        long,
        value_name = "FRACTION",
        default_value_t = 1.0,
        requires = "crowd"
    )]
    pub cull_view: f32,
    /// Play every clip mirrored left for right (pairs from the joint names; see
    /// docs/mirror.md).
    #[arg(long)]
    pub mirror: bool,
    /// `--graph FILE.json` (with `--set`, `--travel`): an animation graph chooses what plays
    /// (default frames: its longest clip, or a second past its last scheduled change).
    #[command(flatten)]
    pub graph: crate::graph_args::GraphArgs,
    /// `--no-springs`: a VRM's spring bones and node constraints left out.
    #[command(flatten)]
    pub springs: crate::spring_args::SpringArgs,
    /// A `.vrma` clip (VRMC_vrm_animation) to play on this character, added to its clips under
    /// the name it has in the file (choose it with `--clip`), retargeted as `skel pose --vrma`
    /// does (docs/vrm.md). Repeatable.
    #[arg(long = "vrma", value_name = "FILE.vrma")]
    pub vrma: Vec<PathBuf>,
}

/// `--handedness` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum HandednessArg {
    /// Left-handed (default).
    Lh,
    /// Right-handed.
    Rh,
}

/// `--posing` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum PosingArg {
    /// The GPU pose pass (default).
    Gpu,
    /// The GPU pose pass from clips baked at load to skinning matrices
    /// (`PoseLayout::Baked`): fewer GPU cycles a frame, more GPU memory.
    Baked,
    /// `baked`, posing only the characters the GPU cull keeps (`CrowdDescriptor::pose_only_seen`).
    BakedSeen,
    /// One CPU player per character.
    Cpu,
}

impl PosingArg {
    /// Where `--crowd` poses its characters.
    pub(crate) fn crowd_posing(self) -> crate::render::crowd::CrowdPosing {
        use crate::render::crowd::CrowdPosing;
        match self {
            Self::Gpu => CrowdPosing::Gpu,
            Self::Baked => CrowdPosing::Baked,
            Self::BakedSeen => CrowdPosing::BakedSeen,
            Self::Cpu => CrowdPosing::Cpu,
        }
    }
}

/// Parses `WIDTHxHEIGHT`.
pub(crate) fn parse_size(s: &str) -> Result<(u32, u32), String> {
    let (w, h) = s
        .split_once(['x', 'X'])
        .ok_or_else(|| format!("expected WIDTHxHEIGHT, e.g. 512x512, got {s:?}"))?;
    let side = |v: &str| {
        v.trim()
            .parse::<u32>()
            .ok()
            .filter(|&n| (1..=16384).contains(&n))
            .ok_or_else(|| format!("each side must be a number from 1 to 16384, got {v:?}"))
    };
    Ok((side(w)?, side(h)?))
}

/// Parses `NAME=x,y,z,w` (also used by `skel pose`).
pub(crate) fn parse_bone_rotation(s: &str) -> Result<(String, [f32; 4]), String> {
    let (name, q) = s
        .rsplit_once('=')
        .ok_or_else(|| format!("expected NAME=x,y,z,w, got {s:?}"))?;
    let values: Vec<f32> = q
        .split(',')
        .map(|v| v.trim().parse::<f32>())
        .collect::<Result<_, _>>()
        .map_err(|e| format!("bad quaternion {q:?}: {e}"))?;
    let [x, y, z, w] = values[..] else {
        return Err(format!(
            "a quaternion has 4 numbers x,y,z,w, got {}",
            values.len()
        ));
    };
    Ok((name.to_owned(), [x, y, z, w]))
}

/// Runs `skel render`.
///
/// # Errors
/// What [`render::run`] reports.
pub fn run(args: RenderArgs) -> Result<(), Box<dyn std::error::Error>> {
    let others = args.clip.is_some() || args.blend.is_some() || args.layers.is_some();
    if args.graph.graph.is_some() && others {
        return Err(
            "--graph chooses what plays: it does not take --clip, --blend or --layers".into(),
        );
    }
    let terrain = args.graph.terrain.clone();
    let animation = match (args.clip, args.blend, args.layers) {
        _ if args.graph.graph.is_some() => Animation::Graph(args.graph),
        (_, _, Some(path)) => Animation::Layers(path),
        (_, Some(spec), None) => Animation::Blend(spec),
        (Some(clip), None, None) => Animation::Clip(clip),
        (None, None, None) => Animation::Default,
    };
    let mut bones: Vec<BoneOverride> = args.hide_bone.into_iter().map(BoneOverride::Hide).collect();
    bones.extend(
        args.bone_rotation
            .into_iter()
            .map(|(name, q)| BoneOverride::Rotate(name, q)),
    );
    let job = RenderJob {
        asset: args.asset,
        animation,
        frames: args.frames,
        fps: args.fps,
        width: args.size.0,
        height: args.size.1,
        out: args.out,
        handedness: match args.handedness {
            HandednessArg::Lh => Handedness::LeftHanded,
            HandednessArg::Rh => Handedness::RightHanded,
        },
        bones,
        mirror: args.mirror,
        terrain,
        springs: args.springs.options(),
        vrma: args.vrma,
        progress: std::io::stderr().is_terminal(),
    };
    let report = match args.crowd {
        Some(count) => {
            let posing = args.posing.crowd_posing();
            render::crowd::run(
                &job,
                &render::crowd::CrowdSpec {
                    count,
                    posing,
                    boxes: args.boxes,
                    cull_view: args.cull_view,
                },
            )?
        }
        None => render::run(&job)?,
    };
    let o = &report.outputs;
    if report.skipped_primitives > 0 {
        let why = if args.crowd.is_some() {
            "a crowd draws the triangles of skinned meshes"
        } else {
            "no pipeline for their topology on this adapter"
        };
        eprintln!(
            "skel render: warning: {} primitives left out ({why})",
            report.skipped_primitives
        );
    }
    println!(
        "rendered {} frames of {} ({}) at {}x{} on {} in {:.1} s ({} draws/frame, {}x MSAA)",
        o.frames.len(),
        report.asset,
        report.playing,
        job.width,
        job.height,
        report.adapter,
        report.seconds,
        report.draws,
        report.samples,
    );
    println!(
        "wrote {} … {}, {}, {}",
        job.out.join(render::output::frame_file_name(0)).display(),
        o.frames
            .last()
            .and_then(|p| p.file_name())
            .map_or_else(String::new, |f| f.to_string_lossy().into_owned()),
        o.gif.display(),
        o.contact_sheet.display()
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::{parse_bone_rotation, parse_size};

    #[test]
    fn sizes_parse_and_reject_nonsense() {
        assert_eq!(parse_size("640x480"), Ok((640, 480)));
        assert_eq!(parse_size("32X16"), Ok((32, 16)));
        assert!(parse_size("640").is_err());
        assert!(parse_size("0x10").is_err());
        assert!(parse_size("axb").is_err());
        assert!(parse_size("20000x10").is_err());
    }

    #[test]
    fn bone_rotations_parse() {
        assert_eq!(
            parse_bone_rotation("Head=0,0.5,0.5,-0.5"),
            Ok(("Head".to_owned(), [0.0, 0.5, 0.5, -0.5]))
        );
        assert!(parse_bone_rotation("Head=0,0,1").is_err());
        assert!(parse_bone_rotation("Head").is_err());
    }
}
