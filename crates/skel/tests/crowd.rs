//! `skel::Crowd` on a real adapter (lavapipe in CI): several instances at different times, one
//! culled, skinned by the crowd compute dispatch, by the vertex-shader fragment (instance index
//! → bone offset, linear and dual quaternions) and drawn from the compute output, each compared
//! with the CPU reference `skel_anim::skin_vertices` (≤ 1e-5 of the bounding-box diagonal; the
//! built-in character morphed with each instance's weights on the compute paths, unmorphed by
//! the vertex fragment, which does not morph); a frame's tick allocates nothing and its upload
//! nothing beyond what the bare wgpu calls do.
//!
//! Without an adapter: SKIP, or fail when `SKEL_REQUIRE_GPU=1`.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use std::path::Path;

use skel::anim::{AnimationController, RecordingSink, skin_vertices};
use skel::gpu::{GpuContext, GpuError, readback::read_buffer};
use skel::{AssetContainer, Crowd, CrowdDescriptor, LoadOptions, SkelError, load_gltf};

mod common;
use common::{diagonal, gpu};

#[path = "crowd/probe.rs"]
mod probe;
use probe::vertex_path;
#[path = "crowd/reference.rs"]
mod reference;
use common::gpu_view;
use reference::{floats, instance_weights, morphed};

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures/");
const INSTANCES: u32 = 5;
const CULLED: usize = 2;

/// A crowd of `INSTANCES` players at different times of clip 0, instance `CULLED` culled,
/// posed, uploaded and skinned on the GPU.
fn posed_crowd(ctx: &GpuContext, asset: &AssetContainer) -> Crowd {
    let mut crowd = Crowd::new(
        ctx,
        asset,
        &CrowdDescriptor {
            instances: INSTANCES,
            clip: Some(0),
            ..CrowdDescriptor::default()
        },
    )
    .unwrap();
    for (i, player) in crowd.players.iter_mut().enumerate() {
        player.seek(0.11 + 0.17 * i as f32);
        player.set_playing(false);
    }
    crowd.players[CULLED].set_visible(false);
    crowd.tick(0.0);
    let mut encoder = ctx.device.create_command_encoder(&Default::default());
    crowd.upload(ctx, &mut encoder).unwrap();
    crowd.skin(&mut encoder);
    ctx.queue.submit([encoder.finish()]);
    crowd
}

/// Compares slot-major `positions`/`normals` of crowd mesh `mesh` with the CPU reference for
/// every visible instance (morphed with the instance's weights when `morphs` and the mesh
/// morphs); returns the worst position error over the diagonal.
fn compare(
    asset: &AssetContainer,
    crowd: &Crowd,
    (mesh, morphs): (usize, bool),
    positions: &[f32],
    normals: &[f32],
    path: &str,
) -> f32 {
    let cm = &crowd.meshes()[mesh];
    let m = &asset.meshes[cm.mesh];
    let bone_count = m.skeleton.as_ref().unwrap().gpu.bone_count() as usize;
    let mut worst_ratio = 0.0f32;
    assert_eq!(
        crowd.visible().len(),
        INSTANCES as usize - 1,
        "the culled instance is not drawn"
    );
    for (slot, &instance) in crowd.visible().iter().enumerate() {
        assert_ne!(instance as usize, CULLED);
        let first = cm.bone_offset as usize;
        let bones = &crowd.bone_matrices(instance as usize)[first..first + bone_count];
        for primitive in &m.primitives {
            let p = &asset.primitives[primitive.source];
            let n = p.positions.len();
            let mut cpu_p = vec![0.0; n];
            let mut cpu_n = vec![0.0; n];
            let influences = gpu_view(p);
            let weights = instance_weights(asset, crowd, cm, instance as usize);
            let (rest_p, rest_n) = morphed(p, weights.filter(|_| morphs));
            skin_vertices(
                &rest_p,
                rest_n.as_deref(),
                influences.as_ref(),
                bones,
                None,
                &mut cpu_p,
                p.normals.as_ref().map(|_| &mut cpu_n[..]),
            )
            .unwrap();
            let at = (slot * cm.vertex_count as usize + primitive.base_vertex as usize) * 3;
            let diagonal = diagonal(&cpu_p, 1e-3);
            let worst = cpu_p
                .iter()
                .zip(&positions[at..at + n])
                .map(|(a, b)| (a - b).abs())
                .fold(0.0, f32::max);
            assert!(
                worst <= 1e-5 * diagonal,
                "{path}: {} instance {instance}: positions differ by {worst} (diagonal {diagonal})",
                primitive.key
            );
            worst_ratio = worst_ratio.max(worst / diagonal);
            if p.normals.is_some() {
                let worst_n = cpu_n
                    .iter()
                    .zip(&normals[at..at + n])
                    .map(|(a, b)| (a - b).abs())
                    .fold(0.0, f32::max);
                assert!(
                    worst_n <= 1e-4,
                    "{path}: {} instance {instance}: normals differ by {worst_n}",
                    primitive.key
                );
            }
        }
    }
    worst_ratio
}

