//! `skel compress ASSET [--clip N|NAME] [--bound CM] [--shell CM] [--unit-m M] [--variable]
//! [--out OUT.glb] [--json]`: what
//! compressed clips cost and how far they stray, per clip: bones, samples, raw bytes (every
//! bone × sample × 10 floats, as the Animation Compression Library counts, and only the
//! animated channels' keys), compressed bytes, both ratios, the largest and the 99th-percentile
//! shell error of the compressed playback against the clip itself (glTF's interpolation in
//! f64, `shell::ClipReference`; the shell in the model's units, the static scale above each
//! joint taken out) at every key and every 1/240 s, the build time, and bytes per clip-second of the
//! compressed clip beside those of the GPU clip set built from it (`GpuClipSet`: f32 frames
//! at the rate resampling chose). The compared figures of ACL itself are in
//! docs/bench-compression.md. With `--out`, the asset is written as one `.glb` whose clips
//! are stored compressed (`SKEL_compressed_animation`), read back, and checked to play bit
//! for bit as the compressed rig did.

use std::fmt::Write as _;
use std::sync::Arc;

use clap::Args;
use serde::Serialize;
use skel::anim::{AnimationController, Compression, KeyFormat, NullSink, Rig, RigOptions, shell};
use skel::gpu::{GpuClipSet, GpuClipSetOptions};

use super::asset_args::{AssetArgs, resolve_clip};

/// Samples per second the error is measured at (besides every key time): four per 60 Hz
/// frame, where a normalised lerp strays most between keys.
const RATE: f32 = 240.0;

/// Arguments of `skel compress`.
#[derive(Debug, Clone, Args)]
pub struct CompressArgs {
    #[command(flatten)]
    asset: AssetArgs,
    /// One clip (index or name); default: every clip.
    #[arg(long)]
    clip: Option<String>,
    /// The largest shell error allowed, in centimetres (ACL's default 0.01).
    #[arg(long, default_value_t = 0.01)]
    bound: f64,
    /// The shell distance around each joint, in centimetres (ACL's default 3).
    #[arg(long, default_value_t = 3.0)]
    shell: f64,
    /// Metres per unit of the asset's world: glTF's metre (1, the default); 0.01 for an
    /// exporter that wrote centimetres (Fox).
    #[arg(long = "unit-m", default_value_t = 1.0)]
    unit_m: f64,
    /// Store keys at variable bit rates (the Animation Compression Library's method) instead of
    /// the default 8- or 16-bit groups. What each costs (docs/bench-compression.md: 21 clips
    /// beside ACL 2.1, the pose pipeline's instructions on 5 assets): variable bit rates store
    /// 0.96 of ACL's bytes and decode in 0.98-1.41 times the instructions of lossless playback;
    /// the default groups store 2.08 times ACL's bytes and decode in 0.94-1.02 times lossless
    /// playback's.
    #[arg(long)]
    variable: bool,
    /// Write the asset as one `.glb` with the compressed clips stored in place of their f32
    /// keys (skel's `SKEL_compressed_animation` extension: skel loads it, other tools refuse
    /// it), each clip whose stored keys are smaller than its f32 keys; with `--clip`, only
    /// that clip.
    #[arg(long)]
    out: Option<std::path::PathBuf>,
    /// Print JSON (docs/bench-json.md, "skel compress") instead of a table.
    #[arg(long)]
    json: bool,
}

/// The JSON `skel compress --json` prints.
#[derive(Debug, Serialize)]
struct Report {
    asset: String,
    bound_cm: f64,
    shell_cm: f64,
    /// `"fixed"` or `"variable"`: [`KeyFormat`].
    keys: &'static str,
    clips: Vec<ClipReport>,
    /// What `--out` wrote; `None` without it.
    out: Option<OutReport>,
}

/// The file `--out` wrote.
#[derive(Debug, Serialize)]
struct OutReport {
    path: String,
    /// Bytes of the source file and its external buffers and images.
    source_bytes: u64,
    /// Bytes of the written `.glb`.
    bytes: u64,
    /// Clips stored compressed in it.
    stored_clips: usize,
}

/// One clip of [`Report`].
#[derive(Debug, Serialize)]
struct ClipReport {
    index: usize,
    name: String,
    bones: usize,
    samples: usize,
    raw_bytes_all_bones: usize,
    raw_bytes_animated: usize,
    compressed_bytes: usize,
    /// Bytes of the clip's stored keys as `--out` writes them (`Rig::stored_keys`): the
    /// accounting of `compressed_bytes` made real; `None` for a clip left lossless.
    stored_bytes: Option<usize>,
    max_error_cm: f64,
    p99_error_cm: f64,
    build_ms: f64,
    /// Bytes per second of the clip in the GPU clip set built from the compressed rig
    /// (`GpuClipTable::bytes_per_second`); `None` where no set can be built.
    gpu_bytes_per_second: Option<f64>,
    /// `compressed_bytes` over the clip's duration; `None` for a clip left lossless or of no
    /// duration.
    compressed_bytes_per_second: Option<f64>,
}

