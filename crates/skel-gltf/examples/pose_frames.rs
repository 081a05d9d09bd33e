//! The pose pipeline's frame as a plain program, for instruction counts and side-by-side runs
//! (`cargo xtask bench --instructions`, `--vs-ozz`): N characters of one benchmark asset,
//! staggered through its clip, each frame one `tick_all` at 60 fps into `NullSink`s (clock,
//! sampling, local → world, bone matrices), exactly the `forward` case of
//! `benches/pose_pipeline.rs` (same assets, same crowd).
//!
//! ```text
//! pose_frames run ASSET CHARACTERS WARMUP FRAMES   # WARMUP untimed frames, then FRAMES timed
//! pose_frames skin ASSET DIR                       # DIR/skin.txt for scripts/ozz/harness.cc
//! pose_frames export ASSET FILE.gltf               # a generated rig as glTF (for gltf2ozz)
//! pose_frames list                                 # the asset names
//! ```
//!
//! `run` prints `frames F characters N joints J ns_per_frame T checksum C`: the wall-clock
//! time of the timed frames only. The sinks take the bone matrices and say that nobody reads
//! the local transforms (`PoseSink::wants_local_transforms`), as a renderer's would; with
//! `POSE_FRAMES_TRS=1` in the environment they ask for the TRS record too (the frame before
//! sinks could say they read no TRS record). With `POSE_FRAMES_THREADS=T` the frames run
//! `par_tick_all` inside a rayon pool of T threads instead of `tick_all`. With `SKEL_COMPRESSED=1` (or `variable`)
//! the rig's clips are compressed (`RigOptions::compression`, ACL's default bound in the asset's unit;
//! `support::rig_from_env`). `bits H` is a hash
//! of every bone matrix's bits after the last frame: equal lines, equal poses. Two runs that differ only in FRAMES differ only by those
//! frames' work, which is how the instruction counts cancel loading and warm-up. With
//! `POSE_FRAMES_BOUNDS=1` each frame also boxes every character from its bone matrices (the
//! joints' spheres, as a crowd culls): the difference of the counts is the boxes' cost, and
//! `box_ns_per_frame` the boxes' own wall-clock time a frame.

#[path = "../benches/support/mod.rs"]
mod support;

#[path = "shared/ozz_names.rs"]
mod ozz_names;

use std::fmt::Write as _;
use std::path::Path;
use std::process::ExitCode;
use std::time::Instant;

use base64::Engine as _;
use ozz_names::ozz_names;
use serde_json::{Value, json};
use skel_anim::{AnimationData, ChannelPath, Interpolation, PoseSink, par_tick_all, tick_all};

/// Discards the pose, like `NullSink`, and says whether the local transforms are read.
#[derive(Debug, Clone, Copy)]
struct Discard {
    trs: bool,
}

impl PoseSink for Discard {
    fn bone_matrices(&mut self, _binding: usize, _matrices: &[glam::Mat4]) {}
    fn morph_weights(&mut self, _binding: usize, _weights: &[f32]) {}
    fn wants_local_transforms(&self) -> bool {
        self.trs
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let result = match args.as_slice() {
        ["run", asset, n, warmup, frames] => parse(n)
            .and_then(|n| Ok((n, parse(warmup)?, parse(frames)?)))
            .and_then(|(n, w, f)| run(&load(asset)?, n, w, f)),
        ["skin", asset, dir] => load(asset).and_then(|a| skin(&a, Path::new(dir))),
        ["export", asset, file] => load(asset).and_then(|a| export(&a.data, Path::new(file))),
        ["list"] => {
            for a in &support::ASSETS {
                println!("{}", a.name);
            }
            Ok(())
        }
        _ => Err(
            "usage: pose_frames run ASSET CHARACTERS WARMUP FRAMES | skin ASSET DIR | \
                  export ASSET FILE.gltf | list"
                .into(),
        ),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("pose_frames: {e}");
            ExitCode::FAILURE
        }
    }
}

fn parse(s: &str) -> Result<usize, String> {
    s.parse().map_err(|_| format!("not a count: {s}"))
}

fn load(name: &str) -> Result<support::Loaded, String> {
    let spec = support::ASSETS
        .iter()
        .find(|a| a.name == name)
        .ok_or_else(|| format!("no benchmark asset named {name} (see `pose_frames list`)"))?;
    support::load(*spec).ok_or_else(|| format!("{name}: asset file missing"))
}

