//! `load_gltf` on a real adapter: what the container holds, and that its GPU data is right —
//! every mesh is skinned on the GPU (skel-gpu's compute skinning over the container's own
//! buffers) and compared with the CPU reference `skel_anim::skin_vertices` primitive by
//! primitive, which checks the concatenation of primitives, influence padding and the
//! target-major morph layout.
//!
//! Without an adapter: SKIP, or fail when `SKEL_REQUIRE_GPU=1`. Without `../shared`: the
//! shared-asset cases SKIP, or fail when `SKEL_REQUIRE_ASSETS=1`.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use skel::anim::{NullSink, skin_vertices};
use skel::gpu::GpuContext;
use skel::{AssetContainer, LoadOptions, Source, load_gltf};

#[path = "load/clones.rs"]
mod clones;

mod common;
use common::{compute_skinned, diagonal, gpu};
use skel_test_support::shared_asset;

const DEFAULT_CHARACTER: &[u8] = skel::DEFAULT_CHARACTER;

/// Plays `clip` to `time`, uploads the pose, skins every mesh on the GPU and compares each
/// primitive with the CPU reference. Returns the vertices compared.
fn gpu_matches_cpu(
    ctx: &GpuContext,
    container: &mut AssetContainer,
    clip: usize,
    time: f32,
) -> usize {
    let group = &mut container.animation_groups[clip];
    group.play();
    group.seek(time);
    {
        let mut sink = skel::MeshPoseSink::new(&ctx.queue, &mut container.meshes);
        container.animation_groups[clip].tick(0.0, &mut sink);
        assert_eq!(sink.skipped(), 0, "every binding has a mesh");
    }
    let controller = container.animation_groups[clip].player();

    let mut compared = 0;
    for mesh in &container.meshes {
        let gpu_positions = compute_skinned(ctx, mesh);

        for primitive in &mesh.primitives {
            let p = &container.primitives[primitive.source];
            let bones = p
                .skeleton_binding
                .and_then(|b| controller.bone_matrices(b))
                .unwrap_or(&[]);
            let weights = p.morph_binding.and_then(|b| controller.morph_weights(b));
            let morph = p.morph_targets.as_ref().zip(weights);
            let mut cpu = vec![0.0; p.positions.len()];
            skin_vertices(
                &p.positions,
                None,
                if bones.is_empty() {
                    None
                } else {
                    p.influences.as_ref()
                },
                bones,
                morph,
                &mut cpu,
                None,
            )
            .unwrap();
            let base = primitive.base_vertex as usize * 3;
            let gpu = &gpu_positions[base..base + cpu.len()];
            let diagonal = diagonal(&cpu, 1e-3);
            let worst = cpu
                .iter()
                .zip(gpu)
                .map(|(a, b)| (a - b).abs())
                .fold(0.0, f32::max);
            // More than 8 influences are cut to the 8 largest on the GPU; those primitives are
            // compared with the same tolerance as the golden files only when they have ≤ 8.
            let per_vertex = p.influences.as_ref().map_or(0, |i| i.per_vertex);
            if per_vertex <= 8 {
                assert!(
                    worst <= 1e-4 * diagonal,
                    "{}: GPU and CPU skinning differ by {worst} (diagonal {diagonal})",
                    primitive.key
                );
            }
            compared += cpu.len() / 3;
        }
    }
    compared
}

#[test]
fn default_character_loads_into_gpu_meshes_skeletons_morphs_and_groups() {
    let Some(ctx) = gpu("default_character") else {
        return;
    };
    let container = load_gltf(&ctx, DEFAULT_CHARACTER, &LoadOptions::default()).unwrap();
    assert_eq!(container.meshes.len(), 1, "one mesh node");
    let mesh = &container.meshes[0];
    assert_eq!(mesh.primitives.len(), 7);
    let total: u32 = mesh.primitives.iter().map(|p| p.vertex_count).sum();
    assert_eq!(mesh.vertex_count, total);
    // Primitives follow each other in the shared buffers.
    let mut next = 0;
    for p in &mesh.primitives {
        assert_eq!(p.base_vertex, next);
        next += p.vertex_count;
    }
    let skeleton = mesh.skeleton.as_ref().expect("skinned");
    assert_eq!(skeleton.gpu.bone_count(), 22);
    assert_eq!(skeleton.gpu.influences_per_vertex(), 4);
    assert_eq!(skeleton.gpu.vertex_count(), total as usize);
    let morph = mesh.morph.as_ref().expect("morph targets");
    assert_eq!(morph.gpu.target_count(), 3);
    assert_eq!(morph.gpu.vertex_count(), total as usize);
    let names: Vec<&str> = container
        .animation_groups
        .iter()
        .map(|g| g.name())
        .collect();
    assert_eq!(names, ["Walk", "Wave", "Idle", "Run"]);
    assert_eq!(container.clip_index("Wave"), Some(1));
    assert!(std::sync::Arc::ptr_eq(
        container.animation_groups[0].data(),
        &container.animation
    ));
    assert_eq!(
        container.animation.handedness,
        skel::anim::Handedness::LeftHanded
    );
    let rh = load_gltf(
        &ctx,
        Source::from(DEFAULT_CHARACTER),
        &LoadOptions::default().with_handedness(skel::anim::Handedness::RightHanded),
    )
    .unwrap();
    assert_eq!(rh.animation.handedness, skel::anim::Handedness::RightHanded);
    assert!(
        container.rig.clip_compression(0).is_none(),
        "lossless by default"
    );
    let rig = skel::anim::RigOptions {
        compression: Some(skel::anim::Compression::default()),
        ..skel::anim::RigOptions::default()
    };
    let compressed = load_gltf(
        &ctx,
        DEFAULT_CHARACTER,
        &LoadOptions::default().with_rig(rig),
    );
    let report = *compressed
        .unwrap()
        .rig
        .clip_compression(0)
        .expect("Walk compressed");
    assert!(
        report.compressed_bytes < report.lossless_bytes,
        "{report:?}"
    );
    assert!(report.max_error <= skel::anim::Compression::default().bound);
}

