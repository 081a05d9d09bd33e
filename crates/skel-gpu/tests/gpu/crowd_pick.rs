//! GPU picking of a crowd (`CrowdPick`) against the CPU: each instance of a CesiumMan crowd
//! posed on the CPU (`CpuPoser`, another clip time each, placed with a turn and a scale that is
//! not uniform, packed so that rays cross several), its positions placed, and skel-gltf's
//! `pick` run on every instance, the nearest kept (the lowest instance on a tie). The GPU's
//! answer is the same instance, primitive and triangle at the same distance (see `TOLERANCE`),
//! and misses agree; bad rays are typed errors.

use glam::{Mat4, Quat, Vec2, Vec3};
use skel_gltf::{CpuPoser, PickHit, PosedPositions, PrimitiveMode, pick, rest_world_matrices};
use skel_gpu::{
    BoneLayout, CrowdBones, CrowdCull, CrowdCullDescriptor, CrowdPick, CrowdPickDescriptor,
    CrowdPickPrimitive, GpuContext, GpuError, PickTopology, frustum_planes, pick_ray_from_pixel,
};

use crate::common::{Rng, ctx};
use crate::cull::{Character, character};

/// How far the GPU's distance may be from the CPU's, as a fraction of the crowd's box
/// diagonal (the figure for picking). Both skin in f32 but in another order (the GPU
/// `placement · mesh · Σ w S v` with S = mesh⁻¹ · jointWorld · inverseBind rounded to f32, the
/// CPU `Σ w (jointWorld · inverseBind) v`, then placed), so the vertices differ by a few ulps of
/// coordinates up to about 10 m; measured on lavapipe: see the test's output.
const TOLERANCE: f32 = 1e-5;

/// One instance's placed world positions by primitive: what the CPU `pick` reads.
struct Placed(Vec<Vec<Vec3>>);

impl PosedPositions for Placed {
    fn posed_positions(&self, primitive: usize) -> Option<&[Vec3]> {
        self.0.get(primitive).map(Vec::as_slice)
    }
}

/// The crowd on both sides: the CPU's placed positions and the GPU's passes.
struct Scene {
    ch: Character,
    placed: Vec<Placed>,
    skins: Vec<Mat4>,
    placements: Vec<Mat4>,
    /// The crowd's box diagonal (world units).
    diagonal: f32,
}

/// `n` CesiumMan, three rows deep, closer than their width, each at another time.
fn scene(n: usize) -> Option<Scene> {
    scene_of(&(0..n).collect::<Vec<_>>())
}

/// A CesiumMan per entry of `looks`; look `i` is instance `i` of [`scene`] (its clip, time and
/// place), so that two equal entries stand in the same place in the same pose.
fn scene_of(looks: &[usize]) -> Option<Scene> {
    let ch = character("CesiumMan/CesiumMan.glb")?;
    let mut poser = CpuPoser::new(&ch.asset).unwrap();
    let (mut placed, mut skins, mut placements) = (Vec::new(), Vec::new(), Vec::new());
    let (mut lo, mut hi) = (Vec3::INFINITY, Vec3::NEG_INFINITY);
    for &i in looks {
        let clip = i % ch.asset.animation.clips.len();
        poser.pose(&ch.asset, Some(clip), 0.173 * i as f32).unwrap();
        skins.extend(ch.skins(poser.node_world_matrices()));
        let (col, row) = ((i % 4) as f32, (i / 4) as f32);
        let placement = Mat4::from_scale_rotation_translation(
            Vec3::new(1.0, 1.1, 0.9),
            Quat::from_rotation_y(0.7 * i as f32),
            Vec3::new(0.45 * col + 0.1 * row, 0.05 * col, -0.8 * row),
        );
        placements.push(placement);
        let positions: Vec<Vec<Vec3>> = (0..ch.asset.primitives.len())
            .map(|p| {
                let world = poser.positions(p).unwrap_or(&[]);
                world
                    .iter()
                    .map(|&v| placement.transform_point3(v))
                    .collect()
            })
            .collect();
        for v in positions.iter().flatten() {
            (lo, hi) = (lo.min(*v), hi.max(*v));
        }
        placed.push(Placed(positions));
    }
    Some(Scene {
        ch,
        placed,
        skins,
        placements,
        diagonal: (hi - lo).length(),
    })
}

