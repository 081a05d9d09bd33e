//! Crowd compute skinning of a mesh with morph targets (`CrowdSkinning::with_morph`): every
//! visible slot is its own instance's weights applied before skinning (`p + Σ w_t Δp_t`,
//! normals likewise and renormalised), the weights uploaded with the bones
//! (`CrowdBones::upload_with_morph_weights`); the plain pipeline on the same inputs does not
//! morph; and the binding errors are typed. Small exact numbers (positions up to 8, where an
//! f32 step is 9.5e-7): tolerance 4e-6, a few steps (lavapipe: 9.5e-7, normals 0).

use glam::{Mat4, Vec3};
use skel_anim::MorphTargets;
use skel_gpu::{
    CrowdBones, CrowdBonesDescriptor, CrowdMorphInputs, CrowdSkinning, CrowdSkinningInputs,
    GpuContext, GpuError, InfluenceSet, Influences, JointIndices, SkeletonDescriptor, SkeletonGpu,
    SkinningMethod, create_morph, create_skeleton_with,
};

use crate::common::{ctx, output_buffer, read_f32, storage_buffer};

const VERTICES: usize = 4;
const INSTANCES: u32 = 3;
/// Floats per instance in the weights buffer: 2 targets, rounded up to a vec4.
const STRIDE: u32 = 4;

fn rest() -> (Vec<f32>, Vec<f32>) {
    let positions = (0..VERTICES * 3).map(|i| i as f32 * 0.5).collect();
    let normals = (0..VERTICES).flat_map(|_| [0.0, 1.0, 0.0]).collect();
    (positions, normals)
}

fn targets() -> MorphTargets {
    MorphTargets {
        target_count: 2,
        positions: (0..2 * VERTICES * 3)
            .map(|i| 0.1 + i as f32 * 0.01)
            .collect(),
        normals: (0..2 * VERTICES)
            .flat_map(|i| [0.3 * (i % 2) as f32, 0.0, 0.2])
            .collect(),
    }
}

/// Every instance's weights: instance 1 is culled, so its weights must reach no slot.
fn weights() -> Vec<f32> {
    vec![1.0, 0.0, 0.0, 0.0, 0.0, 0.5, 0.0, 0.0, 0.25, 1.0, 0.0, 0.0]
}

fn bone() -> Mat4 {
    Mat4::from_translation(Vec3::new(1.0, 2.0, 3.0)) * Mat4::from_rotation_y(0.3)
}

fn skeleton(ctx: &GpuContext) -> SkeletonGpu {
    let joints = vec![0u32; VERTICES * 4];
    let w: Vec<f32> = (0..VERTICES).flat_map(|_| [1.0, 0.0, 0.0, 0.0]).collect();
    create_skeleton_with(
        ctx,
        &SkeletonDescriptor {
            bone_count: 1,
            bone_data: &[Mat4::IDENTITY],
            influences: &[InfluenceSet {
                joints: JointIndices::U32(&joints),
                weights: &w,
            }],
        },
    )
    .unwrap()
}

/// What slot `instance` must hold: morphed with its weights (or not), then skinned by `bone`.
fn expected(instance: usize, morph: bool) -> (Vec<f32>, Vec<f32>) {
    let (p, n) = rest();
    let (t, w) = (targets(), weights());
    let (mut out_p, mut out_n) = (vec![], vec![]);
    for v in 0..VERTICES {
        let mut pv = Vec3::from_slice(&p[v * 3..]);
        let mut nv = Vec3::from_slice(&n[v * 3..]);
        for k in 0..2 {
            let weight = if morph { w[instance * 4 + k] } else { 0.0 };
            let at = (k * VERTICES + v) * 3;
            pv += weight * Vec3::from_slice(&t.positions[at..]);
            nv += weight * Vec3::from_slice(&t.normals[at..]);
        }
        out_p.extend(bone().transform_point3(pv).to_array());
        out_n.extend(bone().transform_vector3(nv).normalize().to_array());
    }
    (out_p, out_n)
}

fn worst(a: &[f32], b: &[f32]) -> f32 {
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f32::max)
}

