//! The GPU pose pass against the CPU `Player`: every clip of four assets, one instance per case
//! (at a key, between keys, backwards across the loop wrap, clamped at the end, a two-clip
//! blend), ticked by the same `dt`s on both sides. Bone matrices must agree within 1e-4 of the
//! asset's bounding-box diagonal, measured as the largest displacement they can cause to a
//! vertex (`|Δtranslation| + radius × ‖Δlinear‖`). Every case is posed twice, into a 4×4 and
//! a 3×4 bone buffer ([`BoneLayout`]): both are held to that tolerance, and to each other
//! within 1e-6.

use std::sync::Arc;

use glam::Mat4;
use skel_anim::{LayerDesc, LoopMode, Player, RecordingSink, Rig};
use skel_gltf::LoadOptions;
use skel_gpu::{
    BAKED_MAX_RATE, BakedClips, BoneLayout, CrowdBones, GpuClipSet, GpuClipSetOptions, GpuClips,
    GpuCrowdPose, GpuCrowdPoseDescriptor, POSE_GROUP_THREADS, PoseInstance, PoseLayout,
    PoseOptions, PoseTuning, bone_error, readback,
};

use crate::common::{assets_dir, ctx};
use crate::probe::bbox_diagonal;

/// One case: the layers a player gets and the instance that should match it.
struct Case {
    layers: Vec<LayerDesc>,
    instance: PoseInstance,
}

/// The asset's animation, its bounding-box diagonal and bind-pose radius.
pub(crate) fn load(file: &str) -> Option<(Arc<Rig>, f32, f32)> {
    let path = assets_dir()?.join(file);
    let asset = skel_gltf::load_path(
        &path,
        &LoadOptions {
            decode_images: false,
            ..LoadOptions::default()
        },
    )
    .unwrap_or_else(|e| panic!("{file}: {e}"));
    let positions: Vec<f32> = asset
        .primitives
        .iter()
        .filter(|p| p.skeleton_binding.is_some())
        .flat_map(|p| p.positions.iter().copied())
        .collect();
    let radius = positions
        .chunks_exact(3)
        .map(|p| glam::Vec3::from_slice(p).length())
        .fold(0.0, f32::max);
    let rig = Rig::new(Arc::new(asset.animation)).unwrap();
    Some((rig, bbox_diagonal(&positions), radius))
}

/// Five cases per clip (see the module docs).
fn cases(rig: &Rig) -> Vec<Case> {
    let data = rig.data();
    let n = data.clips.len();
    let mut out = Vec::new();
    for c in 0..n {
        let d = data.clips[c].duration();
        let key = data.clips[c].samplers[0]
            .input()
            .get(1)
            .copied()
            .unwrap_or(0.0);
        let id = c as u16;
        let single = |start: f32, speed: f32, mode: LoopMode| Case {
            layers: vec![LayerDesc::new(c).start(start).speed(speed).loop_mode(mode)],
            instance: PoseInstance::new(id, start)
                .speed(speed)
                .loop_modes(mode, mode),
        };
        out.push(single(0.0, 1.0, LoopMode::Repeat));
        out.push(single(key, 1.0, LoopMode::Repeat));
        out.push(single(0.37 * d, -1.3, LoopMode::Repeat));
        out.push(single(0.8 * d, 2.1, LoopMode::Once));
        let b = (c + 1) % n;
        let db = data.clips[b].duration();
        let w = 0.35;
        out.push(Case {
            layers: vec![
                LayerDesc::new(c).start(0.2 * d).weight(1.0 - w),
                LayerDesc::new(b).start(0.6 * db).speed(0.8).weight(w),
            ],
            instance: PoseInstance::new(id, 0.2 * d).blend(b as u16, 0.6 * db, 0.8, w),
        });
    }
    out
}

/// Poses every case on the GPU and with players over the same ticks; returns the worst error
/// relative to the diagonal.
fn check(file: &str, layout: PoseLayout, max_chunk_bytes: Option<u64>) -> Option<f32> {
    check_tuned(file, layout, max_chunk_bytes, PoseTuning::default())
}

