//! skel's compressed clips beside the Animation Compression Library's on the same clips
//! (`scripts/acl/compare.sh` drives it; the metric is `skel_anim::shell`).
//!
//! ```text
//! acl_compare export DIR         # every clip as ACL's .acl.sjson (uniform samples, centimetres)
//! acl_compare ours [ID]          # skel's KeyFormat::Variable clips: one JSON object a line
//! acl_compare ours-fixed [ID]    # the same with KeyFormat::Fixed
//! ```
//!
//! The clips: CesiumMan, Fox's three (its unit is the centimetre), RobotExpressive's fourteen,
//! the generated Walk67 and Rig368, and Long65 (60 s of 30 Hz motion on 65 joints, generated
//! here). The joints are the skins' joints, in model space: each joint relative to the parent
//! of its topmost joint ancestor, so that the shell is in the model's units (RobotExpressive's
//! scale-100 armature node undone), measured against the clip itself in f64. ACL receives each joint's
//! transform relative to its nearest joint ancestor, sampled from skel's lossless playback at
//! the clip's key rate, translations in centimetres, so that ACL's defaults (0.01 cm on a 3 cm
//! shell) apply unchanged.

#[path = "../benches/support/mod.rs"]
mod support;

#[path = "shared/acl_clips.rs"]
mod acl_clips;

use std::fmt::Write as _;
use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;

use acl_clips::{Clip, clips};
use glam::{DMat4, DQuat};
use skel_anim::{Compression, KeyFormat, Rig, RigOptions, shell};

