//! Morph deltas in a texture (issue 32, step 2: WebGL2, whose vertex shaders have no storage
//! buffers): the texture holds the deltas where `MorphTextureLayout` says, the texture variant
//! of the vertex fragment morphs and skins as the storage buffer variant and the CPU do, a
//! device with WebGL2's limits chooses the texture by itself, and what does not fit is a typed
//! error.

use std::sync::OnceLock;

use skel_anim::MorphTargets;
use skel_gpu::{
    ComputeSkinning, ComputeSkinningConfig, ComputeSkinningInputs, GpuContext, GpuError,
    HeadlessOptions, Influences, MorphDeltaStorage, MorphGpu, SkinningVariant, create_morph,
    create_morph_with,
};

use crate::common::{Rng, ctx, output_buffer, random_affine_bones, storage_buffer};
use crate::compute::{mesh, random_targets};
use crate::probe::{bbox_diagonal, max_abs_diff, skin_vertex_path};

/// A device with `wgpu::Limits::downlevel_webgl2_defaults()`: no storage buffers at all,
/// `max_texture_dimension_2d` 2048. What skel sees in a browser without WebGPU, short of the
/// GL backend itself.
fn webgl2_ctx() -> Option<&'static GpuContext> {
    static CTX: OnceLock<Option<GpuContext>> = OnceLock::new();
    CTX.get_or_init(|| {
        skel_test_support::gpu(
            "skel-gpu tests/gpu (WebGL2 limits)",
            GpuContext::new_headless_with(&HeadlessOptions {
                required_limits: Some(wgpu::Limits::downlevel_webgl2_defaults()),
                ..HeadlessOptions::default()
            }),
        )
    })
    .as_ref()
}

/// `targets` without their normal deltas.
fn without_normals(targets: &MorphTargets) -> MorphTargets {
    MorphTargets {
        normals: Vec::new(),
        ..targets.clone()
    }
}

#[test]
fn the_texture_holds_one_delta_per_texel_positions_then_normals() {
    let Some(ctx) = ctx() else { return };
    let mut rng = Rng::new(11);
    // 3 targets × 50 vertices × (positions + normals) = 300 texels: rows of 32, 10 rows.
    let targets = random_targets(3, 50, &mut rng);
    let morph =
        create_morph_with(ctx, &targets, 50, &[0.0; 3], MorphDeltaStorage::Texture).unwrap();
    assert_eq!(morph.delta_storage(), MorphDeltaStorage::Texture);
    assert!(morph.deltas_buffer().is_none());
    let (texture, layout) = morph.deltas_texture().unwrap();
    assert_eq!((layout.texels, layout.width, layout.height), (300, 32, 10));
    let texels = skel_gpu::readback::read_texture_rgba32float(ctx, texture).unwrap();
    let deltas: Vec<f32> = [&targets.positions[..], &targets.normals[..]].concat();
    for (i, delta) in deltas.chunks_exact(3).enumerate() {
        let (x, y) = layout.texel(i as u32);
        let at = ((y * layout.width + x) * 4) as usize;
        assert_eq!(&texels[at..at + 3], delta, "texel {i}");
        assert_eq!(texels[at + 3], 0.0);
    }
    assert!(texels[300 * 4..].iter().all(|&v| v == 0.0), "padding");
    // The uniform counts normals in texels here: target_count * vertex_count.
    let counts = crate::common::read_u32(ctx, morph.params_buffer(), skel_gpu::MORPH_PARAMS_SIZE);
    let c = skel_gpu::MORPH_COUNTS_OFFSET as usize / 4;
    assert_eq!(&counts[c..c + 3], &[3, 50, 150]);
}

#[test]
fn texture_deltas_morph_and_skin_as_the_storage_buffer_and_the_cpu() {
    let Some(ctx) = ctx() else { return };
    let mut rng = Rng::new(23);
    let n = 2000;
    let bones = random_affine_bones(70, &mut rng);
    let weights = [0.3, -0.2, 0.0, 0.7, 0.1, 0.45];
    let variants = SkinningVariant::all().into_iter().filter(|v| v.morph);
    for variant in variants {
        for normals in [true, false] {
            let per_vertex = (variant.influences.count() as usize).max(4);
            let m = mesh(n, per_vertex, 70, &mut rng);
            let skinned = variant.influences != Influences::None;
            let skeleton = skinned.then(|| m.skeleton(ctx, &bones));
            let all = random_targets(6, n, &mut rng);
            let targets = if normals { all } else { without_normals(&all) };
            let make = |storage| create_morph_with(ctx, &targets, n, &weights, storage).unwrap();
            let (buffer, texture) = (
                make(MorphDeltaStorage::Buffer),
                make(MorphDeltaStorage::Texture),
            );
            // 12 000 or 24 000 texels: rows of 128 or 256, many of them.
            let (_, layout) = texture.deltas_texture().unwrap();
            assert!(layout.height > 1, "{layout:?}");
            let (cpu_p, cpu_n) = m.cpu(&bones, Some((&targets, &weights[..])), skinned);
            let diagonal = bbox_diagonal(&cpu_p);
            let draw = |morph: &MorphGpu| {
                skin_vertex_path(
                    ctx,
                    variant,
                    &m.positions,
                    &m.normals,
                    skeleton.as_ref(),
                    Some(morph),
                )
            };
            let (from_buffer, from_texture) = (draw(&buffer), draw(&texture));
            let label = format!("{variant:?} normals {normals}");
            for (path, gpu) in [("buffer", &from_buffer), ("texture", &from_texture)] {
                let pe = max_abs_diff(&gpu.positions, &cpu_p) / diagonal;
                let ne = max_abs_diff(&gpu.normals, &cpu_n);
                eprintln!("{label} {path}: position error {pe:.2e} of diagonal, normal {ne:.2e}");
                // The tolerance of every_variant_matches_the_cpu_on_both_paths (lavapipe).
                assert!(pe <= 1e-5 && ne <= 1e-5, "{label} {path}: {pe:e} {ne:e}");
            }
            // The same floats in the same order: the two variants agree to rounding.
            let pd = max_abs_diff(&from_texture.positions, &from_buffer.positions) / diagonal;
            let nd = max_abs_diff(&from_texture.normals, &from_buffer.normals);
            assert!(
                pd <= 1e-6 && nd <= 1e-6,
                "{label}: texture vs buffer {pd:e} {nd:e}"
            );
        }
    }
}

