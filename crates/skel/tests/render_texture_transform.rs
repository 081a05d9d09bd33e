//! `KHR_texture_transform` in pixels against an outside reference: a quad textured with four
//! coloured quadrants (nearest sampling, repeat) is drawn with three of the transforms whose
//! UV mapping Babylon.js wrote (`scripts/peer/babylon/goldens/uv.json`: a quarter turn; offset,
//! −1.2 rad and a non-uniform scale together; the same with a 2.5 rad turn and the `texCoord`
//! override to `TEXCOORD_1`, `TEXCOORD_0` being constant). At a grid of points over the quad,
//! the colour drawn must be the quadrant Babylon's mapping of that point's UV falls in. Points
//! whose Babylon UV lies within [`MARGIN_PX`] pixels or half a texel ([`FILTER_MARGIN`]) of a
//! quadrant border are left out (where the pixel read and the point differ by up to a pixel,
//! and where linear filtering blends two quadrants; the golden's rounding is far below). Drawn on a real adapter
//! (lavapipe in CI) and read back.
#![cfg(feature = "render")]
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use skel::anim::Handedness;
use skel::render::{AssetRenderer, Camera, OffscreenTarget, Vec3};
use skel::{LoadOptions, load_gltf};

mod common;
use common::gpu;

const SIDE: u32 = 128;
/// How many pixels from a quadrant border a sample must be to be judged: the sample is read at
/// the pixel its point falls in (up to one pixel from the point), and a border texel's edge is
/// rasterised to the nearest pixel centre.
const MARGIN_PX: f64 = 2.0;
/// Texels per side of the quadrant texture.
const TEXELS: u32 = 16;
/// skel's renderer samples every texture linearly (`skel::render` material.rs: the file's
/// nearest filter is not used), which blends the two quadrants over half a texel either side
/// of a border: judged samples also keep that far from it, in texture units.
const FILTER_MARGIN: f64 = 0.5 / TEXELS as f64;
/// Points per side of the sampled grid over the quad.
const GRID: usize = 24;

/// The golden cases drawn: indices into `uv.json`'s `cases`.
const CASES: [usize; 3] = [3, 5, 6];

fn floats(values: &[f32]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}

/// A [`TEXELS`]² PNG in quadrants (u right, v down): red (u < ½, v < ½), green (u ≥ ½,
/// v < ½), blue (u < ½, v ≥ ½), black.
fn quadrants_png() -> Vec<u8> {
    let half = TEXELS / 2;
    let img = image::RgbaImage::from_fn(TEXELS, TEXELS, |x, y| {
        let c = match (x >= half, y >= half) {
            (false, false) => [255, 0, 0],
            (true, false) => [0, 255, 0],
            (false, true) => [0, 0, 255],
            (true, true) => [0, 0, 0],
        };
        image::Rgba([c[0], c[1], c[2], 255])
    });
    let mut png = Vec::new();
    img.write_to(&mut std::io::Cursor::new(&mut png), image::ImageFormat::Png)
        .unwrap();
    png
}