#[test]
fn crowd_compute_skinning_morphs_each_instance_with_its_own_weights() {
    let Some(ctx) = ctx() else { return };
    let mut bones = CrowdBones::with_morph_weights(
        ctx,
        &CrowdBonesDescriptor {
            instances: INSTANCES,
            bones_per_instance: 1,
            staging_slots: 2,
        },
        STRIDE,
    )
    .unwrap();
    let visible = [2, 0];
    let all = [bone(); INSTANCES as usize];
    let mut encoder = ctx.device.create_command_encoder(&Default::default());
    let short = bones.upload_with_morph_weights(ctx, &mut encoder, &all, &[0.0; 4], &visible);
    assert!(
        matches!(short, Err(GpuError::LengthMismatch { .. })),
        "{short:?}"
    );
    bones
        .upload_with_morph_weights(ctx, &mut encoder, &all, &weights(), &visible)
        .unwrap();
    ctx.queue.submit([encoder.finish()]);

    let (p, n) = rest();
    let morph = create_morph(ctx, &targets(), VERTICES, &[0.0, 0.0]).unwrap();
    let skeleton = skeleton(ctx);
    let (rest_p, rest_n) = (
        storage_buffer(ctx, bytemuck::cast_slice(&p)),
        storage_buffer(ctx, bytemuck::cast_slice(&n)),
    );
    let bytes = (VERTICES * 12) as u64 * u64::from(INSTANCES);
    let (out_p, out_n) = (output_buffer(ctx, bytes), output_buffer(ctx, bytes));
    let morph_inputs = CrowdMorphInputs {
        morph: &morph,
        weights: bones.morph_weights_buffer().unwrap(),
        weight_stride: STRIDE,
        weight_offset: 0,
    };
    let inputs = CrowdSkinningInputs {
        bones: &bones,
        bone_offset: 0,
        skeleton: &skeleton,
        rest_positions: &rest_p,
        rest_normals: &rest_n,
        out_positions: &out_p,
        out_normals: &out_n,
        morph: Some(morph_inputs),
    };
    for morphing in [true, false] {
        let pipeline = if morphing {
            CrowdSkinning::with_morph(ctx, Influences::Four, SkinningMethod::Linear)
        } else {
            CrowdSkinning::new(ctx, Influences::Four)
        }
        .unwrap();
        assert_eq!(pipeline.morphs(), morphing);
        let bindings = pipeline.bind(ctx, &inputs).unwrap();
        let mut encoder = ctx.device.create_command_encoder(&Default::default());
        {
            let mut pass = encoder.begin_compute_pass(&Default::default());
            pipeline.dispatch(&mut pass, &bindings, visible.len() as u32);
        }
        ctx.queue.submit([encoder.finish()]);
        let (gp, gn) = (read_f32(ctx, &out_p, bytes), read_f32(ctx, &out_n, bytes));
        for (slot, &instance) in visible.iter().enumerate() {
            let (ep, en) = expected(instance as usize, morphing);
            let at = slot * VERTICES * 3;
            let got = (&gp[at..at + VERTICES * 3], &gn[at..at + VERTICES * 3]);
            let errors = (worst(&ep, got.0), worst(&en, got.1));
            eprintln!("morph {morphing}, slot {slot} (instance {instance}): errors {errors:?}");
            assert!(
                errors.0 <= 4e-6 && errors.1 <= 4e-6,
                "slot {slot}: {errors:?}"
            );
        }
    }

    // Binding errors: no morph inputs, weights past the stride, a short weights buffer,
    // targets of another vertex count.
    let pipeline =
        CrowdSkinning::with_morph(ctx, Influences::Four, SkinningMethod::Linear).unwrap();
    let bind = |morph| pipeline.bind(ctx, &CrowdSkinningInputs { morph, ..inputs });
    assert!(matches!(bind(None), Err(GpuError::MissingBinding { .. })));
    let past = CrowdMorphInputs {
        weight_offset: 3,
        ..morph_inputs
    };
    assert!(matches!(
        bind(Some(past)),
        Err(GpuError::LengthMismatch { .. })
    ));
    let small = storage_buffer(ctx, &[0; 16]);
    let short = CrowdMorphInputs {
        weights: &small,
        ..morph_inputs
    };
    assert!(matches!(
        bind(Some(short)),
        Err(GpuError::BufferTooSmall { .. })
    ));
    let other = create_morph(
        ctx,
        &MorphTargets {
            target_count: 1,
            positions: vec![0.0; 3],
            normals: Vec::new(),
        },
        1,
        &[0.0],
    )
    .unwrap();
    let mismatch = CrowdMorphInputs {
        morph: &other,
        ..morph_inputs
    };
    assert!(matches!(
        bind(Some(mismatch)),
        Err(GpuError::LengthMismatch { .. })
    ));
}