/// Compresses the asset's clips and prints what it cost and how far they stray.
///
/// # Errors
/// When the asset cannot be loaded, the clip is unknown, the bound, shell or unit are not
/// finite and positive, or stdout fails.
pub fn run(args: &CompressArgs) -> Result<(), Box<dyn std::error::Error>> {
    let asset = args.asset.load()?;
    let clips: Vec<usize> = match &args.clip {
        Some(c) => vec![resolve_clip(&asset, c)?],
        None => (0..asset.animation.clips.len()).collect(),
    };
    let to_units = |cm: f64| cm / 100.0 / args.unit_m;
    #[expect(
        clippy::cast_possible_truncation,
        reason = "the compressor's f32 units"
    )]
    let compression = Compression {
        shell: to_units(args.shell) as f32,
        bound: to_units(args.bound) as f32,
        keys: if args.variable {
            KeyFormat::Variable
        } else {
            KeyFormat::Fixed
        },
        ..Compression::default()
    };
    let data = Arc::new(asset.animation.clone());
    let started = std::time::Instant::now();
    let options = RigOptions {
        compression: Some(compression),
        ..RigOptions::default()
    };
    let rig = Rig::with_options(Arc::clone(&data), &options)?;
    let build_ms = started.elapsed().as_secs_f64() * 1e3;
    let joints = joints(&data);
    // The GPU clip set of the compressed rig, when the asset can be posed on the GPU.
    let gpu = GpuClipSet::new(&rig, &GpuClipSetOptions::for_skeletons(&data)).ok();
    let mut report = Report {
        asset: args.asset.asset.display().to_string(),
        bound_cm: args.bound,
        shell_cm: args.shell,
        keys: if args.variable { "variable" } else { "fixed" },
        clips: Vec::new(),
        out: None,
    };
    for &index in &clips {
        let clip = &data.clips[index];
        let samples = clip
            .samplers
            .iter()
            .map(|s| s.input().len())
            .max()
            .unwrap_or(0);
        let outcome = rig.clip_compression(index).copied().unwrap_or_default();
        let keys = clip.samplers.iter().flat_map(|s| s.input().iter().copied());
        let times = shell::sample_times(clip.duration(), RATE, keys);
        let got = world(&rig, index, &times)?;
        let shell_units = to_units(args.shell);
        let mut errors = shell::Errors::default();
        let reference = shell::ClipReference::for_playback(&data, index)
            .ok_or_else(|| format!("no clip {index}"))?;
        let shells: Vec<f64> = joints
            .iter()
            .map(|&j| reference.shell_of(j, shell_units))
            .collect();
        let mut want = Vec::new();
        for (&t, b) in times.iter().zip(got.chunks_exact(data.nodes.len())) {
            reference.world_at(t, &mut want);
            for (&j, &d) in joints.iter().zip(&shells) {
                errors.push(shell::shell_error_f64(&want[j], &b[j], d) * args.unit_m * 100.0);
            }
        }
        report.clips.push(ClipReport {
            index,
            name: clip.name.clone(),
            bones: joints.len(),
            samples,
            raw_bytes_all_bones: joints.len() * samples * 40,
            raw_bytes_animated: outcome.raw_bytes,
            compressed_bytes: outcome.compressed_bytes,
            stored_bytes: rig.stored_keys(index)?.map(|k| k.as_bytes().len()),
            max_error_cm: errors.max(),
            p99_error_cm: errors.percentile(99.0),
            // The rig compresses every clip at once: its build time, shared by each.
            build_ms,
            gpu_bytes_per_second: gpu
                .as_ref()
                .map(|set| f64::from(set.clips[index].bytes_per_second(set.row_vec4s))),
            compressed_bytes_per_second: rig
                .clip_compression(index)
                .filter(|_| clip.duration() > 0.0)
                .map(|c| per_second(c.compressed_bytes, clip.duration())),
        });
    }
    if let Some(out) = &args.out {
        report.out = Some(write_out(args, &rig, &clips, out)?);
    }
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print!("{}", table(&report));
    }
    Ok(())
}

