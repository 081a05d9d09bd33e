//! The seed's test list items 1–3, read back from the device: bone texture size, format and
//! contents; joints widened to u32 and buffer sizes; the 8-influence buffers present exactly
//! when JOINTS_1/WEIGHTS_1 are given.

use skel_gpu::{
    BONE_TEXTURE_FORMAT, INFLUENCE_STRIDE, JointIndices, create_skeleton,
    update_skeleton_bone_matrices,
};

use crate::common::{ctx, floats, read_f32, read_u32, tagged_bone_matrices};

#[test]
fn bone_texture_is_bone_count_times_four_by_one_rgba32float() {
    let Some(ctx) = ctx() else { return };
    let bones = tagged_bone_matrices(3);
    let skeleton = create_skeleton(
        ctx,
        JointIndices::U8(&[0, 1, 2, 0]),
        &[0.5, 0.25, 0.25, 0.0],
        3,
        &bones,
        None,
        None,
    )
    .unwrap();
    let size = skeleton.bone_texture_size();
    assert_eq!(
        (size.width, size.height, size.depth_or_array_layers),
        (12, 1, 1)
    );
    assert_eq!(
        skeleton.bone_texture_format(),
        wgpu::TextureFormat::Rgba32Float
    );
    assert_eq!(BONE_TEXTURE_FORMAT, wgpu::TextureFormat::Rgba32Float);
    let usage = skeleton.bone_texture_usage();
    assert!(
        usage.contains(wgpu::TextureUsages::TEXTURE_BINDING | wgpu::TextureUsages::COPY_DST),
        "{usage:?}"
    );
    // The texture holds the initial matrices, column c of bone b at texel b*4+c.
    assert_eq!(skeleton.read_bone_texture(ctx).unwrap(), floats(&bones));
}

#[test]
fn joints_are_widened_to_u32_and_buffers_sized_16_bytes_per_vertex() {
    let Some(ctx) = ctx() else { return };
    let bones = tagged_bone_matrices(300);
    let weights: Vec<f32> = (0..12).map(|i| i as f32 / 16.0).collect();
    let u16_joints: [u16; 12] = [0, 1, 299, 256, 7, 8, 9, 10, 298, 0, 1, 2];
    let u8_joints: [u8; 12] = [0, 1, 255, 128, 7, 8, 9, 10, 200, 0, 1, 2];
    for joints in [JointIndices::U16(&u16_joints), JointIndices::U8(&u8_joints)] {
        let skeleton = create_skeleton(ctx, joints, &weights, 300, &bones, None, None).unwrap();
        assert_eq!(skeleton.vertex_count(), 3);
        assert_eq!(skeleton.joints_buffer().size(), 3 * INFLUENCE_STRIDE);
        assert_eq!(skeleton.weights_buffer().size(), 3 * INFLUENCE_STRIDE);
        let usage = skeleton.joints_buffer().usage();
        assert!(
            usage.contains(wgpu::BufferUsages::VERTEX | wgpu::BufferUsages::COPY_DST),
            "{usage:?}"
        );
        assert_eq!(read_u32(ctx, skeleton.joints_buffer(), 48), joints.widen());
        assert_eq!(read_f32(ctx, skeleton.weights_buffer(), 48), weights);
        assert_eq!(skeleton.joints(), joints.widen().as_slice());
        assert_eq!(skeleton.influences_per_vertex(), 4);
    }
}

#[test]
fn empty_meshes_get_the_minimum_four_byte_buffers() {
    let Some(ctx) = ctx() else { return };
    let skeleton = create_skeleton(
        ctx,
        JointIndices::U8(&[]),
        &[],
        1,
        &tagged_bone_matrices(1),
        None,
        None,
    )
    .unwrap();
    assert_eq!(skeleton.vertex_count(), 0);
    assert_eq!(skeleton.joints_buffer().size(), 4);
    assert_eq!(skeleton.weights_buffer().size(), 4);
}

#[test]
fn eight_influence_buffers_exist_exactly_when_given() {
    let Some(ctx) = ctx() else { return };
    let bones = tagged_bone_matrices(16);
    let joints: [u16; 8] = [0, 1, 2, 3, 4, 5, 6, 7];
    let joints1: [u16; 8] = [8, 9, 10, 11, 12, 13, 14, 15];
    let weights = [0.1f32; 8];
    let weights1 = [0.15f32; 8];
    let four = create_skeleton(
        ctx,
        JointIndices::U16(&joints),
        &weights,
        16,
        &bones,
        None,
        None,
    )
    .unwrap();
    assert!(four.joints1_buffer().is_none() && four.weights1_buffer().is_none());
    assert_eq!(four.influences_per_vertex(), 4);
    let eight = create_skeleton(
        ctx,
        JointIndices::U16(&joints),
        &weights,
        16,
        &bones,
        Some(JointIndices::U16(&joints1)),
        Some(&weights1),
    )
    .unwrap();
    assert_eq!(eight.influences_per_vertex(), 8);
    let j1 = eight.joints1_buffer().expect("joints1 buffer");
    let w1 = eight.weights1_buffer().expect("weights1 buffer");
    assert_eq!((j1.size(), w1.size()), (32, 32));
    assert_eq!(read_u32(ctx, j1, 32), joints1.map(u32::from));
    assert_eq!(read_f32(ctx, w1, 32), weights1);
}

#[test]
fn update_replaces_mirror_and_texture() {
    let Some(ctx) = ctx() else { return };
    let mut skeleton = create_skeleton(
        ctx,
        JointIndices::U8(&[0, 1, 0, 0]),
        &[1.0, 0.0, 0.0, 0.0],
        2,
        &tagged_bone_matrices(2),
        None,
        None,
    )
    .unwrap();
    let new: Vec<glam::Mat4> = tagged_bone_matrices(2)
        .iter()
        .map(|m| *m * -3.0 + glam::Mat4::from_cols_array(&[0.5; 16]))
        .collect();
    update_skeleton_bone_matrices(ctx, &mut skeleton, &new).unwrap();
    assert_eq!(skeleton.bone_matrices(), new.as_slice());
    assert_eq!(skeleton.read_bone_texture(ctx).unwrap(), floats(&new));
    // A wrong count changes nothing.
    let err = update_skeleton_bone_matrices(ctx, &mut skeleton, &new[..1]).unwrap_err();
    assert_eq!(
        err,
        skel_gpu::GpuError::BoneCountMismatch {
            expected: 2,
            got: 1
        }
    );
    assert_eq!(skeleton.read_bone_texture(ctx).unwrap(), floats(&new));
}
