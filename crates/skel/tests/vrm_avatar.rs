//! A 600-bone VRM avatar through the facade on a real adapter (`fixtures/vrm/v1_600_bones.vrm`:
//! the humanoid and 116 five-joint hair strands standing straight out from the head): it
//! loads, its springs hang the strands within a second of frames, and the GPU skins the
//! sprung pose as the CPU does. Its bone texture wraps into a second row where rows are
//! WebGL2's 2048 texels; the web page's check (`cargo xtask web --check`) draws it there.
//!
//! Without an adapter: SKIP, or fail when `SKEL_REQUIRE_GPU=1`.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use skel::gpu::{
    BoneTextureLayout, ComputeSkinning, ComputeSkinningConfig, ComputeSkinningInputs, GpuContext,
    JointFormat, WeightFormat,
};
use skel::{AssetContainer, Frame, LoadOptions, load_gltf};

mod common;
use common::{gpu, gpu_error_over_diagonal, le_floats, vrm_fixture};

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
    let n = u64::from(mesh.vertex_count);
    let skinning = ComputeSkinning::new(
        &ctx,
        ComputeSkinningConfig {
            variant: mesh.skinning_variant(),
            normals: false,
            joint_format: JointFormat::U32,
            weight_format: WeightFormat::F32,
        },
    )
    .unwrap();
    let out = ctx.device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("600 bones skinned"),
        size: n * 12,
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
        mapped_at_creation: false,
    });
    let skeleton = mesh.skeleton.as_ref().unwrap();
    let inputs =
        ComputeSkinningInputs::from_skeleton(&skeleton.gpu, &mesh.positions, None, &out, None);
    let bindings = skinning
        .bind(&ctx, &inputs, Some(&*skeleton.gpu), None)
        .unwrap();
    let mut encoder = ctx
        .device
        .create_command_encoder(&wgpu::CommandEncoderDescriptor::default());
    skinning.encode(&mut encoder, &bindings, None);
    ctx.queue.submit([encoder.finish()]);
    let gpu_positions =
        le_floats(&skel::gpu::readback::read_buffer(&ctx, &out, 0, n * 12).unwrap());
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
    let path = vrm_fixture("v1_600_bones.vrm");
    let bytes = std::fs::read(path).unwrap();
    let json_len = u32::from_le_bytes(bytes[12..16].try_into().unwrap()) as usize;
    let mut gltf: serde_json::Value = serde_json::from_slice(&bytes[20..20 + json_len]).unwrap();
    let bin_at = 20 + json_len;
    let bin_len = u32::from_le_bytes(bytes[bin_at..bin_at + 4].try_into().unwrap()) as usize;
    let mut bin = bytes[bin_at + 8..bin_at + 8 + bin_len].to_vec();
    let mut accessor = |data: &[f32], ty: &str, gltf: &mut serde_json::Value| -> usize {
        let offset = bin.len();
        bin.extend(data.iter().flat_map(|x| x.to_le_bytes()));
        let views = gltf["bufferViews"].as_array_mut().unwrap();
        views.push(
            serde_json::json!({"buffer": 0, "byteOffset": offset, "byteLength": data.len() * 4}),
        );
        let view = views.len() - 1;
        let count = data.len() / if ty == "SCALAR" { 1 } else { 3 };
        let accessors = gltf["accessors"].as_array_mut().unwrap();
        let mut a = serde_json::json!({"bufferView": view, "componentType": 5126, "count": count, "type": ty});
        if ty == "SCALAR" {
            a["min"] = serde_json::json!([data[0]]);
            a["max"] = serde_json::json!([data[data.len() - 1]]);
        }
        accessors.push(a);
        accessors.len() - 1
    };
    let times = accessor(&[0.0, 2.0], "SCALAR", &mut gltf);
    let hips = accessor(&[0.0, 1.0, 0.0, 0.0, 1.0, 2.0], "VEC3", &mut gltf);
    gltf["animations"]
        .as_array_mut()
        .unwrap()
        .push(serde_json::json!({
            "name": "Walk",
            "samplers": [{"input": times, "output": hips, "interpolation": "LINEAR"}],
            "channels": [{"sampler": 0, "target": {"node": 1, "path": "translation"}}],
        }));
    gltf["buffers"][0]["byteLength"] = serde_json::json!(bin.len());
    let mut json = serde_json::to_vec(&gltf).unwrap();
    while !json.len().is_multiple_of(4) {
        json.push(b' ');
    }
    let total = 12 + 8 + json.len() + 8 + bin.len();
    let mut glb = Vec::with_capacity(total);
    glb.extend(b"glTF");
    glb.extend(2_u32.to_le_bytes());
    glb.extend(u32::try_from(total).unwrap().to_le_bytes());
    glb.extend(u32::try_from(json.len()).unwrap().to_le_bytes());
    glb.extend(b"JSON");
    glb.extend(&json);
    glb.extend(u32::try_from(bin.len()).unwrap().to_le_bytes());
    glb.extend(b"BIN\0");
    glb.extend(&bin);
    glb
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
