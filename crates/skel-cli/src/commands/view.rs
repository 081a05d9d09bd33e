//! `skel view`: a live window on an animated asset.

use std::path::PathBuf;

use crate::view::{self, ViewJob};

/// Arguments of `skel view`.
///
/// Keys: Space play/pause, N or → next clip, P or ← previous clip, + / − speed ×2 / ÷2,
/// A / D orbit, W / S tilt, Q or Escape quit. Drag with the left mouse button to orbit, wheel
/// to zoom. With `--graph`: ↑ / ↓ step the first float parameter, → / ← the second, Space
/// fires the first trigger, 1–9 toggle the bool parameters in declared order; Tab selects the
/// next IK or look-at target (drawn as an amber diamond) and Shift + left drag (or a right drag) moves it on the plane
/// through it facing the camera (`target NAME = X,Y,Z` on stdout). `--terrain` draws the
/// ground and stands the feet on it, with or without a graph.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Keys: Space play/pause | N or Right next clip | P or Left previous clip | \
+ / - speed x2 / /2 | A / D orbit | W / S tilt | Q or Escape quit. \
Mouse: drag to orbit, wheel to zoom. The title bar and stdout show clip, state, speed and \
frame time. With --graph: Up / Down step the first float parameter, Right / Left the \
second, Space fires the first trigger, 1-9 toggle the bool parameters in declared order, Tab \
selects the next IK / look-at target (drawn as an amber diamond) and Shift+drag (or right-drag) moves it under the cursor \
on the plane through it facing the camera; the title bar and stdout show each graph layer's \
state, the parameters and the selected target, and stdout has one line per target move \
(target NAME = X,Y,Z). --terrain draws the ground and stands the humanoid's feet on it. \
With --crowd: Space pauses every character, B shows every character's box (--posing cpu), a \
left click (without dragging) picks the character under the mouse; the title bar and stdout \
show how many are drawn and culled."
)]
pub struct ViewArgs {
    /// A .gltf or .glb file. Without one, the built-in character is shown.
    pub asset: Option<PathBuf>,
    /// The clip to start with: its index or its name (default: the first).
    #[arg(long)]
    pub clip: Option<String>,
    /// Close after this many frames (default: run until the window is closed).
    #[arg(long)]
    pub frames: Option<u64>,
    /// When the viewer closes, save the last frame the window showed to this PNG.
    #[arg(long, value_name = "PNG")]
    pub screenshot: Option<PathBuf>,
    /// Window size, WIDTHxHEIGHT.
    #[arg(long, default_value = "800x600", value_parser = super::render::parse_size)]
    pub size: (u32, u32),
    /// Play every clip mirrored left for right (pairs from the joint names).
    #[arg(long)]
    pub mirror: bool,
    /// Show a grid of N characters instead (1 to 10000), each playing the clip from its own
    /// phase at its own speed, culled against the window's camera every frame; a left click
    /// picks the character under the mouse (its index and clip printed; on `--posing cpu`
    /// boxed in amber with its time), B shows every character's box (`--posing cpu`).
    #[arg(long, value_name = "N", conflicts_with_all = ["graph", "terrain", "mirror"])]
    pub crowd: Option<u32>,
    /// Where `--crowd` poses, culls and picks its characters: cpu (one player per character,
    /// boxes drawn on request), gpu (the pose pass, the GPU cull and GPU picking; nothing
    /// read back but the visible count and a pick's answer) or baked (as gpu, posed from clips
    /// baked to skinning matrices at load).
    #[arg(long, value_enum, default_value_t = super::render::PosingArg::Cpu, requires = "crowd")]
    pub posing: super::render::PosingArg,
    #[command(flatten)]
    pub graph: crate::graph_args::GraphArgs,
    /// Advance every frame by 1/FPS s instead of the wall-clock time since the last one (a
    /// fixed display rate: a VRM's springs still step at their own 1/60 s, so the motion
    /// looks the same at 30 and at 144).
    #[arg(long, value_name = "HZ", value_parser = parse_fps)]
    pub fps: Option<f32>,
    #[command(flatten)]
    pub springs: crate::spring_args::SpringArgs,
    /// A `.vrma` clip (VRMC_vrm_animation) to play on this character, added to its clips under
    /// the name it has in the file (choose it with `--clip`), retargeted as `skel pose --vrma`
    /// does (docs/vrm.md). Repeatable.
    #[arg(long = "vrma", value_name = "FILE.vrma")]
    pub vrma: Vec<std::path::PathBuf>,
}

/// `--fps`: a finite rate above 0.
fn parse_fps(text: &str) -> Result<f32, String> {
    let fps: f64 = text
        .parse()
        .map_err(|_| format!("{text:?} is not a number"))?;
    #[expect(clippy::cast_possible_truncation, reason = "a display rate")]
    crate::spring_args::check_fps(fps).map(|f| f as f32)
}

/// Runs `skel view`.
///
/// # Errors
/// No display, no adapter, a bad asset or clip, a failed screenshot.
pub fn run(args: ViewArgs) -> Result<(), Box<dyn std::error::Error>> {
    if args.frames == Some(0) {
        return Err("--frames must be at least 1, got 0".into());
    }
    if let Some(path) = &args.asset
        && !path.is_file()
    {
        return Err(format!("no such file: {}", path.display()).into());
    }
    view::run(ViewJob {
        asset: args.asset,
        clip: args.clip,
        frames: args.frames,
        screenshot: args.screenshot,
        size: args.size,
        mirror: args.mirror,
        crowd: args.crowd,
        crowd_posing: args.posing.crowd_posing(),
        graph: args.graph,
        fps: args.fps,
        springs: args.springs.options(),
        vrma: args.vrma,
    })
}
