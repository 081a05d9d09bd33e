//! Boxes written by the pose pass (`PoseOptions::bounds`) against the matrix cull pass
//! (`CrowdCull::encode`, which rebuilds each joint from the bone buffer) and the CPU
//! (`CharacterBounds::world_box` of the joints rebuilt from the same bone matrices): both bone
//! layouts, every workgroup size, a chunked pose, placements that translate, turn and stretch
//! unevenly, a third of the instances on the reduced joint set, a quarter posed every second
//! frame (their boxes must stay as they were on the frame they skip), an instance placed at NaN
//! (no finite part: min > max, culled) and an extra part whose box overflows (left out, as the
//! CPU leaves it out). Tolerance: 1e-5 of the box's largest extent, as cull.rs holds the matrix
//! pass to the CPU (the two GPU passes multiply the same matrices in another order; lavapipe
//! measured at most 9.8e-7). The boxes-only cull keeps exactly the matrix cull's visible set,
//! for two cameras.

use std::sync::Arc;

use glam::{Mat4, Vec3, Vec4};
use skel_anim::Rig;
use skel_gpu::{
    BoneLayout, CrowdBones, CrowdCull, CrowdCullDescriptor, CullInputs, CullPart, GpuClipSet,
    GpuClipSetOptions, GpuClips, GpuContext, GpuCrowdPose, GpuCrowdPoseDescriptor, GpuError,
    POSE_GROUP_THREADS, PoseBounds, PoseBoundsTable, PoseInstance, PoseLayout, PoseOptions,
    PoseTuning, readback,
};

use crate::affine_bones::read_bones;
use crate::common::{ctx, read_u32};
use crate::cull::{Character, character, cpu_boxes, frustum, placements};

/// Relative tolerance of a pose-written box against the matrix cull's and the CPU's.
const TOLERANCE: f32 = 1e-5;

type Box3 = (Vec3, Vec3);

/// A posed crowd with a cull pass whose boxes the pose pass writes.
struct Scene {
    crowd: CrowdBones,
    cull: CrowdCull,
    pose: GpuCrowdPose,
    n: usize,
}

/// The instances: clip 0 at spread times, every third on the reduced joint set, every fourth
/// (from 1) posed every second frame.
fn instances(n: usize) -> Vec<PoseInstance> {
    (0..n)
        .map(|i| {
            PoseInstance::new(0, 0.173 * i as f32)
                .reduced(i % 3 == 2)
                .update_every(if i % 4 == 1 { 2 } else { 1 })
        })
        .collect()
}

/// The character's parts plus one whose box overflows (radius f32::MAX: lo + hi is NaN).
fn parts_with_overflow(ch: &Character) -> Vec<CullPart> {
    let mut parts = ch.parts.clone();
    parts.push(CullPart {
        bone: 0,
        center: Vec3::ZERO,
        radius: f32::MAX,
    });
    parts
}

fn scene(
    ctx: &GpuContext,
    ch: &Character,
    bone_layout: BoneLayout,
    group_threads: u32,
    chunked: bool,
    n: usize,
) -> Scene {
    let rig = Rig::new(Arc::new(ch.asset.animation.clone())).unwrap();
    let mut set = GpuClipSet::new(&rig, &GpuClipSetOptions::default()).unwrap();
    let keep: Vec<bool> = (0..set.bone_count()).map(|b| b % 3 != 2).collect();
    set.set_reduced_joints(&keep).unwrap();
    let clips = GpuClips::new(ctx, &set).unwrap();
    let crowd = CrowdBones::new_gpu_posed_with_layout(ctx, n as u32, set.bone_count(), bone_layout)
        .unwrap();
    let parts = parts_with_overflow(ch);
    let cull = CrowdCull::new(
        ctx,
        &crowd,
        &CrowdCullDescriptor {
            parts: &parts,
            bones: &ch.bones,
            index_count: 3,
            first_index: 0,
            base_vertex: 0,
            max_chunk_bytes: None,
        },
    )
    .unwrap();
    let inputs = CullInputs {
        parts,
        bones: ch.bones.clone(),
    };
    let table = PoseBoundsTable::new(&set, &inputs).unwrap();
    assert_eq!(table.node_count(), clips.node_count() as usize);
    let desc = GpuCrowdPoseDescriptor {
        layout: PoseLayout::PerNode,
        // 16 instances a chunk (256-byte offsets for 3x4 bones of an odd count).
        max_chunk_bytes: chunked.then(|| 16 * crowd.instance_bytes()),
    };
    let options = PoseOptions {
        tuning: PoseTuning { group_threads },
        bounds: Some(PoseBounds {
            table: &table,
            cull: &cull,
        }),
        ..PoseOptions::default()
    };
    let pose =
        GpuCrowdPose::with_options(ctx, &clips, &crowd, &instances(n), &desc, &options).unwrap();
    assert!(pose.writes_bounds());
    assert_eq!(pose.chunk_count() > 1, chunked);
    Scene {
        crowd,
        cull,
        pose,
        n,
    }
}