/// The crowd's bones in `layout` (3×4: the top three rows), its cull (boxes written) and
/// its pick.
fn gpu(ctx: &GpuContext, s: &Scene, layout: BoneLayout) -> (CrowdBones, CrowdCull, CrowdPick) {
    let n = s.placements.len() as u32;
    let per = s.ch.bones.len() as u32;
    let crowd = CrowdBones::new_gpu_posed_with_layout(ctx, n, per, layout).unwrap();
    let bytes: Vec<f32> = match layout {
        BoneLayout::Affine3x4 => s
            .skins
            .iter()
            .flat_map(|m| (0..3).flat_map(|r| m.row(r).to_array()))
            .collect(),
        _ => s.skins.iter().flat_map(|m| m.to_cols_array()).collect(),
    };
    ctx.queue
        .write_buffer(crowd.bones_buffer(), 0, bytemuck::cast_slice(&bytes));
    let cull = CrowdCull::new(
        ctx,
        &crowd,
        &CrowdCullDescriptor {
            parts: &s.ch.parts,
            bones: &s.ch.bones,
            index_count: 3,
            first_index: 0,
            base_vertex: 0,
            max_chunk_bytes: None,
        },
    )
    .unwrap();
    cull.set_placements(ctx, &s.placements).unwrap();
    let mut encoder = ctx.device.create_command_encoder(&Default::default());
    let planes = frustum_planes(Mat4::orthographic_rh(-1e3, 1e3, -1e3, 1e3, -1e3, 1e3));
    cull.encode(ctx, &mut encoder, &planes).unwrap();
    ctx.queue.submit([encoder.finish()]);
    let pick = CrowdPick::new(
        ctx,
        &crowd,
        &cull,
        &CrowdPickDescriptor {
            primitives: &primitives(&s.ch),
            morph_weights: None,
        },
    )
    .unwrap();
    (crowd, cull, pick)
}

/// The asset's skinned primitives, in its order.
fn primitives(ch: &Character) -> Vec<CrowdPickPrimitive<'_>> {
    let asset = &ch.asset;
    let rest = rest_world_matrices(&asset.animation).unwrap();
    let skeletons = &asset.animation.skeletons;
    asset
        .primitives
        .iter()
        .enumerate()
        .map(|(p, prim)| {
            let binding = prim.skeleton_binding.expect("CesiumMan is skinned");
            let influences = prim.influences.as_ref().unwrap();
            let topology = match prim.mode {
                PrimitiveMode::TriangleStrip => PickTopology::TriangleStrip,
                PrimitiveMode::TriangleFan => PickTopology::TriangleFan,
                _ => PickTopology::Triangles,
            };
            CrowdPickPrimitive {
                primitive: p as u32,
                mesh: prim.mesh as u32,
                topology,
                positions: &prim.positions,
                indices: prim.indices.as_deref(),
                influences_per_vertex: influences.per_vertex as u32,
                joints: &influences.joints,
                weights: &influences.weights,
                bone_offset: skeletons[..binding]
                    .iter()
                    .map(|b| b.joints.len() as u32)
                    .sum(),
                mesh_world: rest[skeletons[binding].mesh_node],
                morph: None,
            }
        })
        .collect()
}

/// The CPU's answer: the nearest instance's hit (the lowest instance on a tie), and how many
/// instances the ray hits.
fn cpu_pick(s: &Scene, origin: Vec3, dir: Vec3) -> (Option<(u32, PickHit)>, usize) {
    let mut best: Option<(u32, PickHit)> = None;
    let mut hits = 0;
    for (i, placed) in s.placed.iter().enumerate() {
        if let Some(h) = pick(&s.ch.asset, placed, None, origin, dir).unwrap() {
            hits += 1;
            if best.is_none_or(|(_, b)| h.distance < b.distance) {
                best = Some((i as u32, h));
            }
        }
    }
    (best, hits)
}

