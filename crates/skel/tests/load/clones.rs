//! Cloned meshes share their GPU data: one bone texture and one morph buffer serve every clone,
//! so a pose uploaded through one clone is what the others draw.

use std::sync::Arc;

use skel::{LoadOptions, Mesh, MeshPoseSink, load_gltf};

use super::{DEFAULT_CHARACTER, gpu};

/// The bone texture of `mesh`, read back from the GPU.
fn bone_texture(ctx: &skel::gpu::GpuContext, mesh: &Mesh) -> Vec<f32> {
    mesh.skeleton
        .as_ref()
        .unwrap()
        .gpu
        .read_bone_texture(ctx)
        .unwrap()
}

#[test]
fn mesh_clones_share_one_bone_texture_and_one_upload_poses_every_clone() {
    let Some(ctx) = gpu("mesh_clones_share") else {
        return;
    };
    let mut container = load_gltf(&ctx, DEFAULT_CHARACTER, &LoadOptions::default()).unwrap();
    let original = &container.meshes[0];
    let mut copy = original.clone();

    // The same resources, not equal copies: one skeleton, one bone texture, one morph buffer,
    // one set of vertex buffers (wgpu handles compare by identity).
    let (a, b) = (
        original.skeleton.as_ref().unwrap(),
        copy.skeleton.as_ref().unwrap(),
    );
    assert!(Arc::ptr_eq(&a.gpu, &b.gpu), "one SkeletonGpu");
    assert_eq!(a.gpu.bone_texture_view(), b.gpu.bone_texture_view());
    assert_eq!(a.gpu.joints_buffer(), b.gpu.joints_buffer());
    let (ma, mb) = (
        original.morph.as_ref().unwrap(),
        copy.morph.as_ref().unwrap(),
    );
    assert!(Arc::ptr_eq(&ma.gpu, &mb.gpu), "one MorphGpu");
    assert_eq!(ma.gpu.params_buffer(), mb.gpu.params_buffer());
    assert_eq!(original.positions, copy.positions);
    // Identity, not structural equality: a second load has its own texture.
    let other = load_gltf(&ctx, DEFAULT_CHARACTER, &LoadOptions::default()).unwrap();
    let c = other.meshes[0].skeleton.as_ref().unwrap();
    assert!(!Arc::ptr_eq(&a.gpu, &c.gpu));
    assert_ne!(a.gpu.bone_texture_view(), c.gpu.bone_texture_view());

    // Only plain fields are per clone.
    copy.visible = false;
    assert!(container.meshes[0].visible);

    // Pose Wave at 0.7 s and upload it through the clone only.
    let rest = bone_texture(&ctx, &container.meshes[0]);
    let wave = &mut container.animation_groups[1];
    wave.play();
    wave.seek(0.7);
    let mut clones = vec![copy];
    {
        let mut sink = MeshPoseSink::new(&ctx.queue, &mut clones);
        wave.tick(0.0, &mut sink);
        assert_eq!(sink.skipped(), 0);
    }
    let bones = bytemuck::cast_slice::<_, f32>(wave.player().bone_matrices(0).unwrap()).to_vec();
    let weights = wave.player().morph_weights(0).unwrap().to_vec();
    assert!(
        bones.iter().zip(&rest).any(|(p, r)| (p - r).abs() > 1e-3),
        "the Wave pose differs from the rest pose"
    );

    // Read back through the original: the clone's upload is there.
    let seen = bone_texture(&ctx, &container.meshes[0]);
    for (i, (got, want)) in seen.iter().zip(&bones).enumerate() {
        assert!(
            (got - want).abs() < 1e-6,
            "bone float {i}: original's texture {got}, pose uploaded through the clone {want}"
        );
    }
    let original_morph = container.meshes[0].morph.as_ref().unwrap();
    assert_eq!(&original_morph.gpu.weights()[..weights.len()], weights);

    // A sink over the original and its clones writes the shared skeleton once and skips
    // nothing; every clone still reads the pose.
    clones.push(container.meshes[0].clone());
    clones.push(container.meshes[0].clone());
    wave.seek(1.9);
    {
        let mut sink = MeshPoseSink::new(&ctx.queue, &mut clones);
        wave.tick(0.0, &mut sink);
        assert_eq!(sink.skipped(), 0);
    }
    let bones: &[f32] = bytemuck::cast_slice(wave.player().bone_matrices(0).unwrap());
    for mesh in clones.iter().chain(&container.meshes) {
        let seen = bone_texture(&ctx, mesh);
        assert!(seen.iter().zip(bones).all(|(g, w)| (g - w).abs() < 1e-6));
    }
}
