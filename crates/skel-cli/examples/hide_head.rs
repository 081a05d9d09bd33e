//! Hides the head of a real character with bone control and writes a picture of it before and
//! after, side by side.
//!
//! ```text
//! cargo run -p skel-cli --example hide_head -- [ASSET] [BONE] [OUT_DIR]
//! ```
//!
//! Defaults: CesiumMan from `../shared/assets`, bone `Skeleton_neck_joint_1` (the neck; the head
//! goes with it), playing its walk: a clip with a scale track on every bone, which a hidden bone
//! must survive (visibility is applied after the channels). Without the shared assets it uses
//! the built-in character and its `Neck`. Writes `OUT_DIR/before/`, `OUT_DIR/after/` (the
//! frames `skel render` writes) and `OUT_DIR/hide_head.png` (default `OUT_DIR`:
//! `target/hide_head`).
//!
//! The pictures are drawn by the renderer of `skel render` (its module, included below) on a
//! real wgpu adapter: the override goes through `skel::bone_control` to the bone texture. The
//! renderer frames the character without bone overrides, so both sides share one camera.

use std::error::Error;
use std::path::PathBuf;

use image::{Rgba, RgbaImage, imageops};
use skel::anim::Handedness;

#[allow(dead_code, reason = "the renderer reads layer files for --layers")]
#[path = "../src/layer_file.rs"]
mod layer_file;
#[allow(
    dead_code,
    reason = "the example uses only `run` of the CLI's renderer"
)]
#[path = "../src/render/mod.rs"]
mod render;

use render::{Animation, BoneOverride, RenderJob};

const WIDTH: u32 = 400;
const HEIGHT: u32 = 560;
/// Animation time of the picture: mid-stride.
const FRAME: usize = 9;
const FPS: f32 = 30.0;

fn main() -> Result<(), Box<dyn Error>> {
    let mut args = std::env::args().skip(1);
    let shared = PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../../shared/assets/CesiumMan/CesiumMan.glb"
    ));
    let (asset, default_bone) = match args.next() {
        Some(path) => (Some(PathBuf::from(path)), "Head"),
        None if shared.is_file() => (Some(shared), "Skeleton_neck_joint_1"),
        None => (None, "Neck"),
    };
    let bone = args.next().unwrap_or_else(|| default_bone.to_owned());
    let out = args.next().map_or_else(
        || {
            PathBuf::from(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/../../target/hide_head"
            ))
        },
        PathBuf::from,
    );

    let job = |bones: Vec<BoneOverride>, dir: &str| RenderJob {
        asset: asset.clone(),
        animation: Animation::Default,
        frames: Some(FRAME + 1),
        fps: FPS,
        width: WIDTH,
        height: HEIGHT,
        out: out.join(dir),
        handedness: Handedness::LeftHanded,
        bones,
        progress: false,
    };
    let before = render::run(&job(Vec::new(), "before"))?;
    let after = render::run(&job(vec![BoneOverride::Hide(bone.clone())], "after"))?;

    let left = image::open(&before.outputs.frames[FRAME])?.to_rgba8();
    let right = image::open(&after.outputs.frames[FRAME])?.to_rgba8();
    let gap = 8;
    let mut sheet = RgbaImage::from_pixel(
        left.width() + gap + right.width(),
        left.height().max(right.height()),
        Rgba([255, 255, 255, 255]),
    );
    imageops::replace(&mut sheet, &left, 0, 0);
    imageops::replace(&mut sheet, &right, i64::from(left.width() + gap), 0);
    let path = out.join("hide_head.png");
    sheet.save(&path)?;
    println!(
        "{}: {} hidden ({}, {}); before | after → {}",
        after.asset,
        bone,
        after.playing,
        after.adapter,
        path.display()
    );
    Ok(())
}
