//! skel's decoders against the peer tools on real characters: gltfpack's default
//! (`KHR_mesh_quantization` + `KHR_texture_transform`) and `-cc` (`EXT_meshopt_compression`)
//! outputs and glTF-Transform's Draco output of CesiumMan, Fox and RobotExpressive.
//!
//! ```sh
//! (cd scripts/peer/compressed && npm ci) && bash scripts/peer/compressed/shared_variants.sh /tmp/skel-peer-variants
//! cargo run --release -p skel-gltf --example peer_variants -- /tmp/skel-peer-variants
//! ```
//!
//! For each variant: (1) decoding, against glTF-Transform's decode (`goldens/*.json` beside the
//! script): per primitive the vertex and index counts, and min, max, sum and sum of squares of
//! every POSITION and TEXCOORD_0 component in accessor space (order-free, so a Draco decoder
//! may order vertices its own way); (2) the pose, against the original file: every skinned
//! vertex and triangle centre at rest and at 37 % of every clip, both ways, as a fraction of
//! the bounding-box diagonal; (3) the UVs, against the original's: each vertex's UV after the
//! base colour texture's transform, the original's taken at the nearest rest position, in
//! quantisation steps. Prints one JSON object per variant. Never in CI (the variants are copies
//! of the shared assets).

use std::path::{Path, PathBuf};

use glam::{Vec2, Vec3};
use serde_json::{Value, json};
use skel_anim::Handedness;
use skel_gltf::{CpuPoser, GltfAsset, LoadOptions, PrimitiveData, load_path};

