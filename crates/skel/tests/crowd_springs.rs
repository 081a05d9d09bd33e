//! A crowd of VRM avatars (`fixtures/vrm/v1_600_bones.vrm`) on a real adapter: every
//! CPU-posed instance runs its own springs (the bones each instance uploads are those of a lone
//! player with the same springs and steps, and an instance moved in the world swings apart
//! from the others), the GPU skins the sprung bones as the CPU does, and a GPU-posed crowd (of
//! its `Nod` clip) says that it poses without them.
//!
//! Without an adapter: SKIP, or fail when `SKEL_REQUIRE_GPU=1`.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use glam::{Affine3A, Vec3};
use skel::anim::NullSink;
use skel::gpu::readback::read_buffer;
use skel::{AssetContainer, Crowd, CrowdDescriptor, LoadOptions, Posing, load_gltf};

mod common;
use common::{gpu, gpu_error_over_diagonal, le_floats, vrm_fixture};

const INSTANCES: u32 = 4;
/// The instance carried sideways while it plays.
const MOVED: usize = 2;
const FRAMES: usize = 40;

fn avatar(ctx: &skel::gpu::GpuContext) -> AssetContainer {
    let path = vrm_fixture("v1_600_bones.vrm");
    load_gltf(ctx, &path, &LoadOptions::default()).unwrap()
}

/// The world placement of the moved instance at frame `k`: carried along x, 3 m a second.
fn carried(k: usize) -> Affine3A {
    Affine3A::from_translation(Vec3::new(0.05 * k as f32, 0.0, 0.0))
}

#[test]
fn every_instance_of_a_cpu_posed_crowd_springs_on_its_own() {
    let Some(ctx) = gpu("crowd_springs") else {
        return;
    };
    let asset = avatar(&ctx);
    let mut crowd = Crowd::new(
        &ctx,
        &asset,
        &CrowdDescriptor {
            instances: INSTANCES,
            clip: None,
            ..CrowdDescriptor::default()
        },
    )
    .unwrap();
    assert!(crowd.warnings().is_empty(), "{:?}", crowd.warnings());
    let mut lone = asset.player().unwrap();
    let mut moved = asset.player().unwrap();
    for k in 0..FRAMES {
        crowd.players[MOVED].springs_mut().unwrap().world = carried(k);
        moved.springs_mut().unwrap().world = carried(k);
        crowd.tick(1.0 / 60.0);
        lone.tick(1.0 / 60.0, &mut NullSink);
        moved.tick(1.0 / 60.0, &mut NullSink);
    }
    let binding = asset.meshes[0].skeleton.as_ref().unwrap().binding;
    let still = lone.bone_matrices(binding).unwrap();
    let swung = moved.bone_matrices(binding).unwrap();
    for i in 0..INSTANCES as usize {
        let want = if i == MOVED { swung } else { still };
        assert_eq!(&crowd.bone_matrices(i)[..600], want, "instance {i}");
    }
    // The carried instance's strands trail behind it: its bones differ from the others'.
    let apart = still
        .iter()
        .zip(swung)
        .map(|(a, b)| (a.w_axis - b.w_axis).length())
        .fold(0.0, f32::max);
    assert!(
        apart > 0.02,
        "carrying an instance moved its strands {apart} m"
    );
    // And every instance's strands hang (the rest tips stand at 1.65 m; node 599 is the last
    // strand's tip).
    let tip = lone.world_matrices()[599].w_axis.y;
    assert!(tip < 1.6, "the last strand's tip at {tip} m");

    let mut encoder = ctx.device.create_command_encoder(&Default::default());
    crowd.upload(&ctx, &mut encoder).unwrap();
    crowd.skin(&mut encoder);
    ctx.queue.submit([encoder.finish()]);
    let cm = &crowd.meshes()[0];
    let bytes = u64::from(crowd.visible_count()) * u64::from(cm.vertex_count) * 12;
    let gpu_positions =
        le_floats(&read_buffer(&ctx, cm.skinned_positions.as_ref().unwrap(), 0, bytes).unwrap());
    let mesh = &asset.meshes[cm.mesh];
    let primitive = &mesh.primitives[0];
    let p = &asset.primitives[primitive.source];
    let mut worst = 0.0_f32;
    for (slot, &instance) in crowd.visible().iter().enumerate() {
        let bones = &crowd.bone_matrices(instance as usize)[..600];
        let at = (slot * cm.vertex_count as usize + primitive.base_vertex as usize) * 3;
        worst = worst.max(gpu_error_over_diagonal(p, bones, &gpu_positions, at));
    }
    assert_eq!(crowd.visible().len(), INSTANCES as usize);
    assert!(
        worst <= 1e-5,
        "GPU skinning off the CPU's by {worst} of the size"
    );
}

#[test]
fn a_gpu_posed_crowd_of_avatars_says_it_poses_without_springs() {
    let Some(ctx) = gpu("crowd_springs_gpu") else {
        return;
    };
    // Two instances of `asset` posed on the GPU.
    let gpu_posed = |asset: &AssetContainer| {
        Crowd::new(
            &ctx,
            asset,
            &CrowdDescriptor {
                instances: 2,
                clip: Some(0),
                posing: Posing::Gpu(Default::default()),
                ..CrowdDescriptor::default()
            },
        )
        .unwrap()
    };
    let asset = avatar(&ctx);
    let crowd = gpu_posed(&asset);
    {
        assert!(
            crowd.warnings().iter().any(|w| w.contains("spring")),
            "{:?}",
            crowd.warnings()
        );
    }
    let still = load_gltf(
        &ctx,
        &vrm_fixture("v1_600_bones.vrm"),
        &LoadOptions::default()
            .with_springs(None)
            .with_node_constraints(false),
    )
    .unwrap();
    let crowd = gpu_posed(&still);
    assert!(crowd.warnings().is_empty(), "{:?}", crowd.warnings());
}