/// The placed vertices of triangle `t` of primitive `p` of instance `i` (triangle lists).
fn corners(s: &Scene, i: u32, p: u32, t: u32) -> [Vec3; 3] {
    let prim = &s.ch.asset.primitives[p as usize];
    assert_eq!(prim.mode, PrimitiveMode::Triangles);
    let positions = &s.placed[i as usize].0[p as usize];
    std::array::from_fn(|k| {
        let corner = 3 * t as usize + k;
        positions[prim
            .indices
            .as_ref()
            .map_or(corner, |ix| ix[corner] as usize)]
    })
}

/// Where the ray crosses triangle `[a, b, c]`'s plane and its barycentrics, in f64.
fn crossing(origin: Vec3, dir: Vec3, [a, b, c]: [Vec3; 3]) -> (f64, f64, f64) {
    let (o, d) = (origin.as_dvec3(), dir.normalize().as_dvec3());
    let (a, e1, e2) = (a.as_dvec3(), (b - a).as_dvec3(), (c - a).as_dvec3());
    let p = d.cross(e2);
    let inv = 1.0 / e1.dot(p);
    let s = o - a;
    let q = s.cross(e1);
    (e2.dot(q) * inv, s.dot(p) * inv, d.dot(q) * inv)
}

/// What the comparisons saw.
#[derive(Default, Debug)]
struct Tally {
    hits: usize,
    misses: usize,
    /// Rays whose nearest hit is behind another instance's.
    through_two: usize,
    /// Different triangles at the same distance (a shared edge, within the tolerance).
    edges: usize,
    worst: f32,
}

/// Compares the GPU's answer for one ray with the CPU's.
fn check(s: &Scene, pick: &mut CrowdPick, origin: Vec3, dir: Vec3, tally: &mut Tally) {
    let ctx = ctx().unwrap();
    let gpu = pick.pick(ctx, origin, dir).unwrap();
    let (cpu, hit_count) = cpu_pick(s, origin, dir);
    let what = format!("ray {origin} {dir}: GPU {gpu:?}, CPU {cpu:?}");
    let tolerance = TOLERANCE * s.diagonal;
    let (g, (i, c)) = match (gpu, cpu) {
        (None, None) => {
            tally.misses += 1;
            return;
        }
        (Some(g), Some(c)) => (g, c),
        _ => panic!("hit and miss disagree: {what}"),
    };
    tally.hits += 1;
    tally.through_two += usize::from(hit_count > 1);
    let err = (g.distance - c.distance).abs();
    tally.worst = tally.worst.max(err / s.diagonal);
    assert!(err <= tolerance, "distance off by {err:e}: {what}");
    assert_eq!(
        g.mesh,
        s.ch.asset.primitives[g.primitive as usize].mesh as u32
    );
    let dir_n = dir.normalize();
    assert!((g.point - (origin + dir_n * g.distance)).length() <= 1e-6 * s.diagonal);
    if (g.instance, g.primitive, g.triangle) == (i, c.primitive as u32, c.triangle as u32) {
        for (gb, cb) in g.barycentric.iter().zip(c.barycentric) {
            assert!((gb - cb).abs() <= 1e-3, "barycentric: {what}");
        }
        return;
    }
    // Another triangle: only where the ray meets it at the same distance, on its edge (a
    // shared edge, or two instances touching there).
    let (d, u, v) = crossing(origin, dir, corners(s, g.instance, g.primitive, g.triangle));
    let slack = 1e-4;
    assert!(
        (d as f32 - c.distance).abs() <= tolerance
            && u >= -slack
            && v >= -slack
            && u + v <= 1.0 + slack,
        "another triangle, not on an edge at the same distance ({d}, {u}, {v}): {what}"
    );
    tally.edges += 1;
}

