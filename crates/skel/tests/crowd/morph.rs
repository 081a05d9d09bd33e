//! Crowds of a morphing asset: the built-in character (one skinned mesh in 7 primitives, morph
//! targets `Breathe`, `Blink`, `Smile` with normal deltas, whose weights `Walk` animates).
//! Crowd compute skinning morphs every instance with its own weights before skinning, on both
//! posing paths: each visible slot matches the CPU reference `skel_anim::skin_vertices` with the
//! bones and morph weights a lone controller gives at that instance's time. And two instances
//! at different times get different morph shapes: each slot's morph displacement (its output
//! minus the same bones skinned without morphing) is its own instance's, which tells weights
//! ignored or shared apart from weights per instance.
//!
//! Tolerances, set on lavapipe (Mesa's software Vulkan driver), relative to the reference's
//! bounding-box diagonal (about 1.9 for the character), against morph displacements of about
//! 5e-3 of it: CPU posing 1e-6 (the same bones and weights as the reference, float summation
//! order only; measured 6.0e-8), GPU posing 1e-5 (bones and weights from the resampled clips,
//! whose bound is 1e-4; measured 1.5e-6). Normals, absolute on unit vectors: 1e-5 (CPU
//! posing; measured 1.8e-7) and 1e-4 (GPU posing; measured 8.8e-6).

use skel::anim::{AnimationController, RecordingSink, skin_vertices};
use skel::gpu::glam::Mat4;
use skel::gpu::{GpuContext, PoseInstance, PoseLayout, readback::read_buffer};
use skel::{AssetContainer, Crowd, CrowdDescriptor, LoadOptions, Posing, load_gltf};

use crate::common::{diagonal, gpu, gpu_view};

/// Instances, and the one culled on the CPU path (so that slot and instance differ).
const INSTANCES: u32 = 4;
const CULLED: u32 = 1;

fn character(test: &str) -> Option<(GpuContext, AssetContainer, usize)> {
    let ctx = gpu(test)?;
    let asset = load_gltf(&ctx, skel::DEFAULT_CHARACTER, &LoadOptions::default()).unwrap();
    let walk = asset.clip_index("Walk").unwrap();
    Some((ctx, asset, walk))
}

/// Instance `i`'s time in `Walk` (1 s): spread over the loop, so that `Breathe` differs.
fn time_of(i: u32) -> f32 {
    0.07 + 0.29 * i as f32
}

/// A crowd of [`INSTANCES`] at [`time_of`] each, posed, uploaded and skinned once.
fn skinned(ctx: &GpuContext, asset: &AssetContainer, clip: usize, posing: Posing) -> Crowd {
    let mut crowd = Crowd::new(
        ctx,
        asset,
        &CrowdDescriptor {
            instances: INSTANCES,
            clip: Some(clip),
            posing,
            ..CrowdDescriptor::default()
        },
    )
    .unwrap();
    if crowd.posed_on_gpu() {
        let id = u16::try_from(clip).unwrap();
        let instances: Vec<PoseInstance> = (0..INSTANCES)
            .map(|i| PoseInstance::new(id, time_of(i)))
            .collect();
        crowd.set_instances(ctx, 0, &instances).unwrap();
    } else {
        for (i, p) in (0u32..).zip(crowd.players.iter_mut()) {
            p.seek(time_of(i));
            p.set_playing(false);
        }
        crowd.players[CULLED as usize].set_visible(false);
    }
    crowd.tick(0.0);
    let mut encoder = ctx.device.create_command_encoder(&Default::default());
    crowd.upload(ctx, &mut encoder).unwrap();
    crowd.skin(&mut encoder);
    ctx.queue.submit([encoder.finish()]);
    assert!(crowd.meshes().iter().all(|m| m.morph), "the mesh morphs");
    crowd
}

/// The lone controller's pose at `time`: the mesh's bones and its morph weights.
fn reference_pose(asset: &AssetContainer, clip: usize, time: f32) -> (Vec<Mat4>, Vec<f32>) {
    let mesh = &asset.meshes[0];
    let mut lone = AnimationController::new(asset.animation.clone()).unwrap();
    lone.evaluate_at(Some(clip), time, &mut RecordingSink::default())
        .unwrap();
    let bones = lone.bone_matrices(mesh.skeleton.as_ref().unwrap().binding);
    let weights = lone.morph_weights(mesh.morph.as_ref().unwrap().binding);
    (bones.unwrap().to_vec(), weights.unwrap().to_vec())
}