/// [`check`] with the per-node pass built for `tuning`'s workgroup size.
fn check_tuned(
    file: &str,
    layout: PoseLayout,
    max_chunk_bytes: Option<u64>,
    tuning: PoseTuning,
) -> Option<f32> {
    let ctx = ctx()?;
    let (rig, diagonal, radius) = load(file)?;
    let options = GpuClipSetOptions {
        radius,
        ..GpuClipSetOptions::for_diagonal(diagonal, 1e-4)
    };
    let set = GpuClipSet::new(&rig, &options).unwrap();
    for (c, table) in set.clips.iter().enumerate() {
        assert!(
            table.max_error <= options.max_error,
            "{file} clip {c}: resampling error {} over {}",
            table.max_error,
            options.max_error
        );
    }
    for (c, t) in set.clips.iter().enumerate() {
        eprintln!(
            "{file} clip {c}: {} frames at {} fps, resampling error {:.2e} of the diagonal, \
             {:.0} bytes per clip-second",
            t.frames,
            t.rate,
            t.max_error / diagonal,
            t.bytes_per_second(set.row_vec4s)
        );
    }
    let mut clips = GpuClips::new(ctx, &set).unwrap();
    if layout == PoseLayout::Baked {
        let baked = BakedClips::new(&rig, &set, &options).unwrap();
        for (c, (t, r)) in baked.clips.iter().zip(&set.clips).enumerate() {
            eprintln!(
                "{file} clip {c}: baked {} frames at {} fps (resampled at {} fps), error {:.2e} \
                 of the diagonal, {} bytes",
                t.frames,
                t.rate,
                r.rate,
                t.max_error / diagonal,
                t.frames * baked.row_vec4s() * 16
            );
            // Half the tolerance is the bake's budget; a clip that needs more frames than
            // BAKED_MAX_RATE gives keeps its measured error, which must still fit the whole.
            let budget = if t.rate >= BAKED_MAX_RATE {
                2.0 * options.max_error
            } else {
                options.max_error
            };
            assert!(
                t.max_error <= budget && t.rate >= r.rate,
                "{file} clip {c}: baking error {} over {budget} at {} fps",
                t.max_error,
                t.rate
            );
        }
        eprintln!("{file}: {} bytes baked", baked.bytes());
        clips.upload_baked(ctx, &baked).unwrap();
    }
    let cases = cases(&rig);
    let instances: Vec<PoseInstance> = cases.iter().map(|c| c.instance).collect();
    let desc = GpuCrowdPoseDescriptor {
        layout,
        max_chunk_bytes,
    };
    let count = instances.len() as u32;
    let crowds = [BoneLayout::Mat4, BoneLayout::Affine3x4].map(|bone_layout| {
        let bones =
            CrowdBones::new_gpu_posed_with_layout(ctx, count, set.bone_count(), bone_layout)
                .unwrap();
        // 3×4 chunks hold a multiple of 16 instances of an odd bone count (256-byte offsets);
        // affine_bones.rs checks them.
        let desc = GpuCrowdPoseDescriptor {
            max_chunk_bytes: desc
                .max_chunk_bytes
                .map(|b| b.max(16 * bones.instance_bytes())),
            ..desc
        };
        let options = PoseOptions {
            tuning,
            ..PoseOptions::default()
        };
        let pose =
            GpuCrowdPose::with_options(ctx, &clips, &bones, &instances, &desc, &options).unwrap();
        assert_eq!(
            pose.group_threads(),
            if layout == PoseLayout::PerNode {
                tuning.group_threads
            } else {
                64
            }
        );
        (bones, pose)
    });
    let mut crowds = crowds;
    let mut players: Vec<Player> = cases
        .iter()
        .map(|case| {
            let mut p = Player::new(&rig);
            for layer in &case.layers {
                p.add_layer(layer.clone()).unwrap();
            }
            p
        })
        .collect();
    let per_instance = set.bone_count() as usize;
    let mut worst = 0.0f32;
    let mut between = 0.0f32;
    for dt in [0.0, 0.37, 0.91, 1.7] {
        let mut encoder = ctx.device.create_command_encoder(&Default::default());
        for (_, pose) in &mut crowds {
            pose.prepare(ctx, dt);
            let mut pass = encoder.begin_compute_pass(&Default::default());
            pose.record(&mut pass);
        }
        ctx.queue.submit([encoder.finish()]);
        let [full, rows] = [&crowds[0].0, &crowds[1].0]
            .map(|bones| crate::affine_bones::read_bones(ctx, bones, instances.len()));
        for (g, a) in full.iter().zip(&rows) {
            between = between.max(
                (*g - *a)
                    .abs()
                    .to_cols_array()
                    .into_iter()
                    .fold(0.0, f32::max),
            );
        }
        assert!(
            between <= 1e-6,
            "{file} {layout:?}: 3x4 bones differ from 4x4 by {between:e} after dt {dt}"
        );
        for (i, player) in players.iter_mut().enumerate() {
            let mut sink = RecordingSink::default();
            player.tick(dt, &mut sink);
            for (gpu, bone_layout) in [(&full, "4x4"), (&rows, "3x4")] {
                let cpu = sink.bone_matrices.iter().flatten();
                let got = &gpu[i * per_instance..(i + 1) * per_instance];
                for (b, (g, c)) in got.iter().zip(cpu).enumerate() {
                    let e = bone_error(g, c, radius) / diagonal;
                    assert!(
                        e <= 1e-4,
                        "{file} {layout:?} {bone_layout}: instance {i} (clip {:?}), bone {b}, \
                         after dt {dt}: error {e:.2e} of the diagonal\ngpu {g}\ncpu {c}",
                        instances[i].clips()
                    );
                    worst = worst.max(e);
                }
            }
        }
    }
    let pose = &crowds[0].1;
    eprintln!("{file} {layout:?}: 3x4 against 4x4 bones: largest difference {between:e}");
    eprintln!(
        "{file} {layout:?}: {} instances, {} clips, worst bone error {worst:.2e} of the diagonal, \
         {} chunk(s), key data {} bytes",
        instances.len(),
        set.clips.len(),
        pose.chunk_count(),
        set.frame_bytes()
    );
    Some(worst)
}

