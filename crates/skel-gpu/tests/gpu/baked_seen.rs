//! A baked crowd that poses only what the camera sees (`PoseOptions::skip_unseen`): the
//! advance pass boxes every instance, `CrowdCull::encode_from_boxes` between the advance and
//! the bone pass lists the instances in view, and the bone pass poses the listed only.
//! On CesiumMan, chunked (16 instances a chunk), with every other instance behind the camera
//! (so that workgroups hold seen and unseen instances together): after a first frame that
//! poses everyone, a second frame leaves every unseen instance's matrices as the first frame
//! made them and gives every seen one exactly the matrices of a crowd that poses everyone.
//! With an update rate, one that comes into view between its posing frames poses at once.

use std::sync::Arc;

use glam::{Mat4, Vec3, Vec4};
use skel_anim::Rig;
use skel_gpu::{
    BakedClips, CrowdBones, CrowdCull, CullInputs, GpuClipSet, GpuClipSetOptions, GpuClips,
    GpuContext, GpuCrowdPose, GpuCrowdPoseDescriptor, PoseBounds, PoseBoundsTable, PoseInstance,
    PoseLayout, PoseOptions, readback,
};

use crate::affine_bones::read_bones;
use crate::baked_bounds::placed_crowd;
use crate::common::ctx;
use crate::cull::{character, frustum};

/// One crowd: its bones and its cull.
struct Crowd {
    bones: CrowdBones,
    cull: CrowdCull,
}

fn crowd(ctx: &GpuContext, n: usize, bone_count: u32, inputs: &CullInputs) -> Crowd {
    let (bones, cull) = placed_crowd(ctx, n, bone_count, inputs);
    Crowd { bones, cull }
}

/// CesiumMan's clips baked with their boxes, and its parts for the cull and the pose's bounds.
struct Clips {
    clips: GpuClips,
    table: PoseBoundsTable,
    inputs: CullInputs,
    bone_count: u32,
    duration: f32,
}

fn cesium_clips(ctx: &GpuContext) -> Option<Clips> {
    let ch = character("CesiumMan/CesiumMan.glb")?;
    let rig = Rig::new(Arc::new(ch.asset.animation.clone())).unwrap();
    let options = GpuClipSetOptions::for_skeletons(rig.data());
    let set = GpuClipSet::new(&rig, &options).unwrap();
    let inputs = CullInputs {
        parts: ch.parts.clone(),
        bones: ch.bones.clone(),
    };
    let mut baked = BakedClips::new(&rig, &set, &options).unwrap();
    baked.bake_boxes(&set, &inputs).unwrap();
    let mut clips = GpuClips::new(ctx, &set).unwrap();
    clips.upload_baked(ctx, &baked).unwrap();
    Some(Clips {
        clips,
        table: PoseBoundsTable::new(&set, &inputs).unwrap(),
        inputs,
        bone_count: set.bone_count(),
        duration: rig.data().clips[0].duration(),
    })
}

/// `c`'s pose of `instances`, baked, boxed, in chunks of 16 instances, skipping the unseen or
/// not.
fn pose(
    ctx: &GpuContext,
    clips: &Clips,
    c: &Crowd,
    instances: &[PoseInstance],
    skip_unseen: bool,
) -> GpuCrowdPose {
    GpuCrowdPose::with_options(
        ctx,
        &clips.clips,
        &c.bones,
        instances,
        &GpuCrowdPoseDescriptor {
            layout: PoseLayout::Baked,
            max_chunk_bytes: Some(16 * c.bones.instance_bytes()),
        },
        &PoseOptions {
            bounds: Some(PoseBounds {
                table: &clips.table,
                cull: &c.cull,
            }),
            skip_unseen,
            ..PoseOptions::default()
        },
    )
    .unwrap()
}