fn load(path: &Path) -> GltfAsset {
    let opts = LoadOptions {
        handedness: Handedness::RightHanded,
        decode_images: false,
    };
    load_path(path, &opts).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// min, max, sum, sum of squares per component of `data` in elements of `n`.
fn stats(data: &[f32], n: usize) -> [Vec<f64>; 4] {
    let mut s = [
        vec![f64::INFINITY; n],
        vec![f64::NEG_INFINITY; n],
        vec![0.0; n],
        vec![0.0; n],
    ];
    for el in data.chunks_exact(n) {
        for (k, &v) in el.iter().enumerate() {
            let v = f64::from(v);
            s[0][k] = s[0][k].min(v);
            s[1][k] = s[1][k].max(v);
            s[2][k] += v;
            s[3][k] += v * v;
        }
    }
    s
}

/// The worst relative difference between skel's statistics and the golden's (`None` when the
/// golden has no such attribute); sums are compared relative to the sum of magnitudes.
fn stats_error(ours: Option<&[f32]>, golden: &Value, n: usize) -> Result<f64, String> {
    match (ours, golden.is_null()) {
        (None, true) => return Ok(0.0),
        (Some(_), true) | (None, false) => return Err("attribute present on one side only".into()),
        _ => {}
    }
    let data = ours.unwrap_or_default();
    let count = golden["count"].as_u64().unwrap_or(0) as usize;
    if data.len() != count * n {
        return Err(format!("{} elements, golden {count}", data.len() / n));
    }
    let s = stats(data, n);
    let mut worst = 0.0_f64;
    for (i, key) in ["min", "max", "sum", "sq"].iter().enumerate() {
        for k in 0..n {
            let g = golden[key][k].as_f64().unwrap_or(f64::NAN);
            let scale = match i {
                0 | 1 => 1.0_f64.max(g.abs()),
                _ => (count as f64).max(g.abs()),
            };
            worst = worst.max((s[i][k] - g).abs() / scale);
        }
    }
    Ok(worst)
}

fn find(asset: &GltfAsset, mesh: usize, primitive: usize) -> Option<&PrimitiveData> {
    asset
        .primitives
        .iter()
        .find(|p| p.mesh == mesh && p.primitive == primitive)
}

fn decoding(asset: &GltfAsset, golden: &Value) -> Result<f64, String> {
    let mut worst = 0.0_f64;
    for g in golden["primitives"].as_array().into_iter().flatten() {
        let (m, p) = (
            g["mesh"].as_u64().unwrap_or(0) as usize,
            g["primitive"].as_u64().unwrap_or(0) as usize,
        );
        let Some(prim) = find(asset, m, p) else {
            return Err(format!("no primitive {m}/{p}"));
        };
        let indices = prim.indices.as_ref().map(Vec::len);
        if indices.map(|n| n as u64) != g["indices"].as_u64() {
            return Err(format!(
                "{m}/{p}: {indices:?} indices, golden {}",
                g["indices"]
            ));
        }
        worst = worst.max(stats_error(Some(&prim.positions), &g["position"], 3)?);
        // skel reads the UV set the base colour texture samples: compare set 0 only there.
        if prim
            .material
            .base_color_texture
            .is_none_or(|t| t.uv_set() == 0)
        {
            worst = worst.max(stats_error(prim.uvs.as_deref(), &g["texcoord0"], 2)?);
        }
    }
    Ok(worst)
}

fn posed(
    asset: &GltfAsset,
    poser: &mut CpuPoser,
    clip: Option<usize>,
    t: f32,
) -> (Vec<Vec3>, Vec<Vec3>) {
    poser
        .pose(asset, clip, t)
        .unwrap_or_else(|e| panic!("pose: {e}"));
    let (mut vertices, mut centres) = (Vec::new(), Vec::new());
    for (i, prim) in asset.primitives.iter().enumerate() {
        let Some(p) = poser.positions(i) else {
            continue;
        };
        vertices.extend_from_slice(p);
        // A primitive without indices draws its vertices in order (gltfpack indexes them).
        let sequential: Vec<u32> = (0..u32::try_from(p.len()).unwrap_or(0)).collect();
        let idx = prim.indices.as_ref().unwrap_or(&sequential);
        for tri in idx.chunks_exact(3) {
            let [a, b, c] = [0, 1, 2].map(|k| p[tri[k] as usize]);
            // Zero-area triangles draw nothing, and gltfpack drops them (RobotExpressive has
            // three): they are left out on both sides.
            if (b - a).cross(c - a).length_squared()
                <= f32::EPSILON * (b - a).length_squared() * (c - a).length_squared()
            {
                continue;
            }
            centres.push((a + b + c) / 3.0);
        }
    }
    (vertices, centres)
}

fn hausdorff(a: &[Vec3], b: &[Vec3]) -> f32 {
    a.iter()
        .map(|p| {
            b.iter()
                .map(|q| p.distance_squared(*q))
                .fold(f32::INFINITY, f32::min)
        })
        .fold(0.0, f32::max)
        .sqrt()
}

/// The worst distance at rest and the worst over the clips, as fractions of the diagonal.
fn pose_error(original: &GltfAsset, variant: &GltfAsset) -> (f32, f32) {
    let mut po = CpuPoser::new(original).unwrap_or_else(|e| panic!("{e}"));
    let mut pv = CpuPoser::new(variant).unwrap_or_else(|e| panic!("{e}"));
    let mut cases = vec![(None, None, 0.0)];
    for (i, clip) in original.animation.clips.iter().enumerate() {
        if let Some(j) = variant
            .animation
            .clips
            .iter()
            .position(|c| c.name == clip.name)
        {
            // On a multiple of 1/30 s: gltfpack resamples clips at 30 Hz, so there the variant's
            // key is the original's pose (quantised); between keys the two interpolate apart.
            cases.push((
                Some(i),
                Some(j),
                (clip.duration() * 0.37 * 30.0).round() / 30.0,
            ));
        }
    }
    let mut worst = [0.0_f32; 2];
    for (ci, cj, t) in cases {
        let (vo, co) = posed(original, &mut po, ci, t);
        let (vv, cv) = posed(variant, &mut pv, cj, t);
        let (lo, hi) = vo
            .iter()
            .fold((Vec3::MAX, Vec3::MIN), |(l, h), p| (l.min(*p), h.max(*p)));
        let diag = (hi - lo).length();
        if vv.is_empty() || vo.is_empty() {
            eprintln!(
                "clip {ci:?}: {} original vertices, {} variant vertices",
                vo.len(),
                vv.len()
            );
            continue;
        }
        let w = &mut worst[usize::from(ci.is_some())];
        let distances = [
            hausdorff(&vv, &vo),
            hausdorff(&vo, &vv),
            hausdorff(&cv, &co),
            hausdorff(&co, &cv),
        ];
        for d in distances {
            *w = w.max(d / diag);
        }
    }
    (worst[0], worst[1])
}

/// Every vertex's rest position and UV after its texture transform.
fn drawn_uvs(asset: &GltfAsset) -> Vec<(Vec3, Vec2)> {
    let mut poser = CpuPoser::new(asset).unwrap_or_else(|e| panic!("{e}"));
    poser
        .pose(asset, None, 0.0)
        .unwrap_or_else(|e| panic!("{e}"));
    let mut out = Vec::new();
    for (i, prim) in asset.primitives.iter().enumerate() {
        let (Some(tex), Some(uvs), Some(p)) = (
            prim.material.base_color_texture,
            &prim.uvs,
            poser.positions(i),
        ) else {
            continue;
        };
        let m = tex.transform.matrix();
        for (p, uv) in p.iter().zip(uvs.chunks_exact(2)) {
            let t = m * Vec3::new(uv[0], uv[1], 1.0);
            out.push((*p, Vec2::new(t.x, t.y)));
        }
    }
    out
}

/// The worst UV difference in texture units and in steps of the variant's stored UVs.
fn uv_error(original: &GltfAsset, variant: &GltfAsset) -> Option<(f32, f32)> {
    let want = drawn_uvs(original);
    let got = drawn_uvs(variant);
    if want.is_empty() || got.is_empty() {
        return None;
    }
    let step = variant
        .primitives
        .iter()
        .filter_map(|p| p.material.base_color_texture)
        .map(|t| t.transform.scale.max_element() / 65535.0)
        .fold(0.0_f32, f32::max)
        .max(1.0 / 65535.0);
    // Seams put several vertices with different UVs at one position: of the original's
    // vertices at (nearly) the nearest distance, the one with the closest UV is the match.
    let (lo, hi) = want.iter().fold((Vec3::MAX, Vec3::MIN), |(l, h), (p, _)| {
        (l.min(*p), h.max(*p))
    });
    let slack = 1e-4 * (hi - lo).length();
    let mut worst = 0.0_f32;
    for (p, uv) in &got {
        let nearest = want
            .iter()
            .map(|(q, _)| q.distance(*p))
            .fold(f32::INFINITY, f32::min);
        let best = want
            .iter()
            .filter(|(q, _)| q.distance(*p) <= nearest + slack)
            .map(|(_, e)| (*uv - *e).abs().max_element())
            .fold(f32::INFINITY, f32::min);
        worst = worst.max(best);
    }
    Some((worst, worst / step))
}

fn main() {
    let dir = PathBuf::from(
        std::env::args()
            .nth(1)
            .unwrap_or_else(|| "/tmp/skel-peer-variants".into()),
    );
    let goldens = PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../scripts/peer/compressed/goldens"
    ));
    for name in ["CesiumMan", "Fox", "RobotExpressive"] {
        let original = load(&dir.join(format!("{name}.glb")));
        for variant in ["gltfpack", "gltfpack_cc", "draco"] {
            let file = format!("{name}_{variant}");
            let asset = load(&dir.join(format!("{file}.glb")));
            let golden: Value = std::fs::read_to_string(goldens.join(format!("{file}.json")))
                .ok()
                .and_then(|s| serde_json::from_str(&s).ok())
                .unwrap_or(Value::Null);
            let decode = decoding(&asset, &golden);
            let uv = uv_error(&original, &asset);
            let pose = pose_error(&original, &asset);
            let row = json!({
                "variant": file,
                "decode_worst_relative": decode.as_ref().ok(),
                "decode_error": decode.as_ref().err(),
                "pose_at_rest_of_diagonal": pose.0,
                "pose_in_clips_of_diagonal": pose.1,
                "uv_worst": uv.map(|u| u.0),
                "uv_worst_steps": uv.map(|u| u.1),
            });
            println!("{row}");
        }
    }
}
