//! `skel::Crowd` posed on the GPU (lavapipe in CI): the skinned vertices of a GPU-posed
//! CesiumMan crowd against a CPU-posed one at the same times (within 1e-4 of the diagonal),
//! chunked skinning and posing against unchunked (identical), poses read back for chosen
//! instances, the reduced joint set set through the crowd, and the steady-state upload: the
//! per-frame uniforms only, nothing per instance.
//! `crowd/morph.rs`: crowds of a morphing asset, morphed per instance on both posing paths.
//!
//! Without an adapter or the shared assets: SKIP, or fail when `SKEL_REQUIRE_GPU=1` /
//! `SKEL_REQUIRE_ASSETS=1`.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use skel::gpu::glam::Mat4;
use skel::gpu::{GpuContext, PoseInstance, PoseLayout, readback};
use skel::{AssetContainer, Crowd, CrowdDescriptor, LoadOptions, Posing, load_gltf};
use skel_test_support::shared_asset;

mod common;
use common::{diagonal, gpu};

#[path = "crowd/morph.rs"]
mod morph;

fn cesium_man(test: &str) -> Option<(GpuContext, AssetContainer)> {
    let ctx = gpu(test)?;
    let path = shared_asset(test, "CesiumMan/CesiumMan.glb")?;
    let asset = load_gltf(&ctx, &path, &LoadOptions::default()).unwrap();
    Some((ctx, asset))
}

fn time_of(i: usize) -> f32 {
    0.05 + 0.137 * i as f32
}

/// A crowd of `n` instances at [`time_of`] each, posed, uploaded and skinned once.
fn skinned(
    ctx: &GpuContext,
    asset: &AssetContainer,
    n: u32,
    posing: Posing,
    max_chunk_bytes: Option<u64>,
) -> Crowd {
    let mut crowd = Crowd::new(
        ctx,
        asset,
        &CrowdDescriptor {
            instances: n,
            posing,
            max_chunk_bytes,
            ..CrowdDescriptor::default()
        },
    )
    .unwrap();
    if crowd.posed_on_gpu() {
        let instances: Vec<PoseInstance> = (0..n as usize)
            .map(|i| PoseInstance::new(0, time_of(i)))
            .collect();
        crowd.set_instances(ctx, 0, &instances).unwrap();
    } else {
        for (i, p) in crowd.players.iter_mut().enumerate() {
            p.seek(time_of(i));
            p.set_playing(false);
        }
    }
    crowd.tick(0.0);
    let mut encoder = ctx.device.create_command_encoder(&Default::default());
    crowd.upload(ctx, &mut encoder).unwrap();
    crowd.skin(&mut encoder);
    ctx.queue.submit([encoder.finish()]);
    crowd
}

fn positions(ctx: &GpuContext, crowd: &Crowd) -> Vec<f32> {
    let b = crowd.meshes()[0].skinned_positions.as_ref().unwrap();
    bytemuck::pod_collect_to_vec(&readback::read_buffer(ctx, b, 0, b.size()).unwrap())
}

#[test]
fn gpu_posed_crowd_skins_like_the_cpu_posed_one() {
    let Some((ctx, asset)) = cesium_man("gpu_posed_crowd_skins_like_the_cpu_posed_one") else {
        return;
    };
    let cpu = positions(&ctx, &skinned(&ctx, &asset, 12, Posing::Cpu, None));
    for layout in [PoseLayout::PerBone, PoseLayout::PerCharacter] {
        let gpu = positions(&ctx, &skinned(&ctx, &asset, 12, Posing::Gpu(layout), None));
        let diagonal = diagonal(&cpu, 1e-3);
        let worst = cpu
            .iter()
            .zip(&gpu)
            .map(|(a, b)| (a - b).abs())
            .fold(0.0, f32::max);
        eprintln!(
            "{layout:?}: worst vertex error {:.2e} of the diagonal",
            worst / diagonal
        );
        assert!(
            worst <= 1e-4 * diagonal,
            "{layout:?}: {worst} of {diagonal}"
        );
    }
}

#[test]
fn chunked_crowd_equals_unchunked() {
    let Some((ctx, asset)) = cesium_man("chunked_crowd_equals_unchunked") else {
        return;
    };
    let n = 150;
    let whole = skinned(&ctx, &asset, n, Posing::Gpu(PoseLayout::PerBone), None);
    // 64 slots of CesiumMan's output per skinning chunk: 3 chunks.
    let vertices = u64::from(whole.meshes()[0].vertex_count);
    let chunked = skinned(
        &ctx,
        &asset,
        n,
        Posing::Gpu(PoseLayout::PerBone),
        Some(64 * vertices * 12),
    );
    assert_eq!(chunked.meshes()[0].skin_chunks(), 3);
    assert_eq!(whole.meshes()[0].skin_chunks(), 1);
    assert_eq!(positions(&ctx, &whole), positions(&ctx, &chunked));
}