/// Records one frame of `p` (`dt` seconds on): everyone posed (`record`), or the advance
/// pass, the cull with `planes` and the bone pass (posing only the kept when `p` skips them).
fn frame(ctx: &GpuContext, p: &mut GpuCrowdPose, c: &Crowd, dt: f32, planes: Option<&[Vec4; 6]>) {
    p.prepare(ctx, dt);
    let mut encoder = ctx.device.create_command_encoder(&Default::default());
    match planes {
        None => {
            let mut pass = encoder.begin_compute_pass(&Default::default());
            p.record(&mut pass);
        }
        Some(planes) => {
            {
                let mut pass = encoder.begin_compute_pass(&Default::default());
                p.record_advance(&mut pass);
            }
            c.cull
                .encode_from_boxes(ctx, &mut encoder, planes, None)
                .unwrap();
            let mut pass = encoder.begin_compute_pass(&Default::default());
            p.record_bones(&mut pass);
        }
    }
    ctx.queue.submit([encoder.finish()]);
}

/// The instances `c`'s last cull kept, in the order it listed them (of a crowd of `n`).
fn kept(ctx: &GpuContext, c: &Crowd, n: usize) -> Vec<usize> {
    let list: Vec<u32> = readback::read_buffer_as(ctx, c.cull.visible_buffer(), 0, n + 1).unwrap();
    list[1..=list[0] as usize]
        .iter()
        .map(|&i| i as usize)
        .collect()
}

#[test]
fn a_baked_crowd_that_skips_unseen_instances_poses_exactly_the_seen_ones() {
    let Some(ctx) = ctx() else { return };
    let Some(clips) = cesium_clips(ctx) else {
        return;
    };
    let n = 40;
    let instances: Vec<PoseInstance> = (0..n)
        .map(|i| PoseInstance::new(0, (0.173 * i as f32) % clips.duration))
        .collect();
    let every = crowd(ctx, n, clips.bone_count, &clips.inputs);
    let seen = crowd(ctx, n, clips.bone_count, &clips.inputs);
    let pose = |c: &Crowd, skip_unseen: bool| pose(ctx, &clips, c, &instances, skip_unseen);
    let mut every_pose = pose(&every, false);
    let mut seen_pose = pose(&seen, true);
    assert!(seen_pose.skips_unseen() && !every_pose.skips_unseen());
    assert!(every_pose.chunk_count() > 1);
    let planes = frustum(Vec3::NEG_Z);
    // Frame 1: both pose everyone (`record`: no cull between the passes).
    frame(ctx, &mut every_pose, &every, 0.0, None);
    frame(ctx, &mut seen_pose, &seen, 0.0, None);
    let first = read_bones(ctx, &seen.bones, n);
    assert_eq!(first, read_bones(ctx, &every.bones, n));
    // Frame 2: the crowd that skips culls between its passes.
    let dt = 0.37;
    frame(ctx, &mut every_pose, &every, dt, None);
    frame(ctx, &mut seen_pose, &seen, dt, Some(&planes));
    let kept = kept(ctx, &seen, n);
    assert!(
        !kept.is_empty() && kept.len() < n,
        "the camera sees {} of {n}: the test needs some of each",
        kept.len()
    );
    let posed = read_bones(ctx, &seen.bones, n);
    let all = read_bones(ctx, &every.bones, n);
    let bones = clips.bone_count as usize;
    let instance = |m: &[Mat4], i: usize| m[i * bones..(i + 1) * bones].to_vec();
    let mut moved = 0;
    for i in 0..n {
        if kept.contains(&i) {
            assert_eq!(
                instance(&posed, i),
                instance(&all, i),
                "seen instance {i} is not posed as a crowd that poses everyone poses it"
            );
        } else {
            assert_eq!(
                instance(&posed, i),
                instance(&first, i),
                "unseen instance {i} was posed"
            );
            moved += usize::from(instance(&all, i) != instance(&first, i));
        }
    }
    // Posing an unseen instance would have changed it: the check above can fail.
    assert!(moved > 0, "no unseen instance moves between the two frames");
}

