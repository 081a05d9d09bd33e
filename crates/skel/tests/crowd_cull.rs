//! `Crowd::instance_box` and `Crowd::cull` on a real adapter (lavapipe in CI): every vertex the
//! crowd's compute pass skins (and morphs) lies in its instance's box; culling keeps every
//! instance with a vertex in the camera's frustum and drops most of the others; a culled crowd,
//! placed by `CrowdRenderer::place`, draws the same picture as the whole crowd; a frame's tick
//! and cull allocate nothing, with boxes made in the tick or by the cull; a lone
//! player's box (`AssetContainer::world_box`) holds every vertex it skins and morphs.
//!
//! Without an adapter: SKIP, or fail when `SKEL_REQUIRE_GPU=1`.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use std::path::Path;

use skel::gpu::glam::{Mat4, Vec3};
use skel::gpu::{GpuContext, PoseLayout, readback::read_buffer};
use skel::render::{CrowdRenderer, OffscreenTarget};
use skel::{AssetContainer, Crowd, CrowdDescriptor, CullError, Posing, SkelError, load_gltf};

mod common;
use common::{gpu, gpu_view, paused_crowd};
#[path = "crowd/scene.rs"]
mod scene;
use scene::{SIDE, Scene, in_view, picture, scene};
#[path = "crowd/reference.rs"]
#[allow(
    dead_code,
    reason = "the crowd tests' CPU side; this binary uses `morphed`"
)]
mod reference;

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures/");

/// A CPU-posed crowd of `instances` at different times of clip 0, paused, ticked.
fn crowd_at_times(ctx: &GpuContext, asset: &AssetContainer, instances: u32) -> Crowd {
    paused_crowd(ctx, asset, instances, |i| 0.07 + 0.13 * i as f32)
}

/// Uploads and skins `crowd`'s visible instances; returns each crowd mesh's skinned positions
/// (slot-major x, y, z).
fn skinned(ctx: &GpuContext, crowd: &mut Crowd) -> Vec<Vec<f32>> {
    let mut encoder = ctx.device.create_command_encoder(&Default::default());
    crowd.upload(ctx, &mut encoder).unwrap();
    crowd.skin(&mut encoder);
    ctx.queue.submit([encoder.finish()]);
    crowd
        .meshes()
        .iter()
        .map(|cm| {
            let bytes = u64::from(crowd.visible_count()) * u64::from(cm.vertex_count) * 12;
            let raw = read_buffer(ctx, cm.skinned_positions.as_ref().unwrap(), 0, bytes).unwrap();
            bytemuck::cast_slice::<u8, f32>(&raw).to_vec()
        })
        .collect()
}

/// Instance slot `slot`'s skinned vertices in every mesh, in the character's world: each
/// mesh's (in its node's frame) carried by the node's world matrix in `world`.
fn world_vertices_of<'a>(
    asset: &'a AssetContainer,
    world: &'a [Mat4],
    crowd: &'a Crowd,
    positions: &'a [Vec<f32>],
    slot: usize,
) -> impl Iterator<Item = Vec3> + 'a {
    crowd
        .meshes()
        .iter()
        .zip(positions)
        .flat_map(move |(cm, p)| {
            let node = world[asset.meshes[cm.mesh].node];
            let n = cm.vertex_count as usize * 3;
            p[slot * n..(slot + 1) * n]
                .chunks_exact(3)
                .map(move |v| node.transform_point3(Vec3::from_slice(v)))
        })
}

#[test]
fn every_skinned_vertex_lies_in_its_instance_box() {
    let Some(ctx) = gpu("crowd instance boxes") else {
        return;
    };
    // Morph targets (the built-in character), two skeletons, 8 and 16 influences.
    for file in [
        "default_character.glb",
        "two_skins.gltf",
        "eight_influences_u8.glb",
        "sixteen_influences.glb",
    ] {
        let asset = load_gltf(&ctx, &Path::new(FIXTURES).join(file), &Default::default()).unwrap();
        let mut crowd = crowd_at_times(&ctx, &asset, 6);
        let positions = skinned(&ctx, &mut crowd);
        let rest = skel::gltf::rest_world_matrices(&asset.animation).unwrap();
        let mut checked = 0;
        for (slot, &instance) in crowd.visible().iter().enumerate() {
            let (min, max) = crowd.instance_box(instance as usize).unwrap();
            // The GPU's skinning sums round differently from the box's: a millionth of the
            // box, ten times over.
            let slack = Vec3::splat(1e-5 * (max - min).length());
            for v in world_vertices_of(&asset, &rest, &crowd, &positions, slot) {
                assert!(
                    v.cmpge(min - slack).all() && v.cmple(max + slack).all(),
                    "{file}: instance {instance}: vertex {v} outside {min}..{max}"
                );
                checked += 1;
            }
        }
        assert!(checked > 0, "{file}: no vertex checked");
        // Instances at different times get different boxes: a box from the rest pose, or
        // from the wrong instance's bones, would not.
        assert_ne!(crowd.instance_box(0), crowd.instance_box(3), "{file}");
        assert_eq!(crowd.instance_box(6), None, "{file}: past the end");
    }
}