#[test]
fn gpu_pose_matches_the_player_on_cesium_man() {
    check("CesiumMan/CesiumMan.glb", PoseLayout::PerBone, None);
    check("CesiumMan/CesiumMan.glb", PoseLayout::PerCharacter, None);
    check("CesiumMan/CesiumMan.glb", PoseLayout::PerNode, None);
}

/// The baked layout on every asset the other layouts are checked on: one-clip instances lerp
/// baked skinning matrices, the blend case walks its chains; all held to the same tolerance.
#[test]
fn baked_pose_matches_the_player() {
    for file in [
        "CesiumMan/CesiumMan.glb",
        "Fox/Fox.glb",
        "RiggedFigure/RiggedFigure.glb",
        "RobotExpressive/RobotExpressive.glb",
    ] {
        check(file, PoseLayout::Baked, None);
    }
    let bytes = 4 * 19 * 64;
    check("CesiumMan/CesiumMan.glb", PoseLayout::Baked, Some(bytes));
}

#[test]
fn gpu_pose_matches_the_player_on_fox() {
    check("Fox/Fox.glb", PoseLayout::PerBone, None);
    check("Fox/Fox.glb", PoseLayout::PerNode, None);
}

#[test]
fn gpu_pose_matches_the_player_on_rigged_figure() {
    check(
        "RiggedFigure/RiggedFigure.glb",
        PoseLayout::PerCharacter,
        None,
    );
    check("RiggedFigure/RiggedFigure.glb", PoseLayout::PerNode, None);
}

#[test]
fn gpu_pose_matches_the_player_on_robot_expressive() {
    check(
        "RobotExpressive/RobotExpressive.glb",
        PoseLayout::PerBone,
        None,
    );
    check(
        "RobotExpressive/RobotExpressive.glb",
        PoseLayout::PerNode,
        None,
    );
}

