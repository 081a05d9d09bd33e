//! Helpers shared by the facade's GPU test binaries: the adapter (skip or fail by
//! `SKEL_REQUIRE_GPU`) and the bounding-box diagonal tolerances are taken of.
#![allow(dead_code, reason = "each test binary uses a subset of these helpers")]

use skel::gpu::GpuContext;

/// A headless GPU context, or `None` after a skip (`skel_test_support::gpu`) when there is no
/// adapter.
///
/// # Panics
/// Without an adapter when `SKEL_REQUIRE_GPU=1`: a CI machine that should have lavapipe must
/// not pass by skipping.
pub fn gpu(test: &str) -> Option<GpuContext> {
    skel_test_support::gpu(test, GpuContext::new_headless())
}

/// The diagonal of the bounding box of `points` (x, y, z triples), at least `floor` (so that a
/// tolerance relative to it stays meaningful for a degenerate box).
pub fn diagonal(points: &[f32], floor: f32) -> f32 {
    let (lo, hi) = points
        .chunks_exact(3)
        .fold(([f32::MAX; 3], [f32::MIN; 3]), |(lo, hi), v| {
            (
                [lo[0].min(v[0]), lo[1].min(v[1]), lo[2].min(v[2])],
                [hi[0].max(v[0]), hi[1].max(v[1]), hi[2].max(v[2])],
            )
        });
    (0..3)
        .map(|k| (hi[k] - lo[k]).powi(2))
        .sum::<f32>()
        .sqrt()
        .max(floor)
}

/// The influences the GPU gets, per vertex (more than 16 are reduced to the 16 largest).
pub fn gpu_view(p: &skel::gltf::PrimitiveData) -> Option<skel::anim::VertexInfluences> {
    let g = p.gpu_influences()?;
    let mut inf = skel::anim::VertexInfluences {
        per_vertex: g.per_vertex(),
        ..skel::anim::VertexInfluences::default()
    };
    for v in 0..p.vertex_count() {
        for (j, w) in (0..g.sets()).filter_map(|s| g.set(s)) {
            inf.joints.extend_from_slice(&j[v * 4..v * 4 + 4]);
            inf.weights.extend_from_slice(&w[v * 4..v * 4 + 4]);
        }
    }
    Some(inf)
}

/// Draws `container` with `renderer` into `target` (cleared to the renderer's background) and
/// reads the picture back as RGBA8 rows.
pub fn draw_rgba(
    ctx: &GpuContext,
    renderer: &skel::render::AssetRenderer,
    container: &skel::AssetContainer,
    target: &skel::render::OffscreenTarget,
) -> Vec<u8> {
    let mut encoder = ctx.device.create_command_encoder(&Default::default());
    {
        let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
            color_attachments: &[Some(target.color_attachment(skel::render::BACKGROUND))],
            depth_stencil_attachment: Some(target.depth_attachment()),
            ..Default::default()
        });
        renderer.draw(container, &mut pass).unwrap();
    }
    target.encode_readback(&mut encoder);
    ctx.queue.submit([encoder.finish()]);
    let mut rgba = Vec::new();
    target.read_rgba(&ctx.device, &mut rgba).unwrap();
    rgba
}

/// The worst difference between `gpu` (x, y, z triples from `at`) and primitive `p` skinned on
/// the CPU by `bones` (no morphs, `skel_anim::skin_vertices`), over the CPU result's
/// bounding-box diagonal.
pub fn gpu_error_over_diagonal(
    p: &skel::gltf::PrimitiveData,
    bones: &[skel::anim::glam::Mat4],
    gpu: &[f32],
    at: usize,
) -> f32 {
    let mut cpu = vec![0.0; p.positions.len()];
    skel::anim::skin_vertices(
        &p.positions,
        None,
        p.influences.as_ref(),
        bones,
        None,
        &mut cpu,
        None,
    )
    .unwrap();
    let worst = cpu
        .iter()
        .zip(&gpu[at..at + cpu.len()])
        .map(|(a, b)| (a - b).abs())
        .fold(0.0, f32::max);
    worst / diagonal(&cpu, 1e-3)
}

/// `mesh` skinned by skel-gpu's compute skinning over the container's own buffers (its
/// skeleton's bones and morph weights as last uploaded), read back: x, y, z per vertex of the
/// mesh's concatenated primitives.
pub fn compute_skinned(ctx: &GpuContext, mesh: &skel::Mesh) -> Vec<f32> {
    use skel::gpu::{
        ComputeSkinning, ComputeSkinningConfig, ComputeSkinningInputs, JointFormat, WeightFormat,
    };
    let n = u64::from(mesh.vertex_count);
    let skinning = ComputeSkinning::new(
        ctx,
        ComputeSkinningConfig {
            variant: mesh.skinning_variant(),
            normals: false,
            joint_format: JointFormat::U32,
            weight_format: WeightFormat::F32,
        },
    )
    .unwrap();
    let out = ctx.device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("test skinned positions"),
        size: n * 12,
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
        mapped_at_creation: false,
    });
    let inputs = match &mesh.skeleton {
        Some(s) => ComputeSkinningInputs::from_skeleton(&s.gpu, &mesh.positions, None, &out, None),
        None => ComputeSkinningInputs {
            vertex_count: mesh.vertex_count,
            rest_positions: &mesh.positions,
            rest_normals: None,
            joints: [None; 4],
            weights: [None; 4],
            out_positions: &out,
            out_normals: None,
        },
    };
    let bindings = skinning
        .bind(
            ctx,
            &inputs,
            mesh.skeleton.as_ref().map(|s| &*s.gpu),
            mesh.morph.as_ref().map(|m| &*m.gpu),
        )
        .unwrap();
    let mut encoder = ctx
        .device
        .create_command_encoder(&wgpu::CommandEncoderDescriptor::default());
    skinning.encode(&mut encoder, &bindings, None);
    ctx.queue.submit([encoder.finish()]);
    le_floats(&skel::gpu::readback::read_buffer(ctx, &out, 0, n * 12).unwrap())
}

/// A CPU-posed crowd of `instances` of `asset` playing clip 0, instance `i` paused at
/// `time(i)`, ticked once.
pub fn paused_crowd(
    ctx: &GpuContext,
    asset: &skel::AssetContainer,
    instances: u32,
    time: impl Fn(usize) -> f32,
) -> skel::Crowd {
    let mut crowd = skel::Crowd::new(
        ctx,
        asset,
        &skel::CrowdDescriptor {
            instances,
            clip: Some(0),
            ..skel::CrowdDescriptor::default()
        },
    )
    .unwrap();
    for (i, player) in crowd.players.iter_mut().enumerate() {
        player.seek(time(i));
        player.set_playing(false);
    }
    crowd.tick(0.0);
    crowd
}

/// Little-endian `f32`s from read-back bytes.
pub fn le_floats(bytes: &[u8]) -> Vec<f32> {
    bytes
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// A fixture of `fixtures/vrm/` (written by `cargo xtask fixtures`).
pub fn vrm_fixture(name: &str) -> std::path::PathBuf {
    std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/vrm")
        .join(name)
}
