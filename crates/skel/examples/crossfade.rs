//! Cross-fades between two clips: the pose on screen moves smoothly from one to the other.
//!
//! ```text
//! cargo run -p skel --example crossfade -- [ASSET.glb] [FROM] [TO] [SECONDS]
//! ```
//!
//! Defaults: the built-in character, `Walk` to `Wave` over 0.5 s. `CrossFade` (from
//! `skel::anim`) keeps one layer per clip and moves their weights; each tick uploads the
//! blended pose into the character's GPU buffers through `pose_sink`.

use std::path::PathBuf;

use skel::anim::CrossFade;
use skel::{LoadOptions, Source, gpu::GpuContext, load_gltf};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let asset = args.next().filter(|a| a != "-").map(PathBuf::from);
    let from = args.next().unwrap_or_else(|| "Walk".into());
    let to = args.next().unwrap_or_else(|| "Wave".into());
    let seconds: f32 = args.next().map_or(Ok(0.5), |s| s.parse())?;

    let ctx = GpuContext::new_headless()?;
    let source = match &asset {
        Some(path) => Source::Path(path),
        None => Source::from(skel::DEFAULT_CHARACTER),
    };
    let mut character = load_gltf(&ctx, source, &LoadOptions::default())?;
    let clip = |name: &str| {
        character.clip_index(name).ok_or_else(|| {
            format!(
                "no clip {name:?}; the asset has {}",
                character.animation.clips.len()
            )
        })
    };
    let (a, b) = (clip(&from)?, clip(&to)?);

    let mut fader = CrossFade::new(character.animation.clone())?;
    fader.play(a)?;
    let dt_ms = 1000.0 / 60.0;
    for _ in 0..30 {
        fader.tick(dt_ms, &mut character.pose_sink(&ctx.queue));
    }
    fader.fade_to(b, seconds)?;
    println!("fading {from:?} → {to:?} over {seconds} s");
    let mut frame = 0;
    while fader.is_fading() {
        fader.tick(dt_ms, &mut character.pose_sink(&ctx.queue));
        let weights: Vec<String> = fader
            .blend()
            .layers()
            .iter()
            .map(|l| format!("{:.2}", l.weight()))
            .collect();
        if frame % 5 == 0 {
            println!("frame {frame:2}: layer weights [{}]", weights.join(", "));
        }
        frame += 1;
    }
    println!("done after {frame} frames: only {to:?} plays");
    Ok(())
}
