//! 3×4 bones (`BoneLayout::Affine3x4`): the pose pass writes the top three rows of each
//! skinning matrix, 48 bytes instead of 64, and crowd compute skinning and culling read them.
//! Here a GPU-posed CesiumMan crowd is posed into a 4×4 and a 3×4 buffer by each thread layout,
//! and both are skinned (linear and dual quaternions, 4 and 8 influences) and culled: the
//! matrices, the skinned vertices and the boxes agree within 1e-6 (they come out equal), and
//! the visible sets are the same.

use std::sync::Arc;

use glam::{Mat4, Vec3};
use skel_anim::Rig;
use skel_gpu::{
    BoneLayout, CrowdBones, CrowdCull, CrowdCullDescriptor, CrowdSkinning, CrowdSkinningInputs,
    GpuClipSet, GpuClipSetOptions, GpuClips, GpuContext, GpuCrowdPose, GpuCrowdPoseDescriptor,
    InfluenceSet, Influences, JointIndices, PoseInstance, PoseLayout, SkeletonDescriptor,
    SkinningMethod, create_skeleton_with, readback,
};

use crate::common::{Rng, ctx, output_buffer, read_f32, read_u32, storage_buffer};
use crate::cull::{character, frustum, placements};

/// Every bone of the first `count` instances of `crowd` as a 4×4 matrix, whatever its layout
/// (3×4 rows get the bottom row `0 0 0 1`).
pub(crate) fn read_bones(ctx: &GpuContext, crowd: &CrowdBones, count: usize) -> Vec<Mat4> {
    let bones = count * crowd.bones_per_instance() as usize;
    match crowd.bone_layout() {
        BoneLayout::Mat4 => readback::read_buffer_as(ctx, crowd.bones_buffer(), 0, bones).unwrap(),
        BoneLayout::Affine3x4 => {
            let rows: Vec<[f32; 12]> =
                readback::read_buffer_as(ctx, crowd.bones_buffer(), 0, bones).unwrap();
            rows.iter()
                .map(|r| {
                    Mat4::from_cols_array(&[
                        r[0], r[4], r[8], 0.0, r[1], r[5], r[9], 0.0, r[2], r[6], r[10], 0.0, r[3],
                        r[7], r[11], 1.0,
                    ])
                })
                .collect()
        }
    }
}

/// The largest element difference of two matrix lists.
fn worst_matrix(a: &[Mat4], b: &[Mat4]) -> f32 {
    assert_eq!(a.len(), b.len());
    a.iter()
        .zip(b)
        .flat_map(|(x, y)| (*x - *y).to_cols_array())
        .fold(0.0, |m, d| m.max(d.abs()))
}

fn worst(a: &[f32], b: &[f32]) -> f32 {
    assert_eq!(a.len(), b.len());
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f32::max)
}

/// A CesiumMan crowd of `n` posed once (two clips' worth of phases, a blend, time advanced)
/// by `layout` into a buffer of `bones`.
fn posed(
    ctx: &GpuContext,
    clips: &GpuClips,
    bone_count: u32,
    n: u32,
    layout: PoseLayout,
    bones: BoneLayout,
    max_chunk_bytes: Option<u64>,
) -> CrowdBones {
    let crowd = CrowdBones::new_gpu_posed_with_layout(ctx, n, bone_count, bones).unwrap();
    let instances: Vec<PoseInstance> = (0..n)
        .map(|i| {
            let one = PoseInstance::new(0, 0.17 * i as f32).speed(0.9 + 0.01 * i as f32);
            if i % 3 == 0 {
                one.blend(0, 0.5 + 0.05 * i as f32, 1.1, 0.4)
            } else {
                one
            }
        })
        .collect();
    let desc = GpuCrowdPoseDescriptor {
        layout,
        max_chunk_bytes,
    };
    let mut pose = GpuCrowdPose::new(ctx, clips, &crowd, &instances, &desc).unwrap();
    assert_eq!(pose.bone_layout(), bones);
    assert_eq!(
        pose.bone_bytes_per_frame(),
        u64::from(n) * u64::from(bone_count) * bones.bytes()
    );
    for dt in [0.0, 0.31] {
        pose.prepare(ctx, dt);
        let mut encoder = ctx.device.create_command_encoder(&Default::default());
        pose.record(&mut encoder.begin_compute_pass(&Default::default()));
        ctx.queue.submit([encoder.finish()]);
    }
    crowd
}

