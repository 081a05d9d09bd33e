//! What an inertialized switch costs per joint and frame, as a plain program for instruction
//! counts (valgrind `--tool=cachegrind --cache-sim=no`, the difference of two runs that differ
//! only in FRAMES) and times: N `Player`s of one benchmark asset at 60 fps, each switching
//! clips every `SWITCH_EVERY` frames.
//!
//! ```text
//! inertial_frames run ASSET CHARACTERS WARMUP FRAMES MODE
//! ```
//!
//! MODE `inertialize`: every switch is `Player::inertialize_to(clip, BLEND_S)`, with the blend
//! time longer than the time between switches, so a blend runs on every frame (the worst case:
//! switches interrupting blends, the step-by-step pose pass every frame). MODE `cut`: the same
//! switches as cuts (`crossfade_to(clip, 0)`), the same layer bookkeeping, no blend. MODE
//! `crossfade`: the same switches as authored fades of the blend time (`crossfade_to(clip,
//! BLEND_S)`, two clips sampled while a fade runs): what inertialization replaces. The
//! difference per joint-frame from `cut` is what inertialization (or the fade) adds. MODE
//! `blend` against `still`: the cost of a running blend alone, without switches (one switch per
//! character before the counted frames, whose blend outlasts them). Prints `frames F
//! characters N joints J ns_per_frame T checksum C`.

#[path = "../benches/support/mod.rs"]
mod support;

use std::process::ExitCode;
use std::time::Instant;

use skel_anim::{FadeSync, LayerDesc, NullSink, Player};

/// How a character switches clips.
#[derive(Debug, Clone, Copy)]
enum Switch {
    Inertialize,
    /// An authored fade of the same length (what inertialization replaces).
    Crossfade,
    Cut,
    /// One inertialized switch per character when the warm-up ends, with a blend longer than
    /// the run: the counted frames pay for a running blend only.
    Blend,
    /// No switch at all (the baseline of `Blend`).
    Still,
}

/// Frames between two switches of one character (a quarter of a second at 60 fps).
const SWITCH_EVERY: usize = 15;
/// The blend time: longer than the time between switches, so a blend always runs.
const BLEND_S: f32 = 0.3;
/// Mode `blend`'s blend time: longer than any run.
const LONG_BLEND_S: f32 = 1.0e6;
const DT: f32 = 1.0 / 60.0;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let result = match args.as_slice() {
        ["run", asset, n, warmup, frames, mode] => {
            let inertialize = match *mode {
                "inertialize" => Ok(Switch::Inertialize),
                "crossfade" => Ok(Switch::Crossfade),
                "cut" => Ok(Switch::Cut),
                "blend" => Ok(Switch::Blend),
                "still" => Ok(Switch::Still),
                other => Err(format!(
                    "mode is inertialize, crossfade, cut, blend or still, not {other}"
                )),
            };
            inertialize.and_then(|i| {
                let (n, w, f) = (parse(n)?, parse(warmup)?, parse(frames)?);
                run(asset, n, w, f, i)
            })
        }
        _ => Err("usage: inertial_frames run ASSET CHARACTERS WARMUP FRAMES \
             inertialize|crossfade|cut|blend|still"
            .into()),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("inertial_frames: {e}");
            ExitCode::FAILURE
        }
    }
}

fn parse(s: &str) -> Result<usize, String> {
    s.parse().map_err(|_| format!("not a count: {s}"))
}

fn run(name: &str, n: usize, warmup: usize, frames: usize, switch: Switch) -> Result<(), String> {
    let spec = support::ASSETS
        .iter()
        .find(|a| a.name == name)
        .ok_or_else(|| format!("no benchmark asset named {name}"))?;
    let asset = support::load(*spec).ok_or_else(|| format!("{name}: asset file missing"))?;
    let rig = support::rig_from_env(&asset);
    let clips = asset.data.clips.len();
    let duration = rig.clip_duration(asset.clip).unwrap_or(1.0);
    let mut crowd: Vec<Player> = (0..n)
        .map(|i| {
            let mut p = Player::new(&rig);
            let start = duration * i as f32 / n as f32;
            p.add_layer(LayerDesc::new(asset.clip).start(start))
                .map_err(|e| e.to_string())?;
            p.reserve_inertialization();
            p.tick(0.0, &mut NullSink);
            Ok(p)
        })
        .collect::<Result<_, String>>()?;
    let mut frame_index = 0_usize;
    let mut frame = |crowd: &mut [Player]| {
        for (i, p) in crowd.iter_mut().enumerate() {
            if matches!(switch, Switch::Blend | Switch::Still) {
                if frame_index == warmup
                    && matches!(switch, Switch::Blend)
                    && p.inertialize_to(asset.clip, LONG_BLEND_S).is_err()
                {
                    return;
                }
            } else if (frame_index + i).is_multiple_of(SWITCH_EVERY) {
                // Staggered: a few characters switch on each frame.
                let next = (p.layers().first().map_or(0, |l| l.clip()) + 1) % clips;
                let switched = match switch {
                    Switch::Inertialize => p.inertialize_to(next, BLEND_S),
                    Switch::Crossfade => p.crossfade_to(next, BLEND_S, FadeSync::Restart),
                    Switch::Cut | Switch::Blend | Switch::Still => {
                        p.crossfade_to(next, 0.0, FadeSync::Restart)
                    }
                };
                if switched.is_err() {
                    return;
                }
            }
            p.tick(DT, &mut NullSink);
        }
        frame_index += 1;
    };
    for _ in 0..warmup {
        frame(&mut crowd);
    }
    let start = Instant::now();
    for _ in 0..frames {
        frame(&mut crowd);
    }
    let ns = start.elapsed().as_secs_f64() * 1e9;
    let checksum: f32 = crowd
        .iter()
        .filter_map(|p| p.bone_matrices(0))
        .flat_map(|m| m.iter().map(|b| b.w_axis.x))
        .sum();
    #[expect(clippy::cast_precision_loss, reason = "frame counts")]
    let per_frame = if frames == 0 { 0.0 } else { ns / frames as f64 };
    println!(
        "frames {frames} characters {n} joints {} ns_per_frame {per_frame:.1} checksum {checksum}",
        asset.joints
    );
    Ok(())
}
