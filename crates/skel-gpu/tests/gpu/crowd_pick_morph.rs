//! GPU picking with morph targets: the built-in character (`fixtures/default_character.glb`:
//! one skinned mesh in 7 primitives, 3 morph targets) posed on the CPU at other times of its
//! Walk, each instance morphed with its own weights, and picked on the GPU
//! (`CrowdPickPrimitive::morph`, `CrowdPickDescriptor::morph_weights`) against skel-gltf's
//! `pick` over the instances morphed and skinned by `skel_anim::skin_vertices`, the nearest kept.
//! The same crowd picked without its weights answers otherwise, so the check can fail.

use glam::{Mat4, Quat, Vec3};
use skel_gltf::{CpuPoser, PickHit, PosedPositions, PrimitiveMode, pick, rest_world_matrices};
use skel_gpu::{
    CrowdBones, CrowdCull, CrowdCullDescriptor, CrowdPick, CrowdPickDescriptor, CrowdPickPrimitive,
    GpuContext, PickMorph, PickMorphWeights, PickTopology, frustum_planes,
};

use crate::common::{Rng, ctx};
use crate::cull::{Character, character_at};

/// Weights per instance in the weights buffer (3 targets, rounded up to a vec4).
const FLOATS: u32 = 4;
const INSTANCES: usize = 6;

/// One instance's placed world positions by primitive.
struct Placed(Vec<Vec<Vec3>>);

impl PosedPositions for Placed {
    fn posed_positions(&self, primitive: usize) -> Option<&[Vec3]> {
        self.0.get(primitive).map(Vec::as_slice)
    }
}

/// Instance `i`'s morph weights: every target well away from 0.
fn weights(i: usize) -> [f32; FLOATS as usize] {
    let f = i as f32;
    [1.0 - 0.1 * f, 0.4 + 0.1 * f, (0.9 - 0.15 * f).abs(), 0.0]
}

struct Scene {
    ch: Character,
    placed: Vec<Placed>,
    skins: Vec<Mat4>,
    placements: Vec<Mat4>,
    diagonal: f32,
}

fn scene() -> Scene {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/default_character.glb");
    let ch = character_at(&path);
    let asset = &ch.asset;
    let mut poser = CpuPoser::new(asset).unwrap();
    let (mut placed, mut skins, mut placements) = (Vec::new(), Vec::new(), Vec::new());
    let (mut lo, mut hi) = (Vec3::INFINITY, Vec3::NEG_INFINITY);
    for i in 0..INSTANCES {
        poser.pose(asset, Some(0), 0.17 * i as f32).unwrap();
        skins.extend(ch.skins(poser.node_world_matrices()));
        let placement = Mat4::from_scale_rotation_translation(
            Vec3::splat(1.0 + 0.05 * i as f32),
            Quat::from_rotation_y(0.6 * i as f32),
            Vec3::new(0.5 * (i % 3) as f32, 0.0, -0.7 * (i / 3) as f32),
        );
        placements.push(placement);
        let w = weights(i);
        let positions: Vec<Vec<Vec3>> = asset
            .primitives
            .iter()
            .map(|prim| {
                let skin = prim.skin.and_then(|s| poser.skin_matrices(s)).unwrap();
                let targets = prim.morph_targets.as_ref().unwrap();
                let mut out = vec![0.0; prim.positions.len()];
                skel_anim::skin_vertices(
                    &prim.positions,
                    None,
                    prim.influences.as_ref(),
                    skin,
                    Some((targets, &w[..targets.target_count])),
                    &mut out,
                    None,
                )
                .unwrap();
                out.chunks_exact(3)
                    .map(|v| placement.transform_point3(Vec3::from_slice(v)))
                    .collect()
            })
            .collect();
        for v in positions.iter().flatten() {
            (lo, hi) = (lo.min(*v), hi.max(*v));
        }
        placed.push(Placed(positions));
    }
    Scene {
        ch,
        placed,
        skins,
        placements,
        diagonal: (hi - lo).length(),
    }
}