/// Samples per second besides the key times (as `shell_error`).
const RATE: f32 = 240.0;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let result = match args.as_slice() {
        ["export", dir] => export(Path::new(dir)),
        ["ours"] => ours(KeyFormat::Variable, ""),
        ["ours", only] => ours(KeyFormat::Variable, only),
        ["ours-fixed"] => ours(KeyFormat::Fixed, ""),
        ["ours-fixed", only] => ours(KeyFormat::Fixed, only),
        _ => Err("usage: acl_compare export DIR | ours [ID] | ours-fixed [ID]".into()),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("acl_compare: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Writes every clip as `DIR/<id>.acl.sjson` and prints `id bones samples rate` a line.
fn export(dir: &Path) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    for c in clips()? {
        let (samples, rate) = c.uniform_samples();
        #[expect(clippy::cast_precision_loss, reason = "a few thousand samples")]
        let times: Vec<f32> = (0..samples).map(|k| k as f32 / rate).collect();
        let model = c.model_matrices(
            &Rig::new(Arc::clone(&c.data)).map_err(|e| e.to_string())?,
            &times,
        )?;
        let cm = 100.0 * c.unit;
        let mut text = format!(
            "version = 5\n\nclip =\n{{\n\tname = \"{}\"\n\tnum_samples = {samples}\n\tsample_rate = {rate}\n\tis_binary_exact = false\n}}\n\nbones =\n[\n",
            c.id
        );
        for (i, &j) in c.joints.iter().enumerate() {
            let parent = c.parent[i].map_or(String::new(), |p| c.name(c.joints[p]));
            let _ = writeln!(
                text,
                "\t{{\n\t\tname = \"{}\"\n\t\tparent = \"{parent}\"\n\t\tvertex_distance = 3.0\n\t}}",
                c.name(j)
            );
        }
        text.push_str("]\n\ntracks =\n[\n");
        for (i, &j) in c.joints.iter().enumerate() {
            let (mut rot, mut tra, mut sca) = (String::new(), String::new(), String::new());
            let mut previous = DQuat::IDENTITY;
            for m in &model {
                let local = c.parent[i].map_or(m[i], |p| m[p].inverse() * m[i]);
                let (s, mut r, t) = local.to_scale_rotation_translation();
                if r.dot(previous) < 0.0 {
                    r = -r;
                }
                previous = r;
                let t = t * cm;
                #[expect(clippy::cast_possible_truncation, reason = "ACL reads f32")]
                let f = |v: f64| v as f32;
                let _ = writeln!(
                    rot,
                    "\t\t\t[ {:e}, {:e}, {:e}, {:e} ]",
                    f(r.x),
                    f(r.y),
                    f(r.z),
                    f(r.w)
                );
                let _ = writeln!(tra, "\t\t\t[ {:e}, {:e}, {:e} ]", f(t.x), f(t.y), f(t.z));
                let _ = writeln!(sca, "\t\t\t[ {:e}, {:e}, {:e} ]", f(s.x), f(s.y), f(s.z));
            }
            let _ = writeln!(
                text,
                "\t{{\n\t\tname = \"{}\"\n\t\trotations =\n\t\t[\n{rot}\t\t]\n\t\ttranslations =\n\t\t[\n{tra}\t\t]\n\t\tscales =\n\t\t[\n{sca}\t\t]\n\t}}",
                c.name(j)
            );
        }
        text.push_str("]\n");
        let file = dir.join(format!("{}.acl.sjson", c.id));
        std::fs::write(&file, text).map_err(|e| format!("{}: {e}", file.display()))?;
        println!("{} {} {samples} {rate}", c.id, c.joints.len());
    }
    Ok(())
}

/// skel's compressed clips (ACL's default bound in each asset's unit) against the clip itself
/// (f64, glTF's interpolation; the joints in model space, whose unit is the model's), at
/// every 1/240 s and every key time, its keys stored as `keys` says: one JSON object per clip
/// (those whose id contains `only`).
fn ours(keys: KeyFormat, only: &str) -> Result<(), String> {
    for c in clips()?.into_iter().filter(|c| c.id.contains(only)) {
        #[expect(clippy::cast_possible_truncation, reason = "a unit, 0.01 or 1")]
        let options = RigOptions {
            compression: Some(Compression {
                keys,
                ..Compression::for_unit(c.world_unit as f32)
            }),
            ..RigOptions::default()
        };
        let started = std::time::Instant::now();
        let rig = Rig::with_options(Arc::clone(&c.data), &options).map_err(|e| e.to_string())?;
        let build_ms = started.elapsed().as_secs_f64() * 1e3;
        let report = rig.clip_compression(c.clip).copied().unwrap_or_default();
        let clip = &c.data.clips[c.clip];
        let keys = clip.samplers.iter().flat_map(|s| s.input().iter().copied());
        let times = shell::sample_times(clip.duration(), RATE, keys);
        let (want, got) = (
            c.clip_model_matrices(&times)?,
            c.model_matrices(&rig, &times)?,
        );
        let d = shell::SHELL_METRES / c.unit;
        let mut errors = shell::Errors::default();
        for (a, b) in want.iter().zip(&got) {
            for (r, l) in a.iter().zip(b) {
                let r = r.to_cols_array();
                errors.push(shell::shell_error_f64(&r, &f32s(l), d) * c.unit * 100.0);
            }
        }
        let (samples, _) = c.uniform_samples();
        // The bytes a file holds for the clip (`skel compress --out`), beside the accounting.
        let stored = rig
            .stored_keys(c.clip)
            .map_err(|e| e.to_string())?
            .map_or(0, |k| k.as_bytes().len());
        println!(
            "{{\"id\": \"{}\", \"bones\": {}, \"samples\": {samples}, \"raw_bytes_all_bones\": {}, \
             \"raw_bytes_animated\": {}, \"compressed_bytes\": {}, \"stored_bytes\": {stored}, \
             \"max_error_cm\": {:.6}, \
             \"p99_error_cm\": {:.6}, \"times\": {}, \"build_ms\": {build_ms:.2}}}",
            c.id,
            c.joints.len(),
            c.joints.len() * samples * 40,
            report.raw_bytes,
            report.compressed_bytes,
            errors.max(),
            errors.percentile(99.0),
            times.len(),
        );
    }
    Ok(())
}

/// A matrix as the f32 the metric compares.
fn f32s(m: &DMat4) -> [f32; 16] {
    #[expect(
        clippy::cast_possible_truncation,
        reason = "the playback's own precision"
    )]
    m.to_cols_array().map(|v| v as f32)
}

impl Clip {
    /// The clip's joint name, made safe for ACL's file.
    fn name(&self, node: usize) -> String {
        format!(
            "{node}_{}",
            self.data.nodes[node].name.replace(['"', '\\'], "_")
        )
    }
}
