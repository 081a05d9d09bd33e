//! Compressed playback of every clip of every shared asset against its lossless playback, for
//! both key formats: the virtual-shell error of every node (ACL's metric, model space, f64 on
//! the played f32 matrices) stays within the compression's bound at every key time and every
//! eighth of a key interval (where the compressor measures), and within [`OFF_GRID_SLACK`] of
//! it at 240 Hz over the whole clip and at 64 random times per clip, and `KeyFormat::Variable`'s keys of any
//! clip past a few keys are smaller than the f32 keys they replace. The compressor itself
//! accepts a clip on keys and eighths of key intervals; measuring off that grid (240 Hz falls
//! between eighths of 24 Hz keys, random times anywhere) is what can see an error it never
//! measured. What the bound promises, held on real files rather than generated motion (the
//! golden tests hold the lossless playback to three.js; this holds the compressed one to it).
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

mod common;

use std::sync::Arc;

use skel_anim::glam::Mat4;
use skel_anim::{AnimationData, Compression, KeyFormat, NullSink, Player, Rig, RigOptions};
use skel_gltf::{LoadOptions, load_path};

/// The largest shell error over every node between two poses (the metric of `skel compress`
/// and the ACL comparison, `skel_anim::shell`).
fn shell_error(want: &[Mat4], got: &[Mat4], d: f64) -> f64 {
    want.iter().zip(got).fold(0.0, |worst, (a, b)| {
        worst.max(skel_anim::shell::shell_error(a.as_ref(), b.as_ref(), d))
    })
}

/// Playback rate of the dense sweep: a 240 Hz display's frames from the clip's start, which
/// fall between the eighths of 24 and 30 Hz keys (the shared assets' rates) as well as on them.
const SWEEP_HZ: f32 = 240.0;
/// Random times per clip, uniform over its duration.
const RANDOM_TIMES: usize = 64;
/// How far past the bound the error may go off the compressor's grid, as a factor. The
/// compressor accepts a clip where it measures, at keys and every eighth of a key interval
/// (`skel_anim`'s `compile/compressor.rs`), so the bound is a promise there only; between
/// eighths the error of the interpolated keys is not measured by anything but this test. On
/// the shared assets it is at most 1.027 times the bound (Fox Survey, `KeyFormat::Variable`:
/// 1.0262e-4 at 0.7458 s, nine tenths into a 1/24 s key interval, against 1e-4): 5 % keeps
/// that gap from growing unseen; a compressor that held the bound everywhere would let this be 1.
const OFF_GRID_SLACK: f64 = 1.05;

/// Deterministic xorshift64* in [0, 1), so a failure reproduces.
struct Rng(u64);

impl Rng {
    fn next_unit(&mut self) -> f32 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        let bits = self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 40;
        bits as f32 / (1u64 << 24) as f32
    }
}

/// Clip `clip`'s times to measure: `(grid, off_grid)`. The grid is every sampler's key time
/// and every eighth between two of them (where the compressor measures); off the grid, every
/// 1/[`SWEEP_HZ`] s from the clip's first key to its last and [`RANDOM_TIMES`] random times.
fn measured_times(data: &AnimationData, clip: usize, rng: &mut Rng) -> (Vec<f32>, Vec<f32>) {
    let mut keys: Vec<f32> = data.clips[clip]
        .samplers
        .iter()
        .flat_map(|s| s.input().iter().copied())
        .collect();
    keys.sort_by(f32::total_cmp);
    keys.dedup();
    let mut grid: Vec<f32> = keys
        .windows(2)
        .flat_map(|w| (0..8).map(move |e| w[0] + (w[1] - w[0]) * e as f32 / 8.0))
        .collect();
    grid.extend(keys.last());
    let mut off_grid = Vec::new();
    if let (Some(&start), Some(&end)) = (keys.first(), keys.last())
        && end > start
    {
        let frames = ((end - start) * SWEEP_HZ).ceil() as usize;
        off_grid.extend((0..=frames).map(|k| (start + k as f32 / SWEEP_HZ).min(end)));
        off_grid.extend((0..RANDOM_TIMES).map(|_| start + (end - start) * rng.next_unit()));
    }
    (grid, off_grid)
}

