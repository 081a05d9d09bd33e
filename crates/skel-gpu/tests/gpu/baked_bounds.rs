//! Boxes written by the baked pose pass (`PoseLayout::Baked` with `PoseOptions::bounds`, from
//! the boxes of the baked frames): conservative against the matrix cull pass's boxes of the
//! same bones (`CrowdCull::encode`, each sphere boxed under the lerped matrix) and against the
//! CPU player's (`CharacterBounds::world_box` of the player's bone matrices at the same time,
//! which holds every vertex the CPU skins), on CesiumMan and Fox, over several frames, with
//! placements that translate, turn and stretch unevenly, a third of the instances on the
//! reduced joint set (held to the matrix cull only: the player has no reduced set) and a
//! seventh blending two clips (a box that holds everything). A box holds another when it
//! reaches past it everywhere, give or take 1e-5 of the other's largest extent (float
//! rounding of two products in another order). Prints how much larger the baked boxes are.

use std::sync::Arc;

use glam::{Vec3, Vec4};
use skel_anim::{LayerDesc, Player, RecordingSink, Rig};
use skel_gpu::{
    BakedClips, BoneLayout, CrowdBones, CrowdCull, CrowdCullDescriptor, CullInputs, GpuClipSet,
    GpuClipSetOptions, GpuClips, GpuCrowdPose, GpuCrowdPoseDescriptor, PoseBounds, PoseBoundsTable,
    PoseInstance, PoseLayout, PoseOptions, readback,
};

use crate::common::ctx;
use crate::cull::{Character, character, cpu_boxes, frustum, placements};

type Box3 = (Vec3, Vec3);

/// Instance `i`: clip 0 (of `duration` seconds) at a time of its own, every third on the
/// reduced joint set, every seventh blending the last clip in.
fn instance(i: usize, clips: usize, duration: f32) -> (PoseInstance, f32) {
    let t = (0.173 * i as f32) % duration;
    let mut instance = PoseInstance::new(0, t).reduced(i % 3 == 2);
    if i % 7 == 3 {
        instance = instance.blend((clips - 1) as u16, 0.5 * t, 1.0, 0.4);
    }
    (instance, t)
}

/// Whether `outer` holds `inner` within 1e-5 of `inner`'s largest extent.
fn holds(outer: Box3, inner: Box3) -> bool {
    let slack = 1e-5 * (inner.1 - inner.0).max_element();
    outer.0.cmple(inner.0 + slack).all() && outer.1.cmpge(inner.1 - slack).all()
}

fn volume(b: Box3) -> f32 {
    (b.1 - b.0).max(Vec3::ZERO).element_product()
}

fn read_boxes(ctx: &skel_gpu::GpuContext, cull: &CrowdCull, n: usize) -> Vec<Box3> {
    let boxes: Vec<Vec4> = readback::read_buffer_as(ctx, cull.boxes_buffer(), 0, 2 * n).unwrap();
    boxes
        .chunks_exact(2)
        .map(|b| (b[0].truncate(), b[1].truncate()))
        .collect()
}

/// `n` instances' 3×4 bones of `bone_count` bones each, and their cull of `inputs`' spheres,
/// the instances placed by [`placements`].
pub(crate) fn placed_crowd(
    ctx: &skel_gpu::GpuContext,
    n: usize,
    bone_count: u32,
    inputs: &CullInputs,
) -> (CrowdBones, CrowdCull) {
    let bones =
        CrowdBones::new_gpu_posed_with_layout(ctx, n as u32, bone_count, BoneLayout::Affine3x4)
            .unwrap();
    let cull = CrowdCull::new(
        ctx,
        &bones,
        &CrowdCullDescriptor {
            parts: &inputs.parts,
            bones: &inputs.bones,
            index_count: 3,
            first_index: 0,
            base_vertex: 0,
            max_chunk_bytes: None,
        },
    )
    .unwrap();
    cull.set_placements(ctx, &placements(n)).unwrap();
    (bones, cull)
}

