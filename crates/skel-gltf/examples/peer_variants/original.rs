//! (2) A variant's pose against skel's pose of the original file: every skinned vertex and
//! triangle centre at rest and on the 30 Hz key nearest 37 % of every clip, both ways, as a
//! fraction of the bounding-box diagonal; (3) the UVs against the original's: each vertex's UV
//! after the base colour texture's transform, the original's taken at the nearest rest
//! position, in quantisation steps.

use glam::{Vec2, Vec3};
use skel_gltf::{CpuPoser, GltfAsset};

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
pub fn pose_error(original: &GltfAsset, variant: &GltfAsset) -> (f32, f32) {
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
pub fn uv_error(original: &GltfAsset, variant: &GltfAsset) -> Option<(f32, f32)> {
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