fn read_boxes(ctx: &GpuContext, cull: &CrowdCull, n: usize) -> Vec<Box3> {
    let boxes: Vec<Vec4> = readback::read_buffer_as(ctx, cull.boxes_buffer(), 0, 2 * n).unwrap();
    boxes
        .chunks_exact(2)
        .map(|b| (b[0].truncate(), b[1].truncate()))
        .collect()
}

/// Poses one frame (the pose pass writes the boxes); returns them.
fn pose_frame(ctx: &GpuContext, s: &mut Scene, dt: f32) -> Vec<Box3> {
    s.pose.prepare(ctx, dt);
    let mut encoder = ctx.device.create_command_encoder(&Default::default());
    {
        let mut pass = encoder.begin_compute_pass(&Default::default());
        s.pose.record(&mut pass);
    }
    ctx.queue.submit([encoder.finish()]);
    read_boxes(ctx, &s.cull, s.n)
}

/// Culls with the matrix pass or from the boxes; returns the boxes after it and the sorted
/// visible list.
fn cull(
    ctx: &GpuContext,
    s: &Scene,
    planes: &[Vec4; 6],
    from_boxes: bool,
) -> (Vec<Box3>, Vec<u32>) {
    let mut encoder = ctx.device.create_command_encoder(&Default::default());
    if from_boxes {
        s.cull
            .encode_from_boxes(ctx, &mut encoder, planes, None)
            .unwrap();
    } else {
        s.cull.encode(ctx, &mut encoder, planes).unwrap();
    }
    ctx.queue.submit([encoder.finish()]);
    let list = read_u32(ctx, s.cull.visible_buffer(), (s.n as u64 + 1) * 4);
    let mut visible = list[1..=list[0] as usize].to_vec();
    visible.sort_unstable();
    let args = read_u32(ctx, s.cull.indirect_buffer(), 20);
    assert_eq!(args[1] as usize, visible.len());
    (read_boxes(ctx, &s.cull, s.n), visible)
}

/// The largest difference between two boxes relative to `reference`'s largest extent.
fn relative_error(got: Box3, reference: Box3) -> f32 {
    let err = (got.0 - reference.0)
        .abs()
        .max((got.1 - reference.1).abs())
        .max_element();
    err / (reference.1 - reference.0).max_element()
}

fn assert_near(what: &str, i: usize, got: Box3, reference: Option<Box3>, worst: &mut f32) {
    match reference {
        Some(r) => {
            let e = relative_error(got, r);
            assert!(
                e <= TOLERANCE,
                "{what}: instance {i}: {got:?} against {r:?}: {e:e}"
            );
            *worst = worst.max(e);
        }
        None => assert!(
            got.0.cmpgt(got.1).all(),
            "{what}: instance {i} has no finite part but got {got:?}"
        ),
    }
}

fn as_option(b: Box3) -> Option<Box3> {
    b.0.cmple(b.1).all().then_some(b)
}