/// A GLB: a unit quad in z = 0 (UVs `u = x + ½`, `v = ½ − y` in `TEXCOORD_1`, and in
/// `TEXCOORD_0` unless `override_uv`, where `TEXCOORD_0` is the constant (0.25, 0.25)) with
/// the quadrant texture under `transform` (`KHR_texture_transform` JSON).
fn quad(transform: &str, override_uv: bool) -> Vec<u8> {
    let uv = [0.0, 1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0];
    let mut bin = floats(&[
        -0.5, -0.5, 0.0, 0.5, -0.5, 0.0, 0.5, 0.5, 0.0, -0.5, 0.5, 0.0,
    ]);
    bin.extend(floats(if override_uv { &[0.25; 8] } else { &uv }));
    bin.extend(floats(&uv));
    bin.extend([0_u16, 1, 2, 0, 2, 3].iter().flat_map(|i| i.to_le_bytes()));
    bin.extend([0; 4]);
    let png = quadrants_png();
    let png_at = bin.len();
    bin.extend(&png);
    while !bin.len().is_multiple_of(4) {
        bin.push(0);
    }
    let json = format!(
        r#"{{"asset":{{"version":"2.0"}},"extensionsUsed":["KHR_texture_transform"],
  "scenes":[{{"nodes":[0]}}],"nodes":[{{"mesh":0}}],
  "meshes":[{{"primitives":[{{"attributes":{{"POSITION":0,"TEXCOORD_0":1,"TEXCOORD_1":2}},"indices":3,"material":0}}]}}],
  "materials":[{{"doubleSided":true,"pbrMetallicRoughness":{{"metallicFactor":0,"baseColorTexture":{{"index":0,
    "extensions":{{"KHR_texture_transform":{transform}}}}}}}}}],
  "samplers":[{{"magFilter":9728,"minFilter":9728}}],
  "textures":[{{"source":0,"sampler":0}}],
  "images":[{{"bufferView":4,"mimeType":"image/png"}}],
  "buffers":[{{"byteLength":{len}}}],
  "bufferViews":[{{"buffer":0,"byteOffset":0,"byteLength":48}},{{"buffer":0,"byteOffset":48,"byteLength":32}},
    {{"buffer":0,"byteOffset":80,"byteLength":32}},{{"buffer":0,"byteOffset":112,"byteLength":12}},
    {{"buffer":0,"byteOffset":{png_at},"byteLength":{png_len}}}],
  "accessors":[{{"bufferView":0,"componentType":5126,"count":4,"type":"VEC3","min":[-0.5,-0.5,0],"max":[0.5,0.5,0]}},
    {{"bufferView":1,"componentType":5126,"count":4,"type":"VEC2"}},
    {{"bufferView":2,"componentType":5126,"count":4,"type":"VEC2"}},
    {{"bufferView":3,"componentType":5123,"count":6,"type":"SCALAR"}}]}}"#,
        len = bin.len(),
        png_len = png.len(),
    );
    skel::gltf::pack_glb(json.as_bytes(), &bin).unwrap()
}

/// The quadrant (0 red, 1 green, 2 blue, 3 black) a lit pixel shows; `None` when unclear.
fn quadrant_of(p: [u8; 4]) -> Option<usize> {
    let [r, g, b] = [p[0], p[1], p[2]].map(i32::from);
    let over = |a: i32, x: i32, y: i32| a > x + 60 && a > y + 60;
    if over(r, g, b) {
        Some(0)
    } else if over(g, r, b) {
        Some(1)
    } else if over(b, r, g) {
        Some(2)
    } else if r.max(g).max(b) < 90 {
        Some(3)
    } else {
        None
    }
}

/// The quadrant texture coordinate `(s, t)` falls in under repeat, or `None` within `margin`
/// (texture units) of a border.
fn quadrant_at(s: f64, t: f64, margin: f64) -> Option<usize> {
    let (fs, ft) = (s.rem_euclid(1.0), t.rem_euclid(1.0));
    let near = |f: f64| [0.0, 0.5, 1.0].iter().any(|b| (f - b).abs() < margin);
    if near(fs) || near(ft) {
        return None;
    }
    Some(usize::from(fs >= 0.5) + 2 * usize::from(ft >= 0.5))
}

fn nums(v: &serde_json::Value) -> Vec<f64> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect()
}

