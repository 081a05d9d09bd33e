//! `Crowd::encode_cull` on a real adapter (lavapipe in CI): a GPU-posed crowd boxed and culled
//! on the GPU keeps exactly the instances whose box a CPU frustum test of the same boxes keeps,
//! and about what the CPU path keeps for the same poses; a camera facing away keeps none and
//! draws nothing; the culled crowd, drawn by `CrowdRenderer` through the list the GPU wrote,
//! draws the picture of the whole crowd pixel for pixel; misuse gives typed errors.
//!
//! Without an adapter: SKIP, or fail when `SKEL_REQUIRE_GPU=1`.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use skel::gpu::glam::{Mat4, Vec3, Vec4};
use skel::gpu::{PoseLayout, frustum_planes, readback};
use skel::render::{CrowdRenderer, OffscreenTarget};
use skel::{Crowd, CrowdDescriptor, CullError, Posing, SkelError};

mod common;
use common::gpu;
#[path = "crowd/scene.rs"]
mod scene;
use scene::{SIDE, Scene, scene};
#[path = "crowd/gpu_cull.rs"]
mod gpu_cull;
use gpu_cull::{box_kept, differing, frame, gpu_crowd, listed, picture, time_of};

#[test]
fn the_gpu_cull_keeps_exactly_the_boxes_in_view() {
    let Some(ctx) = gpu("crowd GPU cull") else {
        return;
    };
    let Scene {
        asset,
        placements,
        view_projection,
        ..
    } = scene(&ctx);
    let mut crowd = gpu_crowd(&ctx, &asset, &placements);
    frame(&ctx, &mut crowd, None, Some(view_projection));
    let kept = listed(&ctx, &crowd);
    let cull = crowd.gpu_cull().unwrap();
    let boxes: Vec<Vec4> =
        readback::read_buffer_as(&ctx, cull.boxes_buffer(), 0, placements.len() * 2).unwrap();
    let planes = frustum_planes(view_projection);
    let expected: Vec<u32> = (0u32..)
        .zip(boxes.chunks_exact(2))
        .filter(|(_, b)| box_kept(&planes, b[0].truncate(), b[1].truncate()))
        .map(|(i, _)| i)
        .collect();
    eprintln!("{} of {} kept", kept.len(), placements.len());
    assert_eq!(
        kept, expected,
        "the GPU's list against a CPU test of its boxes"
    );
    let n = placements.len();
    assert!(
        kept.len() >= 5 && kept.len() + 20 <= n,
        "{} kept",
        kept.len()
    );

    // The same poses on the CPU path: boxes within a thousandth of the character (the GPU
    // samples resampled clips), and the same instances kept but for boxes that close to a
    // plane.
    let mut on_cpu = Crowd::new(
        &ctx,
        &asset,
        &CrowdDescriptor {
            instances: u32::try_from(n).unwrap(),
            clip: Some(0),
            ..CrowdDescriptor::default()
        },
    )
    .unwrap();
    for (i, player) in (0u32..).zip(&mut on_cpu.players) {
        player.seek(time_of(i));
        player.set_playing(false);
    }
    on_cpu.tick(0.0);
    let (lo, hi) = on_cpu.instance_box(0).unwrap();
    let slack = 1e-3 * (hi - lo).length();
    let mut borderline = 0;
    on_cpu.cull(view_projection, &placements).unwrap();
    for (i, b) in boxes.chunks_exact(2).enumerate() {
        let (min, max) = on_cpu.instance_box(i).unwrap();
        // The CPU box is in the character's frame; the GPU's is placed.
        let placed = |p: Vec3| placements[i].transform_point3(p);
        let (pmin, pmax) = (placed(min), placed(max));
        assert!(
            pmin.abs_diff_eq(b[0].truncate(), slack) && pmax.abs_diff_eq(b[1].truncate(), slack),
            "instance {i}: CPU {pmin}..{pmax}, GPU {}..{}",
            b[0],
            b[1]
        );
        let near = !box_kept(&planes, pmin - slack, pmax + slack)
            || box_kept(&planes, pmin + slack, pmax - slack);
        let on_both = kept.contains(&(i as u32)) == on_cpu.visible().contains(&(i as u32));
        if !near {
            borderline += 1;
        } else {
            assert!(on_both, "instance {i}: the GPU and CPU culls disagree");
        }
    }
    assert!(
        borderline <= 3,
        "{borderline} boxes within {slack} of a plane"
    );

    // The count comes back a frame or two later.
    let mut count = None;
    for _ in 0..100 {
        let _ = ctx.device.poll(wgpu::PollType::wait_indefinitely());
        count = crowd.gpu_visible_count(&ctx);
        if count.is_some() {
            break;
        }
    }
    assert_eq!(count, Some(u32::try_from(kept.len()).unwrap()));
}

