//! `skel render --terrain`: the ground is drawn under the character and the feet stand on
//! it, without a graph and with one that places no feet of its own (a real adapter, lavapipe
//! in CI; without one these tests SKIP unless `SKEL_REQUIRE_GPU=1`).
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

#[path = "terrain/pixels.rs"]
mod pixels;
#[allow(dead_code, reason = "the helpers shared with the other render tests")]
#[path = "render/run.rs"]
mod run;

use pixels::{ground_pixels, shoe_rows};
use run::{gpu_available, out_dir, skel};

fn frame(test: &str, args: &[&str]) -> (image::RgbImage, String) {
    let dir = out_dir(test);
    let mut all = vec![
        "render",
        "--out",
        dir.to_str().unwrap(),
        "--frames",
        "1",
        "--size",
        "256x256",
    ];
    all.extend_from_slice(args);
    let run = skel(&all);
    assert!(run.ok, "skel {all:?}:\n{}\n{}", run.stdout, run.stderr);
    let image = image::open(dir.join("frame_0000.png")).unwrap().into_rgb8();
    let _ = std::fs::remove_dir_all(&dir);
    (image, run.stdout)
}

#[test]
fn render_draws_the_terrain_and_stands_the_feet_on_it() {
    if !gpu_available("render_draws_the_terrain_and_stands_the_feet_on_it") {
        return;
    }
    let graph = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../graphs/default_character.json"
    );
    let (plain, _) = frame("terrain-plain", &[]);
    let area = f64::from(plain.width() * plain.height());
    assert!(ground_pixels(&plain) as f64 / area < 0.005);
    // A floor raised 30 cm: a shoe the placement did not lift would be under it, hidden.
    for (name, extra) in [("layers", &[][..]), ("graph", &["--graph", graph][..])] {
        let mut args = vec!["--terrain", "plane:0,1,0,-0.3"];
        args.extend_from_slice(extra);
        let (placed, stdout) = frame(&format!("terrain-{name}"), &args);
        let ground = ground_pixels(&placed) as f64 / area;
        assert!(
            ground > 0.05,
            "{name}: the ground covers {ground:.3} of the picture"
        );
        let shoes = shoe_rows(&placed).len();
        assert!(
            shoes > 30,
            "{name}: {shoes} shoe pixels over the raised floor ({} without --terrain)",
            shoe_rows(&plain).len()
        );
        if name == "layers" {
            assert!(stdout.contains("feet on plane:0,1,0,-0.3"), "{stdout}");
        }
    }
}