/// The per-node pass at every workgroup size (`PoseTuning`): more instances a group, the
/// same bones, held to the same tolerance against the player; chunked too, so that a group's
/// first slot is found from the larger group.
#[test]
fn per_node_pose_matches_the_player_at_every_group_size() {
    for group_threads in POSE_GROUP_THREADS {
        let tuning = PoseTuning { group_threads };
        for file in ["CesiumMan/CesiumMan.glb", "Fox/Fox.glb"] {
            check_tuned(file, PoseLayout::PerNode, None, tuning);
        }
        let bytes = 4 * 19 * 64;
        check_tuned(
            "CesiumMan/CesiumMan.glb",
            PoseLayout::PerNode,
            Some(bytes),
            tuning,
        );
    }
}

#[test]
fn chunked_pose_equals_unchunked() {
    // Chunks of 4 instances (the smallest): 5 cases per clip of CesiumMan's one clip, so two
    // chunks, the second partly filled.
    let bytes = 4 * 19 * 64;
    check("CesiumMan/CesiumMan.glb", PoseLayout::PerBone, Some(bytes));
    check("CesiumMan/CesiumMan.glb", PoseLayout::PerNode, Some(bytes));
}

#[test]
fn an_instance_posed_every_second_frame_holds_its_pose_between() {
    let Some(ctx) = ctx() else {
        return;
    };
    let Some((rig, diagonal, radius)) = load("CesiumMan/CesiumMan.glb") else {
        return;
    };
    let options = GpuClipSetOptions::for_diagonal(diagonal, 1e-4);
    let set = GpuClipSet::new(&rig, &options).unwrap();
    let mut clips = GpuClips::new(ctx, &set).unwrap();
    let baked = BakedClips::new(&rig, &set, &options).unwrap();
    clips.upload_baked(ctx, &baked).unwrap();
    // Instance 64 is in the second block of 64: it poses on odd frames, instance 0 on even ones.
    let instances = vec![PoseInstance::new(0, 0.1).update_every(2); 65];
    // The baked pass gathers a workgroup's matrices in workgroup memory before it writes them:
    // a skipped instance's must stay as they were, in either bone layout.
    let layouts = [PoseLayout::PerBone, PoseLayout::PerNode, PoseLayout::Baked];
    for (layout, bone_layout) in layouts
        .into_iter()
        .flat_map(|l| [(l, BoneLayout::Mat4), (l, BoneLayout::Affine3x4)])
    {
        let bones =
            CrowdBones::new_gpu_posed_with_layout(ctx, 65, set.bone_count(), bone_layout).unwrap();
        let desc = GpuCrowdPoseDescriptor {
            layout,
            ..GpuCrowdPoseDescriptor::default()
        };
        let mut pose = GpuCrowdPose::new(ctx, &clips, &bones, &instances, &desc).unwrap();
        let per = set.bone_count() as usize;
        let mut player = Player::new(&rig);
        player.add_layer(LayerDesc::new(0).start(0.1)).unwrap();
        let mut frames = Vec::new();
        for dt in [0.0, 0.25, 0.25] {
            pose.prepare(ctx, dt);
            let mut encoder = ctx.device.create_command_encoder(&Default::default());
            pose.record(&mut encoder.begin_compute_pass(&Default::default()));
            ctx.queue.submit([encoder.finish()]);
            let all = crate::affine_bones::read_bones(ctx, &bones, 65);
            let mut sink = RecordingSink::default();
            player.tick(dt, &mut sink);
            frames.push((
                all[..per].to_vec(),
                all[64 * per..].to_vec(),
                sink.bone_matrices[0].clone(),
            ));
        }
        let close = |a: &[Mat4], b: &[Mat4]| {
            a.iter()
                .zip(b)
                .all(|(x, y)| bone_error(x, y, radius) / diagonal <= 1e-4)
        };
        // Instance 0: posed at frames 0 and 2, held at frame 1 though its playhead moved.
        assert!(close(&frames[0].0, &frames[0].2));
        assert_eq!(frames[1].0, frames[0].0);
        assert!(!close(&frames[1].0, &frames[1].2));
        assert!(close(&frames[2].0, &frames[2].2));
        // Instance 64: posed at frame 1 (at the advanced playhead), held at frame 2.
        assert!(close(&frames[1].1, &frames[1].2));
        assert_eq!(frames[2].1, frames[1].1);
    }
}