/// Writes `clips` of `rig` stored compressed into `out`, loads the file back and checks that
/// each stored clip plays bit for bit as `rig` plays it.
fn write_out(
    args: &CompressArgs,
    rig: &Arc<Rig>,
    clips: &[usize],
    out: &std::path::Path,
) -> Result<OutReport, Box<dyn std::error::Error>> {
    let count = rig.data().clips.len();
    let mut stored = vec![None; count];
    // A clip is stored compressed where that is smaller than its f32 keys: a clip of a few
    // keys stays as it was (the format's fixed costs outweigh it).
    for &i in clips {
        let raw = rig.clip_compression(i).map_or(0, |c| c.raw_bytes);
        stored[i] = rig.stored_keys(i)?.filter(|k| k.as_bytes().len() < raw);
    }
    skel::gltf::write_compressed_glb_file(&args.asset.asset, &stored, out)?;
    let again = AssetArgs {
        asset: out.to_path_buf(),
        ..args.asset.clone()
    }
    .load()?;
    let reloaded = Rig::new(Arc::new(again.animation))?;
    for (i, _) in stored.iter().enumerate().filter(|(_, k)| k.is_some()) {
        let duration = rig.data().clips[i].duration();
        let times: Vec<f32> = (0..=240).map(|k| duration * k as f32 / 240.0).collect();
        let bits = |r: &Arc<Rig>| -> Result<Vec<u32>, Box<dyn std::error::Error>> {
            Ok(world(r, i, &times)?
                .iter()
                .flat_map(|m| m.map(f32::to_bits))
                .collect())
        };
        if bits(&reloaded)? != bits(rig)? {
            return Err(format!(
                "{}: clip {i} does not play back as compressed",
                out.display()
            )
            .into());
        }
    }
    Ok(OutReport {
        path: out.display().to_string(),
        source_bytes: source_bytes(&args.asset.asset),
        bytes: std::fs::metadata(out)?.len(),
        stored_clips: stored.iter().filter(|k| k.is_some()).count(),
    })
}

/// Bytes of a glTF file and the files beside it that it names (buffers, images).
fn source_bytes(path: &std::path::Path) -> u64 {
    let size = |p: &std::path::Path| std::fs::metadata(p).map_or(0, |m| m.len());
    let mut total = size(path);
    let Ok(doc) = skel::gltf::GltfDocument::from_path(path) else {
        return total;
    };
    let dir = path.parent().unwrap_or_else(|| std::path::Path::new("."));
    let uris = doc
        .json()
        .buffers
        .iter()
        .filter_map(|b| b.uri.clone())
        .chain(doc.json().images.iter().filter_map(|i| i.uri.clone()));
    for uri in uris.filter(|u| !u.starts_with("data:")) {
        total += size(&dir.join(uri));
    }
    total
}

/// `bytes` over `seconds`.
#[expect(clippy::cast_precision_loss, reason = "byte counts")]
fn per_second(bytes: usize, seconds: f32) -> f64 {
    bytes as f64 / f64::from(seconds)
}

/// The skins' joints (every node when the asset has no skin).
fn joints(data: &skel::anim::AnimationData) -> Vec<usize> {
    let mut seen = vec![data.skeletons.is_empty(); data.nodes.len()];
    for b in &data.skeletons {
        for &j in &b.joints {
            seen[j] = true;
        }
    }
    (0..seen.len()).filter(|&j| seen[j]).collect()
}

/// `rig`'s world matrices playing `clip` at `times`: times × nodes, as f32 columns.
fn world(
    rig: &Arc<Rig>,
    clip: usize,
    times: &[f32],
) -> Result<Vec<[f32; 16]>, skel::anim::AnimError> {
    let mut c = AnimationController::from_rig(rig);
    let mut out = Vec::with_capacity(times.len() * rig.node_count());
    for &t in times {
        c.evaluate_at(Some(clip), t, &mut NullSink)?;
        out.extend(c.world_matrices().iter().map(|m| m.to_cols_array()));
    }
    Ok(out)
}

/// The readable table `skel compress` prints without `--json`.
fn table(r: &Report) -> String {
    let mut out = format!(
        "{}: bound {} cm on a {} cm shell\n{:>3}  {:<20} {:>5} {:>7} {:>12} {:>12} {:>10} {:>7} {:>7} {:>10} {:>10} {:>9} {:>10} {:>10}\n",
        r.asset,
        r.bound_cm,
        r.shell_cm,
        "#",
        "clip",
        "bones",
        "samples",
        "raw (all)",
        "raw (anim)",
        "bytes",
        "ratio",
        "ratio",
        "max cm",
        "p99 cm",
        "build ms",
        "GPU B/s",
        "comp B/s"
    );
    for c in &r.clips {
        #[expect(clippy::cast_precision_loss, reason = "byte counts")]
        let ratio = |raw: usize| raw as f64 / c.compressed_bytes.max(1) as f64;
        let rate = |r: Option<f64>| r.map_or_else(|| "-".to_owned(), |r| format!("{r:.0}"));
        let _ = writeln!(
            out,
            "{:>3}  {:<20} {:>5} {:>7} {:>12} {:>12} {:>10} {:>7.2} {:>7.2} {:>10.5} {:>10.5} {:>9.1} {:>10} {:>10}",
            c.index,
            c.name,
            c.bones,
            c.samples,
            c.raw_bytes_all_bones,
            c.raw_bytes_animated,
            c.compressed_bytes,
            ratio(c.raw_bytes_all_bones),
            ratio(c.raw_bytes_animated),
            c.max_error_cm,
            c.p99_error_cm,
            c.build_ms,
            rate(c.gpu_bytes_per_second),
            rate(c.compressed_bytes_per_second)
        );
    }
    out
}