#[test]
fn the_rest_pose_is_in_the_bone_texture_and_a_tick_uploads_the_pose() {
    let Some(ctx) = gpu("tick_uploads") else {
        return;
    };
    let mut container = load_gltf(&ctx, DEFAULT_CHARACTER, &LoadOptions::default()).unwrap();
    // At load: the rest pose.
    let mut rest = skel::anim::AnimationController::new(container.animation.clone()).unwrap();
    rest.evaluate_at(None, 0.0, &mut NullSink).unwrap();
    let texture = container.meshes[0]
        .skeleton
        .as_ref()
        .unwrap()
        .gpu
        .read_bone_texture(&ctx)
        .unwrap();
    let expected: &[f32] = bytemuck::cast_slice(rest.bone_matrices(0).unwrap());
    assert!(
        texture[..expected.len()]
            .iter()
            .zip(expected)
            .all(|(a, b)| (a - b).abs() < 1e-6)
    );

    // After a tick of Wave: the group's pose, bones and morph weights.
    container.animation_groups[1].play();
    assert!(container.tick_animation(1, 700.0, &ctx.queue));
    assert!(
        !container.tick_animation(9, 10.0, &ctx.queue),
        "no such group"
    );
    let controller = container.animation_groups[1].player();
    let bones: &[f32] = bytemuck::cast_slice(controller.bone_matrices(0).unwrap());
    assert!(
        bones
            .iter()
            .zip(expected)
            .any(|(a, b)| (a - b).abs() > 1e-3),
        "Wave moves bones"
    );
    let texture = container.meshes[0]
        .skeleton
        .as_ref()
        .unwrap()
        .gpu
        .read_bone_texture(&ctx)
        .unwrap();
    for (i, (a, b)) in texture.iter().zip(bones).enumerate() {
        assert!(
            (a - b).abs() < 1e-6,
            "bone float {i}: texture {a}, pose {b}"
        );
    }
    let weights = container.meshes[0].morph.as_ref().unwrap().gpu.weights();
    assert_eq!(&weights[..3], controller.morph_weights(0).unwrap());
}

#[test]
fn gpu_skinning_of_container_buffers_matches_the_cpu_reference() {
    let Some(ctx) = gpu("gpu_matches_cpu") else {
        return;
    };
    let mut character = load_gltf(&ctx, DEFAULT_CHARACTER, &LoadOptions::default()).unwrap();
    assert!(gpu_matches_cpu(&ctx, &mut character, 1, 1.2) > 2000);
    for (rel, clip, time) in [
        // 8 influences (JOINTS_1/WEIGHTS_1).
        ("quad_skin/quad_skin.glb", 0, 0.5),
        // Several primitives with morph targets each.
        ("MorphPrimitivesTest/MorphPrimitivesTest.glb", 0, 0.0),
        ("AnimatedMorphSphere/AnimatedMorphSphere.glb", 0, 1.0),
        ("CesiumMan/CesiumMan.glb", 0, 0.7),
        ("RiggedFigure/RiggedFigure.glb", 0, 0.4),
    ] {
        let Some(path) = shared_asset("gpu_matches_cpu", rel) else {
            return;
        };
        let mut container = load_gltf(&ctx, &path, &LoadOptions::default()).unwrap();
        let clip = if container.animation_groups.is_empty() {
            None
        } else {
            Some(clip)
        };
        if let Some(clip) = clip {
            assert!(
                gpu_matches_cpu(&ctx, &mut container, clip, time) > 0,
                "{rel}"
            );
        }
    }
}

#[test]
fn missing_file_is_a_gltf_error() {
    let Some(ctx) = gpu("missing_file") else {
        return;
    };
    let err = load_gltf(
        &ctx,
        std::path::Path::new("/nonexistent.glb"),
        &LoadOptions::default(),
    )
    .unwrap_err();
    assert!(matches!(err, skel::SkelError::Gltf(_)), "{err}");
}