/// An instance that poses every fourth frame and comes into view on a frame between two of
/// them poses at once (its matrices would otherwise be those of its last frame in view, or
/// none), then keeps that pose until its next posing frame.
#[test]
fn an_instance_that_comes_into_view_between_its_posing_frames_poses_at_once() {
    let Some(ctx) = ctx() else { return };
    let Some(clips) = cesium_clips(ctx) else {
        return;
    };
    let n = 40;
    let start = |i: usize| PoseInstance::new(0, (0.173 * i as f32) % clips.duration);
    let every_frame: Vec<PoseInstance> = (0..n).map(start).collect();
    let every_fourth: Vec<PoseInstance> = (0..n).map(|i| start(i).update_every(4)).collect();
    let every = crowd(ctx, n, clips.bone_count, &clips.inputs);
    let seen = crowd(ctx, n, clips.bone_count, &clips.inputs);
    let mut every_pose = pose(ctx, &clips, &every, &every_frame, false);
    let mut seen_pose = pose(ctx, &clips, &seen, &every_fourth, true);
    // The odd instances stand in front of a camera that looks along +z, the even ones along -z.
    let (odd, even) = (frustum(Vec3::Z), frustum(Vec3::NEG_Z));
    let bones = clips.bone_count as usize;
    let instance = |m: &[Mat4], i: usize| m[i * bones..(i + 1) * bones].to_vec();
    let dt = 0.21;
    let kept = |c: &Crowd| kept(ctx, c, n);
    // Frame 0 (a posing frame for all 40: they are in the first block of 64): odd ones in view.
    frame(ctx, &mut every_pose, &every, dt, None);
    frame(ctx, &mut seen_pose, &seen, dt, Some(&odd));
    let in_view_0 = kept(&seen);
    assert!(!in_view_0.is_empty() && in_view_0.iter().all(|i| i % 2 == 1));
    let all_0 = read_bones(ctx, &every.bones, n);
    let posed_0 = read_bones(ctx, &seen.bones, n);
    for &i in &in_view_0 {
        assert_eq!(
            instance(&posed_0, i),
            instance(&all_0, i),
            "instance {i}, frame 0"
        );
    }
    // Frame 1, between posing frames: the camera turns and even ones come into view.
    frame(ctx, &mut every_pose, &every, dt, None);
    frame(ctx, &mut seen_pose, &seen, dt, Some(&even));
    let in_view_1 = kept(&seen);
    assert!(!in_view_1.is_empty() && in_view_1.iter().all(|i| i % 2 == 0));
    let all_1 = read_bones(ctx, &every.bones, n);
    let posed_1 = read_bones(ctx, &seen.bones, n);
    for &i in &in_view_1 {
        let got = instance(&posed_1, i);
        assert_eq!(
            got,
            instance(&all_1, i),
            "instance {i} came into view on frame 1"
        );
    }
    for &i in &in_view_0 {
        let got = instance(&posed_1, i);
        assert_eq!(
            got,
            instance(&all_0, i),
            "instance {i} left the view on frame 1"
        );
    }
    // Frame 2, still between posing frames, the same ones in view: they keep frame 1's pose,
    // though the clip has moved on.
    frame(ctx, &mut every_pose, &every, dt, None);
    frame(ctx, &mut seen_pose, &seen, dt, Some(&even));
    assert_eq!(kept(&seen).len(), in_view_1.len());
    let all_2 = read_bones(ctx, &every.bones, n);
    let posed_2 = read_bones(ctx, &seen.bones, n);
    let mut moved = 0;
    for &i in &in_view_1 {
        assert_eq!(
            instance(&posed_2, i),
            instance(&all_1, i),
            "instance {i}, frame 2"
        );
        moved += usize::from(instance(&all_2, i) != instance(&all_1, i));
    }
    assert!(
        moved > 0,
        "no instance moves between frames 1 and 2: the check can't fail"
    );
}
