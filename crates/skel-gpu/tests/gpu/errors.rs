//! Bad input and wgpu validation failures come back as typed errors, not panics.

use skel_gpu::{
    ComputeSkinning, ComputeSkinningConfig, ComputeSkinningInputs, FragmentBindings, GpuError,
    Influences, JointIndices, ShaderFragment, SkinningVariant, create_skeleton,
};

use crate::common::{ctx, tagged_bone_matrices};

#[test]
fn create_skeleton_rejects_bad_input_with_numbers() {
    let Some(ctx) = ctx() else { return };
    let bones = tagged_bone_matrices(4);
    let j = JointIndices::U8(&[0, 1, 2, 3, 3, 2, 9, 0]);
    let w = [0.25f32; 8];
    assert_eq!(
        create_skeleton(ctx, j, &w, 4, &bones, None, None).unwrap_err(),
        GpuError::JointOutOfRange {
            vertex: 1,
            slot: 2,
            joint: 9,
            bone_count: 4
        }
    );
    let ok = JointIndices::U8(&[0, 1, 2, 3, 3, 2, 1, 0]);
    assert_eq!(
        create_skeleton(
            ctx,
            ok,
            &w,
            4,
            &bones,
            Some(JointIndices::U8(&[0, 0, 0, 0, 0, 0, 0, 4])),
            Some(&w)
        )
        .unwrap_err(),
        GpuError::JointOutOfRange {
            vertex: 1,
            slot: 7,
            joint: 4,
            bone_count: 4
        }
    );
    assert!(matches!(
        create_skeleton(ctx, ok, &w[..7], 4, &bones, None, None),
        Err(GpuError::LengthMismatch {
            expected: 8,
            got: 7,
            ..
        })
    ));
    assert!(matches!(
        create_skeleton(ctx, ok, &w, 4, &bones[..3], None, None),
        Err(GpuError::LengthMismatch {
            expected: 4,
            got: 3,
            ..
        })
    ));
    assert!(matches!(
        create_skeleton(
            ctx,
            JointIndices::U8(&[0, 1, 2]),
            &w[..3],
            4,
            &bones,
            None,
            None
        ),
        Err(GpuError::LengthMismatch { got: 3, .. })
    ));
    assert!(matches!(
        create_skeleton(ctx, ok, &w, 4, &bones, Some(ok), None),
        Err(GpuError::LengthMismatch { .. })
    ));
    assert_eq!(
        create_skeleton(ctx, JointIndices::U8(&[]), &[], 0, &[], None, None).unwrap_err(),
        GpuError::NoBones
    );
    let mut nan = w;
    nan[5] = f32::NAN;
    assert_eq!(
        create_skeleton(ctx, ok, &nan, 4, &bones, None, None).unwrap_err(),
        GpuError::NotFinite {
            what: "weights",
            index: 5
        }
    );
    let max = ctx.limits.max_texture_dimension_2d;
    let too_many = (max / 4) * max + 1;
    assert!(matches!(
        create_skeleton(ctx, JointIndices::U8(&[]), &[], too_many, &[], None, None),
        Err(GpuError::TooManyBones { max_texture_dimension_2d, .. }) if max_texture_dimension_2d == max
    ));
}

#[test]
fn wgpu_validation_failures_become_typed_errors() {
    let Some(ctx) = ctx() else { return };
    let pipeline = ComputeSkinning::new(
        ctx,
        ComputeSkinningConfig {
            normals: false,
            ..Default::default()
        },
    )
    .unwrap();
    let skeleton = create_skeleton(
        ctx,
        JointIndices::U8(&[0; 4]),
        &[1.0, 0.0, 0.0, 0.0],
        1,
        &tagged_bone_matrices(1),
        None,
        None,
    )
    .unwrap();
    // A buffer without STORAGE usage cannot be bound: wgpu's validation error is captured.
    let not_storage = ctx.device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("vertex only"),
        size: 12,
        usage: wgpu::BufferUsages::VERTEX,
        mapped_at_creation: false,
    });
    let out = crate::common::output_buffer(ctx, 12);
    let inputs = ComputeSkinningInputs::from_skeleton(&skeleton, &not_storage, None, &out, None);
    let err = pipeline
        .bind(ctx, &inputs, Some(&skeleton), None)
        .unwrap_err();
    assert!(
        matches!(
            err,
            GpuError::Validation {
                context: "ComputeSkinning::bind",
                ..
            }
        ),
        "{err:?}"
    );
    assert!(ctx.take_uncaptured_error().is_none());

    // Sizes are checked before wgpu sees them.
    let short = crate::common::output_buffer(ctx, 8);
    let inputs = ComputeSkinningInputs::from_skeleton(&skeleton, &short, None, &out, None);
    assert_eq!(
        pipeline
            .bind(ctx, &inputs, Some(&skeleton), None)
            .unwrap_err(),
        GpuError::BufferTooSmall {
            what: "rest positions",
            needed: 12,
            got: 8
        }
    );
    // Missing resources are named.
    let inputs = ComputeSkinningInputs::from_skeleton(&skeleton, &out, None, &out, None);
    assert_eq!(
        pipeline.bind(ctx, &inputs, None, None).unwrap_err(),
        GpuError::MissingBinding {
            what: "a skeleton (bone texture)"
        }
    );
    // An 8-influence shader cannot bind a 4-influence skeleton.
    let eight = ShaderFragment::new(
        SkinningVariant {
            influences: Influences::Eight,
            morph: false,
        },
        FragmentBindings::default(),
    );
    assert_eq!(
        eight.bind_group_entries(Some(&skeleton), None).unwrap_err(),
        GpuError::InfluenceMismatch {
            shader: 8,
            skeleton: 4
        }
    );
}

#[test]
fn missing_limits_are_named() {
    let Some(ctx) = ctx() else { return };
    let mut limits = wgpu::Limits::default();
    limits.max_texture_dimension_2d = ctx.limits.max_texture_dimension_2d + 1;
    let err = skel_gpu::GpuContext::new_headless_with(&skel_gpu::HeadlessOptions {
        required_limits: Some(limits),
        ..Default::default()
    })
    .unwrap_err();
    assert_eq!(
        err,
        GpuError::MissingLimit {
            name: "max_texture_dimension_2d",
            needed: u64::from(ctx.limits.max_texture_dimension_2d + 1),
            available: u64::from(ctx.limits.max_texture_dimension_2d),
        }
    );
}