fn check_asset(ctx: &GpuContext, path: &Path) {
    let asset = load_gltf(ctx, path, &LoadOptions::default()).unwrap();
    let crowd = posed_crowd(ctx, &asset);
    // The crowd's bones are what a lone controller gives at the same time.
    for (i, player) in crowd.players.iter().enumerate() {
        if i == CULLED {
            continue;
        }
        let mut lone = AnimationController::new(asset.animation.clone()).unwrap();
        let mut sink = RecordingSink::default();
        lone.evaluate_at(Some(0), player.layers()[0].clock().time(), &mut sink)
            .unwrap();
        for cm in crowd.meshes() {
            let binding = asset.meshes[cm.mesh].skeleton.as_ref().unwrap().binding;
            let expected = lone.bone_matrices(binding).unwrap();
            let first = cm.bone_offset as usize;
            assert_eq!(
                &crowd.bone_matrices(i)[first..first + expected.len()],
                expected,
                "instance {i}"
            );
        }
    }
    // Instances really differ: otherwise a wrong bone offset would go unseen.
    assert_ne!(crowd.bone_matrices(0), crowd.bone_matrices(1));
    for mesh in 0..crowd.meshes().len() {
        let cm = &crowd.meshes()[mesh];
        let bytes = u64::from(crowd.visible_count()) * u64::from(cm.vertex_count) * 12;
        let p =
            floats(&read_buffer(ctx, cm.skinned_positions.as_ref().unwrap(), 0, bytes).unwrap());
        let n = floats(&read_buffer(ctx, cm.skinned_normals.as_ref().unwrap(), 0, bytes).unwrap());
        let name = path.file_name().unwrap().to_string_lossy();
        let worst = compare(
            &asset,
            &crowd,
            (mesh, true),
            &p,
            &n,
            &format!("{name} compute"),
        );
        let (vp, vn) = vertex_path(ctx, &asset, &crowd, mesh, false, false);
        let worst_vs = compare(
            &asset,
            &crowd,
            (mesh, false),
            &vp,
            &vn,
            &format!("{name} vertex shader"),
        );
        let (dp, dn) = vertex_path(ctx, &asset, &crowd, mesh, true, false);
        compare(
            &asset,
            &crowd,
            (mesh, true),
            &dp,
            &dn,
            &format!("{name} drawn from compute"),
        );
        eprintln!(
            "{name} mesh {mesh}: worst/diagonal compute {worst:e}, vertex shader {worst_vs:e}"
        );
    }
}

#[test]
fn crowd_compute_and_vertex_paths_match_the_cpu_reference() {
    let Some(ctx) = gpu("crowd paths") else {
        return;
    };
    // 4 influences in 7 primitives; two skeletons (bone offsets); 8 influences; 16 (some
    // vertices reduced from 20).
    for file in [
        "default_character.glb",
        "two_skins.gltf",
        "eight_influences_u8.glb",
        "sixteen_influences.glb",
    ] {
        check_asset(&ctx, &Path::new(FIXTURES).join(file));
    }
}

