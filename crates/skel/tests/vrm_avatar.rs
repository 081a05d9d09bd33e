//! A 600-bone VRM avatar through the facade on a real adapter (`fixtures/vrm/v1_600_bones.vrm`:
//! the humanoid and 116 five-joint hair strands standing straight out from the head): it
//! loads, its springs hang the strands within a second of frames, and the GPU skins the
//! sprung pose as the CPU does. Its bone texture wraps into a second row where rows are
//! WebGL2's 2048 texels; the web page's check (`cargo xtask web --check`) draws it there.
//!
//! Without an adapter: SKIP, or fail when `SKEL_REQUIRE_GPU=1`.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use skel::gpu::{BoneTextureLayout, GpuContext};
use skel::{AssetContainer, Frame, LoadOptions, load_gltf};
use skel_test_support::glb::Glb;

mod common;
use common::{compute_skinned, gpu, gpu_error_over_diagonal, vrm_fixture};

/// Frames of 1/60 s the avatar plays before it is skinned.
const FRAMES: usize = 60;

fn avatar(ctx: &GpuContext, options: &LoadOptions) -> AssetContainer {
    let path = vrm_fixture("v1_600_bones.vrm");
    load_gltf(ctx, &path, options).unwrap()
}

/// The strands' tip joints' mean height after [`FRAMES`] frames through the facade's frame,
/// with the player the container makes (springs attached unless `options` turn them off).
fn tips_after_a_second(
    ctx: &GpuContext,
    container: &mut AssetContainer,
) -> (f32, skel::anim::Player) {
    let mut player = container.player().unwrap();
    let mut frame = Frame::new(container);
    for _ in 0..FRAMES {
        frame
            .advance(ctx, container, &mut player, 1.0 / 60.0, &mut ())
            .unwrap();
    }
    let names = &container.rig.data().nodes;
    let world = player.world_matrices();
    let tips: Vec<f32> = names
        .iter()
        .zip(world)
        .filter(|(n, _)| n.name.starts_with("strand") && n.name.ends_with("_4"))
        .map(|(_, m)| m.w_axis.y)
        .collect();
    assert_eq!(tips.len(), 116, "every strand's tip");
    (tips.iter().sum::<f32>() / tips.len() as f32, player)
}

#[test]
fn six_hundred_bones_spring_and_skin_on_the_gpu_as_on_the_cpu() {
    let Some(ctx) = gpu("six_hundred_bones") else {
        return;
    };
    let mut container = avatar(&ctx, &LoadOptions::default());
    assert_eq!(container.meshes.len(), 1);
    let skeleton = container.meshes[0].skeleton.as_ref().unwrap();
    assert_eq!(skeleton.gpu.bone_count(), 600);
    // Under WebGL2's rows of 2048 texels the 600 bones take two rows; the page draws them so.
    let webgl2 = BoneTextureLayout::new(600, 2048).unwrap();
    assert_eq!((webgl2.width, webgl2.height), (2048, 2));
    assert!(container.secondary.springs().is_some());

    let (hanging, player) = tips_after_a_second(&ctx, &mut container);
    let mut still = avatar(&ctx, &LoadOptions::default().with_springs(None));
    assert!(still.secondary.springs().is_none());
    let (rest, _) = tips_after_a_second(&ctx, &mut still);
    // At rest the tips stand 0.1 m above the head joint (1.65 m); a second of gravity hangs them.
    assert!((rest - 1.65).abs() < 1e-3, "tips at rest {rest}");
    assert!(
        hanging < rest - 0.05,
        "the strands did not hang: tips at {hanging} m against {rest} m at rest"
    );

    eprintln!("strand tips: {rest} m at rest, {hanging} m after {FRAMES} frames of springs");
    // The frame uploaded the sprung pose: skin it on the GPU and compare with the CPU.
    let mesh = &container.meshes[0];
    let gpu_positions = compute_skinned(&ctx, mesh);
    let primitive = &mesh.primitives[0];
    let p = &container.primitives[primitive.source];
    let bones = player.bone_matrices(p.skeleton_binding.unwrap()).unwrap();
    assert_eq!(bones.len(), 600);
    let at = primitive.base_vertex as usize * 3;
    let worst = gpu_error_over_diagonal(p, bones, &gpu_positions, at);
    assert!(
        worst <= 1e-5,
        "GPU and CPU skinning differ by {worst} of the size"
    );
    // The last strand's vertices (bones past 512) hang with the rest: a bone read from the
    // wrong place would leave them at rest or at the origin.
    let end = at + p.positions.len();
    let last = &gpu_positions[end - 9..end];
    assert!(last.chunks_exact(3).all(|v| v[1] < 1.65 - 0.02), "{last:?}");
}

