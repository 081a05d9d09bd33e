//! The shell error of lossy playback against skel's lossless sampling (the compressed
//! clips; the metric is `skel_anim::shell`), on the benchmark assets of `pose_frames`.
//!
//! ```text
//! shell_error times ASSET FILE   # the sample times (60 Hz and every key time), one a line
//! shell_error ozz ASSET DUMP     # ozz's model matrices (`harness --model … DUMP`) against skel's
//! shell_error skel ASSET         # skel's compressed clips (ACL's default bound) against lossless
//! ```
//!
//! `ozz` compares in the skeleton's model space as ozz defines it: the skin's root joint
//! (gltf2ozz's skeleton root) at the identity. skel's world matrices are taken there by the
//! inverse of the world matrix of that root's parent at the same time; the mesh's rest frame
//! that skel poses in internally plays no part (`AnimationController::world_matrices` is the
//! glTF world, mirrored in x for left-handed loading: a root without a parent is unmirrored). The joints measured are the skins' joints (the J of the benchmarks); the shell
//! is 3 cm in the asset's units (`support::unit_metres`); the times are every 1/240 s and every
//! key time. Prints one line:
//! `asset A joints J times T unit_m U shell S max_cm E p99_cm E p50_cm E worst JOINT at TIME`.

#[path = "../benches/support/mod.rs"]
mod support;

#[path = "shared/ozz_names.rs"]
mod ozz_names;

use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;

use glam::DMat4;
use skel_anim::{AnimationController, Compression, Handedness, NullSink, Rig, RigOptions, shell};

/// Samples per second besides the key times: four per 60 Hz frame, so that a clip keyed at 30
/// or 60 Hz is also measured a quarter and three quarters of the way between keys, where a
/// normalised lerp strays most (at keys and half-way it meets the slerp).
const RATE: f32 = 240.0;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let result = match args.as_slice() {
        ["times", asset, file] => load(asset).and_then(|a| write_times(&a, Path::new(file))),
        ["ozz", asset, dump] => load(asset).and_then(|a| vs_ozz(&a, Path::new(dump))),
        ["skel", asset] => load(asset).and_then(|a| compressed(&a)),
        _ => Err("usage: shell_error times ASSET FILE | ozz ASSET DUMP | skel ASSET".into()),
    };
    match result {
        Ok(line) => {
            println!("{line}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("shell_error: {e}");
            ExitCode::FAILURE
        }
    }
}

fn load(name: &str) -> Result<support::Loaded, String> {
    let spec = support::ASSETS
        .iter()
        .find(|a| a.name == name)
        .ok_or_else(|| format!("no benchmark asset named {name}"))?;
    support::load(*spec).ok_or_else(|| format!("{name}: asset file missing"))
}

/// The times of `asset`'s clip that errors are measured at.
fn times(asset: &support::Loaded) -> Vec<f32> {
    let clip = &asset.data.clips[asset.clip];
    let keys = clip.samplers.iter().flat_map(|s| s.input().iter().copied());
    shell::sample_times(clip.duration(), RATE, keys)
}

fn write_times(asset: &support::Loaded, file: &Path) -> Result<String, String> {
    let t = times(asset);
    let text: String = t.iter().map(|t| format!("{t:e}\n")).collect();
    std::fs::write(file, text).map_err(|e| format!("{}: {e}", file.display()))?;
    Ok(format!("times {}", t.len()))
}

/// The skins' joints (each once, in node order).
fn joints(asset: &support::Loaded) -> Vec<usize> {
    let mut seen = vec![false; asset.data.nodes.len()];
    for b in &asset.data.skeletons {
        for &j in &b.joints {
            seen[j] = true;
        }
    }
    (0..seen.len()).filter(|&j| seen[j]).collect()
}

/// skel's lossless world matrices of every node at each of `times` (times × nodes).
fn skel_world(asset: &support::Loaded, times: &[f32]) -> Result<Vec<Vec<DMat4>>, String> {
    let rig = Rig::new(Arc::clone(&asset.data)).map_err(|e| e.to_string())?;
    world_of(&rig, asset.clip, times)
}

/// `rig`'s world matrices of every node playing `clip` at each of `times` (times × nodes).
fn world_of(rig: &Arc<Rig>, clip: usize, times: &[f32]) -> Result<Vec<Vec<DMat4>>, String> {
    let mut c = AnimationController::from_rig(rig);
    times
        .iter()
        .map(|&t| {
            c.evaluate_at(Some(clip), t, &mut NullSink)
                .map_err(|e| e.to_string())?;
            Ok(c.world_matrices().iter().map(|m| m.as_dmat4()).collect())
        })
        .collect()
}