/// The GPU side: bones, cull (boxes written), the weights, and a pick with and without them.
fn gpu(ctx: &GpuContext, s: &Scene) -> (CrowdPick, CrowdPick) {
    let asset = &s.ch.asset;
    let n = s.placements.len() as u32;
    let per = s.skins.len() as u32 / n;
    let crowd = CrowdBones::new_gpu_posed(ctx, n, per).unwrap();
    let floats: Vec<f32> = s.skins.iter().flat_map(|m| m.to_cols_array()).collect();
    ctx.queue
        .write_buffer(crowd.bones_buffer(), 0, bytemuck::cast_slice(&floats));
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
    let all: Vec<f32> = (0..INSTANCES).flat_map(weights).collect();
    let buffer = ctx.device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("test morph weights"),
        size: (all.len() * 4) as u64,
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    ctx.queue
        .write_buffer(&buffer, 0, bytemuck::cast_slice(&all));
    let rest = rest_world_matrices(&asset.animation).unwrap();
    let primitives: Vec<CrowdPickPrimitive<'_>> = asset
        .primitives
        .iter()
        .enumerate()
        .map(|(p, prim)| {
            let binding = prim.skeleton_binding.unwrap();
            let influences = prim.influences.as_ref().unwrap();
            let targets = prim.morph_targets.as_ref().unwrap();
            assert_eq!(prim.mode, PrimitiveMode::Triangles);
            CrowdPickPrimitive {
                primitive: p as u32,
                mesh: prim.mesh as u32,
                topology: PickTopology::Triangles,
                positions: &prim.positions,
                indices: prim.indices.as_deref(),
                influences_per_vertex: influences.per_vertex as u32,
                joints: &influences.joints,
                weights: &influences.weights,
                bone_offset: 0,
                mesh_world: rest[asset.animation.skeletons[binding].mesh_node],
                morph: Some(PickMorph {
                    deltas: &targets.positions,
                    targets: targets.target_count as u32,
                    first_weight: 0,
                }),
            }
        })
        .collect();
    let pick = |morph_weights| {
        CrowdPick::new(
            ctx,
            &crowd,
            &cull,
            &CrowdPickDescriptor {
                primitives: &primitives,
                morph_weights,
            },
        )
        .unwrap()
    };
    let morphed = pick(Some(PickMorphWeights {
        buffer: &buffer,
        floats_per_instance: FLOATS,
    }));
    (morphed, pick(None))
}

/// The CPU's answer: the nearest instance's hit, the lowest instance on a tie.
fn cpu_pick(s: &Scene, origin: Vec3, dir: Vec3) -> Option<(u32, PickHit)> {
    let mut best: Option<(u32, PickHit)> = None;
    for (i, placed) in s.placed.iter().enumerate() {
        if let Some(h) = pick(&s.ch.asset, placed, None, origin, dir).unwrap()
            && best.is_none_or(|(_, b)| h.distance < b.distance)
        {
            best = Some((i as u32, h));
        }
    }
    best
}

#[test]
fn a_morphed_crowd_is_picked_as_the_cpu_morphs_and_skins_it() {
    let Some(ctx) = ctx() else {
        return;
    };
    let s = scene();
    let (mut morphed, mut unmorphed) = gpu(ctx, &s);
    let mut rng = Rng::new(71);
    let (mut compared, mut unmorphed_differs, mut worst) = (0, 0, 0.0f32);
    for ray in 0..60 {
        // At an inner point of a random triangle of a random instance, from 2–3 m off.
        let i = (rng.next_f32() * INSTANCES as f32) as usize % INSTANCES;
        let p = (rng.next_f32() * s.placed[i].0.len() as f32) as usize % s.placed[i].0.len();
        let prim = &s.ch.asset.primitives[p];
        let indices = prim.indices.as_deref().unwrap();
        let t = (rng.next_f32() * (indices.len() / 3) as f32) as usize % (indices.len() / 3);
        let corner = |k: usize| s.placed[i].0[p][indices[3 * t + k] as usize];
        let (a, b) = (0.2 + 0.5 * rng.next_f32(), 0.1 + 0.2 * rng.next_f32());
        let target = corner(0) * (1.0 - a - b) + corner(1) * a + corner(2) * b;
        let from = Vec3::new(
            rng.next_f32() - 0.5,
            rng.next_f32() - 0.3,
            rng.next_f32() - 0.5,
        )
        .normalize()
            * (2.0 + rng.next_f32());
        let (origin, dir) = (target + from, -from);
        let cpu = cpu_pick(&s, origin, dir);
        let got = morphed.pick(ctx, origin, dir).unwrap();
        match (cpu, got) {
            (None, None) => {}
            (Some((ci, ch)), Some(g)) => {
                assert_eq!(
                    (g.instance, g.primitive as usize, g.triangle as usize),
                    (ci, ch.primitive, ch.triangle),
                    "ray {ray}"
                );
                let error = (g.distance - ch.distance).abs() / s.diagonal;
                worst = worst.max(error);
                assert!(
                    error < 1e-5,
                    "ray {ray}: distance {error:e} of the diagonal off"
                );
                compared += 1;
            }
            other => panic!("ray {ray}: CPU and GPU disagree on a hit: {other:?}"),
        }
        let plain = unmorphed.pick(ctx, origin, dir).unwrap();
        let same = match (cpu, plain) {
            (Some((ci, ch)), Some(g)) => {
                (g.instance, g.primitive as usize, g.triangle as usize)
                    == (ci, ch.primitive, ch.triangle)
                    && (g.distance - ch.distance).abs() < 1e-5 * s.diagonal
            }
            (None, None) => true,
            _ => false,
        };
        if !same {
            unmorphed_differs += 1;
        }
    }
    eprintln!(
        "{compared} hits compared (worst {worst:e} of the {} diagonal); without the weights \
         {unmorphed_differs} of 60 rays answer otherwise",
        s.diagonal
    );
    assert!(compared >= 40, "{compared} hits");
    assert!(
        unmorphed_differs >= 5,
        "the morph weights change {unmorphed_differs} answers"
    );
}