fn pose(player: &mut Player, clip: usize, t: f32) -> Vec<Mat4> {
    player
        .evaluate_clip_at(Some(clip), t, &mut NullSink)
        .unwrap();
    player.world_matrices().to_vec()
}

#[test]
fn compressed_clips_of_every_shared_asset_stay_within_the_bound() {
    let Some(shared) =
        common::shared_dir("compressed_clips_of_every_shared_asset_stay_within_the_bound")
    else {
        return;
    };
    let mut clips_checked = 0;
    let mut times_checked = 0;
    let mut worst_off_ratio = 0.0_f64;
    let mut report = Vec::new();
    for path in common::asset_files(&shared.join("assets")) {
        let asset = load_path(&path, &LoadOptions::default())
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let data = Arc::new(asset.animation);
        let folder = path.file_stem().unwrap().to_string_lossy().into_owned();
        let lossless = Rig::new(Arc::clone(&data)).unwrap();
        for keys in [KeyFormat::Fixed, KeyFormat::Variable] {
            let compression = Compression {
                keys,
                ..Compression::default()
            };
            let options = RigOptions {
                compression: Some(compression),
                ..RigOptions::default()
            };
            let rig = Rig::with_options(Arc::clone(&data), &options).unwrap();
            let (mut a, mut b) = (Player::new(&lossless), Player::new(&rig));
            let mut rng = Rng(0x9E37_79B9_7F4A_7C15 ^ (data.nodes.len() as u64));
            for clip in 0..data.clips.len() {
                let (grid, off_grid) = measured_times(&data, clip, &mut rng);
                times_checked += grid.len() + off_grid.len();
                let shell = f64::from(compression.shell);
                let mut worst = |times: &[f32]| {
                    times.iter().fold(0.0_f64, |w, &t| {
                        w.max(shell_error(
                            &pose(&mut a, clip, t),
                            &pose(&mut b, clip, t),
                            shell,
                        ))
                    })
                };
                let (on, off) = (worst(&grid), worst(&off_grid));
                let bound = f64::from(compression.bound);
                report.push(format!(
                    "{folder} clip {clip} {keys:?}: {on:.3e} on the grid, {off:.3e} off it"
                ));
                worst_off_ratio = worst_off_ratio.max(off / bound);
                assert!(
                    on <= bound,
                    "{folder} clip {clip} {keys:?}: shell error {on:e} over the bound {bound} \
                     at a key or an eighth of a key interval"
                );
                assert!(
                    off <= bound * OFF_GRID_SLACK,
                    "{folder} clip {clip} {keys:?}: shell error {off:e} over {OFF_GRID_SLACK} \
                     times the bound {bound} between the compressor's measured times"
                );
                if let Some(c) = rig.clip_compression(clip) {
                    assert!(
                        c.max_error <= compression.bound,
                        "{folder} clip {clip}: {c:?}"
                    );
                    // A file's header and per-node kinds outweigh the keys of a clip of a
                    // few keys (AnimatedCube: 48 bytes of keys); the fixed format keeps f32
                    // groups where 16 bits miss the bound (Fox, whose unit is the
                    // centimetre, at a bound of 10⁻⁴ units), four lanes at a time.
                    assert!(
                        keys == KeyFormat::Fixed
                            || c.raw_bytes < 4096
                            || c.compressed_bytes < c.raw_bytes,
                        "{folder} clip {clip} {keys:?}: {c:?}"
                    );
                }
                clips_checked += 1;
            }
        }
    }
    eprintln!("{}", report.join("\n"));
    eprintln!(
        "{clips_checked} clips, {times_checked} times; off the grid at most {worst_off_ratio:.4} \
         times the bound"
    );
    // 19 assets, 14 of them with clips (RobotExpressive alone has 14), both formats.
    assert!(clips_checked >= 60, "{clips_checked} clips checked");
}