/// The harness's dump: duration, size, joint names and parents, and per time per joint a
/// matrix.
struct Dump {
    duration: f32,
    /// ozz's runtime animation in bytes (`Animation::size`).
    bytes: usize,
    names: Vec<String>,
    parents: Vec<i32>,
    matrices: Vec<f32>,
}

fn read_dump(path: &Path) -> Result<Dump, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut lines = text.lines();
    let mut header = |key: &str| {
        lines
            .next()
            .and_then(|l| l.strip_prefix(key))
            .map(str::trim)
            .ok_or_else(|| format!("{}: no {key:?} line", path.display()))
            .map(str::to_owned)
    };
    let duration: f32 = header("duration ")?.parse().map_err(|_| "bad duration")?;
    let bytes: usize = header("bytes ")?.parse().map_err(|_| "bad size")?;
    let count: usize = header("joints ")?.parse().map_err(|_| "bad joint count")?;
    let (mut names, mut parents) = (Vec::new(), Vec::new());
    for line in lines.take(count) {
        let (name, parent) = line.rsplit_once('\t').ok_or("bad joint line")?;
        names.push(name.to_owned());
        parents.push(parent.parse().map_err(|_| "bad parent")?);
    }
    let bin = path.with_extension(
        path.extension()
            .map_or("bin".into(), |e| format!("{}.bin", e.to_string_lossy())),
    );
    let raw = std::fs::read(&bin).map_err(|e| format!("{}: {e}", bin.display()))?;
    let matrices = raw
        .chunks_exact(4)
        .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect();
    Ok(Dump {
        duration,
        bytes,
        names,
        parents,
        matrices,
    })
}

/// ozz's model matrices (the harness's dump at `times(asset)`) against skel's lossless ones.
fn vs_ozz(asset: &support::Loaded, dump: &Path) -> Result<String, String> {
    let t = times(asset);
    let dump = read_dump(dump)?;
    let n = dump.names.len();
    if dump.matrices.len() != t.len() * n * 16 {
        return Err(format!(
            "the dump holds {} floats, not {} times × {n} joints × 16: was it written for these times?",
            dump.matrices.len(),
            t.len()
        ));
    }
    let data = &asset.data;
    let names = ozz_names::ozz_names(data.nodes.iter().map(|n| n.name.as_str()), "node_");
    let node_of = |name: &str| names.iter().position(|n| n == name);
    // Each skin joint's ozz index and the glTF parent of its ozz root (what model space is
    // relative to).
    let mut measured = Vec::new();
    for j in joints(asset) {
        let o = dump
            .names
            .iter()
            .position(|n| *n == names[j])
            .ok_or_else(|| format!("joint {} is not in ozz's skeleton", names[j]))?;
        let mut root = o;
        while let Ok(p) = usize::try_from(dump.parents[root]) {
            root = p;
        }
        let root_node = node_of(&dump.names[root]).ok_or("ozz root not in the asset")?;
        measured.push((j, o, data.nodes[root_node].parent));
    }
    let world = skel_world(asset, &t)?;
    // The clip's translation, rotation and scale keys as f32 (what compression is measured
    // against; key times not counted).
    let clip = &data.clips[asset.clip];
    let raw: usize = clip
        .channels
        .iter()
        .filter(|c| c.path != skel_anim::ChannelPath::Weights)
        .map(|c| 4 * clip.samplers[c.sampler].output().len())
        .sum();
    // A root's world matrix carries the left-handed flip when the asset is loaded so (the
    // loader's default); ozz's model space does not.
    let flip = match data.handedness {
        Handedness::LeftHanded => DMat4::from_cols_array(&skel_math::RH_TO_LH.map(f64::from)),
        Handedness::RightHanded => DMat4::IDENTITY,
    };
    let unit = support::unit_metres(asset.spec.name);
    let d = shell::SHELL_METRES / unit;
    let mut errors = shell::Errors::default();
    let mut worst = (0.0, 0, 0.0);
    for (k, (&time, w)) in t.iter().zip(&world).enumerate() {
        for &(j, o, above) in &measured {
            let model = above.map_or(flip * w[j], |p| w[p].inverse() * w[j]);
            let reference = model.to_cols_array().map(|v| v as f32);
            let at = (k * n + o) * 16;
            let e = shell::shell_error(&reference, &dump.matrices[at..at + 16], d) * unit;
            if e > worst.0 {
                worst = (e, j, time);
            }
            errors.push(e);
        }
    }
    #[expect(clippy::cast_precision_loss, reason = "byte counts")]
    let ratio = raw as f64 / dump.bytes.max(1) as f64;
    Ok(format!(
        "asset {} joints {} times {} samples {} unit_m {unit} shell {d} bound_cm {} \
         skel_duration {} ozz_duration {} max_cm {:.5} p99_cm {:.5} p50_cm {:.5} worst {} at {} \
         raw_bytes {raw} ozz_bytes {} ratio_raw {:.2}",
        asset.spec.name,
        measured.len(),
        t.len(),
        errors.len(),
        shell::BOUND_METRES * 100.0,
        data.clips[asset.clip].duration(),
        dump.duration,
        errors.max() * 100.0,
        errors.percentile(99.0) * 100.0,
        errors.percentile(50.0) * 100.0,
        names[worst.1],
        worst.2,
        dump.bytes,
        ratio,
    ))
}