#[test]
fn compute_skinning_refuses_texture_deltas_with_a_typed_error() {
    let Some(ctx) = ctx() else { return };
    let mut rng = Rng::new(5);
    let n = 16;
    let targets = random_targets(2, n, &mut rng);
    let morph =
        create_morph_with(ctx, &targets, n, &[0.5, 0.5], MorphDeltaStorage::Texture).unwrap();
    let variant = SkinningVariant {
        influences: Influences::None,
        morph: true,
    };
    let pipeline = ComputeSkinning::new(
        ctx,
        ComputeSkinningConfig {
            variant,
            normals: true,
            ..Default::default()
        },
    )
    .unwrap();
    let data = vec![0.0f32; n * 3];
    let rest = storage_buffer(ctx, bytemuck::cast_slice(&data));
    let out = output_buffer(ctx, n as u64 * 12);
    let inputs = ComputeSkinningInputs {
        vertex_count: n as u32,
        rest_positions: &rest,
        rest_normals: Some(&rest),
        joints: [None; 4],
        weights: [None; 4],
        out_positions: &out,
        out_normals: Some(&out),
    };
    let e = pipeline.bind(ctx, &inputs, None, Some(&morph)).unwrap_err();
    assert_eq!(
        e,
        GpuError::MorphDeltaMismatch {
            shader: MorphDeltaStorage::Buffer,
            morph: MorphDeltaStorage::Texture,
        }
    );
}

#[test]
fn webgl2_limits_choose_the_texture_and_draw_as_the_cpu() {
    let Some(ctx) = webgl2_ctx() else { return };
    assert!(!ctx.vertex_storage_buffers());
    assert_eq!(
        MorphDeltaStorage::for_context(ctx),
        MorphDeltaStorage::Texture
    );
    let mut rng = Rng::new(31);
    let n = 1500;
    let bones = random_affine_bones(40, &mut rng);
    let m = mesh(n, 4, 40, &mut rng);
    let skeleton = m.skeleton(ctx, &bones);
    let targets = random_targets(4, n, &mut rng);
    let weights = [0.6, 0.0, -0.35, 0.2];
    // What failed before: the storage buffer has no room on this device.
    assert!(matches!(
        create_morph_with(ctx, &targets, n, &weights, MorphDeltaStorage::Buffer),
        Err(GpuError::MissingLimit {
            name: "max_storage_buffer_binding_size",
            available: 0,
            ..
        })
    ));
    let morph = create_morph(ctx, &targets, n, &weights).unwrap();
    assert_eq!(morph.delta_storage(), MorphDeltaStorage::Texture);
    let variant = SkinningVariant {
        influences: Influences::Four,
        morph: true,
    };
    let gpu = skin_vertex_path(
        ctx,
        variant,
        &m.positions,
        &m.normals,
        Some(&skeleton),
        Some(&morph),
    );
    let (cpu_p, cpu_n) = m.cpu(&bones, Some((&targets, &weights[..])), true);
    let pe = max_abs_diff(&gpu.positions, &cpu_p) / bbox_diagonal(&cpu_p);
    let ne = max_abs_diff(&gpu.normals, &cpu_n);
    eprintln!("WebGL2 limits: position error {pe:.2e} of diagonal, normal {ne:.2e}");
    assert!(pe <= 1e-5 && ne <= 1e-5, "{pe:e} {ne:e}");
}

#[test]
fn deltas_past_the_texture_limit_are_a_typed_error() {
    let Some(ctx) = webgl2_ctx() else { return };
    assert_eq!(ctx.limits.max_texture_dimension_2d, 2048);
    // One texel more than 2048 × 2048: refused before anything is allocated on the GPU.
    let vertices = 2048 * 2048 + 1;
    let targets = MorphTargets {
        target_count: 1,
        positions: vec![0.0; vertices * 3],
        normals: Vec::new(),
    };
    assert_eq!(
        create_morph(ctx, &targets, vertices, &[1.0]).unwrap_err(),
        GpuError::MissingLimit {
            name: "max_texture_dimension_2d",
            needed: 4096,
            available: 2048,
        }
    );
}