#[cfg(feature = "bone-control")]
#[test]
fn bone_control_handles_exist_only_when_enabled() {
    use skel::bone_control::{collect_skeletons, get_mesh_skeleton};
    let Some(ctx) = gpu("bone_control") else {
        return;
    };
    let plain = load_gltf(&ctx, DEFAULT_CHARACTER, &LoadOptions::default()).unwrap();
    assert!(plain.skeletons.is_empty() && plain.bone_control.is_none());
    assert!(get_mesh_skeleton(&plain.meshes[0]).is_none());

    let mut container = load_gltf(
        &ctx,
        DEFAULT_CHARACTER,
        &LoadOptions::default().with_bone_control(true),
    )
    .unwrap();
    assert_eq!(container.skeletons.len(), 1);
    let handle = get_mesh_skeleton(&container.meshes[0]).expect("handle on the skinned mesh");
    assert!(std::sync::Arc::ptr_eq(&handle, &container.skeletons[0]));
    assert_eq!(collect_skeletons(&container.meshes).len(), 1);

    // Eager bake through the container's sink: the head's bone matrix is scaled to zero in
    // the bone texture at once, with no clip playing.
    let head = handle.bone_index_by_name("Head").expect("a Head bone");
    let bone = &handle.bones()[head];
    let skeleton = std::sync::Arc::clone(&container.skeletons[0]);
    skeleton
        .set_bone_visible(bone, false, &mut container.pose_sink(&ctx.queue))
        .unwrap();
    let texture = container.meshes[0]
        .skeleton
        .as_ref()
        .unwrap()
        .gpu
        .read_bone_texture(&ctx)
        .unwrap();
    let m = &texture[head * 16..head * 16 + 16];
    assert!(
        m[..3]
            .iter()
            .chain(&m[4..7])
            .chain(&m[8..11])
            .all(|v| v.abs() < 1e-6),
        "{m:?}"
    );

    // A playing group keeps it hidden (the hook is installed at load).
    container.animation_groups[0].play();
    container.tick_animation(0, 300.0, &ctx.queue);
    let texture = container.meshes[0]
        .skeleton
        .as_ref()
        .unwrap()
        .gpu
        .read_bone_texture(&ctx)
        .unwrap();
    let m = &texture[head * 16..head * 16 + 16];
    assert!(
        m[..3].iter().all(|v| v.abs() < 1e-6),
        "hidden under Walk: {m:?}"
    );
}

/// A file with a pointer channel on a material colour and an untargeted channel loads (the
/// glTF parser alone refuses it: "missing field `node`"); the container names the property
/// slot and lists the skipped channel, and the player samples the colour on the clip's time.
#[test]
fn pointer_channels_load_as_property_tracks_and_untargeted_ones_as_warnings() {
    let Some(ctx) = gpu("pointer_channels") else {
        return;
    };
    let json = r#"{"asset":{"version":"2.0"},"extensionsUsed":["KHR_animation_pointer"],
        "nodes":[{}],"scenes":[{"nodes":[0]}],"materials":[{}],
        "buffers":[{"byteLength":40,"uri":"data:application/octet-stream;base64,AAAAAAAAgD8AAIA/AAAAAAAAAAAAAIA/AAAAAAAAAAAAAIA/AACAPw=="}],
        "bufferViews":[{"buffer":0,"byteLength":8},{"buffer":0,"byteOffset":8,"byteLength":32}],
        "accessors":[{"bufferView":0,"componentType":5126,"count":2,"type":"SCALAR","min":[0],"max":[1]},
          {"bufferView":1,"componentType":5126,"count":2,"type":"VEC4"}],
        "animations":[{"samplers":[{"input":0,"output":1}],"channels":[
          {"sampler":0,"target":{"path":"pointer","extensions":{"KHR_animation_pointer":
            {"pointer":"/materials/0/pbrMetallicRoughness/baseColorFactor"}}}},
          {"sampler":0,"target":{"path":"rotation"}}]}]}"#;
    let container = load_gltf(&ctx, json.as_bytes(), &LoadOptions::default()).unwrap();
    assert_eq!(
        container.properties,
        vec![skel::gltf::PropertyTarget::Material {
            material: 0,
            field: skel::gltf::MaterialField::BaseColorFactor
        }]
    );
    let paths: Vec<&str> = container
        .warnings()
        .iter()
        .map(|w| w.path.as_str())
        .collect();
    assert_eq!(paths, vec!["animations[0].channels[1]"]);
    let mut player = skel::anim::Player::new(&container.rig);
    player.add_layer(skel::anim::LayerDesc::new(0)).unwrap();
    let mut pose = skel::anim::PropertyPose::new(&container.animation.clips);
    player.tick(0.25, &mut NullSink);
    player.sample_properties(&mut pose);
    let colour = pose.value(0).unwrap();
    assert!(
        (colour[0] - 0.75).abs() < 1e-6 && (colour[2] - 0.25).abs() < 1e-6,
        "{colour:?}"
    );
}