/// skel's compressed playback (`RigOptions::compression`, ACL's default bound in the asset's
/// unit) against its lossless playback, joint by joint in model space (each joint relative to
/// the parent of its topmost joint ancestor, as gltf2ozz roots a skeleton; without one, the
/// scene's world unmirrored), at the times `vs_ozz` measures, with the compressor's report.
fn compressed(asset: &support::Loaded) -> Result<String, String> {
    let unit = support::unit_metres(asset.spec.name);
    #[expect(clippy::cast_possible_truncation, reason = "a unit, 0.01 or 1")]
    let compression = Compression::for_unit(unit as f32);
    let options = RigOptions {
        compression: Some(compression),
        ..RigOptions::default()
    };
    let data = &asset.data;
    let started = std::time::Instant::now();
    let rig = Rig::with_options(Arc::clone(data), &options).map_err(|e| e.to_string())?;
    let build_ms = started.elapsed().as_secs_f64() * 1e3;
    let report = *rig
        .clip_compression(asset.clip)
        .ok_or("the clip is not compressed (not played four nodes at a time)")?;
    let lossless = Rig::new(Arc::clone(data)).map_err(|e| e.to_string())?;
    let t = times(asset);
    let (want, got) = (
        world_of(&lossless, asset.clip, &t)?,
        world_of(&rig, asset.clip, &t)?,
    );
    let joints = joints(asset);
    let is_joint = |n: usize| joints.binary_search(&n).is_ok();
    let above = |mut j: usize| {
        while let Some(p) = data.nodes[j].parent.filter(|&p| is_joint(p)) {
            j = p;
        }
        data.nodes[j].parent
    };
    let model = |w: &[DMat4], j: usize| above(j).map_or(w[j], |p| w[p].inverse() * w[j]);
    let d = shell::SHELL_METRES / unit;
    let mut errors = shell::Errors::default();
    for (a, b) in want.iter().zip(&got) {
        for &j in &joints {
            let (r, l) = (model(a, j), model(b, j));
            let (r, l) = (
                r.to_cols_array().map(|v| v as f32),
                l.to_cols_array().map(|v| v as f32),
            );
            errors.push(shell::shell_error(&r, &l, d) * unit);
        }
    }
    Ok(format!(
        "asset {} joints {} times {} samples {} unit_m {unit} max_cm {:.5} p99_cm {:.5} \
         p50_cm {:.5} raw_bytes {} lossless_bytes {} compressed_bytes {} ratio_raw {:.2} \
         memory_bytes {} held {} packed {} f32 {} nlerp {} chosen_max_cm {:.5} build_ms {build_ms:.1}",
        asset.spec.name,
        joints.len(),
        t.len(),
        errors.len(),
        errors.max() * 100.0,
        errors.percentile(99.0) * 100.0,
        errors.percentile(50.0) * 100.0,
        report.raw_bytes,
        report.lossless_bytes,
        report.compressed_bytes,
        report.ratio(),
        report.memory_bytes,
        report.held,
        report.packed,
        report.float32,
        report.nlerp,
        f64::from(report.max_error) * unit * 100.0,
    ))
}