#[test]
fn culling_keeps_every_instance_in_view_and_drops_most_others() {
    let Some(ctx) = gpu("crowd culling") else {
        return;
    };
    let Scene {
        asset,
        placements,
        view_projection,
        ..
    } = scene(&ctx);
    let mut crowd = crowd_at_times(&ctx, &asset, SIDE * SIDE);
    // Every instance skinned: which have a vertex in view.
    let positions = skinned(&ctx, &mut crowd);
    let rest = skel::gltf::rest_world_matrices(&asset.animation).unwrap();
    let seen: Vec<bool> = (0..crowd.players.len())
        .map(|i| {
            world_vertices_of(&asset, &rest, &crowd, &positions, i)
                .any(|v| in_view(view_projection, &placements[i], v))
        })
        .collect();
    let kept = crowd.cull(view_projection, &placements).unwrap() as usize;
    let visible = crowd.visible().to_vec();
    for (i, &s) in seen.iter().enumerate() {
        assert!(
            !s || visible.contains(&(i as u32)),
            "instance {i} has a vertex in view but was culled"
        );
    }
    let in_view_count = seen.iter().filter(|&&s| s).count();
    let out_of_view = seen.len() - in_view_count;
    let kept_outside = kept - in_view_count;
    eprintln!(
        "{in_view_count} instances in view, {kept} kept, {kept_outside} of {out_of_view} out of \
         view kept"
    );
    assert!(
        in_view_count >= 5,
        "the camera sees too little: {in_view_count}"
    );
    assert!(
        out_of_view >= 20,
        "the camera sees too much: {out_of_view} out of view"
    );
    // Conservative, not useless: most of what is out of view goes.
    assert!(
        kept_outside * 3 <= out_of_view,
        "{kept_outside} of {out_of_view} instances out of view were kept"
    );
    // The list stays in instance order, and a hidden player stays out.
    assert!(visible.windows(2).all(|w| w[0] < w[1]));
    let hidden = visible[0] as usize;
    crowd.players[hidden].set_visible(false);
    crowd.tick(0.0);
    crowd.cull(view_projection, &placements).unwrap();
    assert!(!crowd.visible().contains(&(hidden as u32)));
    assert_eq!(crowd.visible().len(), kept - 1);
}

#[test]
fn culling_allocates_nothing() {
    let Some(ctx) = gpu("crowd culling allocations") else {
        return;
    };
    let Scene {
        asset,
        placements,
        view_projection,
        ..
    } = scene(&ctx);
    // Boxed by the cull, then boxed in `tick` and kept (`boxes_in_tick`): tick and cull
    // together allocate nothing either way.
    for boxes_in_tick in [false, true] {
        let mut crowd = Crowd::new(
            &ctx,
            &asset,
            &CrowdDescriptor {
                instances: SIDE * SIDE,
                boxes_in_tick,
                ..CrowdDescriptor::default()
            },
        )
        .unwrap();
        for (i, player) in crowd.players.iter_mut().enumerate() {
            player.seek(0.07 + 0.13 * i as f32);
        }
        // The first frame may start rayon's pool (with the `rayon` feature); the second is
        // a frame.
        crowd.tick(0.016);
        crowd.cull(view_projection, &placements).unwrap();
        let mut kept = 0;
        let allocations = allocation_counter::measure(|| {
            crowd.tick(0.016);
            kept = crowd.cull(view_projection, &placements).unwrap();
        })
        .count_total;
        assert!(
            kept > 0 && (kept as usize) < placements.len(),
            "boxes in tick {boxes_in_tick}: {kept} kept"
        );
        assert_eq!(
            allocations, 0,
            "boxes in tick {boxes_in_tick}: a tick and cull allocated"
        );
    }
}

#[test]
fn culling_refuses_short_placements_and_gpu_posed_crowds() {
    let Some(ctx) = gpu("crowd culling errors") else {
        return;
    };
    let Scene {
        asset,
        placements,
        view_projection,
        ..
    } = scene(&ctx);
    let mut crowd = crowd_at_times(&ctx, &asset, 4);
    let before = crowd.visible().to_vec();
    let short = crowd.cull(view_projection, &placements[..3]);
    assert!(
        matches!(
            short,
            Err(SkelError::Cull(CullError::Placements {
                given: 3,
                instances: 4
            }))
        ),
        "{short:?}"
    );
    assert_eq!(crowd.visible(), before, "the list is left as it was");
    let mut on_gpu = Crowd::new(
        &ctx,
        &asset,
        &CrowdDescriptor {
            instances: 4,
            posing: Posing::Gpu(PoseLayout::default()),
            ..CrowdDescriptor::default()
        },
    )
    .unwrap();
    let refused = on_gpu.cull(view_projection, &placements);
    assert!(
        matches!(refused, Err(SkelError::Cull(CullError::PosedOnGpu))),
        "{refused:?}"
    );
    assert_eq!(on_gpu.instance_box(0), None);
}