#[test]
fn texture_transforms_draw_the_texels_babylon_maps_to() {
    let Some(ctx) = gpu("texture_transforms_draw_the_texels_babylon_maps_to") else {
        return;
    };
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../scripts/peer/babylon/goldens/uv.json");
    let golden: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let uvs_in: Vec<Vec<f64>> = golden["uvsIn"]
        .as_array()
        .unwrap()
        .iter()
        .map(nums)
        .collect();
    assert_eq!(
        &uvs_in[..3],
        &[vec![0.0, 0.0], vec![1.0, 0.0], vec![0.0, 1.0]],
        "uv.json's first UVs"
    );
    let options = LoadOptions::default().with_handedness(Handedness::RightHanded);
    let camera = Camera::orbit(Vec3::ZERO, 1.6, 0.0, 0.0, 1.0, options.handedness);
    let camera_view_projection = camera.view_projection();
    for case in CASES {
        let c = &golden["cases"][case];
        let transform = serde_json::json!({
            "offset": c["offset"], "rotation": c["rotation"], "scale": c["scale"],
        });
        let override_uv = c["texCoord"].as_u64() == Some(1);
        let mut transform = transform;
        if override_uv {
            transform["texCoord"] = 1.into();
        }
        // Babylon's affine map, from its images of (0, 0), (1, 0) and (0, 1).
        let uvs: Vec<Vec<f64>> = c["uvs"].as_array().unwrap().iter().map(nums).collect();
        let (o, a, b) = (&uvs[0], &uvs[1], &uvs[2]);
        let babylon = |u: f64, v: f64| {
            (
                o[0] + u * (a[0] - o[0]) + v * (b[0] - o[0]),
                o[1] + u * (a[1] - o[1]) + v * (b[1] - o[1]),
            )
        };
        // One pixel in texture units: the quad's width on screen, and how far the map
        // stretches a step in u or v (the longer of its two columns, per axis summed).
        let project = |x: f32, y: f32| {
            let clip = camera_view_projection * glam::Vec4::new(x, y, 0.0, 1.0);
            clip.truncate() / clip.w
        };
        let quad_px =
            f64::from((project(0.5, 0.0).x - project(-0.5, 0.0).x) * 0.5) * f64::from(SIDE);
        let stretch = ((a[0] - o[0]).abs() + (b[0] - o[0]).abs())
            .max((a[1] - o[1]).abs() + (b[1] - o[1]).abs());
        let margin = FILTER_MARGIN + MARGIN_PX * stretch / quad_px;
        let bytes = quad(&transform.to_string(), override_uv);
        let asset = load_gltf(&ctx, bytes.as_slice(), &options).unwrap();
        let target = OffscreenTarget::new(&ctx.device, SIDE, SIDE, 1).unwrap();
        let renderer = AssetRenderer::new(&ctx, &asset, &target.format()).unwrap();
        renderer.set_camera(&ctx.queue, &camera);
        let rest = skel::gltf::rest_world_matrices(&asset.animation).unwrap();
        renderer.set_world_matrices(&ctx.queue, &asset, &rest);
        let rgba = common::draw_rgba(&ctx, &renderer, &asset, &target);
        let (mut judged, mut wrong) = (0, Vec::new());
        for gy in 0..GRID {
            for gx in 0..GRID {
                // Mesh UV of a point inside the quad, and where it lands on screen.
                let u = (gx as f64 + 0.5) / GRID as f64 * 0.9 + 0.05;
                let v = (gy as f64 + 0.5) / GRID as f64 * 0.9 + 0.05;
                let (s, t) = babylon(u, v);
                let Some(want) = quadrant_at(s, t, margin) else {
                    continue;
                };
                let world = glam::Vec4::new((u - 0.5) as f32, (0.5 - v) as f32, 0.0, 1.0);
                let clip = camera_view_projection * world;
                let ndc = clip.truncate() / clip.w;
                let side = SIDE as f32;
                let x = (((ndc.x * 0.5 + 0.5) * side) as u32).min(SIDE - 1);
                let y = (((0.5 - ndc.y * 0.5) * side) as u32).min(SIDE - 1);
                let i = ((y * SIDE + x) * 4) as usize;
                let got = quadrant_of([rgba[i], rgba[i + 1], rgba[i + 2], rgba[i + 3]]);
                judged += 1;
                if got != Some(want) {
                    wrong.push(format!(
                        "uv ({u:.3}, {v:.3}) → Babylon ({s:.3}, {t:.3}): quadrant {want}, drawn {got:?} {:?}",
                        &rgba[i..i + 4]
                    ));
                }
            }
        }
        eprintln!(
            "case {case} ({transform}): quad {quad_px:.0} px wide, margin {margin:.3}, {judged} points judged, {} wrong",
            wrong.len()
        );
        assert!(
            judged > GRID * GRID / 3,
            "case {case}: only {judged} points judged"
        );
        assert!(
            wrong.is_empty(),
            "case {case} ({transform}): {} of {judged} points show another quadrant than Babylon's UV:\n{}",
            wrong.len(),
            wrong[..wrong.len().min(8)].join("\n")
        );
    }
}