/// `warmup` untimed frames, then `frames` timed ones, of `n` characters.
fn run(asset: &support::Loaded, n: usize, warmup: usize, frames: usize) -> Result<(), String> {
    let mut crowd = support::crowd(asset, n);
    let trs = std::env::var("POSE_FRAMES_TRS").is_ok_and(|v| v == "1");
    let mut sinks = vec![Discard { trs }; n];
    let threads = match std::env::var("POSE_FRAMES_THREADS") {
        Ok(t) => Some(parse(&t)?),
        Err(_) => None,
    };
    let bounds = std::env::var("POSE_FRAMES_BOUNDS").is_ok_and(|v| v == "1");
    let spheres = if bounds {
        bone_spheres(asset)?
    } else {
        skel_gltf::JointSpheres::default()
    };
    let mut boxed = 0.0_f32;
    // The boxes' own time, summed over the timed frames.
    let box_ns = std::cell::Cell::new(0.0_f64);
    let ns = match threads {
        None if bounds => {
            let mut frame = || {
                tick_all(&mut crowd, support::FRAME_MS, &mut sinks)?;
                let start = Instant::now();
                boxed += box_all(&crowd, &spheres);
                box_ns.set(box_ns.get() + start.elapsed().as_secs_f64() * 1e9);
                Ok(())
            };
            timed(warmup, 0, &mut frame)?;
            box_ns.set(0.0);
            timed(0, frames, &mut frame)?
        }
        None => {
            let mut frame = || tick_all(&mut crowd, support::FRAME_MS, &mut sinks);
            timed(warmup, frames, &mut frame)?
        }
        Some(t) => {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(t)
                .build()
                .map_err(|e| e.to_string())?;
            pool.install(|| {
                let mut frame = || par_tick_all(&mut crowd, support::FRAME_MS, &mut sinks);
                timed(warmup, frames, &mut frame)
            })?
        }
    };
    let mut bits: u64 = 0xcbf2_9ce4_8422_2325;
    for m in crowd.iter().filter_map(|c| c.bone_matrices(0)) {
        for v in m.iter().flat_map(glam::Mat4::to_cols_array) {
            bits = (bits ^ u64::from(v.to_bits())).wrapping_mul(0x0100_0000_01b3);
        }
    }
    // The translation x of every bone matrix: keeps the work observable.
    let checksum: f32 = crowd
        .iter()
        .filter_map(|c| c.bone_matrices(0))
        .flat_map(|m| m.iter().map(|b| b.w_axis.x))
        .sum();
    #[expect(clippy::cast_precision_loss, reason = "frame counts")]
    let per_frame = if frames == 0 { 0.0 } else { ns / frames as f64 };
    #[expect(clippy::cast_precision_loss, reason = "frame counts")]
    let box_per_frame = if frames == 0 {
        0.0
    } else {
        box_ns.get() / frames as f64
    };
    println!(
        "frames {frames} characters {n} joints {} ns_per_frame {per_frame:.1} checksum {checksum} \
         bits {bits:016x}{}",
        asset.joints,
        if bounds {
            format!(
                " spheres {} boxed {boxed} box_ns_per_frame {box_per_frame:.1}",
                spheres.len()
            )
        } else {
            String::new()
        }
    );
    Ok(())
}

/// The first skin binding's joint spheres (`skel_gltf::CharacterBounds::bone_spheres`) by bone
/// index: what a crowd boxes each instance with (`POSE_FRAMES_BOUNDS=1`).
fn bone_spheres(asset: &support::Loaded) -> Result<skel_gltf::JointSpheres, String> {
    let gltf = asset
        .gltf
        .as_ref()
        .ok_or("POSE_FRAMES_BOUNDS needs an asset with meshes")?;
    Ok(skel_gltf::JointSpheres::new(
        skel_gltf::CharacterBounds::new(gltf)
            .bone_spheres()
            .filter(|s| s.binding == 0)
            .map(|s| (s.joint, s.center, s.radius)),
    ))
}

/// Every character's box from its bone matrices, as `skel::Crowd::instance_box` makes it
/// (`skel_gltf::JointSpheres::boxed`); the sum of the boxes' sizes keeps the work observable.
fn box_all(crowd: &[skel_anim::AnimationController], spheres: &skel_gltf::JointSpheres) -> f32 {
    crowd
        .iter()
        .filter_map(|c| c.bone_matrices(0))
        .filter_map(|bones| spheres.boxed(bones))
        .map(|(lo, hi)| (hi - lo).x)
        .sum()
}

/// `warmup` untimed calls of `frame`, then `frames` timed ones: their wall-clock nanoseconds.
fn timed(
    warmup: usize,
    frames: usize,
    frame: &mut dyn FnMut() -> Result<(), skel_anim::AnimError>,
) -> Result<f64, String> {
    for _ in 0..warmup {
        frame().map_err(|e| e.to_string())?;
    }
    let start = Instant::now();
    for _ in 0..frames {
        frame().map_err(|e| e.to_string())?;
    }
    Ok(start.elapsed().as_secs_f64() * 1e9)
}