#[test]
fn a_gpu_culled_crowd_draws_the_picture_of_the_whole_crowd() {
    let Some(ctx) = gpu("GPU-culled crowd picture") else {
        return;
    };
    let Scene {
        asset,
        placements,
        view_projection,
        camera,
    } = scene(&ctx);
    let mut crowd = gpu_crowd(&ctx, &asset, &placements);
    let target = OffscreenTarget::new(&ctx.device, 160, 160, 1).unwrap();
    let rest = skel::gltf::rest_world_matrices(&asset.animation).unwrap();
    let renderer =
        CrowdRenderer::new(&ctx, &asset, &crowd, &rest, &placements, &target.format()).unwrap();
    renderer.set_camera(&ctx.queue, &camera);
    frame(&ctx, &mut crowd, Some(&renderer), None);
    let whole = picture(&ctx, &asset, &renderer, &target);
    assert_eq!(listed(&ctx, &crowd).len(), placements.len());
    frame(&ctx, &mut crowd, Some(&renderer), Some(view_projection));
    let kept = listed(&ctx, &crowd).len();
    assert!(kept < placements.len(), "{kept} kept");
    let culled = picture(&ctx, &asset, &renderer, &target);
    let background = whole.chunks_exact(4).filter(|p| *p == &whole[..4]).count();
    assert!(
        background < whole.len() / 4 * 9 / 10,
        "the picture is nearly empty: {background} background pixels"
    );
    assert_eq!(differing(&whole, &culled), 0, "culled against whole");

    // A camera turned the other way keeps nothing, and the same picture has nothing in it.
    let away = Mat4::look_at_rh(camera.eye, camera.eye + camera.back, Vec3::Y);
    frame(
        &ctx,
        &mut crowd,
        Some(&renderer),
        Some(camera.projection * away),
    );
    assert_eq!(listed(&ctx, &crowd), Vec::<u32>::new());
    let empty = picture(&ctx, &asset, &renderer, &target);
    assert!(
        empty.chunks_exact(4).all(|p| p == &empty[..4]),
        "{} pixels drawn with nothing kept",
        differing(&empty, &vec![empty[0]; empty.len()])
    );
    // Culling with the first camera again draws the picture again.
    frame(&ctx, &mut crowd, Some(&renderer), Some(view_projection));
    assert_eq!(
        differing(&whole, &picture(&ctx, &asset, &renderer, &target)),
        0
    );
}

#[test]
fn misusing_the_gpu_cull_gives_typed_errors() {
    let Some(ctx) = gpu("crowd GPU cull errors") else {
        return;
    };
    let Scene {
        asset,
        placements,
        view_projection,
        ..
    } = scene(&ctx);
    let mut encoder = ctx.device.create_command_encoder(&Default::default());
    let mut on_cpu = Crowd::new(
        &ctx,
        &asset,
        &CrowdDescriptor {
            instances: 4,
            ..CrowdDescriptor::default()
        },
    )
    .unwrap();
    let got = on_cpu.encode_cull(&ctx, &mut encoder, view_projection);
    assert!(
        matches!(got, Err(SkelError::Cull(CullError::PosedOnCpu))),
        "{got:?}"
    );
    assert!(on_cpu.gpu_cull().is_none());
    let mut without = Crowd::new(
        &ctx,
        &asset,
        &CrowdDescriptor {
            instances: 4,
            posing: Posing::Gpu(PoseLayout::PerBone),
            ..CrowdDescriptor::default()
        },
    )
    .unwrap();
    let got = without.set_placements(&ctx, &placements[..4]);
    assert!(
        matches!(got, Err(SkelError::Cull(CullError::GpuCullOff))),
        "{got:?}"
    );
    let mut crowd = gpu_crowd(&ctx, &asset, &placements[..4]);
    let got = crowd.set_placements(&ctx, &placements[..3]);
    assert!(
        matches!(
            got,
            Err(SkelError::Cull(CullError::Placements {
                given: 3,
                instances: 4
            }))
        ),
        "{got:?}"
    );
    let got = crowd.encode_cull(&ctx, &mut encoder, Mat4::NAN);
    assert!(matches!(got, Err(SkelError::Gpu { .. })), "{got:?}");
    assert_eq!(crowd.gpu_visible_count(&ctx), None, "nothing culled yet");
    let _ = SIDE;
}