fn check(file: &str) {
    let Some(ctx) = ctx() else { return };
    let Some(ch): Option<Character> = character(file) else {
        return;
    };
    let rig = Rig::new(Arc::new(ch.asset.animation.clone())).unwrap();
    let options = GpuClipSetOptions::for_skeletons(rig.data());
    let mut set = GpuClipSet::new(&rig, &options).unwrap();
    let keep: Vec<bool> = (0..set.bone_count()).map(|b| b % 3 != 2).collect();
    set.set_reduced_joints(&keep).unwrap();
    let inputs = CullInputs {
        parts: ch.parts.clone(),
        bones: ch.bones.clone(),
    };
    let mut baked = BakedClips::new(&rig, &set, &options).unwrap();
    baked.bake_boxes(&set, &inputs).unwrap();
    let mut clips = GpuClips::new(ctx, &set).unwrap();
    clips.upload_baked(ctx, &baked).unwrap();
    let n = 42;
    let (crowd, cull) = placed_crowd(ctx, n, set.bone_count(), &inputs);
    let placements = placements(n);
    let table = PoseBoundsTable::new(&set, &inputs).unwrap();
    let count = rig.data().clips.len();
    let (instances, starts): (Vec<PoseInstance>, Vec<f32>) = (0..n)
        .map(|i| instance(i, count, rig.data().clips[0].duration()))
        .unzip();
    let mut pose = GpuCrowdPose::with_options(
        ctx,
        &clips,
        &crowd,
        &instances,
        &GpuCrowdPoseDescriptor {
            layout: PoseLayout::Baked,
            max_chunk_bytes: None,
        },
        &PoseOptions {
            bounds: Some(PoseBounds {
                table: &table,
                cull: &cull,
            }),
            ..PoseOptions::default()
        },
    )
    .unwrap();
    assert!(pose.writes_bounds());
    let mut players: Vec<Player> = starts
        .iter()
        .map(|&t| {
            let mut p = Player::new(&rig);
            p.add_layer(LayerDesc::new(0).start(t)).unwrap();
            p
        })
        .collect();
    let planes = frustum(Vec3::NEG_Z);
    let mut ratios = Vec::new();
    for dt in [0.0, 0.37, 0.91] {
        pose.prepare(ctx, dt);
        let mut encoder = ctx.device.create_command_encoder(&Default::default());
        {
            let mut pass = encoder.begin_compute_pass(&Default::default());
            pose.record(&mut pass);
        }
        ctx.queue.submit([encoder.finish()]);
        let from_pose = read_boxes(ctx, &cull, n);
        // The matrix cull boxes every sphere again from the bones the pass wrote.
        let mut encoder = ctx.device.create_command_encoder(&Default::default());
        cull.encode(ctx, &mut encoder, &planes).unwrap();
        ctx.queue.submit([encoder.finish()]);
        let from_bones = read_boxes(ctx, &cull, n);
        let mut skins = Vec::with_capacity(n * set.bone_count() as usize);
        for player in &mut players {
            let mut sink = RecordingSink::default();
            player.tick(dt, &mut sink);
            skins.extend(sink.bone_matrices.iter().flatten().copied());
        }
        let cpu = cpu_boxes(&ch, &skins, &placements);
        for i in 0..n {
            let (got, bones) = (from_pose[i], from_bones[i]);
            if instances[i].weight() > 0.0 {
                assert!(
                    got.0.cmple(Vec3::splat(-1e38)).all() && got.1.cmpge(Vec3::splat(1e38)).all(),
                    "{file}: blending instance {i} got {got:?}, not a box holding everything"
                );
                continue;
            }
            assert!(
                holds(got, bones),
                "{file} after dt {dt}: instance {i}: baked box {got:?} does not hold the \
                 matrix cull's {bones:?}"
            );
            if i % 3 != 2 {
                let cpu = cpu[i].unwrap();
                assert!(
                    holds(got, cpu),
                    "{file} after dt {dt}: instance {i}: baked box {got:?} does not hold the \
                     player's {cpu:?}"
                );
            }
            ratios.push(volume(got) / volume(bones));
        }
    }
    ratios.sort_by(f32::total_cmp);
    eprintln!(
        "{file}: {} baked boxes hold the matrix cull's (and the player's); volume against the \
         matrix cull's: median {:.3}, worst {:.3}; {} bytes of boxes",
        ratios.len(),
        ratios[ratios.len() / 2],
        ratios[ratios.len() - 1],
        baked.boxes.len() * 16
    );
}

#[test]
fn baked_boxes_hold_the_matrix_cull_and_the_player() {
    check("CesiumMan/CesiumMan.glb");
    check("Fox/Fox.glb");
}