#[test]
fn pose_written_boxes_equal_the_matrix_cull_and_the_cpu() {
    let Some(ctx) = ctx() else { return };
    let Some(ch) = character("CesiumMan/CesiumMan.glb") else {
        return;
    };
    let n = 40;
    let mut worst = 0.0f32;
    for bone_layout in [BoneLayout::Mat4, BoneLayout::Affine3x4] {
        for group_threads in POSE_GROUP_THREADS {
            let chunked = group_threads == 128;
            let what = format!("{bone_layout:?} {group_threads} threads chunked {chunked}");
            let mut s = scene(ctx, &ch, bone_layout, group_threads, chunked, n);
            let mut placed = placements(n);
            placed[7] = Mat4::NAN;
            s.cull.set_placements(ctx, &placed).unwrap();
            let planes = frustum(Vec3::NEG_Z);
            // Frame 0: every instance poses.
            let posed = pose_frame(ctx, &mut s, 0.0);
            let skins = read_bones(ctx, &s.crowd, n);
            let cpu = cpu_boxes(&ch, &skins, &placed);
            let (matrix, _) = cull(ctx, &s, &planes, false);
            for i in 0..n {
                assert_near(&what, i, posed[i], as_option(matrix[i]), &mut worst);
                assert_near(&format!("{what} CPU"), i, posed[i], cpu[i], &mut worst);
                if i != 7 {
                    // The overflowing part is left out: the box is the body's.
                    assert!((posed[i].1 - posed[i].0).max_element() < 10.0, "{posed:?}");
                }
            }
            assert_eq!(cpu[7], None);
            // Frame 1, everyone moved 5 units up: the instances posed every second frame
            // skip it and keep the boxes the buffer holds (the matrix cull's of frame 0, the
            // last written); the others are boxed where they are now.
            let before = matrix;
            let moved: Vec<Mat4> = placed
                .iter()
                .map(|p| Mat4::from_translation(Vec3::Y * 5.0) * *p)
                .collect();
            s.cull.set_placements(ctx, &moved).unwrap();
            let second = pose_frame(ctx, &mut s, 0.05);
            let skins = read_bones(ctx, &s.crowd, n);
            let cpu = cpu_boxes(&ch, &skins, &moved);
            let (matrix, _) = cull(ctx, &s, &planes, false);
            for i in 0..n {
                if i % 4 == 1 {
                    assert_eq!(
                        second[i], before[i],
                        "{what}: skipped instance {i} re-boxed"
                    );
                } else {
                    assert_near(&what, i, second[i], as_option(matrix[i]), &mut worst);
                    assert_near(&format!("{what} CPU"), i, second[i], cpu[i], &mut worst);
                }
            }
        }
    }
    eprintln!("pose-written boxes: worst relative difference {worst:e} (tolerance {TOLERANCE:e})");
}

#[test]
fn the_boxes_only_cull_keeps_the_matrix_culls_set() {
    let Some(ctx) = ctx() else { return };
    let Some(ch) = character("CesiumMan/CesiumMan.glb") else {
        return;
    };
    let n = 160;
    for bone_layout in [BoneLayout::Mat4, BoneLayout::Affine3x4] {
        let mut s = scene(ctx, &ch, bone_layout, 64, false, n);
        let mut placed = placements(n);
        placed[10] = Mat4::NAN;
        s.cull.set_placements(ctx, &placed).unwrap();
        pose_frame(ctx, &mut s, 0.0);
        // Down -z, and turned 20° to the side (more boxes across a plane).
        for target in [Vec3::NEG_Z, Vec3::new(0.36, -0.1, -1.0)] {
            let planes = frustum(target);
            let (_, from_boxes) = cull(ctx, &s, &planes, true);
            let (_, matrix) = cull(ctx, &s, &planes, false);
            assert_eq!(from_boxes, matrix, "{bone_layout:?} {target}");
            assert!(
                !matrix.is_empty() && matrix.len() < n / 2 && !matrix.contains(&10),
                "{bone_layout:?} {target}: {matrix:?}"
            );
            eprintln!(
                "{bone_layout:?} looking at {target}: boxes-only cull keeps the matrix cull's {} of {n}",
                matrix.len()
            );
        }
    }
}

