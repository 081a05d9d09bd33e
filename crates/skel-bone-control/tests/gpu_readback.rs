//! Bone control through skel-gpu on a real adapter: what the eager bake, the deferred batch and
//! the hook upload is read back from the bone textures, not taken from the CPU side. Also the
//! association in `SkeletonGpu::handle` surviving `SkeletonGpu::recreate` (device-loss
//! recovery on a second device).
//!
//! Without an adapter every test prints a loud SKIP and passes, unless `SKEL_REQUIRE_GPU=1`.
//! Run with `WGPU_BACKEND=vulkan XDG_RUNTIME_DIR=$(mktemp -d) cargo test -p skel-bone-control`.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

mod common;

use std::sync::Arc;

use common::{CountingSink, column_len, floats, load_asset, mat, max_abs_diff};
use skel_anim::{AnimationController, AnimationData, Handedness};
use skel_bone_control::{BoneControlAsset, enable_bone_control, get_mesh_skeleton};
use skel_gltf::GltfAsset;
use skel_gpu::{GpuContext, GpuPoseSink, JointIndices, SkeletonGpu, create_skeleton};

/// A device, or `None` after a skip (a failure when `SKEL_REQUIRE_GPU=1`).
fn context() -> Option<GpuContext> {
    skel_test_support::gpu("skel-bone-control gpu_readback", GpuContext::new_headless())
}

/// One `SkeletonGpu` per skeleton binding, built from the binding's primitive influences and
/// the rest bake, with the bone-control association stamped into `handle` (what the loader does
/// when bone control is enabled).
fn gpu_skeletons(
    ctx: &GpuContext,
    asset: &GltfAsset,
    bones: &BoneControlAsset,
) -> Vec<SkeletonGpu> {
    let mut rest = CountingSink::default();
    bones.bake(&mut rest);
    (0..asset.animation.skeletons.len())
        .map(|binding| {
            let prim = asset
                .primitives
                .iter()
                .find(|p| p.skeleton_binding == Some(binding))
                .unwrap();
            let inf = prim.gpu_influences().unwrap();
            let bone_count = asset.animation.skeletons[binding].joints.len();
            let mut gpu = create_skeleton(
                ctx,
                JointIndices::U32(&inf.joints0),
                &inf.weights0,
                u32::try_from(bone_count).unwrap(),
                &rest.bones[binding]
                    .chunks_exact(16)
                    .map(skel_gpu::glam::Mat4::from_cols_slice)
                    .collect::<Vec<_>>(),
                inf.joints1.as_deref().map(JointIndices::U32),
                inf.weights1.as_deref(),
            )
            .unwrap();
            gpu.handle = bones.association(binding);
            gpu
        })
        .collect()
}

/// Bone matrices read back from the texture, in bone order (undoing any row wrapping).
fn read_bones(ctx: &GpuContext, gpu: &SkeletonGpu) -> Vec<f32> {
    let texels = gpu.read_bone_texture(ctx).unwrap();
    let layout = gpu.bone_texture_layout();
    let mut out = Vec::with_capacity(gpu.bone_count() as usize * 16);
    for bone in 0..gpu.bone_count() {
        for col in 0..4 {
            let (x, y) = layout.texel(bone, col);
            let at = ((y * layout.width + x) * 4) as usize;
            out.extend_from_slice(&texels[at..at + 4]);
        }
    }
    out
}

/// The CPU bake of the current override state (what the GPU must hold).
fn cpu_bake(bones: &BoneControlAsset) -> Vec<Vec<f32>> {
    let mut sink = CountingSink::default();
    bones.bake(&mut sink);
    sink.bones
}

fn assert_textures(ctx: &GpuContext, gpus: &[SkeletonGpu], want: &[Vec<f32>], what: &str) {
    for (binding, gpu) in gpus.iter().enumerate() {
        let got = read_bones(ctx, gpu);
        let d = max_abs_diff(&got, &want[binding]);
        // rgba32float holds f32 exactly: the upload is a copy.
        assert_eq!(d, 0.0, "{what}: binding {binding}");
    }
}

fn load_superhero() -> Option<(GltfAsset, Arc<AnimationData>)> {
    let asset = load_asset(
        "Superhero_Male_FullBody/Superhero_Male_FullBody.gltf",
        Handedness::LeftHanded,
    )?;
    let data = Arc::new(asset.animation.clone());
    Some((asset, data))
}

