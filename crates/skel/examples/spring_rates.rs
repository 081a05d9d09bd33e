//! The data of docs/vrm.md's rate-independence plot: one hair chain of
//! `fixtures/vrm/v1_hair.vrm` under a root that sways 0.3 m side to side for two seconds and
//! then stands still, shown at 24, 30, 60, 144 and 240 Hz. For each rate, the chain's
//! deflection (the angle between its root-to-tip line and that line at rest) at every frame,
//! twice: with skel's fixed 1/60 s step, and stepped once per frame at the display rate as
//! three-vrm steps (`SpringOptions::step` = 1/FPS).
//!
//! ```sh
//! cargo run -p skel --example spring_rates > docs/results/spring_rates.json
//! cargo xtask plots
//! ```

use skel::SecondaryMotion;
use skel::anim::glam::{Affine3A, Vec3};
use skel::anim::spring::{SpringBones, SpringOptions};

const RATES: [u32; 5] = [24, 30, 60, 144, 240];
const SECONDS: f64 = 3.0;

/// Where the root stands at `t` seconds: 0.3 m to either side at 1 Hz, then still.
fn root_at(t: f64) -> Affine3A {
    let x = if t < 2.0 {
        0.3 * (std::f64::consts::TAU * t).sin()
    } else {
        0.0
    };
    #[expect(clippy::cast_possible_truncation, reason = "metres")]
    Affine3A::from_translation(Vec3::new(x as f32, 0.0, 0.0))
}

/// Degrees at every frame of `fps` (frame `k` at `k / fps`, from `k = 1`) with springs made
/// with `options`.
fn run(
    asset: &skel::gltf::GltfAsset,
    options: SpringOptions,
    fps: u32,
) -> Result<Vec<f64>, Box<dyn std::error::Error>> {
    let secondary = skel::SecondaryOptions::default().with_springs(Some(options));
    let motion = SecondaryMotion::from_asset(asset, &secondary)?;
    let springs: &SpringBones = motion.springs().ok_or("no springs")?;
    let head_node = springs.joint_nodes().next().ok_or("no joints")?;
    let rest = springs.rest_trs();
    let mut state = springs.new_state();
    let mut trs = rest.clone();
    let mut pose_at = |t: f64, out: &mut [f32]| {
        out.copy_from_slice(&rest);
        root_at(t)
    };
    // The first hair chain: joints 0, 1, 2 (its head node, its tip the tail of joint 2).
    let line = |state: &skel::anim::spring::SpringState| -> Option<Vec3> {
        let head = Vec3::from(state.world(head_node)?.translation);
        Some(state.tail(2)? - head)
    };
    springs.advance(&mut state, &mut trs, 0.0, &mut pose_at);
    let at_rest = line(&state).ok_or("no chain")?;
    let frame = 1.0 / f64::from(fps);
    let mut points = Vec::new();
    #[expect(
        clippy::cast_possible_truncation,
        clippy::cast_sign_loss,
        reason = "frames"
    )]
    let frames = (SECONDS * f64::from(fps)).round() as u32;
    for _ in 0..frames {
        // Frames land on k / fps exactly: the state's own clock adds the same f64 steps.
        #[expect(clippy::cast_possible_truncation, reason = "a frame's step")]
        springs.advance(&mut state, &mut trs, frame as f32, &mut pose_at);
        let now = line(&state).ok_or("no chain")?;
        let degrees = f64::from(now.angle_between(at_rest).to_degrees());
        points.push((degrees * 1000.0).round() / 1000.0);
    }
    Ok(points)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../fixtures/vrm/v1_hair.vrm"
    );
    let asset = skel::gltf::load_path(path.as_ref(), &skel::gltf::LoadOptions::default())?;
    let mut rates = Vec::new();
    for fps in RATES {
        let fixed = run(&asset, SpringOptions::default(), fps)?;
        #[expect(clippy::cast_precision_loss, reason = "a display rate")]
        let per_frame = SpringOptions {
            step: 1.0 / fps as f32,
            max_steps: u32::MAX,
            ..SpringOptions::default()
        };
        let display = run(&asset, per_frame, fps)?;
        rates.push(serde_json::json!({ "fps": fps, "fixed": fixed, "display": display }));
    }
    let out = serde_json::json!({
        "what": "deflection of v1_hair.vrm's first chain (degrees) under a root swaying 0.3 m \
                 at 1 Hz for 2 s, then still; fixed: skel's 1/60 s step; display: one step per \
                 frame (three-vrm); frame k (from 1) at k / fps s",
        "command": "cargo run -p skel --example spring_rates > docs/results/spring_rates.json",
        "rates": rates,
    });
    println!("{}", serde_json::to_string(&out)?);
    Ok(())
}