/// Heap allocations of `tick` and of `upload` in the last of 10 frames of a crowd of
/// `instances` (after every staging slot has been used once).
fn frame_allocations(ctx: &GpuContext, asset: &AssetContainer, instances: u32) -> (u64, u64) {
    let mut crowd = Crowd::new(
        ctx,
        asset,
        &CrowdDescriptor {
            instances,
            ..Default::default()
        },
    )
    .unwrap();
    crowd.players[3].set_visible(false);
    let mut counts = (0, 0);
    for _ in 0..10 {
        let mut encoder = ctx.device.create_command_encoder(&Default::default());
        let tick = allocation_counter::measure(|| crowd.tick(0.016)).count_total;
        let upload =
            allocation_counter::measure(|| crowd.upload(ctx, &mut encoder).unwrap()).count_total;
        crowd.skin(&mut encoder);
        ctx.queue.submit([encoder.finish()]);
        let _ = ctx.device.poll(wgpu::PollType::wait_indefinitely());
        counts = (tick, upload);
    }
    assert_eq!(crowd.visible_count(), instances - 1);
    counts
}

/// Heap allocations of the wgpu calls an upload is made of, made directly, in the last of 10
/// frames: view a mapped staging buffer, write it, unmap it, record two copies into a fresh
/// encoder and its remapping with a callback that captures nothing. What wgpu allocates
/// itself; `Crowd::upload` must allocate exactly this, nothing of its own.
fn bare_wgpu_upload_allocations(ctx: &GpuContext) -> u64 {
    let buffer = |usage, mapped_at_creation| {
        ctx.device.create_buffer(&wgpu::BufferDescriptor {
            label: None,
            size: 4096,
            usage,
            mapped_at_creation,
        })
    };
    let staging = buffer(
        wgpu::BufferUsages::MAP_WRITE | wgpu::BufferUsages::COPY_SRC,
        true,
    );
    let dst = [(); 2].map(|()| buffer(skel::gpu::CROWD_BUFFER_USAGE, false));
    let mut count = 0;
    for _ in 0..10 {
        let mut encoder = ctx.device.create_command_encoder(&Default::default());
        count = allocation_counter::measure(|| {
            // Written as `CrowdBones::upload` writes: bones, then the count and the list.
            let mut view = staging.get_mapped_range_mut(..2048).unwrap();
            {
                let mut all = view.slice(..);
                let (mut bones, mut rest) = all.slice(..).split_at(1024);
                bones.copy_from_slice(&[1; 1024]);
                rest.slice(..4).copy_from_slice(&7u32.to_ne_bytes());
                rest.slice(4..32).copy_from_slice(&[2; 28]);
            }
            drop(view);
            staging.unmap();
            encoder.copy_buffer_to_buffer(&staging, 0, &dst[0], 0, 1024);
            encoder.copy_buffer_to_buffer(&staging, 1024, &dst[1], 0, 1024);
            encoder.map_buffer_on_submit(&staging, wgpu::MapMode::Write, .., |_| {});
        })
        .count_total;
        ctx.queue.submit([encoder.finish()]);
        let _ = ctx.device.poll(wgpu::PollType::wait_indefinitely());
    }
    count
}