/// A mesh of `vertices` random vertices, each moved by 4 or 8 random bones of `bone_count`
/// with weights summing to 1: rest positions, rest normals, and its skeleton.
fn mesh(
    ctx: &GpuContext,
    vertices: usize,
    bone_count: u32,
    sets: usize,
    rng: &mut Rng,
) -> (wgpu::Buffer, wgpu::Buffer, skel_gpu::SkeletonGpu) {
    let mut p = Vec::new();
    let mut nrm = Vec::new();
    for _ in 0..vertices {
        p.extend([rng.next_f32(), rng.next_f32() + 1.0, rng.next_f32() * 0.3]);
        nrm.extend(
            Vec3::new(rng.next_f32(), rng.next_f32(), rng.next_f32() + 0.01)
                .normalize()
                .to_array(),
        );
    }
    let mut joints = vec![Vec::new(); sets];
    let mut weights = vec![Vec::new(); sets];
    for _ in 0..vertices {
        let w: Vec<f32> = (0..4 * sets).map(|_| rng.next_f32() + 1.0).collect();
        let sum: f32 = w.iter().sum();
        for s in 0..sets {
            for k in 0..4 {
                joints[s].push(rng.below(bone_count));
                weights[s].push(w[s * 4 + k] / sum);
            }
        }
    }
    let influences: Vec<InfluenceSet<'_>> = joints
        .iter()
        .zip(&weights)
        .map(|(j, w)| InfluenceSet {
            joints: JointIndices::U32(j),
            weights: w,
        })
        .collect();
    let identity = vec![Mat4::IDENTITY; bone_count as usize];
    let skeleton = create_skeleton_with(
        ctx,
        &SkeletonDescriptor {
            bone_count,
            bone_data: &identity,
            influences: &influences,
        },
    )
    .unwrap();
    (
        storage_buffer(ctx, bytemuck::cast_slice(&p)),
        storage_buffer(ctx, bytemuck::cast_slice(&nrm)),
        skeleton,
    )
}

/// Skins every instance of `crowd` (all visible) and reads positions and normals back.
fn skin(
    ctx: &GpuContext,
    pipeline: &CrowdSkinning,
    crowd: &CrowdBones,
    (rest_p, rest_n, skeleton): &(wgpu::Buffer, wgpu::Buffer, skel_gpu::SkeletonGpu),
) -> (Vec<f32>, Vec<f32>) {
    let bytes = skeleton.vertex_count() as u64 * 12 * u64::from(crowd.instance_count());
    let (out_p, out_n) = (output_buffer(ctx, bytes), output_buffer(ctx, bytes));
    let inputs = CrowdSkinningInputs {
        bones: crowd,
        bone_offset: 0,
        skeleton,
        rest_positions: rest_p,
        rest_normals: rest_n,
        out_positions: &out_p,
        out_normals: &out_n,
        morph: None,
    };
    let bindings = pipeline.bind(ctx, &inputs).unwrap();
    let mut encoder = ctx.device.create_command_encoder(&Default::default());
    {
        let mut pass = encoder.begin_compute_pass(&Default::default());
        pipeline.dispatch(&mut pass, &bindings, crowd.instance_count());
    }
    ctx.queue.submit([encoder.finish()]);
    (read_f32(ctx, &out_p, bytes), read_f32(ctx, &out_n, bytes))
}