#[test]
fn a_reduced_instance_gives_left_out_bones_their_kept_ancestors_matrices() {
    let Some(ctx) = ctx() else {
        return;
    };
    let Some((rig, diagonal, _)) = load("CesiumMan/CesiumMan.glb") else {
        return;
    };
    let mut set = GpuClipSet::new(&rig, &GpuClipSetOptions::for_diagonal(diagonal, 1e-4)).unwrap();
    let n = set.bone_count() as usize;
    // Keep every other bone: the others follow their nearest kept ancestor.
    let keep: Vec<bool> = (0..n).map(|b| b % 2 == 0).collect();
    set.set_reduced_joints(&keep).unwrap();
    assert!(set.set_reduced_joints(&keep[1..]).is_err());
    let clips = GpuClips::new(ctx, &set).unwrap();
    let instances = [
        PoseInstance::new(0, 0.3),
        PoseInstance::new(0, 0.3).reduced(true),
    ];
    let bones = CrowdBones::new_gpu_posed(ctx, 2, set.bone_count()).unwrap();
    for layout in [
        PoseLayout::PerBone,
        PoseLayout::PerCharacter,
        PoseLayout::PerNode,
    ] {
        let desc = GpuCrowdPoseDescriptor {
            layout,
            ..GpuCrowdPoseDescriptor::default()
        };
        let mut pose = GpuCrowdPose::new(ctx, &clips, &bones, &instances, &desc).unwrap();
        pose.prepare(ctx, 0.0);
        let mut encoder = ctx.device.create_command_encoder(&Default::default());
        pose.record(&mut encoder.begin_compute_pass(&Default::default()));
        ctx.queue.submit([encoder.finish()]);
        let all: Vec<Mat4> = readback::read_buffer_as(ctx, bones.bones_buffer(), 0, 2 * n).unwrap();
        let (full, reduced) = all.split_at(n);
        let mut moved = 0;
        for (b, &source) in set.reduced_bones.iter().enumerate() {
            let source = source as usize;
            assert!(
                keep[source] || source == b,
                "{layout:?}: bone {b} takes {source}"
            );
            assert_eq!(reduced[b], full[source], "{layout:?}: bone {b}");
            moved += usize::from(source != b);
        }
        assert!(moved > 0, "some bones are left out");
    }
}

#[test]
fn static_ancestors_above_the_joints_are_folded_into_constants() {
    // CesiumMan's Z_UP and Armature (asset nodes 0 and 1) move with no clip and are no joint:
    // they are not posed, and since the mesh hangs under the same two nodes, each bone's left
    // matrix (mesh inverse × folded ancestors) comes out exactly the identity.
    let Some((rig, _, radius)) = load("CesiumMan/CesiumMan.glb") else {
        return;
    };
    let set = GpuClipSet::new(&rig, &GpuClipSetOptions::for_diagonal(radius, 1e-4)).unwrap();
    assert_eq!(set.nodes.len(), 19);
    assert_eq!(set.bone_count(), 19);
    assert!(!set.nodes.contains(&0) && !set.nodes.contains(&1));
    assert_eq!(set.depth(), 6);
    assert!(set.mesh_inverses.iter().all(|m| *m == Mat4::IDENTITY));
    // RobotExpressive's RootNode and RobotArmature are folded too, but its meshes (Hand.R,
    // Hand.L) sit under RootNode with a translation of their own: the left matrices keep what
    // does not cancel (the pose tests above check the poses of all four assets).
    let Some((robot, _, radius)) = load("RobotExpressive/RobotExpressive.glb") else {
        return;
    };
    let set = GpuClipSet::new(&robot, &GpuClipSetOptions::for_diagonal(radius, 1e-4)).unwrap();
    assert!(!set.nodes.contains(&0) && !set.nodes.contains(&1));
    assert_eq!(set.nodes.len(), 43);
    assert!(set.mesh_inverses.iter().all(|m| *m != Mat4::IDENTITY));
}