#[test]
fn a_crowd_frame_allocates_nothing_per_instance() {
    // wgpu-core's debug builds capture a `Backtrace` on every snatch lock when RUST_BACKTRACE
    // asks for backtraces, and how many allocations a capture makes depends on the stack's
    // depth, so the counts below are exact only with backtraces off. This test therefore runs
    // its own binary again with them off, and counts there.
    const CHILD: &str = "SKEL_CROWD_ALLOCATIONS_CHILD";
    if std::env::var_os(CHILD).is_none() {
        let out = std::process::Command::new(std::env::current_exe().unwrap())
            .args([
                "--exact",
                "a_crowd_frame_allocates_nothing_per_instance",
                "--nocapture",
                "--test-threads",
                "1",
            ])
            .env(CHILD, "1")
            .env("RUST_BACKTRACE", "0")
            .env_remove("RUST_LIB_BACKTRACE")
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        eprint!("{stderr}");
        assert!(out.status.success(), "the counting run failed");
        assert!(
            String::from_utf8_lossy(&out.stdout).contains("1 passed"),
            "the counting run ran no test"
        );
        return;
    }
    let Some(ctx) = gpu("crowd allocations") else {
        return;
    };
    let path = Path::new(FIXTURES).join("default_character.glb");
    let asset = load_gltf(&ctx, path.as_path(), &LoadOptions::default()).unwrap();
    let (tick_small, upload_small) = frame_allocations(&ctx, &asset, 16);
    let (tick_large, upload_large) = frame_allocations(&ctx, &asset, 1024);
    eprintln!(
        "allocations per frame: tick {tick_small}/{tick_large}, upload {upload_small}/{upload_large} (16/1024 instances)"
    );
    // Posing writes into the crowd's own array: nothing at all.
    assert_eq!((tick_small, tick_large), (0, 0));
    // The upload makes none of its own: exactly what the bare wgpu calls make (2 with wgpu 30:
    // the fresh encoder's command list and its deferred-mapping list), whatever the crowd size
    // — where one write_texture per character made about 5 per character.
    let bare = bare_wgpu_upload_allocations(&ctx);
    eprintln!("the bare wgpu calls of an upload: {bare} allocations");
    assert_eq!(
        (upload_small, upload_large),
        (bare, bare),
        "upload allocates beyond wgpu's own"
    );
}

#[test]
fn uploads_never_submitted_are_an_error_not_a_hang() {
    let Some(ctx) = gpu("crowd staging busy") else {
        return;
    };
    let asset = load_gltf(
        &ctx,
        Path::new(FIXTURES).join("default_character.glb").as_path(),
        &LoadOptions::default(),
    )
    .unwrap();
    let mut crowd = Crowd::new(
        &ctx,
        &asset,
        &CrowdDescriptor {
            instances: 2,
            staging_slots: 1,
            compute: false,
            ..Default::default()
        },
    )
    .unwrap();
    crowd.tick(0.001);
    let mut first = ctx.device.create_command_encoder(&Default::default());
    crowd.upload(&ctx, &mut first).unwrap();
    let mut second = ctx.device.create_command_encoder(&Default::default());
    let err = crowd.upload(&ctx, &mut second).unwrap_err();
    assert!(
        matches!(
            err,
            SkelError::Gpu {
                source: GpuError::StagingBusy { slots: 1 },
                ..
            }
        ),
        "{err}"
    );
    // Once the first is submitted, the slot comes back.
    ctx.queue.submit([first.finish()]);
    let mut third = ctx.device.create_command_encoder(&Default::default());
    crowd.upload(&ctx, &mut third).unwrap();
    ctx.queue.submit([third.finish()]);
}

