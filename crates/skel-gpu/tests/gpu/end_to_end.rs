//! Real assets skinned on the GPU, through the vertex stage of a render pipeline and through
//! compute, against `skel_anim::skin_vertices` (the CPU reference): positions within 1e-5 of the
//! bounding-box diagonal, normals within 1e-5 (unit vectors). Tolerances set on lavapipe
//! (llvmpipe, Mesa 22.3).

use std::sync::Arc;

use skel_anim::{AnimationController, RecordingSink, VertexInfluences, skin_vertices};
use skel_gltf::{LoadOptions, PrimitiveData};
use skel_gpu::{
    InfluenceSet, Influences, JointIndices, SkeletonDescriptor, SkinningVariant, create_morph,
    create_skeleton_with,
};

use crate::common::{Rng, assets_dir, ctx, random_affine_bones};
use crate::probe::{bbox_diagonal, max_abs_diff, skin_compute_path, skin_vertex_path};

/// Relative position tolerance (of the bounding-box diagonal) and absolute normal tolerance.
const POSITION_TOLERANCE: f32 = 1e-5;
const NORMAL_TOLERANCE: f32 = 1e-5;

/// What one asset exercised.
#[derive(Debug, Default)]
struct Covered {
    four: usize,
    eight: usize,
    sixteen: usize,
    morph: usize,
    vertices: usize,
    /// Largest displacement from rest of any vertex, relative to its primitive's diagonal.
    moved: f32,
}

/// Poses `file` at 37% of its first clip, then skins every skinned or morphed primitive on both
/// GPU paths and compares with the CPU.
fn check_asset(file: &str) -> Option<Covered> {
    check_path(&assets_dir()?.join(file))
}

/// [`check_asset`] for a file anywhere (the repository's generated fixtures).
fn check_path(path: &std::path::Path) -> Option<Covered> {
    let ctx = ctx()?;
    let file = &path.display().to_string();
    let asset = skel_gltf::load_path(
        path,
        &LoadOptions {
            decode_images: false,
            ..LoadOptions::default()
        },
    )
    .unwrap_or_else(|e| panic!("{file}: {e}"));
    let mut controller = AnimationController::new(Arc::new(asset.animation.clone())).unwrap();
    let clip = (!asset.animation.clips.is_empty()).then_some(0);
    let time = clip.map_or(0.0, |c| asset.animation.clips[c].duration() * 0.37);
    let mut sink = RecordingSink::default();
    controller.evaluate_at(clip, time, &mut sink).unwrap();

    // Some assets rest (quad_skin has no clip; some clips start in the bind pose), so every
    // primitive is also skinned with random affine bone matrices, which always move it.
    let mut random = sink.clone();
    let mut rng = Rng::new(file.len() as u64);
    for bones in &mut random.bone_matrices {
        *bones = random_affine_bones(bones.len() as u32, &mut rng);
    }
    let mut covered = Covered::default();
    for (pose, sink) in [("clip", &sink), ("random bones", &random)] {
        for prim in &asset.primitives {
            let skinned = prim.skeleton_binding.is_some();
            let morphed = prim.morph_targets.is_some();
            if !skinned && !morphed {
                continue;
            }
            check_primitive(ctx, &format!("{file} ({pose})"), prim, sink, &mut covered);
        }
    }
    eprintln!("{file}: {covered:?}");
    assert!(
        covered.moved > 1e-2,
        "{file}: no pose moved any vertex: {covered:?}"
    );
    Some(covered)
}