#[test]
fn the_gpu_picker_finds_what_the_cpu_picker_finds() {
    let Some(ctx) = gpu("crowd GPU pick") else {
        return;
    };
    let Scene {
        asset,
        placements,
        view_projection,
        ..
    } = scene(&ctx);
    let mut crowd = gpu_crowd(&ctx, &asset, &placements);
    frame(&ctx, &mut crowd, None, Some(view_projection));
    let mut gpu_picker = skel::GpuCrowdPicker::new(&ctx, &asset, &crowd).unwrap();
    // The same poses on the CPU path.
    let mut on_cpu = Crowd::new(
        &ctx,
        &asset,
        &CrowdDescriptor {
            instances: u32::try_from(placements.len()).unwrap(),
            clip: Some(0),
            ..CrowdDescriptor::default()
        },
    )
    .unwrap();
    for (i, player) in (0u32..).zip(&mut on_cpu.players) {
        player.seek(time_of(i));
        player.set_playing(false);
    }
    on_cpu.tick(0.0);
    let mut cpu_picker = skel::CrowdPicker::new(&asset);
    let (lo, hi) = on_cpu.instance_box(0).unwrap();
    let size = (hi - lo).length();
    // Rays from the camera through a grid over the picture (a GPU pick on lavapipe takes
    // about a third of a second).
    const GRID: u32 = 8;
    let inverse = view_projection.inverse();
    let (mut compared, mut missed) = (0, 0);
    for k in 0..GRID * GRID {
        let (x, y) = (
            -0.9 + 1.8 * (k % GRID) as f32 / (GRID - 1) as f32,
            -0.9 + 1.8 * (k / GRID) as f32 / (GRID - 1) as f32,
        );
        let near = inverse.project_point3(Vec3::new(x, y, 0.0));
        let far = inverse.project_point3(Vec3::new(x, y, 1.0));
        let cpu = cpu_picker
            .pick(&on_cpu, &asset, &placements, near, far - near)
            .unwrap();
        let gpu = gpu_picker.pick(&ctx, near, far - near).unwrap();
        let Some(cpu) = cpu else {
            missed += 1;
            continue;
        };
        // Where the poses' rounding cannot move the hit to a neighbouring triangle.
        let [u, v] = cpu.hit.barycentric;
        if u.min(v).min(1.0 - u - v) < 0.05 {
            continue;
        }
        let gpu = gpu.unwrap_or_else(|| panic!("ray {k}: the GPU missed {cpu:?}"));
        assert_eq!(
            (gpu.instance, gpu.hit.primitive, gpu.hit.triangle),
            (cpu.instance, cpu.hit.primitive, cpu.hit.triangle),
            "ray {k}"
        );
        // The GPU poses from resampled clips: the surface moves by about a thousandth of the
        // character, and a ray at a grazing angle meets it farther along.
        assert!(
            (gpu.hit.distance - cpu.hit.distance).abs() < 1e-2 * size,
            "ray {k}: {} against {}",
            gpu.hit.distance,
            cpu.hit.distance
        );
        compared += 1;
    }
    eprintln!("{compared} hits compared, {missed} rays missed on the CPU");
    assert!(
        compared >= 6 && missed >= 6,
        "{compared} compared, {missed} missed"
    );
    // A ray pointing away from every character misses.
    let eye = inverse.project_point3(Vec3::ZERO);
    let back = eye - inverse.project_point3(Vec3::new(0.0, 0.0, 1.0));
    assert_eq!(gpu_picker.pick(&ctx, eye, back).unwrap(), None);
    assert!(gpu_picker.pick(&ctx, eye, Vec3::ZERO).is_err());
    // A CPU-posed crowd has no GPU picker.
    assert!(matches!(
        skel::GpuCrowdPicker::new(&ctx, &asset, &on_cpu),
        Err(SkelError::Cull(CullError::PosedOnCpu))
    ));
}
