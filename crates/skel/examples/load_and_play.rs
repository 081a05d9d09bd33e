//! Loads a glTF file, lists its clips and plays one: play, speed, seek, pause, looping.
//!
//! ```text
//! cargo run -p skel --example load_and_play -- [ASSET.glb] [CLIP]
//! ```
//!
//! Defaults: the built-in character (`skel::DEFAULT_CHARACTER`) and its first clip. Every tick
//! samples the clip, walks the hierarchy and uploads bone matrices and morph weights to the
//! GPU buffers a renderer draws with (see the `headless_png` and `own_render_loop` examples).

use std::path::PathBuf;

use skel::{LoadOptions, Source, gpu::GpuContext, load_gltf};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let asset = args.next().filter(|a| a != "-").map(PathBuf::from);
    let clip_arg = args.next();

    let ctx = GpuContext::new_headless()?;
    let source = match &asset {
        Some(path) => Source::Path(path),
        None => Source::from(skel::DEFAULT_CHARACTER),
    };
    let mut character = load_gltf(&ctx, source, &LoadOptions::default())?;

    println!(
        "{} meshes, {} nodes",
        character.meshes.len(),
        character.nodes.len()
    );
    for (i, clip) in character.animation.clips.iter().enumerate() {
        println!("clip {i}: {:?}, {:.2} s", clip.name, clip.duration());
    }
    let Some(clip) = (match &clip_arg {
        Some(name) => character.clip_index(name).or_else(|| name.parse().ok()),
        None => (!character.animation_groups.is_empty()).then_some(0),
    }) else {
        return Err(format!("no clip {:?} to play", clip_arg.unwrap_or_default()).into());
    };
    let group = character
        .animation_groups
        .get_mut(clip)
        .ok_or("clip index out of range")?;
    group.set_looping(true);
    group.set_speed_ratio(1.5); // one and a half times as fast
    group.play();
    println!("playing {:?} at 1.5×", group.name());

    let dt_ms = 1000.0 / 60.0;
    for frame in 0..120 {
        character.tick_animation(clip, dt_ms, &ctx.queue);
        if frame % 30 == 0 {
            println!(
                "frame {frame:3}: t = {:.3} s",
                character.animation_groups[clip].time()
            );
        }
    }
    let group = &mut character.animation_groups[clip];
    group.seek(0.25);
    group.pause();
    character.tick_animation(clip, dt_ms, &ctx.queue); // paused: the clock stays at 0.25 s
    let group = &character.animation_groups[clip];
    println!(
        "paused at t = {:.3} s (playing: {})",
        group.time(),
        group.is_playing()
    );
    Ok(())
}