#[test]
fn dual_quaternion_crowds_match_the_cpu_reference() {
    let Some(ctx) = gpu("crowd dual quaternions") else {
        return;
    };
    for file in [
        "default_character.glb",
        "eight_influences_u8.glb",
        "sixteen_influences.glb",
    ] {
        let path = Path::new(FIXTURES).join(file);
        let asset = load_gltf(&ctx, path.as_path(), &LoadOptions::default()).unwrap();
        let mut crowd = Crowd::new(
            &ctx,
            &asset,
            &CrowdDescriptor {
                instances: 3,
                skinning: skel::SkinningMethod::DualQuaternion,
                ..CrowdDescriptor::default()
            },
        )
        .unwrap();
        assert!(
            crowd.warnings().is_empty(),
            "{file}: {:?}",
            crowd.warnings()
        );
        for (i, player) in crowd.players.iter_mut().enumerate() {
            player.seek(0.2 + 0.31 * i as f32);
            player.set_playing(false);
        }
        crowd.tick(0.0);
        let mut encoder = ctx.device.create_command_encoder(&Default::default());
        crowd.upload(&ctx, &mut encoder).unwrap();
        crowd.skin(&mut encoder);
        ctx.queue.submit([encoder.finish()]);
        let cm = &crowd.meshes()[0];
        assert_eq!(cm.skinning, skel::SkinningMethod::DualQuaternion);
        let m = &asset.meshes[cm.mesh];
        let bytes = 3 * u64::from(cm.vertex_count) * 12;
        let gpu_p =
            floats(&read_buffer(&ctx, cm.skinned_positions.as_ref().unwrap(), 0, bytes).unwrap());
        let gpu_n =
            floats(&read_buffer(&ctx, cm.skinned_normals.as_ref().unwrap(), 0, bytes).unwrap());
        let (vs_p, vs_n) = vertex_path(&ctx, &asset, &crowd, 0, false, true);
        let mut differs_from_linear = 0.0f32;
        for slot in 0..3usize {
            let bones = crowd.bone_matrices(slot);
            for primitive in &m.primitives {
                let p = &asset.primitives[primitive.source];
                let inf = &gpu_view(p).unwrap();
                let n = p.positions.len();
                // Compute skinning morphs the mesh first; the vertex fragment does not.
                let weights = instance_weights(&asset, &crowd, cm, slot);
                let dq = |weights: Option<&[f32]>| {
                    let (rest_p, rest_n) = morphed(p, weights);
                    let (mut cpu_p, mut cpu_n) = (vec![0.0; n], vec![0.0; n]);
                    skel::gpu::dual_quat::skin_vertices_dq(
                        &rest_p,
                        rest_n.as_deref(),
                        inf.per_vertex,
                        &inf.joints,
                        &inf.weights,
                        bones,
                        &mut cpu_p,
                        rest_n.as_ref().map(|_| &mut cpu_n[..]),
                    );
                    (cpu_p, cpu_n)
                };
                let (vertex_ref, compute_ref) = (dq(None), dq(weights));
                let mut lin_p = vec![0.0; n];
                skin_vertices(&p.positions, None, Some(inf), bones, None, &mut lin_p, None)
                    .unwrap();
                let diagonal = diagonal(&vertex_ref.0, 1e-3);
                let at = (slot * cm.vertex_count as usize + primitive.base_vertex as usize) * 3;
                for (path, positions, normals, (cpu_p, cpu_n)) in [
                    ("compute", &gpu_p, &gpu_n, &compute_ref),
                    ("vertex shader", &vs_p, &vs_n, &vertex_ref),
                ] {
                    let worst = cpu_p
                        .iter()
                        .zip(&positions[at..at + n])
                        .map(|(a, b)| (a - b).abs())
                        .fold(0.0, f32::max);
                    assert!(
                        worst <= 1e-5 * diagonal,
                        "{file} {path} {}: DQ GPU vs CPU {worst} (diagonal {diagonal})",
                        primitive.key
                    );
                    if p.normals.is_some() {
                        let worst_n = cpu_n
                            .iter()
                            .zip(&normals[at..at + n])
                            .map(|(a, b)| (a - b).abs())
                            .fold(0.0, f32::max);
                        assert!(
                            worst_n <= 1e-4,
                            "{file} {path} {}: DQ normals {worst_n}",
                            primitive.key
                        );
                    }
                }
                differs_from_linear = vertex_ref
                    .0
                    .iter()
                    .zip(&lin_p)
                    .map(|(a, b)| (a - b).abs())
                    .fold(differs_from_linear, f32::max);
            }
        }
        // The DQ path really ran: on a posed character it is not linear skinning.
        assert!(
            differs_from_linear > 1e-4,
            "{file}: DQ equals linear ({differs_from_linear})"
        );
        eprintln!("{file}: DQ vs linear up to {differs_from_linear}");
    }
}