#[test]
fn eager_bake_and_deferred_batch_reach_every_bone_texture_of_a_split_skin() {
    let Some(ctx) = context() else { return };
    let Some((asset, data)) = load_superhero() else {
        return;
    };
    let bones = enable_bone_control(&data).unwrap();
    let mut gpus = gpu_skeletons(&ctx, &asset, &bones);
    assert_eq!(gpus.len(), 3);
    let rest = cpu_bake(&bones);
    assert_textures(&ctx, &gpus, &rest, "rest");

    // Eager: hide the head through the body's handle; all three textures change at once.
    let body = get_mesh_skeleton(&gpus[2].handle).unwrap();
    let head = body.bone_index_by_name("Head").unwrap();
    {
        let mut sink = GpuPoseSink::skeletons(&ctx.queue, &mut gpus);
        body.set_bone_visible(head, false, &mut sink).unwrap();
        assert_eq!(sink.skipped(), 0);
    }
    let hidden = cpu_bake(&bones);
    assert_textures(&ctx, &gpus, &hidden, "after set_bone_visible");
    for (binding, gpu) in gpus.iter().enumerate() {
        let m = mat(&read_bones(&ctx, gpu), head);
        assert!(
            (0..3).all(|c| column_len(&m, c) == 0.0),
            "binding {binding}"
        );
    }

    // Deferred: nothing reaches the GPU until the bake.
    let arm = body.bone_index_by_name("upperarm_l").unwrap();
    body.set_bone_pose_deferred(arm, [0.0, 0.1, 0.0], [0.0, 0.0, 0.70710677, 0.70710677])
        .unwrap();
    let pose = body.bone_world_pose(head).unwrap();
    body.set_bone_world_pose_deferred(head, pose.position, pose.rotation)
        .unwrap();
    assert_textures(&ctx, &gpus, &hidden, "deferred, before bake");
    body.bake_skeleton(&mut GpuPoseSink::skeletons(&ctx.queue, &mut gpus));
    let baked = cpu_bake(&bones);
    assert_ne!(baked, hidden);
    assert_textures(&ctx, &gpus, &baked, "after bake_skeleton");

    // Showing again, scaling untouched, restores the head on the GPU.
    body.clear_bone_override(arm, &mut GpuPoseSink::skeletons(&ctx.queue, &mut gpus))
        .unwrap();
    body.set_bone_visible(
        head,
        true,
        &mut GpuPoseSink::skeletons(&ctx.queue, &mut gpus),
    )
    .unwrap();
    let shown = cpu_bake(&bones);
    assert_textures(&ctx, &gpus, &shown, "shown again");
    // The head's world-pose override is its own rest pose: the textures are back to rest.
    for (binding, want) in rest.iter().enumerate() {
        assert!(
            max_abs_diff(&shown[binding], want) < 1e-5,
            "binding {binding}"
        );
    }
}

#[test]
fn recovery_on_a_new_device_keeps_the_handle_and_the_hidden_bone() {
    let Some(ctx) = context() else { return };
    let Some((asset, data)) = load_superhero() else {
        return;
    };
    let bones = enable_bone_control(&data).unwrap();
    let mut gpus = gpu_skeletons(&ctx, &asset, &bones);
    let handles: Vec<_> = gpus
        .iter()
        .map(|g| get_mesh_skeleton(&g.handle).unwrap())
        .collect();
    let head = handles[0].bone_index_by_name("Head").unwrap();
    handles[0]
        .set_bone_visible(
            head,
            false,
            &mut GpuPoseSink::skeletons(&ctx.queue, &mut gpus),
        )
        .unwrap();

    // "Device lost": rebuild every GPU field on a fresh device.
    let Some(ctx2) = context() else { return };
    for gpu in &mut gpus {
        gpu.recreate(&ctx2).unwrap();
    }
    for (binding, gpu) in gpus.iter().enumerate() {
        let after = get_mesh_skeleton(&gpu.handle).unwrap();
        assert!(Arc::ptr_eq(&after, &handles[binding]), "binding {binding}");
    }
    // The recreated textures hold the last upload (head hidden)…
    assert_textures(&ctx2, &gpus, &cpu_bake(&bones), "after recreate");
    // …and the handle keeps driving them on the new device.
    handles[1]
        .set_bone_visible(
            head,
            true,
            &mut GpuPoseSink::skeletons(&ctx2.queue, &mut gpus),
        )
        .unwrap();
    let shown = cpu_bake(&bones);
    assert_textures(&ctx2, &gpus, &shown, "shown on the new device");
    assert!(column_len(&mat(&shown[0], head), 0) > 0.0);
}

#[test]
fn a_hidden_bone_stays_hidden_on_the_gpu_while_a_clip_with_scale_tracks_plays() {
    let Some(ctx) = context() else { return };
    let Some(asset) = load_asset("CesiumMan/CesiumMan.glb", Handedness::LeftHanded) else {
        return;
    };
    let data = Arc::new(asset.animation.clone());
    let bones = enable_bone_control(&data).unwrap();
    let mut gpus = gpu_skeletons(&ctx, &asset, &bones);
    let sk = get_mesh_skeleton(&gpus[0].handle).unwrap();
    let neck = sk.bone_index_by_name("Skeleton_neck_joint_1").unwrap();
    sk.set_bone_visible(
        neck,
        false,
        &mut GpuPoseSink::skeletons(&ctx.queue, &mut gpus),
    )
    .unwrap();

    let mut controller = AnimationController::new(Arc::clone(&data)).unwrap();
    bones.install(&mut controller).unwrap();
    controller.set_clip(Some(0)).unwrap();
    for _ in 0..5 {
        controller.tick(170.0, &mut GpuPoseSink::skeletons(&ctx.queue, &mut gpus));
        let got = read_bones(&ctx, &gpus[0]);
        assert_eq!(
            max_abs_diff(&got, &floats(controller.bone_matrices(0).unwrap())),
            0.0,
            "the texture holds the tick's matrices"
        );
        let m = mat(&got, neck);
        assert!(
            (0..3).all(|c| column_len(&m, c) == 0.0),
            "t = {}",
            controller.time
        );
        let torso = mat(&got, 0);
        assert!(column_len(&torso, 0) > 0.0);
    }
}
