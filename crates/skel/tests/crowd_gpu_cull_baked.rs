//! A baked crowd's GPU cull (`Posing::Gpu(PoseLayout::Baked)` with `gpu_cull`), on a real
//! adapter (lavapipe in CI): its pose pass boxes it from boxes baked with its clips, each
//! holding the joints' box of the same pose, and the cull only tests them; with
//! `pose_only_seen` only the instances the cull keeps are posed, and the picture is the one of
//! a crowd that poses everyone, pixel for pixel; asked for without baked posing and a GPU
//! cull, it is a typed error.
//!
//! Without an adapter: SKIP, or fail when `SKEL_REQUIRE_GPU=1`.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use skel::gpu::glam::Mat4;
use skel::gpu::{PoseLayout, frustum_planes, readback};
use skel::render::{CrowdRenderer, OffscreenTarget};
use skel::{Crowd, CrowdDescriptor, CullError, Posing, SkelError};

mod common;
use common::gpu;
#[path = "crowd/scene.rs"]
mod scene;
use scene::{Scene, paused_gpu_crowd_posed, scene};
#[path = "crowd/gpu_cull.rs"]
mod gpu_cull;
use gpu_cull::{box_kept, differing, frame, gpu_boxes, gpu_crowd, listed, picture, time_of};

#[test]
fn a_baked_crowd_is_culled_from_the_boxes_its_pose_pass_writes() {
    let Some(ctx) = gpu("baked crowd GPU cull") else {
        return;
    };
    let Scene {
        asset,
        placements,
        view_projection,
        ..
    } = scene(&ctx);
    let mut baked = paused_gpu_crowd_posed(
        &ctx,
        &asset,
        &placements,
        time_of,
        true,
        None,
        PoseLayout::Baked,
    );
    let mut exact = gpu_crowd(&ctx, &asset, &placements);
    // The baked crowd's pose pass boxes it (from boxes baked with its clips); the exact one's
    // cull boxes it from its bones.
    assert!(baked.gpu_pose().unwrap().writes_bounds());
    assert!(!exact.gpu_pose().unwrap().writes_bounds());
    frame(&ctx, &mut baked, None, Some(view_projection));
    frame(&ctx, &mut exact, None, Some(view_projection));
    let (kept, boxes) = (listed(&ctx, &baked), gpu_boxes(&ctx, &baked));
    let planes = frustum_planes(view_projection);
    let expected: Vec<u32> = (0u32..)
        .zip(&boxes)
        .filter(|(_, b)| box_kept(&planes, b.0, b.1))
        .map(|(i, _)| i)
        .collect();
    assert_eq!(
        kept, expected,
        "the GPU's list against a CPU test of its boxes"
    );
    // Each baked box holds the joints' box of the same pose (within a thousandth of the
    // character: the bake and the resampling each err by less), so everything the exact cull
    // keeps, the baked cull keeps.
    let exact_boxes = gpu_boxes(&ctx, &exact);
    let (lo, hi) = exact_boxes[0];
    let slack = 1e-3 * (hi - lo).length();
    let mut larger = 0;
    for (i, (b, e)) in boxes.iter().zip(&exact_boxes).enumerate() {
        assert!(
            b.0.cmple(e.0 + slack).all() && b.1.cmpge(e.1 - slack).all(),
            "instance {i}: baked box {b:?} does not hold the joints' box {e:?}"
        );
        larger += usize::from(b.0.cmplt(e.0 - slack).any() || b.1.cmpgt(e.1 + slack).any());
    }
    let exact_kept = listed(&ctx, &exact);
    assert!(
        exact_kept.iter().all(|i| kept.contains(i)),
        "the baked cull dropped an instance the exact cull keeps"
    );
    assert!(
        kept.len() + 20 <= placements.len(),
        "the baked cull keeps {} of {}",
        kept.len(),
        placements.len()
    );
    eprintln!(
        "baked: {} kept against the exact cull's {}; {larger} of {} boxes larger than the \
         joints' by more than {slack}",
        kept.len(),
        exact_kept.len(),
        boxes.len()
    );
}