/// A random unit vector.
fn unit(rng: &mut Rng) -> Vec3 {
    loop {
        let v = Vec3::new(rng.next_f32(), rng.next_f32(), rng.next_f32());
        if (0.1..=1.0).contains(&v.length()) {
            return v.normalize();
        }
    }
}

/// Rays aimed at a random inner point of a random triangle of a random instance from a random
/// direction not grazing it (from a few metres off, so that other instances stand between),
/// and rays aimed at random points of an instance's box (hits and misses of the character
/// inside it).
fn random_rays(s: &Scene, pick: &mut CrowdPick, rng: &mut Rng, count: usize) -> Tally {
    let mut tally = Tally::default();
    let prim = &s.ch.asset.primitives[0];
    let triangles = prim.indices.as_ref().map_or(prim.vertex_count(), Vec::len) as u32 / 3;
    for r in 0..count {
        let i = rng.below(s.placed.len() as u32);
        let target = if r % 2 == 0 {
            let [a, b, c] = corners(s, i, 0, rng.below(triangles));
            let (u, v) = (
                0.1 + 0.4 * (rng.next_f32() + 1.0),
                0.1 + 0.4 * (rng.next_f32() + 1.0),
            );
            let (u, v) = if u + v > 0.9 {
                (0.9 - v, 0.9 - u)
            } else {
                (u, v)
            };
            a + u * (b - a) + v * (c - a)
        } else {
            let positions = &s.placed[i as usize].0[0];
            let lo = positions.iter().fold(Vec3::INFINITY, |m, v| m.min(*v));
            let hi = positions.iter().fold(Vec3::NEG_INFINITY, |m, v| m.max(*v));
            let t = Vec3::new(rng.next_f32(), rng.next_f32(), rng.next_f32()) * 0.5 + 0.5;
            lo + t * (hi - lo)
        };
        let dir = unit(rng);
        let origin = target - dir * (3.0 + rng.next_f32());
        check(s, pick, origin, dir, &mut tally);
    }
    tally
}

#[test]
fn rays_hit_what_the_cpu_hits() {
    let Some(ctx) = ctx() else { return };
    let Some(s) = scene(12) else { return };
    for (layout, count) in [(BoneLayout::Mat4, 400), (BoneLayout::Affine3x4, 100)] {
        let (_crowd, _cull, mut pick) = gpu(ctx, &s, layout);
        let mut rng = Rng::new(45);
        let tally = random_rays(&s, &mut pick, &mut rng, count);
        eprintln!(
            "{layout:?}: {count} rays over 12 CesiumMan ({} triangles each, crowd diagonal {:.2}): \
             {tally:?}",
            pick.triangle_count(),
            s.diagonal
        );
        assert!(
            tally.misses >= count / 25,
            "too few misses to mean anything"
        );
        assert!(
            tally.through_two >= count / 10,
            "too few rays cross two instances"
        );
        assert!(tally.edges <= count / 100, "too many answers on an edge");
    }
}

#[test]
fn rays_that_miss_and_bad_rays() {
    let Some(ctx) = ctx() else { return };
    let Some(s) = scene(12) else { return };
    let (_crowd, _cull, mut pick) = gpu(ctx, &s, BoneLayout::Mat4);
    // Up from above the crowd, and away from it: nothing.
    assert_eq!(
        pick.pick(ctx, Vec3::new(0.5, 5.0, -1.0), Vec3::Y).unwrap(),
        None
    );
    assert_eq!(
        pick.pick(ctx, Vec3::new(0.5, 1.0, 8.0), Vec3::Z).unwrap(),
        None
    );
    for (origin, dir) in [
        (Vec3::new(f32::NAN, 0.0, 0.0), Vec3::X),
        (Vec3::ZERO, Vec3::new(0.0, f32::INFINITY, 0.0)),
    ] {
        assert!(matches!(
            pick.pick(ctx, origin, dir),
            Err(GpuError::NotFinite { .. })
        ));
    }
    assert_eq!(
        pick.pick(ctx, Vec3::ZERO, Vec3::ZERO),
        Err(GpuError::ZeroRayDirection)
    );
    // The pass still answers after the refusals.
    let (origin, dir) = (Vec3::new(0.5, 5.0, -1.0), Vec3::Y);
    assert_eq!(pick.pick(ctx, origin, dir).unwrap(), None);
}

