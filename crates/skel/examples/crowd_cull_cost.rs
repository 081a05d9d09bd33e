//! What culling costs a CPU-posed crowd, two ways timed frame by frame in turn (so that a
//! machine whose speed drifts slows both alike): boxes made by `Crowd::cull` from the bone
//! array after the tick, and boxes made inside `Crowd::tick` (`CrowdDescriptor::boxes_in_tick`)
//! with the cull testing the kept boxes. Half the crowd stands in front of the camera. Each
//! round prints the medians over its frames: both ticks and culls, the tick time the boxes add
//! (the median of the frames' differences), and the cull's ns per bone each way, the second
//! counting the boxes' share of the tick.
//!
//! `RAYON_NUM_THREADS=1 cargo run --release -p skel --features rayon --example crowd_cull_cost
//! -- ../shared/assets/CesiumMan/CesiumMan.glb 10000 30 4` (asset, instances, frames, rounds)
#![allow(clippy::print_stdout, reason = "an example prints what it measured")]

use std::time::Instant;

use skel::gpu::GpuContext;
use skel::gpu::glam::{Mat4, Vec3};
use skel::{Crowd, CrowdDescriptor, LoadOptions, load_gltf};

const FIXTURE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../fixtures/default_character.glb"
);

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let path = args.next().unwrap_or_else(|| FIXTURE.to_owned());
    let mut number = |default: usize| args.next().map_or(Ok(default), |a| a.parse());
    let (instances, frames, rounds) = (number(100)?, number(10)?, number(2)?);
    // The crowd's buffers need a device (lavapipe will do); nothing here runs on it.
    let ctx = GpuContext::new_headless()?;
    let asset = load_gltf(&ctx, std::path::Path::new(&path), &LoadOptions::default())?;
    let crowd = |boxes_in_tick| {
        Crowd::new(
            &ctx,
            &asset,
            &CrowdDescriptor {
                instances: u32::try_from(instances).unwrap_or(u32::MAX),
                compute: false,
                boxes_in_tick,
                ..CrowdDescriptor::default()
            },
        )
    };
    let mut crowds = [crowd(false)?, crowd(true)?];
    // The camera at the origin looking down −z; rows of 32 a metre apart, the first half of the
    // crowd from 3 m in front of it on, the second half from 3 m behind it.
    let view_projection = Mat4::perspective_rh(std::f32::consts::FRAC_PI_2, 1.0, 0.1, 1.0e6)
        * Mat4::look_at_rh(Vec3::ZERO, Vec3::NEG_Z, Vec3::Y);
    let placements: Vec<Mat4> = (0..instances)
        .map(|i| {
            let (k, side) = (
                i % (instances / 2).max(1),
                if i < instances / 2 { -1.0 } else { 1.0 },
            );
            let (col, row) = ((k % 32) as f32, (k / 32) as f32);
            Mat4::from_translation(Vec3::new((col - 15.5) * 0.1, -0.8, side * (3.0 + row)))
        })
        .collect();
    let bones = (instances * crowds[0].bone_matrices(0).len()) as f64;
    let ms = |t: Instant| t.elapsed().as_secs_f64() * 1e3;
    let median = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    for round in 0..rounds {
        // [tick, cull] × [plain, boxed], one entry a frame.
        let mut times: [[Vec<f64>; 2]; 2] = Default::default();
        for frame in 0..frames + 3 {
            // Which way goes first alternates with the frame.
            for k in [frame % 2, 1 - frame % 2] {
                let t = Instant::now();
                crowds[k].tick(1.0 / 60.0);
                let tick = ms(t);
                let t = Instant::now();
                crowds[k].cull(view_projection, &placements)?;
                // The first frames warm the caches and the pool up.
                if frame >= 3 {
                    times[0][k].push(tick);
                    times[1][k].push(ms(t));
                }
            }
            assert_eq!(crowds[0].visible(), crowds[1].visible());
        }
        let [plain, boxed] = &times[0];
        let mut added: Vec<f64> = boxed.iter().zip(plain).map(|(b, p)| b - p).collect();
        let [[tick_plain, tick_boxed], [cull_plain, cull_boxed]] =
            times.map(|pair| pair.map(|mut v| median(&mut v)));
        let added = median(&mut added);
        let ns = |ms: f64| ms * 1e6 / bones;
        println!(
            "round {round}: tick {tick_plain:.3} / {tick_boxed:.3} ms (boxes add {added:.3}), \
             cull {cull_plain:.3} / {cull_boxed:.3} ms; ns per bone: cull from the bone array \
             {:.2}, boxes in tick + cull {:.2} ({} of {instances} seen)",
            ns(cull_plain),
            ns(added + cull_boxed),
            crowds[1].visible_count()
        );
    }
    Ok(())
}
