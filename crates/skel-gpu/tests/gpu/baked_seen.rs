//! A baked crowd that poses only what the camera sees (`PoseOptions::skip_unseen`): the
//! advance pass boxes every instance, `CrowdCull::encode_from_boxes` between the advance and
//! the bone pass marks each box seen or not, and the bone pass poses the seen instances only.
//! On CesiumMan, chunked (16 instances a chunk), with every other instance behind the camera
//! (so that workgroups hold seen and unseen instances together): after a first frame that
//! poses everyone, a second frame leaves every unseen instance's matrices as the first frame
//! made them and gives every seen one exactly the matrices of a crowd that poses everyone.

use std::sync::Arc;

use glam::{Mat4, Vec3};
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

#[test]
fn a_baked_crowd_that_skips_unseen_instances_poses_exactly_the_seen_ones() {
    let Some(ctx) = ctx() else { return };
    let Some(ch) = character("CesiumMan/CesiumMan.glb") else {
        return;
    };
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
    let table = PoseBoundsTable::new(&set, &inputs).unwrap();
    let n = 40;
    let duration = rig.data().clips[0].duration();
    let instances: Vec<PoseInstance> = (0..n)
        .map(|i| PoseInstance::new(0, (0.173 * i as f32) % duration))
        .collect();
    let every = crowd(ctx, n, set.bone_count(), &inputs);
    let seen = crowd(ctx, n, set.bone_count(), &inputs);
    let pose = |c: &Crowd, skip_unseen: bool| {
        GpuCrowdPose::with_options(
            ctx,
            &clips,
            &c.bones,
            &instances,
            &GpuCrowdPoseDescriptor {
                layout: PoseLayout::Baked,
                max_chunk_bytes: Some(16 * c.bones.instance_bytes()),
            },
            &PoseOptions {
                bounds: Some(PoseBounds {
                    table: &table,
                    cull: &c.cull,
                }),
                skip_unseen,
                ..PoseOptions::default()
            },
        )
        .unwrap()
    };
    let mut every_pose = pose(&every, false);
    let mut seen_pose = pose(&seen, true);
    assert!(seen_pose.skips_unseen() && !every_pose.skips_unseen());
    assert!(every_pose.chunk_count() > 1);
    let planes = frustum(Vec3::NEG_Z);
    // Frame 1: both pose everyone (`record`: no cull between the passes).
    for (p, c) in [(&mut every_pose, &every), (&mut seen_pose, &seen)] {
        p.prepare(ctx, 0.0);
        let mut encoder = ctx.device.create_command_encoder(&Default::default());
        {
            let mut pass = encoder.begin_compute_pass(&Default::default());
            p.record(&mut pass);
        }
        c.cull
            .encode_from_boxes(ctx, &mut encoder, &planes, None)
            .unwrap();
        ctx.queue.submit([encoder.finish()]);
    }
    let first = read_bones(ctx, &seen.bones, n);
    assert_eq!(first, read_bones(ctx, &every.bones, n));
    // Frame 2: the crowd that skips culls between its passes.
    let dt = 0.37;
    every_pose.prepare(ctx, dt);
    let mut encoder = ctx.device.create_command_encoder(&Default::default());
    {
        let mut pass = encoder.begin_compute_pass(&Default::default());
        every_pose.record(&mut pass);
    }
    seen_pose.prepare(ctx, dt);
    {
        let mut pass = encoder.begin_compute_pass(&Default::default());
        seen_pose.record_advance(&mut pass);
    }
    seen.cull
        .encode_from_boxes(ctx, &mut encoder, &planes, None)
        .unwrap();
    {
        let mut pass = encoder.begin_compute_pass(&Default::default());
        seen_pose.record_bones(&mut pass);
    }
    ctx.queue.submit([encoder.finish()]);
    let visible: Vec<u32> =
        readback::read_buffer_as(ctx, seen.cull.visible_buffer(), 0, n + 1).unwrap();
    let kept: Vec<usize> = visible[1..=visible[0] as usize]
        .iter()
        .map(|&i| i as usize)
        .collect();
    assert!(
        !kept.is_empty() && kept.len() < n,
        "the camera sees {} of {n}: the test needs some of each",
        kept.len()
    );
    let posed = read_bones(ctx, &seen.bones, n);
    let all = read_bones(ctx, &every.bones, n);
    let bones = set.bone_count() as usize;
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
