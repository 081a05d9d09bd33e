//! skel's spring-bone cost per joint-step on the VRM fixtures, timed as
//! `scripts/peer/vrm/bench.mjs` times three-vrm's: each fixture's root driven along the
//! goldens' motion (`rootPose` in `goldens.mjs`), the world-current loop order, only the
//! step itself timed (`SpringBones::step`), 5 warm-up rounds and 15 timed rounds of 600 steps,
//! each round restarted from rest; the median round in ns per joint-step. Run it beside
//! `bench.mjs` (`scripts/peer/vrm/speed.sh` runs both) for the ratio the issue asks for.
//!
//! ```text
//! spring_fixtures [FILE.vrm ...]        # default: fixtures/vrm/*.vrm
//! ```
//!
//! Prints one line a fixture: `FIXTURE joints J ns_per_joint_step T joint_steps_per_ms R`.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use glam::{Affine3A, Quat, Vec3};
use skel_anim::spring::{SpringBones, SpringOptions};

const DT: f32 = 1.0 / 60.0;
const STEPS: u32 = 600;
const WARMUP: usize = 5;
const ROUNDS: usize = 15;

/// `goldens.mjs`'s `rootPose`: a sway along x, a walk along z, a turn about y, and a 10 m jump
/// at step 400.
fn root_pose(step: u32) -> Affine3A {
    let t = f64::from(step) * f64::from(DT);
    let jump = if step >= 400 { 10.0 } else { 0.0 };
    let x = 0.5 * (std::f64::consts::TAU * t / 2.0).sin() + jump;
    let angle = 0.8 * (std::f64::consts::TAU * t / 3.0).sin();
    Affine3A::from_rotation_translation(
        Quat::from_rotation_y(angle as f32),
        Vec3::new(x as f32, 0.0, (0.3 * t) as f32),
    )
}

fn main() -> ExitCode {
    let mut files: Vec<PathBuf> = std::env::args().skip(1).map(PathBuf::from).collect();
    if files.is_empty() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/vrm");
        let Ok(entries) = std::fs::read_dir(&dir) else {
            eprintln!("spring_fixtures: no {}", dir.display());
            return ExitCode::FAILURE;
        };
        files = entries
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|e| e == "vrm"))
            .collect();
        files.sort();
    }
    for file in &files {
        let name = file.file_name().unwrap_or_default().to_string_lossy();
        match bench(file) {
            Ok((joints, ns)) => println!(
                "{name} joints {joints} ns_per_joint_step {ns:.1} joint_steps_per_ms {:.0}",
                1e6 / ns
            ),
            Err(e) => println!("{name} skipped: {e}"),
        }
    }
    ExitCode::SUCCESS
}

/// The median round's ns per joint-step, and the joints.
fn bench(file: &Path) -> Result<(usize, f64), String> {
    let asset = skel_gltf::load_path(file, &skel_gltf::LoadOptions::default())
        .map_err(|e| e.to_string())?;
    let springs = asset
        .vrm()
        .and_then(|v| v.spring_bones.as_ref())
        .ok_or("no spring bones")?;
    let options = SpringOptions {
        // three-vrm has no teleport handling; neither does the timed run.
        teleport_distance: f32::INFINITY,
        teleport_angle: f32::INFINITY,
        ..SpringOptions::default()
    };
    let bones = SpringBones::new(&springs.desc, &asset.animation.nodes, options)
        .map_err(|e| e.to_string())?;
    let joints = bones.joint_nodes().count();
    if joints == 0 {
        return Err("no joints".into());
    }
    let rest = bones.rest_trs();
    let mut pose = rest.clone();
    let mut state = bones.new_state();
    let mut round = || {
        bones.reset(&mut state, &rest, root_pose(0));
        let mut ns = 0.0;
        for step in 1..=STEPS {
            pose.copy_from_slice(&rest);
            let root = root_pose(step);
            let t0 = Instant::now();
            bones.step(&mut state, &mut pose, root, DT);
            ns += t0.elapsed().as_secs_f64() * 1e9;
        }
        ns / (f64::from(STEPS) * joints as f64)
    };
    for _ in 0..WARMUP {
        round();
    }
    let mut rounds: Vec<f64> = (0..ROUNDS).map(|_| round()).collect();
    rounds.sort_by(f64::total_cmp);
    Ok((joints, rounds[ROUNDS / 2]))
}