#[test]
fn a_screen_pixel_picks_what_the_cpu_picks() {
    let Some(ctx) = ctx() else { return };
    let Some(s) = scene(12) else { return };
    let (_crowd, _cull, mut pick) = gpu(ctx, &s, BoneLayout::Mat4);
    // The crowd spans about x 0..2, y 0..1.8, z -2..0.4 (rows behind one another along -z).
    let view = Mat4::look_at_rh(Vec3::new(0.9, 1.2, 3.0), Vec3::new(0.9, 0.8, -0.8), Vec3::Y);
    let proj = Mat4::perspective_rh(1.0, 4.0 / 3.0, 0.1, 50.0);
    let inverse = (proj * view).inverse();
    let viewport = Vec2::new(64.0, 48.0);
    let mut tally = Tally::default();
    for y in (0..48).step_by(3) {
        for x in (0..64).step_by(4) {
            let pixel = Vec2::new(x as f32 + 0.5, y as f32 + 0.5);
            let (origin, dir) = pick_ray_from_pixel(inverse, pixel, viewport).unwrap();
            check(&s, &mut pick, origin, dir, &mut tally);
        }
    }
    eprintln!("256 pixels over 12 CesiumMan: {tally:?}");
    assert!(tally.hits >= 30 && tally.misses >= 30, "{tally:?}");
    assert!(tally.through_two >= 10, "{tally:?}");
}

#[test]
fn a_tie_goes_to_the_lowest_instance() {
    let Some(ctx) = ctx() else { return };
    // Instances 1 and 2 are the same character in the same place and pose: every ray that
    // hits them meets both at the same distance, and instance 1 must win, as on the CPU.
    let Some(s) = scene_of(&[4, 0, 0, 5]) else {
        return;
    };
    let (_crowd, _cull, mut pick) = gpu(ctx, &s, BoneLayout::Mat4);
    let mut rng = Rng::new(7);
    let mut tally = Tally::default();
    let mut tied = 0;
    for _ in 0..40 {
        let target = {
            let [a, b, c] = corners(&s, 1, 0, rng.below(pick.triangle_count()));
            (a + b + c) / 3.0
        };
        let dir = unit(&mut rng);
        let origin = target - dir * 3.0;
        check(&s, &mut pick, origin, dir, &mut tally);
        let hit = pick.pick(ctx, origin, dir).unwrap();
        tied += usize::from(hit.is_some_and(|h| h.instance == 1));
        assert!(
            hit.is_none_or(|h| h.instance != 2),
            "the higher twin won: {hit:?}"
        );
    }
    eprintln!("40 rays at twins: {tied} won by instance 1, {tally:?}");
    assert!(tied >= 10, "{tied}");
}

#[test]
#[ignore = "a measurement, not a check"]
fn pick_timing() {
    let Some(ctx) = ctx() else { return };
    let Some(s) = scene(12) else { return };
    let (_crowd, _cull, mut pick) = gpu(ctx, &s, BoneLayout::Mat4);
    // Down the rows (through several boxes), and over everyone's head (no box).
    let through = (Vec3::new(0.9, 1.0, 3.0), Vec3::new(0.0, -0.1, -1.0));
    let over = (Vec3::new(0.9, 5.0, 3.0), Vec3::NEG_Z);
    for (what, (origin, dir)) in [("through the rows", through), ("over the crowd", over)] {
        let mut ms: Vec<f64> = (0..21)
            .map(|_| {
                let start = std::time::Instant::now();
                pick.pick(ctx, origin, dir).unwrap();
                start.elapsed().as_secs_f64() * 1e3
            })
            .collect();
        ms.sort_by(f64::total_cmp);
        eprintln!(
            "pick {what} over 12 CesiumMan: {:.2} ms median (min {:.2}, max {:.2})",
            ms[10], ms[0], ms[20]
        );
    }
}