/// `dir/skin.txt`: the clip's name as gltf2ozz writes its file, then per bone of every skin
/// binding its inverse bind matrix (16 floats, column-major) and its joint's name.
fn skin(asset: &support::Loaded, dir: &Path) -> Result<(), String> {
    let data = &asset.data;
    let clips = ozz_names(data.clips.iter().map(|c| c.name.as_str()), "animation_");
    let nodes = ozz_names(data.nodes.iter().map(|n| n.name.as_str()), "node_");
    let mut text = format!("clip {}\n", clips[asset.clip]);
    for binding in &data.skeletons {
        for (k, &joint) in binding.joints.iter().enumerate() {
            for v in &binding.inverse_bind_matrices[16 * k..16 * k + 16] {
                let _ = write!(text, "{v:e} ");
            }
            let _ = writeln!(text, "\t{}", nodes[joint]);
        }
    }
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let path = dir.join("skin.txt");
    std::fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()))
}

/// Writes `data` (nodes, skins, clips; no meshes) as a self-contained glTF file, so that
/// ozz's `gltf2ozz` can convert the generated rigs.
fn export(data: &AnimationData, file: &Path) -> Result<(), String> {
    let mut bin: Vec<u8> = Vec::new();
    let mut views = Vec::new();
    let mut accessors = Vec::new();
    // One buffer view and accessor per float array; returns the accessor's index.
    let mut push = |values: &[f32], kind: &str, width: usize, bounds: bool| -> usize {
        let offset = bin.len();
        for v in values {
            bin.extend_from_slice(&v.to_le_bytes());
        }
        views.push(json!({"buffer": 0, "byteOffset": offset, "byteLength": 4 * values.len()}));
        let mut a = json!({
            "bufferView": views.len() - 1, "componentType": 5126,
            "count": values.len() / width, "type": kind,
        });
        if bounds {
            let lo = values.iter().copied().fold(f32::INFINITY, f32::min);
            let hi = values.iter().copied().fold(f32::NEG_INFINITY, f32::max);
            a["min"] = json!([lo]);
            a["max"] = json!([hi]);
        }
        accessors.push(a);
        accessors.len() - 1
    };
    let skins: Vec<Value> = data
        .skeletons
        .iter()
        .map(|b| {
            let ibm = push(&b.inverse_bind_matrices, "MAT4", 16, false);
            json!({"joints": b.joints, "inverseBindMatrices": ibm})
        })
        .collect();
    let animations: Vec<Value> = data
        .clips
        .iter()
        .map(|clip| {
            let samplers: Vec<Value> = clip
                .samplers
                .iter()
                .map(|s| {
                    let width =
                        s.output().len() / s.input().len() / s.interpolation().outputs_per_key();
                    let kind = if width == 4 { "VEC4" } else { "VEC3" };
                    let input = push(s.input(), "SCALAR", 1, true);
                    let output = push(s.output(), kind, width, false);
                    let interpolation = match s.interpolation() {
                        Interpolation::Step => "STEP",
                        Interpolation::Linear => "LINEAR",
                        Interpolation::CubicSpline => "CUBICSPLINE",
                    };
                    json!({"input": input, "output": output, "interpolation": interpolation})
                })
                .collect();
            let channels: Vec<Value> = clip
                .channels
                .iter()
                .map(|c| {
                    let path = match c.path {
                        ChannelPath::Translation => "translation",
                        ChannelPath::Rotation => "rotation",
                        ChannelPath::Scale => "scale",
                        ChannelPath::Weights => "weights",
                    };
                    json!({"sampler": c.sampler, "target": {"node": c.node, "path": path}})
                })
                .collect();
            json!({"name": clip.name, "samplers": samplers, "channels": channels})
        })
        .collect();
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); data.nodes.len()];
    let mut roots = Vec::new();
    for (i, n) in data.nodes.iter().enumerate() {
        match n.parent {
            Some(p) => children[p].push(i),
            None => roots.push(i),
        }
    }
    let nodes: Vec<Value> = data
        .nodes
        .iter()
        .zip(&children)
        .map(|(n, ch)| {
            let mut node = json!({
                "name": n.name, "translation": n.translation,
                "rotation": n.rotation, "scale": n.scale,
            });
            if !ch.is_empty() {
                node["children"] = json!(ch);
            }
            node
        })
        .collect();
    let uri = format!(
        "data:application/octet-stream;base64,{}",
        base64::engine::general_purpose::STANDARD.encode(&bin)
    );
    let doc = json!({
        "asset": {"version": "2.0", "generator": "skel pose_frames export"},
        "scene": 0,
        "scenes": [{"nodes": roots}],
        "nodes": nodes,
        "skins": skins,
        "animations": animations,
        "buffers": [{"byteLength": bin.len(), "uri": uri}],
        "bufferViews": views,
        "accessors": accessors,
    });
    let text = serde_json::to_string(&doc).map_err(|e| e.to_string())?;
    std::fs::write(file, text).map_err(|e| format!("{}: {e}", file.display()))
}