/// Mesh 0 skinned on the CPU with `bones` and, when given, morphed with `weights` first:
/// positions and normals over every primitive, in the mesh's vertex order.
fn reference(asset: &AssetContainer, bones: &[Mat4], weights: Option<&[f32]>) -> [Vec<f32>; 2] {
    let mesh = &asset.meshes[0];
    let n = mesh.vertex_count as usize * 3;
    let (mut positions, mut normals) = (vec![0.0; n], vec![0.0; n]);
    for primitive in &mesh.primitives {
        let p = &asset.primitives[primitive.source];
        let at = primitive.base_vertex as usize * 3;
        let len = p.positions.len();
        let morph = weights.map(|w| (p.morph_targets.as_ref().unwrap(), w));
        skin_vertices(
            &p.positions,
            p.normals.as_deref(),
            gpu_view(p).as_ref(),
            bones,
            morph,
            &mut positions[at..at + len],
            Some(&mut normals[at..at + len]),
        )
        .unwrap();
    }
    [positions, normals]
}

/// Mesh 0's skinned positions and normals of `slot`.
fn slot_output(ctx: &GpuContext, crowd: &Crowd, slot: usize) -> [Vec<f32>; 2] {
    let m = &crowd.meshes()[0];
    let bytes = u64::from(m.vertex_count) * 12;
    [&m.skinned_positions, &m.skinned_normals].map(|b| {
        let b = b.as_ref().unwrap();
        bytemuck::pod_collect_to_vec(&read_buffer(ctx, b, slot as u64 * bytes, bytes).unwrap())
    })
}

fn worst(a: &[f32], b: &[f32]) -> f32 {
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f32::max)
}

/// The two posing paths with their tolerances (position over the diagonal, normal absolute).
const PATHS: [(Posing, f32, f32); 2] = [
    (Posing::Cpu, 1e-6, 1e-5),
    (Posing::Gpu(PoseLayout::PerBone), 1e-5, 1e-4),
];

#[test]
fn morphing_crowd_matches_the_cpu_reference_per_instance() {
    let Some((ctx, asset, walk)) =
        character("morphing_crowd_matches_the_cpu_reference_per_instance")
    else {
        return;
    };
    for (posing, tolerance, normal_tolerance) in PATHS {
        let crowd = skinned(&ctx, &asset, walk, posing);
        for (slot, &instance) in crowd.visible().iter().enumerate() {
            let (bones, weights) = reference_pose(&asset, walk, time_of(instance));
            let [rp, rn] = reference(&asset, &bones, Some(&weights));
            let [gp, gn] = slot_output(&ctx, &crowd, slot);
            let d = diagonal(&rp, 1e-3);
            let (ep, en) = (worst(&rp, &gp) / d, worst(&rn, &gn));
            eprintln!(
                "{posing:?} instance {instance} (weights {weights:?}): position error {ep:.2e} of the diagonal, normal {en:.2e}"
            );
            assert!(ep <= tolerance, "{posing:?} instance {instance}: {ep:e}");
            assert!(
                en <= normal_tolerance,
                "{posing:?} instance {instance}: {en:e}"
            );
        }
    }
}

#[test]
fn instances_at_different_times_get_different_morph_shapes() {
    let Some((ctx, asset, walk)) =
        character("instances_at_different_times_get_different_morph_shapes")
    else {
        return;
    };
    for (posing, tolerance, _) in PATHS {
        let crowd = skinned(&ctx, &asset, walk, posing);
        // Each visible slot's morph displacement: on the GPU, and in the reference.
        let mut shapes = Vec::new();
        for (slot, &instance) in crowd.visible().iter().enumerate() {
            let (bones, weights) = reference_pose(&asset, walk, time_of(instance));
            let [morphed, _] = reference(&asset, &bones, Some(&weights));
            let [unmorphed, _] = reference(&asset, &bones, None);
            let [gpu, _] = slot_output(&ctx, &crowd, slot);
            let sub =
                |a: &[f32]| -> Vec<f32> { a.iter().zip(&unmorphed).map(|(x, y)| x - y).collect() };
            shapes.push((instance, sub(&morphed), sub(&gpu), diagonal(&morphed, 1e-3)));
        }
        for (instance, expected, got, d) in &shapes {
            let error = worst(expected, got) / d;
            assert!(
                error <= tolerance,
                "{posing:?} instance {instance}: {error:e}"
            );
        }
        // The instances' shapes differ by more than twice the tolerance (4 times is asked, 100 times is measured), and
        // each moves as much: one instance's weights used for another's (or none at all) would
        // miss that instance's own shape by more than the tolerance, and fail the check above.
        for pair in shapes.windows(2) {
            let ((a, shape_a, _, d), (b, shape_b, _, _)) = (&pair[0], &pair[1]);
            let apart = worst(shape_a, shape_b) / d;
            let moved = worst(shape_a, &vec![0.0; shape_a.len()]) / d;
            eprintln!(
                "{posing:?}: instances {a} and {b} morph shapes {apart:.2e} of the diagonal apart (instance {a} moved {moved:.2e})"
            );
            assert!(
                apart > 4.0 * tolerance,
                "{posing:?}: {a} and {b}: {apart:e}"
            );
            assert!(
                moved > 4.0 * tolerance,
                "{posing:?}: {a} does not morph: {moved:e}"
            );
        }
    }
}