#[test]
fn a_culled_crowd_draws_the_picture_of_the_whole_crowd() {
    let Some(ctx) = gpu("culled crowd picture") else {
        return;
    };
    let Scene {
        asset,
        placements,
        view_projection,
        camera,
    } = scene(&ctx);
    let mut crowd = crowd_at_times(&ctx, &asset, SIDE * SIDE);
    let target = OffscreenTarget::new(&ctx.device, 160, 160, 1).unwrap();
    let rest = skel::gltf::rest_world_matrices(&asset.animation).unwrap();
    let renderer =
        CrowdRenderer::new(&ctx, &asset, &crowd, &rest, &placements, &target.format()).unwrap();
    renderer.set_camera(&ctx.queue, &camera);
    // Before the first `place`, nothing is drawn.
    let empty = picture(&ctx, &asset, &renderer, &target, false);
    skinned(&ctx, &mut crowd);
    let whole = picture(&ctx, &asset, &renderer, &target, true);
    let kept = crowd.cull(view_projection, &placements).unwrap();
    assert!(kept < SIDE * SIDE);
    skinned(&ctx, &mut crowd);
    let culled = picture(&ctx, &asset, &renderer, &target, true);
    // What a placing pass that ignored the list would draw: slot s (instance visible[s]) at
    // placements[s]. Moving each kept instance there by `set_placements` draws it.
    let visible = crowd.visible().to_vec();
    let mut slot_order = placements.clone();
    for (s, &i) in visible.iter().enumerate() {
        slot_order[i as usize] = placements[s];
    }
    renderer.set_placements(&ctx.queue, &slot_order).unwrap();
    let misplaced = picture(&ctx, &asset, &renderer, &target, true);
    assert!(
        renderer
            .set_placements(&ctx.queue, &placements[1..])
            .is_err()
    );
    let differing = |a: &[u8], b: &[u8]| {
        a.chunks_exact(4)
            .zip(b.chunks_exact(4))
            .filter(|(p, q)| p != q)
            .count()
    };
    let background = whole.chunks_exact(4).filter(|p| *p == &whole[..4]).count();
    assert!(
        background < whole.len() / 4 * 9 / 10,
        "the picture is nearly empty: {background} background pixels"
    );
    assert_eq!(differing(&whole, &culled), 0, "culled against whole");
    assert!(
        empty.chunks_exact(4).all(|p| p == &empty[..4]),
        "drawn before the first place"
    );
    assert!(
        differing(&whole, &misplaced) > 100,
        "the check cannot see misplaced characters"
    );
}

#[test]
fn a_players_box_holds_every_vertex_it_skins_and_morphs() {
    let Some(ctx) = gpu("player box") else {
        return;
    };
    for file in [
        "default_character.glb",
        "two_skins.gltf",
        "sixteen_influences.glb",
    ] {
        let asset = load_gltf(&ctx, &Path::new(FIXTURES).join(file), &Default::default()).unwrap();
        let mut player = skel::anim::Player::new(&asset.rig);
        player.add_layer(skel::anim::LayerDesc::new(0)).unwrap();
        let mut checked = 0;
        let mut boxes = Vec::new();
        for step in 0..12 {
            player.tick(
                if step == 0 { 0.0 } else { 0.09 },
                &mut skel::anim::NullSink,
            );
            let (min, max) = asset.world_box(&mut player).unwrap();
            boxes.push((min, max));
            let slack = Vec3::splat(1e-6 * (max - min).length());
            for mesh in &asset.meshes {
                let Some(skeleton) = &mesh.skeleton else {
                    continue;
                };
                let bones = player.bone_matrices(skeleton.binding).unwrap().to_vec();
                let node = player.world_matrices()[mesh.node];
                let weights = mesh
                    .morph
                    .as_ref()
                    .and_then(|m| player.morph_weights(m.binding));
                for primitive in &mesh.primitives {
                    let p = &asset.primitives[primitive.source];
                    let (rest, _) = reference::morphed(p, weights);
                    let mut out = vec![0.0; rest.len()];
                    skel::anim::skin_vertices(
                        &rest,
                        None,
                        gpu_view(p).as_ref(),
                        &bones,
                        None,
                        &mut out,
                        None,
                    )
                    .unwrap();
                    // Skinned vertices are in the mesh node's frame: the renderer places them.
                    for v in out
                        .chunks_exact(3)
                        .map(|v| node.transform_point3(Vec3::from_slice(v)))
                    {
                        assert!(
                            v.cmpge(min - slack).all() && v.cmple(max + slack).all(),
                            "{file} at step {step}: vertex {v} outside {min}..{max}"
                        );
                        checked += 1;
                    }
                }
            }
        }
        assert!(checked > 0, "{file}: no vertex checked");
        assert_ne!(boxes[0], boxes[6], "{file}: the box follows the pose");
    }
}
