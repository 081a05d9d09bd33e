//! How long retargeting takes: RobotExpressive's 14 clips onto Superhero_Male_FullBody,
//! auto-mapped, the median of several runs (map detection included; loading not).
//!
//! ```text
//! cargo run --release -p skel-retarget --example retarget_speed -- [RUNS]
//! ```

use std::time::Instant;

use skel_anim::{AnimationData, Handedness};
use skel_gltf::{LoadOptions, load_path};
use skel_retarget::{HumanoidMap, RetargetOptions, retarget};

const ASSETS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/assets/");

fn load(rel: &str) -> Result<AnimationData, Box<dyn std::error::Error>> {
    let opts = LoadOptions {
        handedness: Handedness::RightHanded,
        decode_images: false,
    };
    Ok(load_path(&std::path::Path::new(ASSETS).join(rel), &opts)?.animation)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let runs: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(21);
    let source = load("RobotExpressive/RobotExpressive.glb")?;
    let target = load("Superhero_Male_FullBody/Superhero_Male_FullBody.gltf")?;
    let mut times = Vec::with_capacity(runs);
    let mut keys = 0;
    for _ in 0..runs.max(1) {
        let start = Instant::now();
        let map = HumanoidMap::pair(
            &HumanoidMap::detect(&source)?,
            &HumanoidMap::detect(&target)?,
        );
        let clips = retarget(&source, &target, &map, &RetargetOptions::default())?;
        times.push(start.elapsed().as_secs_f64() * 1e3);
        keys = clips
            .iter()
            .flat_map(|c| &c.samplers)
            .map(|s| s.input().len())
            .sum::<usize>();
    }
    times.sort_by(f64::total_cmp);
    println!(
        "{} clips, {keys} keys rewritten: median {:.2} ms over {} runs (min {:.2}, max {:.2})",
        source.clips.len(),
        times[times.len() / 2],
        times.len(),
        times[0],
        times[times.len() - 1]
    );
    Ok(())
}