fn check_primitive(
    ctx: &skel_gpu::GpuContext,
    file: &str,
    prim: &PrimitiveData,
    sink: &RecordingSink,
    covered: &mut Covered,
) {
    let n = prim.vertex_count();
    let positions = &prim.positions;
    let zero_normals = vec![0.0; n * 3];
    let normals = prim.normals.as_deref().unwrap_or(&zero_normals);

    let gpu_influences = prim.skeleton_binding.and_then(|_| prim.gpu_influences());
    let bones: &[glam::Mat4] = prim
        .skeleton_binding
        .map_or(&[], |b| &sink.bone_matrices[b]);
    let bone_data = bones;
    let skeleton = gpu_influences.as_ref().map(|inf| {
        let sets: Vec<InfluenceSet<'_>> = (0..inf.sets())
            .filter_map(|s| inf.set(s))
            .map(|(joints, weights)| InfluenceSet {
                joints: JointIndices::U32(joints),
                weights,
            })
            .collect();
        create_skeleton_with(
            ctx,
            &SkeletonDescriptor {
                bone_count: bone_data.len() as u32,
                bone_data,
                influences: &sets,
            },
        )
        .unwrap_or_else(|e| panic!("{file} {}: {e}", prim.key))
    });
    // The clip's weights plus a different non-zero offset per target, so that every target
    // (MorphStressTest has 8: past the seed's 4) contributes even where the clip rests at 0.
    let morph_weights: Vec<f32> = match (prim.morph_binding, &prim.morph_targets) {
        (Some(b), Some(_)) => sink.morph_weights[b].clone(),
        (None, Some(t)) => vec![0.0; t.target_count],
        _ => Vec::new(),
    }
    .iter()
    .enumerate()
    .map(|(t, w)| w + 0.1 * (t % 5 + 1) as f32)
    .collect();
    let morph = prim.morph_targets.as_ref().map(|t| {
        create_morph(ctx, t, n, &morph_weights)
            .unwrap_or_else(|e| panic!("{file} {}: {e}", prim.key))
    });

    // The CPU reference over exactly the influences the GPU gets (at most 16 per vertex).
    let cpu_influences = gpu_influences.as_ref().map(|inf| {
        let per_vertex = inf.per_vertex();
        let mut joints = Vec::with_capacity(n * per_vertex);
        let mut weights = Vec::with_capacity(n * per_vertex);
        for v in 0..n {
            for (j, w) in (0..inf.sets()).filter_map(|s| inf.set(s)) {
                joints.extend_from_slice(&j[v * 4..v * 4 + 4]);
                weights.extend_from_slice(&w[v * 4..v * 4 + 4]);
            }
        }
        VertexInfluences {
            per_vertex,
            joints,
            weights,
        }
    });
    let mut cpu_positions = vec![0.0; n * 3];
    let mut cpu_normals = vec![0.0; n * 3];
    skin_vertices(
        positions,
        prim.normals.as_deref(),
        cpu_influences.as_ref(),
        bones,
        prim.morph_targets
            .as_ref()
            .map(|t| (t, morph_weights.as_slice())),
        &mut cpu_positions,
        prim.normals.is_some().then_some(cpu_normals.as_mut_slice()),
    )
    .unwrap();

    let influences = match gpu_influences
        .as_ref()
        .map(skel_gltf::GpuInfluences::per_vertex)
    {
        None => Influences::None,
        Some(k) => Influences::for_count(k as u32),
    };
    let variant = SkinningVariant {
        influences,
        morph: morph.is_some(),
    };
    let diagonal = bbox_diagonal(&cpu_positions).max(f32::MIN_POSITIVE);
    // The comparison means something only if the pose moved the mesh away from rest.
    let moved = max_abs_diff(&cpu_positions, positions) / diagonal;
    covered.moved = covered.moved.max(moved);
    for (path, gpu) in [
        (
            "vertex",
            skin_vertex_path(
                ctx,
                variant,
                positions,
                normals,
                skeleton.as_ref(),
                morph.as_ref(),
            ),
        ),
        (
            "compute",
            skin_compute_path(
                ctx,
                variant,
                positions,
                normals,
                skeleton.as_ref(),
                morph.as_ref(),
            ),
        ),
    ] {
        let position_error = max_abs_diff(&gpu.positions, &cpu_positions) / diagonal;
        eprintln!(
            "{file} {} ({n} vertices, {variant:?}, {path}): position error {position_error:.2e} of diagonal {diagonal:.3}",
            prim.key
        );
        assert!(
            position_error <= POSITION_TOLERANCE,
            "{file} {} {path}: position error {position_error:e} of the diagonal",
            prim.key
        );
        if prim.normals.is_some() {
            let normal_error = max_abs_diff(&gpu.normals, &cpu_normals);
            eprintln!("    normal error {normal_error:.2e}");
            assert!(
                normal_error <= NORMAL_TOLERANCE,
                "{file} {} {path}: normal error {normal_error:e}",
                prim.key
            );
        }
    }
    match influences {
        Influences::Four => covered.four += 1,
        Influences::Eight => covered.eight += 1,
        Influences::Sixteen => covered.sixteen += 1,
        Influences::None => {}
    }
    covered.morph += usize::from(morph.is_some());
    covered.vertices += n;
}

#[test]
fn cesium_man_four_influences() {
    if let Some(c) = check_asset("CesiumMan/CesiumMan.glb") {
        assert!(c.four > 0, "{c:?}");
    }
}

#[test]
fn eight_influence_assets() {
    let mut eight = 0;
    for file in ["quad_skin/quad_skin.glb", "PBRTest/pbrTest.gltf"] {
        match check_asset(file) {
            Some(c) => eight += c.eight,
            None => return,
        }
    }
    assert!(eight > 0, "no 8-influence primitive among the assets");
}

#[test]
fn sixteen_influence_fixture() {
    // Generated by `cargo xtask fixtures`: five influence sets, a third of the vertices with 20
    // non-zero weights (reduced to the 16 largest), a third with 12 (padded).
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/sixteen_influences.glb");
    if let Some(c) = check_path(&path) {
        assert!(c.sixteen > 0, "{c:?}");
    }
}

#[test]
fn morph_target_assets() {
    let mut morphs = 0;
    for file in [
        "AnimatedMorphCube/AnimatedMorphCube.glb",
        "MorphStressTest/MorphStressTest.glb",
    ] {
        match check_asset(file) {
            Some(c) => morphs += c.morph,
            None => return,
        }
    }
    assert!(morphs > 0, "no morph-target primitive among the assets");
}

#[test]
fn more_skinned_assets() {
    for file in [
        "Fox/Fox.glb",
        "RiggedFigure/RiggedFigure.glb",
        "RiggedSimple/RiggedSimple.glb",
        "SimpleSkin/SimpleSkin.gltf",
        "RecursiveSkeletons/RecursiveSkeletons.glb",
        "RobotExpressive/RobotExpressive.glb",
        "Superhero_Male_FullBody/Superhero_Male_FullBody.gltf",
        "AnimatedMorphSphere/AnimatedMorphSphere.glb",
        "SimpleMorph/SimpleMorph.gltf",
        "MorphPrimitivesTest/MorphPrimitivesTest.glb",
    ] {
        if check_asset(file).is_none() {
            return;
        }
    }
}