#[test]
fn a_crowd_that_poses_only_what_it_sees_draws_the_whole_crowds_picture() {
    let Some(ctx) = gpu("baked crowd posing only what it sees") else {
        return;
    };
    let Scene {
        asset,
        placements,
        view_projection,
        camera,
    } = scene(&ctx);
    let n = u32::try_from(placements.len()).unwrap();
    let make = |only_seen: bool| {
        let mut crowd = Crowd::new(
            &ctx,
            &asset,
            &CrowdDescriptor {
                instances: n,
                clip: Some(0),
                posing: Posing::Gpu(PoseLayout::Baked),
                gpu_cull: true,
                pose_only_seen: only_seen,
                ..CrowdDescriptor::default()
            },
        )
        .unwrap();
        let playback: Vec<skel::gpu::PoseInstance> = (0..n)
            .map(|i| skel::gpu::PoseInstance::new(0, time_of(i)).speed(0.0))
            .collect();
        crowd.set_instances(&ctx, 0, &playback).unwrap();
        crowd.set_placements(&ctx, &placements).unwrap();
        crowd.tick(0.0);
        crowd
    };
    let (mut seen, mut all) = (make(true), make(false));
    assert!(seen.gpu_pose().unwrap().skips_unseen());
    assert!(!all.gpu_pose().unwrap().skips_unseen());
    let target = OffscreenTarget::new(&ctx.device, 160, 160, 1).unwrap();
    let rest = skel::gltf::rest_world_matrices(&asset.animation).unwrap();
    let renderer = |crowd: &Crowd| {
        let r =
            CrowdRenderer::new(&ctx, &asset, crowd, &rest, &placements, &target.format()).unwrap();
        r.set_camera(&ctx.queue, &camera);
        r
    };
    let (seen_renderer, all_renderer) = (renderer(&seen), renderer(&all));
    frame(&ctx, &mut seen, Some(&seen_renderer), Some(view_projection));
    frame(&ctx, &mut all, Some(&all_renderer), Some(view_projection));
    let kept = listed(&ctx, &seen);
    assert_eq!(kept, listed(&ctx, &all));
    assert!(!kept.is_empty() && kept.len() < placements.len());
    // The seen instances are posed as the crowd that poses everyone poses them; the others
    // were never posed (the buffer starts zeroed).
    let bones = |crowd: &Crowd| -> Vec<Mat4> {
        let count = crowd.gpu().instance_count() * crowd.gpu().bones_per_instance();
        readback::read_buffer_as(&ctx, crowd.gpu().bones_buffer(), 0, count as usize).unwrap()
    };
    let per = seen.gpu().bones_per_instance() as usize;
    let (seen_bones, all_bones) = (bones(&seen), bones(&all));
    for i in 0..placements.len() {
        let (s, a) = (
            &seen_bones[i * per..(i + 1) * per],
            &all_bones[i * per..(i + 1) * per],
        );
        if kept.contains(&(i as u32)) {
            assert_eq!(s, a, "seen instance {i}");
        } else {
            assert!(
                s.iter().all(|m| *m == Mat4::ZERO),
                "unseen instance {i} was posed"
            );
            assert!(a.iter().any(|m| *m != Mat4::ZERO));
        }
    }
    let whole = picture(&ctx, &asset, &all_renderer, &target);
    let drawn = picture(&ctx, &asset, &seen_renderer, &target);
    let background = whole.chunks_exact(4).filter(|p| *p == &whole[..4]).count();
    assert!(
        background < whole.len() / 4 * 9 / 10,
        "the picture is nearly empty"
    );
    assert_eq!(
        differing(&whole, &drawn),
        0,
        "posing only the seen against posing all"
    );
    // Only with baked posing and the GPU cull.
    for (posing, gpu_cull) in [
        (Posing::Gpu(PoseLayout::PerBone), true),
        (Posing::Gpu(PoseLayout::Baked), false),
        (Posing::Cpu, false),
    ] {
        let got = Crowd::new(
            &ctx,
            &asset,
            &CrowdDescriptor {
                posing,
                gpu_cull,
                pose_only_seen: true,
                ..CrowdDescriptor::default()
            },
        );
        assert!(
            matches!(got, Err(SkelError::Cull(CullError::PoseOnlySeen))),
            "{posing:?} {gpu_cull}: {got:?}"
        );
    }
}