/// `v1_600_bones.vrm` with a second clip, `Walk`: the hips carried 2 m along +z in 2 s.
fn walking_avatar() -> Vec<u8> {
    let mut glb = Glb::parse(&std::fs::read(vrm_fixture("v1_600_bones.vrm")).unwrap());
    let times = glb.push_accessor(&[0.0, 2.0], "SCALAR");
    let hips = glb.push_accessor(&[0.0, 1.0, 0.0, 0.0, 1.0, 2.0], "VEC3");
    glb.json["animations"]
        .as_array_mut()
        .unwrap()
        .push(serde_json::json!({
            "name": "Walk",
            "samplers": [{"input": times, "output": hips, "interpolation": "LINEAR"}],
            "channels": [{"sampler": 0, "target": {"node": 1, "path": "translation"}}],
        }));
    glb.to_bytes()
}

/// How far the strand tips trail behind the head along −z, on average (model space).
fn trail(player: &mut skel::anim::Player) -> f32 {
    let world = player.world_matrices();
    let head = world[5].w_axis.z;
    let tips: Vec<f32> = (0..116).map(|k| world[20 + 5 * k + 4].w_axis.z).collect();
    head - tips.iter().sum::<f32>() / tips.len() as f32
}

#[test]
fn root_motion_carries_the_springs_with_the_character() {
    let Some(ctx) = gpu("root_motion_springs") else {
        return;
    };
    let glb = walking_avatar();
    let mut container = load_gltf(&ctx, &glb[..], &LoadOptions::default()).unwrap();
    let walk = container
        .animation
        .clips
        .iter()
        .position(|c| c.name == "Walk")
        .unwrap();
    // Played in place (root motion extracted: the hips stay, the frame's instance carries the
    // character) and, as a control, played as authored (the hips walk in the pose).
    let mut results = Vec::new();
    for extracted in [true, false] {
        let mut player = container.player().unwrap();
        player.add_layer(skel::anim::LayerDesc::new(walk)).unwrap();
        if extracted {
            player
                .set_root_motion(Some(skel::anim::RootMotion {
                    node: 1,
                    translation: [true, false, true],
                    yaw: false,
                }))
                .unwrap();
        }
        let mut frame = Frame::new(&container);
        for _ in 0..FRAMES {
            frame
                .advance(&ctx, &mut container, &mut player, 1.0 / 60.0, &mut ())
                .unwrap();
        }
        let carried = player.springs().unwrap().world.translation.z;
        results.push((trail(&mut player), carried));
    }
    let ((in_place, carried), (authored, _)) = (results[0], results[1]);
    eprintln!(
        "strand tips trail the head by {in_place} m with root motion (springs carried {carried} m), {authored} m as authored"
    );
    // The springs' world went with the character (the last frame's motion arrives a frame
    // late), and the hair trails as much as when the hips walk in the pose.
    assert!(
        (carried - 1.0 + 1.0 / 60.0).abs() < 1e-3,
        "springs carried {carried} m"
    );
    assert!(in_place > 0.02, "the strands did not trail: {in_place} m");
    assert!(
        (in_place - authored).abs() < 0.2 * authored,
        "in place {in_place} m against {authored} m as authored"
    );
}
