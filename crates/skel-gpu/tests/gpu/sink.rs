//! `AnimationController::tick` → `GpuPoseSink` → the device: bone matrices land in the bone
//! texture (and the mirror), morph weights in the morph uniform.

use std::f32::consts::FRAC_1_SQRT_2;
use std::sync::Arc;

use skel_anim::{
    AnimationController, AnimationData, Channel, ChannelPath, Clip, Handedness, Interpolation,
    MorphBinding, MorphTargets, NodeRest, PoseSink, Sampler, SkeletonBinding,
};
use skel_gpu::{GpuPoseSink, JointIndices, SkeletonGpu, create_morph, create_skeleton};

use crate::common::{ctx, floats, read_f32, tagged_bone_matrices};

/// Two joints (root slides in x, child rotates), a skinned mesh node and a morphed node whose
/// 3 weights animate.
fn data() -> AnimationData {
    let mut child = NodeRest::new("child", Some(0));
    child.translation = [0.0, 1.0, 0.0];
    AnimationData {
        nodes: vec![
            NodeRest::new("root", None),
            child,
            NodeRest::new("mesh", None),
            NodeRest::new("face", None),
        ],
        clips: vec![Clip::new(
            "move",
            vec![
                Sampler::new(
                    vec![0.0, 1.0],
                    vec![0.0, 0.0, 0.0, 2.0, 0.0, 0.0],
                    Interpolation::Linear,
                )
                .unwrap(),
                Sampler::new(
                    vec![0.0, 1.0],
                    vec![0.0, 0.0, 0.0, 1.0, 0.0, 0.0, FRAC_1_SQRT_2, FRAC_1_SQRT_2],
                    Interpolation::Linear,
                )
                .unwrap(),
                Sampler::new(
                    vec![0.0, 1.0],
                    vec![0.0, 0.0, 0.0, 1.0, 0.5, 0.25],
                    Interpolation::Linear,
                )
                .unwrap(),
            ],
            vec![
                Channel {
                    sampler: 0,
                    node: 0,
                    path: ChannelPath::Translation,
                },
                Channel {
                    sampler: 1,
                    node: 1,
                    path: ChannelPath::Rotation,
                },
                Channel {
                    sampler: 2,
                    node: 3,
                    path: ChannelPath::Weights,
                },
            ],
        )],
        skeletons: vec![SkeletonBinding::new(0, 2, vec![0, 1], vec![]).unwrap()],
        morph_bindings: vec![MorphBinding {
            node: 3,
            default_weights: vec![0.0; 3],
        }],
        handedness: Handedness::LeftHanded,
    }
}

/// The GPU side of [`data`]'s bindings: one two-bone skeleton (tagged matrices) over a
/// one-vertex mesh and one three-target morph.
fn skeleton_and_morph(ctx: &skel_gpu::GpuContext) -> (Vec<SkeletonGpu>, Vec<skel_gpu::MorphGpu>) {
    let skeleton = create_skeleton(
        ctx,
        JointIndices::U8(&[0, 1, 0, 0]),
        &[0.5, 0.5, 0.0, 0.0],
        2,
        &tagged_bone_matrices(2),
        None,
        None,
    )
    .unwrap();
    let targets = MorphTargets {
        target_count: 3,
        positions: vec![0.1; 9],
        normals: Vec::new(),
    };
    let morph = create_morph(ctx, &targets, 1, &[0.0; 3]).unwrap();
    (vec![skeleton], vec![morph])
}

#[test]
fn tick_uploads_bone_matrices_and_morph_weights() {
    let Some(ctx) = ctx() else { return };
    let mut controller = AnimationController::new(Arc::new(data())).unwrap();
    controller.set_clip(Some(0)).unwrap();
    let (mut skeletons, mut morphs) = skeleton_and_morph(ctx);

    let mut sink = GpuPoseSink::new(&ctx.queue, &mut skeletons, &mut morphs);
    controller.tick(500.0, &mut sink);
    assert_eq!(sink.skipped(), 0);

    let expected_bones = controller.bone_matrices(0).unwrap().to_vec();
    // Half way: the root slid to x = 1 (the mesh node is a mirrored root too, so the
    // handedness flip cancels in invMeshWorld · world).
    assert!(
        (expected_bones[0].w_axis.x - 1.0).abs() < 1e-6,
        "{expected_bones:?}"
    );
    assert_eq!(skeletons[0].bone_matrices(), expected_bones);
    assert_eq!(
        skeletons[0].read_bone_texture(ctx).unwrap(),
        floats(&expected_bones)
    );

    let expected_weights = controller.morph_weights(0).unwrap().to_vec();
    assert_eq!(expected_weights, [0.5, 0.25, 0.125]);
    let params = read_f32(ctx, morphs[0].params_buffer(), 16);
    assert_eq!(params, [0.5, 0.25, 0.125, 0.0]);
}

#[test]
fn sink_skips_missing_slots_and_wrong_lengths_and_accepts_references() {
    let Some(ctx) = ctx() else { return };
    let bones = tagged_bone_matrices(2);
    let mut a = create_skeleton(
        ctx,
        JointIndices::U8(&[0, 1, 0, 0]),
        &[1.0, 0.0, 0.0, 0.0],
        2,
        &bones,
        None,
        None,
    )
    .unwrap();
    let mut refs: Vec<&mut SkeletonGpu> = vec![&mut a];
    let mut sink = GpuPoseSink::skeletons(&ctx.queue, &mut refs);
    sink.bone_matrices(0, &bones[..1]); // wrong length
    sink.bone_matrices(1, &bones); // no such slot
    sink.morph_weights(0, &[1.0]); // no morph slots
    assert_eq!(sink.skipped(), 3);
    let moved: Vec<glam::Mat4> = bones
        .iter()
        .map(|m| *m + glam::Mat4::from_cols_array(&[100.0; 16]))
        .collect();
    sink.bone_matrices(0, &moved);
    assert_eq!(sink.skipped(), 3);
    assert_eq!(a.read_bone_texture(ctx).unwrap(), floats(&moved));
}

#[test]
fn per_frame_upload_allocations() {
    let Some(ctx) = ctx() else { return };
    let mut controller = AnimationController::new(Arc::new(data())).unwrap();
    controller.set_clip(Some(0)).unwrap();
    let (mut skeletons, mut morphs) = skeleton_and_morph(ctx);
    let tick = |skeletons: &mut [SkeletonGpu],
                morphs: &mut [skel_gpu::MorphGpu],
                controller: &mut AnimationController| {
        let mut sink = GpuPoseSink::new(&ctx.queue, skeletons, morphs);
        controller.tick(16.0, &mut sink);
    };
    for _ in 0..10 {
        tick(&mut skeletons, &mut morphs, &mut controller);
    }
    // skel's own part: the sink over no slots (tick, sink construction, skipping).
    let ours = crate::alloc_count::allocations_during(|| {
        for _ in 0..100 {
            let mut sink =
                GpuPoseSink::<SkeletonGpu, skel_gpu::MorphGpu>::new(&ctx.queue, &mut [], &mut []);
            controller.tick(16.0, &mut sink);
        }
    });
    assert_eq!(ours, 0, "the controller and sink allocated");
    // With real uploads, whatever is counted comes from inside wgpu's write_texture/write_buffer.
    let with_wgpu = crate::alloc_count::allocations_during(|| {
        for _ in 0..100 {
            tick(&mut skeletons, &mut morphs, &mut controller);
        }
    });
    eprintln!(
        "allocator calls per tick with uploads (inside wgpu): {}",
        with_wgpu as f64 / 100.0
    );
}
