//! `CharacterBounds::world_box` as a plain program, for instruction counts (valgrind
//! `--tool=cachegrind --cache-sim=no`, the difference of two runs that differ only in BOXES)
//! and times: the boxes of one asset's first clip, posed at 64 times through it beforehand,
//! taken in turn.
//!
//! ```text
//! bounds_frames FILE.glb BOXES
//! ```
//!
//! Prints `parts P boxes B ns_per_box T ns_per_part U checksum C`.

use std::hint::black_box;
use std::path::Path;
use std::process::ExitCode;
use std::time::Instant;

use skel_gltf::{CharacterBounds, CpuPoser, LoadOptions, load_path};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(file), Some(Ok(boxes))) = (args.first(), args.get(1).map(|n| n.parse::<usize>()))
    else {
        eprintln!("usage: bounds_frames FILE.glb BOXES");
        return ExitCode::FAILURE;
    };
    let asset = match load_path(Path::new(file), &LoadOptions::default()) {
        Ok(asset) => asset,
        Err(e) => {
            eprintln!("bounds_frames: {e}");
            return ExitCode::FAILURE;
        }
    };
    let bounds = CharacterBounds::new(&asset);
    let Ok(mut poser) = CpuPoser::new(&asset) else {
        eprintln!("bounds_frames: the asset does not pose");
        return ExitCode::FAILURE;
    };
    let clip = (!asset.animation.clips.is_empty()).then_some(0);
    let duration = clip.map_or(0.0, |c| asset.animation.clips[c].duration());
    let poses: Vec<Vec<skel_anim::glam::Mat4>> = (0..64)
        .map(|i| {
            let _ = poser.pose(&asset, clip, duration * i as f32 / 64.0);
            poser.node_world_matrices().to_vec()
        })
        .collect();
    let mut checksum = 0.0_f32;
    let start = Instant::now();
    for b in 0..boxes {
        if let Some((min, max)) = bounds.world_box(black_box(&poses[b % poses.len()])) {
            checksum += max.x - min.x;
        }
    }
    let ns = start.elapsed().as_secs_f64() * 1e9 / boxes.max(1) as f64;
    println!(
        "parts {} boxes {boxes} ns_per_box {ns:.1} ns_per_part {:.2} checksum {checksum}",
        bounds.part_count(),
        ns / bounds.part_count().max(1) as f64
    );
    ExitCode::SUCCESS
}