#[test]
fn affine_bones_pose_skin_and_cull_as_the_4x4_bones_do() {
    let Some(ctx) = ctx() else { return };
    let Some(ch) = character("CesiumMan/CesiumMan.glb") else {
        return;
    };
    let rig = Rig::new(Arc::new(ch.asset.animation.clone())).unwrap();
    let set = GpuClipSet::new(&rig, &GpuClipSetOptions::default()).unwrap();
    let clips = GpuClips::new(ctx, &set).unwrap();
    let bone_count = set.bone_count();
    // 19 bones × 48 bytes: 4 instances are 3 648 bytes, not a multiple of 256; chunks of 16.
    let n = 160;
    let mut rng = Rng::new(45);
    let meshes = [
        (Influences::Four, mesh(ctx, 333, bone_count, 1, &mut rng)),
        (Influences::Eight, mesh(ctx, 200, bone_count, 2, &mut rng)),
    ];
    let placements = placements(n as usize);
    let planes = frustum(Vec3::NEG_Z);
    for layout in [
        PoseLayout::PerBone,
        PoseLayout::PerCharacter,
        PoseLayout::PerNode,
    ] {
        let full = posed(ctx, &clips, bone_count, n, layout, BoneLayout::Mat4, None);
        let rows = posed(
            ctx,
            &clips,
            bone_count,
            n,
            layout,
            BoneLayout::Affine3x4,
            None,
        );
        // Posed 16 instances a chunk (10 chunks): the same bones.
        let chunked = posed(
            ctx,
            &clips,
            bone_count,
            n,
            layout,
            BoneLayout::Affine3x4,
            Some(16 * rows.instance_bytes()),
        );
        assert_eq!(
            read_bones(ctx, &chunked, n as usize),
            read_bones(ctx, &rows, n as usize),
            "{layout:?}: chunked 3x4 pose"
        );
        assert_eq!(rows.instance_bytes(), u64::from(bone_count) * 48);
        assert_eq!(rows.bones_buffer().size(), u64::from(n * bone_count) * 48);
        let (a, b) = (
            read_bones(ctx, &full, n as usize),
            read_bones(ctx, &rows, n as usize),
        );
        let bottom = a
            .iter()
            .map(|m| (m.row(3) - glam::Vec4::W).abs().max_element())
            .fold(0.0, f32::max);
        let matrices = worst_matrix(&a, &b);
        eprintln!(
            "{layout:?}: 4x4 against 3x4 bones: {matrices:e}, 4x4 bottom row off by {bottom:e}"
        );
        assert!(matrices <= 1e-6 && bottom <= 1e-6, "{layout:?}");
        for method in [SkinningMethod::Linear, SkinningMethod::DualQuaternion] {
            for (influences, m) in &meshes {
                let pipeline = CrowdSkinning::with_method(ctx, *influences, method).unwrap();
                let (pa, na) = skin(ctx, &pipeline, &full, m);
                let (pb, nb) = skin(ctx, &pipeline, &rows, m);
                let (dp, dn) = (worst(&pa, &pb), worst(&na, &nb));
                eprintln!(
                    "{layout:?} {method:?} {influences:?}: skinned positions {dp:e}, normals {dn:e}"
                );
                assert!(
                    dp <= 1e-6 && dn <= 1e-6,
                    "{layout:?} {method:?} {influences:?}"
                );
                assert!(pa.iter().all(|v| v.is_finite()) && pa.iter().any(|&v| v != 0.0));
            }
        }
        // Culling: the same boxes and visible set, whole and in chunks of 16 instances.
        let mut results = Vec::new();
        for (crowd, chunk) in [(&full, None), (&rows, None), (&rows, Some(16 * 19 * 48))] {
            let pass = CrowdCull::new(
                ctx,
                crowd,
                &CrowdCullDescriptor {
                    parts: &ch.parts,
                    bones: &ch.bones,
                    index_count: 3,
                    first_index: 0,
                    base_vertex: 0,
                    max_chunk_bytes: chunk,
                },
            )
            .unwrap();
            assert_eq!(pass.chunk_count(), if chunk.is_some() { 10 } else { 1 });
            pass.set_placements(ctx, &placements).unwrap();
            let mut encoder = ctx.device.create_command_encoder(&Default::default());
            pass.encode(ctx, &mut encoder, &planes).unwrap();
            ctx.queue.submit([encoder.finish()]);
            let boxes = read_f32(ctx, pass.boxes_buffer(), u64::from(n) * 32);
            let list = read_u32(ctx, pass.visible_buffer(), (u64::from(n) + 1) * 4);
            let mut visible = list[1..=list[0] as usize].to_vec();
            visible.sort_unstable();
            results.push((boxes, visible));
        }
        assert!(!results[0].1.is_empty() && results[0].1.len() < n as usize / 2);
        for r in &results[1..] {
            assert!(worst(&results[0].0, &r.0) <= 1e-6, "{layout:?}: boxes");
            assert_eq!(results[0].1, r.1, "{layout:?}: visible set");
        }
    }
}