#[test]
fn bad_pose_options_are_typed_errors() {
    let Some(ctx) = ctx() else { return };
    let Some(ch) = character("CesiumMan/CesiumMan.glb") else {
        return;
    };
    let rig = Rig::new(Arc::new(ch.asset.animation.clone())).unwrap();
    let set = GpuClipSet::new(&rig, &GpuClipSetOptions::default()).unwrap();
    let clips = GpuClips::new(ctx, &set).unwrap();
    let crowd = CrowdBones::new_gpu_posed(ctx, 4, set.bone_count()).unwrap();
    let other = CrowdBones::new_gpu_posed(ctx, 5, set.bone_count()).unwrap();
    let cull_desc = CrowdCullDescriptor {
        parts: &ch.parts,
        bones: &ch.bones,
        index_count: 3,
        first_index: 0,
        base_vertex: 0,
        max_chunk_bytes: None,
    };
    let cull = CrowdCull::new(ctx, &crowd, &cull_desc).unwrap();
    let other_cull = CrowdCull::new(ctx, &other, &cull_desc).unwrap();
    let inputs = CullInputs {
        parts: ch.parts.clone(),
        bones: ch.bones.clone(),
    };
    let table = PoseBoundsTable::new(&set, &inputs).unwrap();
    let initial = [PoseInstance::new(0, 0.0); 4];
    let per_node = GpuCrowdPoseDescriptor {
        layout: PoseLayout::PerNode,
        max_chunk_bytes: None,
    };
    let err = |desc: &GpuCrowdPoseDescriptor, options: &PoseOptions<'_>| {
        GpuCrowdPose::with_options(ctx, &clips, &crowd, &initial, desc, options).unwrap_err()
    };
    let bounds = |cull| PoseBounds {
        table: &table,
        cull,
    };
    let odd = PoseOptions {
        tuning: PoseTuning { group_threads: 100 },
        ..PoseOptions::default()
    };
    assert!(matches!(err(&per_node, &odd), GpuError::OutOfRange { .. }));
    let per_bone = GpuCrowdPoseDescriptor::default();
    let with_bounds = PoseOptions {
        bounds: Some(bounds(&cull)),
        ..PoseOptions::default()
    };
    assert!(matches!(
        err(&per_bone, &with_bounds),
        GpuError::OutOfRange { .. }
    ));
    let wrong_crowd = PoseOptions {
        bounds: Some(bounds(&other_cull)),
        ..PoseOptions::default()
    };
    assert!(matches!(
        err(&per_node, &wrong_crowd),
        GpuError::LengthMismatch {
            expected: 4,
            got: 5,
            ..
        }
    ));
    // Skipping unseen instances needs the baked layout and its boxes.
    let unseen_per_node = PoseOptions {
        bounds: Some(bounds(&cull)),
        skip_unseen: true,
        ..PoseOptions::default()
    };
    assert!(matches!(
        err(&per_node, &unseen_per_node),
        GpuError::OutOfRange {
            what: "PoseOptions::skip_unseen",
            ..
        }
    ));
    let baked = GpuCrowdPoseDescriptor {
        layout: PoseLayout::Baked,
        max_chunk_bytes: None,
    };
    let unseen_unboxed = PoseOptions {
        skip_unseen: true,
        ..PoseOptions::default()
    };
    assert!(matches!(
        err(&baked, &unseen_unboxed),
        GpuError::OutOfRange {
            what: "PoseOptions::skip_unseen",
            ..
        }
    ));
    let short = CullInputs {
        parts: ch.parts.clone(),
        bones: ch.bones[1..].to_vec(),
    };
    assert!(matches!(
        PoseBoundsTable::new(&set, &short),
        Err(GpuError::LengthMismatch { .. })
    ));
    let none = CullInputs {
        parts: Vec::new(),
        bones: ch.bones.clone(),
    };
    assert!(matches!(
        PoseBoundsTable::new(&set, &none),
        Err(GpuError::LengthMismatch { got: 0, .. })
    ));
}