#[test]
fn poses_come_back_for_chosen_instances() {
    let Some((ctx, asset)) = cesium_man("poses_come_back_for_chosen_instances") else {
        return;
    };
    let mut crowd = skinned(&ctx, &asset, 20, Posing::Gpu(PoseLayout::PerBone), None);
    crowd.request_pose_readback(&[3, 17, 99]);
    crowd.tick(1.0 / 60.0);
    let mut encoder = ctx.device.create_command_encoder(&Default::default());
    crowd.upload(&ctx, &mut encoder).unwrap();
    ctx.queue.submit([encoder.finish()]);
    let per = crowd.gpu().bones_per_instance() as usize;
    let all: Vec<Mat4> =
        readback::read_buffer_as(&ctx, crowd.gpu().bones_buffer(), 0, 20 * per).unwrap();
    let _ = ctx.device.poll(wgpu::PollType::wait_indefinitely());
    let (instances, bones) = crowd.pose_readback(&ctx).expect("delivered after the wait");
    assert_eq!(instances, &[3, 17], "instance 99 is past the crowd");
    assert_eq!(
        bones,
        [&all[3 * per..4 * per], &all[17 * per..18 * per]].concat()
    );
}

#[test]
fn a_steady_gpu_crowd_uploads_nothing_per_instance() {
    let Some((ctx, asset)) = cesium_man("a_steady_gpu_crowd_uploads_nothing_per_instance") else {
        return;
    };
    let mut per_frame = Vec::new();
    for n in [10, 1000] {
        let mut crowd = skinned(&ctx, &asset, n, Posing::Gpu(PoseLayout::PerBone), None);
        let before = crowd.gpu_pose().unwrap().uploaded_bytes();
        for _ in 0..5 {
            crowd.tick(1.0 / 60.0);
            let mut encoder = ctx.device.create_command_encoder(&Default::default());
            crowd.upload(&ctx, &mut encoder).unwrap();
            ctx.queue.submit([encoder.finish()]);
        }
        per_frame.push((crowd.gpu_pose().unwrap().uploaded_bytes() - before) / 5);
    }
    // The same bytes for 10 and for 1000 instances: one uniform slot per chunk.
    assert_eq!(per_frame[0], per_frame[1]);
    assert_eq!(per_frame[0], 256);
}

#[test]
fn a_reduced_instance_takes_its_kept_ancestors_matrices() {
    let Some((ctx, asset)) = cesium_man("a_reduced_instance_takes_its_kept_ancestors_matrices")
    else {
        return;
    };
    let mut crowd = skinned(&ctx, &asset, 2, Posing::Gpu(PoseLayout::PerNode), None);
    let set = crowd.gpu_clip_set().unwrap();
    let bones = set.bone_count() as usize;
    // Keep the bones of the first three levels: hands, feet and the head follow their
    // ancestors rigidly.
    let levels = set.node_levels();
    let keep: Vec<bool> = set
        .bone_nodes
        .iter()
        .map(|&n| levels[n as usize] < 3)
        .collect();
    assert!(keep.iter().any(|k| !k) && keep.iter().any(|&k| k));
    assert!(crowd.set_reduced_joints(&ctx, &keep[1..]).is_err());
    crowd.set_reduced_joints(&ctx, &keep).unwrap();
    let reduced = crowd.gpu_clip_set().unwrap().reduced_bones.clone();
    // Instance 1 reduced, instance 0 not, both at the same time.
    let one = PoseInstance::new(0, time_of(0));
    crowd
        .set_instances(&ctx, 0, &[one, one.reduced(true)])
        .unwrap();
    crowd.tick(0.0);
    let mut encoder = ctx.device.create_command_encoder(&Default::default());
    crowd.upload(&ctx, &mut encoder).unwrap();
    ctx.queue.submit([encoder.finish()]);
    let all: Vec<Mat4> =
        readback::read_buffer_as(&ctx, crowd.gpu().bones_buffer(), 0, 2 * bones).unwrap();
    let (full, coarse) = all.split_at(bones);
    for b in 0..bones {
        let source = reduced[b] as usize;
        assert_eq!(source == b, keep[b], "bone {b}");
        assert_eq!(
            coarse[b], full[source],
            "bone {b} takes bone {source}'s matrix"
        );
    }
    // A CPU-posed crowd has no reduced joint set.
    let mut cpu = skinned(&ctx, &asset, 1, Posing::Cpu, None);
    assert!(cpu.set_reduced_joints(&ctx, &keep).is_err());
}
