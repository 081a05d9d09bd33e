//! Compute skinning beyond the asset tests: every variant on synthetic data (both paths, skin
//! and morph together), compact input formats, normals off, and the 2D dispatch.

use skel_anim::{MorphTargets, VertexInfluences, skin_vertices};
use skel_gpu::{
    ComputeSkinning, ComputeSkinningConfig, ComputeSkinningInputs, ComputeTuning, GpuContext,
    HeadlessOptions, InfluenceSet, Influences, JointFormat, JointIndices, SkeletonDescriptor,
    SkeletonGpu, SkinningVariant, WeightFormat, create_morph, create_skeleton_with,
};

use crate::common::{Rng, ctx, output_buffer, random_affine_bones, read_f32, storage_buffer};
use crate::probe::{bbox_diagonal, max_abs_diff, skin_compute_path, skin_vertex_path};

/// Random mesh data: positions, unit normals, `sets` influence sets with weights summing to 1
/// (some zero), over `bones` bones.
pub struct Mesh {
    pub positions: Vec<f32>,
    pub normals: Vec<f32>,
    joints: Vec<u32>,
    weights: Vec<f32>,
    per_vertex: usize,
}

pub fn mesh(n: usize, per_vertex: usize, bones: u32, rng: &mut Rng) -> Mesh {
    let mut m = Mesh {
        positions: vec![],
        normals: vec![],
        joints: vec![],
        weights: vec![],
        per_vertex,
    };
    for _ in 0..n {
        m.positions.extend([
            rng.next_f32() * 3.0,
            rng.next_f32() * 3.0,
            rng.next_f32() * 3.0,
        ]);
        let nv = glam::Vec3::new(rng.next_f32(), rng.next_f32(), rng.next_f32() + 2.0).normalize();
        m.normals.extend(nv.to_array());
        let raw: Vec<f32> = (0..per_vertex)
            .map(|k| {
                if k > 1 && rng.next_f32() < -0.3 {
                    0.0
                } else {
                    rng.next_f32() + 1.1
                }
            })
            .collect();
        let sum: f32 = raw.iter().sum();
        m.weights.extend(raw.iter().map(|w| w / sum));
        m.joints.extend((0..per_vertex).map(|_| rng.below(bones)));
    }
    m
}

impl Mesh {
    fn set(&self, values: &[u32], set: usize) -> Vec<u32> {
        values
            .chunks(self.per_vertex)
            .flat_map(|c| c[set * 4..set * 4 + 4].to_vec())
            .collect()
    }
    fn wset(&self, set: usize) -> Vec<f32> {
        self.weights
            .chunks(self.per_vertex)
            .flat_map(|c| c[set * 4..set * 4 + 4].to_vec())
            .collect()
    }
    pub fn skeleton(&self, ctx: &GpuContext, bones: &[glam::Mat4]) -> SkeletonGpu {
        let joints: Vec<Vec<u32>> = (0..self.per_vertex / 4)
            .map(|s| self.set(&self.joints, s))
            .collect();
        let weights: Vec<Vec<f32>> = (0..self.per_vertex / 4).map(|s| self.wset(s)).collect();
        let sets: Vec<InfluenceSet<'_>> = joints
            .iter()
            .zip(&weights)
            .map(|(j, w)| InfluenceSet {
                joints: JointIndices::U32(j),
                weights: w,
            })
            .collect();
        let skeleton = create_skeleton_with(
            ctx,
            &SkeletonDescriptor {
                bone_count: bones.len() as u32,
                bone_data: bones,
                influences: &sets,
            },
        )
        .unwrap();
        assert_eq!(skeleton.influences_per_vertex() as usize, self.per_vertex);
        skeleton
    }
    pub fn cpu(
        &self,
        bones: &[glam::Mat4],
        morph: Option<(&MorphTargets, &[f32])>,
        skinned: bool,
    ) -> (Vec<f32>, Vec<f32>) {
        let inf = VertexInfluences {
            per_vertex: self.per_vertex,
            joints: self.joints.clone(),
            weights: self.weights.clone(),
        };
        let mut p = vec![0.0; self.positions.len()];
        let mut n = vec![0.0; self.positions.len()];
        skin_vertices(
            &self.positions,
            Some(&self.normals),
            skinned.then_some(&inf),
            bones,
            morph,
            &mut p,
            Some(&mut n),
        )
        .unwrap();
        (p, n)
    }
}

pub fn random_targets(count: usize, n: usize, rng: &mut Rng) -> MorphTargets {
    MorphTargets {
        target_count: count,
        positions: (0..count * n * 3).map(|_| rng.next_f32() * 0.5).collect(),
        normals: (0..count * n * 3).map(|_| rng.next_f32() * 0.2).collect(),
    }
}

#[test]
fn every_variant_matches_the_cpu_on_both_paths() {
    let Some(ctx) = ctx() else { return };
    let mut rng = Rng::new(7);
    let n = 2000;
    let bones = random_affine_bones(70, &mut rng);
    for variant in SkinningVariant::all() {
        let per_vertex = (variant.influences.count() as usize).max(4);
        let m = mesh(n, per_vertex, 70, &mut rng);
        let skinned = variant.influences != Influences::None;
        let skeleton = skinned.then(|| m.skeleton(ctx, &bones));
        // 6 targets: more than the seed's 4, with one zero weight.
        let targets = random_targets(6, n, &mut rng);
        let weights = [0.3, -0.2, 0.0, 0.7, 0.1, 0.45];
        let morph = variant
            .morph
            .then(|| create_morph(ctx, &targets, n, &weights).unwrap());
        let (cpu_p, cpu_n) = m.cpu(
            &bones,
            variant.morph.then_some((&targets, &weights[..])),
            skinned,
        );
        let diagonal = bbox_diagonal(&cpu_p);
        for (path, gpu) in [
            (
                "vertex",
                skin_vertex_path(
                    ctx,
                    variant,
                    &m.positions,
                    &m.normals,
                    skeleton.as_ref(),
                    morph.as_ref(),
                ),
            ),
            (
                "compute",
                skin_compute_path(
                    ctx,
                    variant,
                    &m.positions,
                    &m.normals,
                    skeleton.as_ref(),
                    morph.as_ref(),
                ),
            ),
        ] {
            let pe = max_abs_diff(&gpu.positions, &cpu_p) / diagonal;
            let ne = max_abs_diff(&gpu.normals, &cpu_n);
            eprintln!(
                "{variant:?} {path}: position error {pe:.2e} of diagonal, normal error {ne:.2e}"
            );
            assert!(
                pe <= 1e-5 && ne <= 1e-5,
                "{variant:?} {path}: {pe:e} {ne:e}"
            );
        }
    }
}

/// Packs joints into the compact layout (4 × u8 or u16 per vertex, little-endian).
fn pack_joints(joints: &[u32], format: JointFormat) -> Vec<u8> {
    match format {
        JointFormat::U8 => joints.iter().map(|&j| j as u8).collect(),
        JointFormat::U16 => joints
            .iter()
            .flat_map(|&j| (j as u16).to_le_bytes())
            .collect(),
        JointFormat::U32 => joints.iter().flat_map(|&j| j.to_le_bytes()).collect(),
    }
}

/// Quantizes weights; returns the bytes and the weights as the GPU will see them.
fn pack_weights(weights: &[f32], format: WeightFormat) -> (Vec<u8>, Vec<f32>) {
    match format {
        WeightFormat::Unorm8 => {
            let q: Vec<u8> = weights.iter().map(|w| (w * 255.0).round() as u8).collect();
            let seen = q.iter().map(|&v| f32::from(v) / 255.0).collect();
            (q, seen)
        }
        WeightFormat::Unorm16 => {
            let q: Vec<u16> = weights
                .iter()
                .map(|w| (w * 65535.0).round() as u16)
                .collect();
            let seen = q.iter().map(|&v| f32::from(v) / 65535.0).collect();
            (q.iter().flat_map(|v| v.to_le_bytes()).collect(), seen)
        }
        WeightFormat::F32 => (bytemuck::cast_slice(weights).to_vec(), weights.to_vec()),
    }
}

fn run_compact(
    ctx: &GpuContext,
    config: ComputeSkinningConfig,
    n: usize,
    bone_count: u32,
    rng: &mut Rng,
) {
    run_tuned(ctx, config, ComputeTuning::default(), n, bone_count, rng);
}

/// Skins `n` random vertices over `bone_count` bones with `config` and `tuning` (compact
/// formats quantised as the GPU sees them, morph targets when the variant has them) and
/// compares with the CPU reference.
fn run_tuned(
    ctx: &GpuContext,
    config: ComputeSkinningConfig,
    tuning: ComputeTuning,
    n: usize,
    bone_count: u32,
    rng: &mut Rng,
) {
    let per_vertex = config.variant.influences.count() as usize;
    let bones = random_affine_bones(bone_count, rng);
    let mut m = mesh(n, per_vertex, bone_count, rng);
    // Compute reads every influence set from its own buffers: the skeleton gives only the
    // bone texture, so one with a single set serves every variant.
    let skeleton = Mesh {
        per_vertex: 4,
        joints: m.set(&m.joints, 0),
        weights: m.wset(0),
        positions: Vec::new(),
        normals: Vec::new(),
    }
    .skeleton(ctx, &bones);
    let mut sets = Vec::new();
    let mut seen = vec![0.0; m.weights.len()];
    for set in 0..per_vertex / 4 {
        let (wbytes, wseen) = pack_weights(&m.wset(set), config.weight_format);
        for (v, chunk) in wseen.chunks(4).enumerate() {
            seen[v * per_vertex + set * 4..][..4].copy_from_slice(chunk);
        }
        sets.push((
            storage_buffer(
                ctx,
                &pack_joints(&m.set(&m.joints, set), config.joint_format),
            ),
            storage_buffer(ctx, &wbytes),
        ));
    }
    m.weights = seen;
    let bytes = n as u64 * 12;
    let rest_p = storage_buffer(ctx, bytemuck::cast_slice(&m.positions));
    let rest_n = storage_buffer(ctx, bytemuck::cast_slice(&m.normals));
    let (out_p, out_n) = (output_buffer(ctx, bytes), output_buffer(ctx, bytes));
    let targets = random_targets(3, n, rng);
    let morph_weights = [0.4, 0.0, -0.6];
    let morph = config
        .variant
        .morph
        .then(|| create_morph(ctx, &targets, n, &morph_weights).unwrap());
    let pipeline = ComputeSkinning::with_tuning(ctx, config, tuning).unwrap();
    let inputs = ComputeSkinningInputs {
        vertex_count: n as u32,
        rest_positions: &rest_p,
        rest_normals: config.normals.then_some(&rest_n),
        joints: std::array::from_fn(|s| sets.get(s).map(|s| &s.0)),
        weights: std::array::from_fn(|s| sets.get(s).map(|s| &s.1)),
        out_positions: &out_p,
        out_normals: config.normals.then_some(&out_n),
    };
    let bindings = pipeline
        .bind(ctx, &inputs, Some(&skeleton), morph.as_ref())
        .unwrap();
    ctx.capture("compact compute", || {
        let mut encoder = ctx.device.create_command_encoder(&Default::default());
        pipeline.encode(&mut encoder, &bindings, None);
        ctx.queue.submit([encoder.finish()]);
    })
    .unwrap();
    let (cpu_p, cpu_n) = m.cpu(
        &bones,
        config
            .variant
            .morph
            .then_some((&targets, &morph_weights[..])),
        true,
    );
    let pe = max_abs_diff(&read_f32(ctx, &out_p, bytes), &cpu_p) / bbox_diagonal(&cpu_p);
    eprintln!(
        "{config:?} {tuning:?} workgroups {:?} × {} tiles: position error {pe:.2e}",
        bindings.workgroups(),
        bindings.tiles_per_workgroup()
    );
    assert!(pe <= 1e-5, "{config:?} {tuning:?}: {pe:e}");
    if config.normals {
        let ne = max_abs_diff(&read_f32(ctx, &out_n, bytes), &cpu_n);
        assert!(ne <= 1e-5, "{config:?} {tuning:?}: normal error {ne:e}");
    }
}

#[test]
fn compact_joint_and_weight_formats_match_the_cpu() {
    let Some(ctx) = ctx() else { return };
    let mut rng = Rng::new(11);
    for influences in [Influences::Four, Influences::Eight, Influences::Sixteen] {
        for joint_format in [JointFormat::U8, JointFormat::U16, JointFormat::U32] {
            for weight_format in [
                WeightFormat::Unorm8,
                WeightFormat::Unorm16,
                WeightFormat::F32,
            ] {
                for normals in [false, true] {
                    let config = ComputeSkinningConfig {
                        variant: SkinningVariant {
                            influences,
                            morph: false,
                        },
                        normals,
                        joint_format,
                        weight_format,
                    };
                    run_compact(ctx, config, 777, 200, &mut rng);
                }
            }
        }
    }
}

#[test]
fn every_tuning_matches_the_cpu() {
    // Each code shape (cache layout × zero-weight skipping × 1-4 vertices per iteration) with
    // 3 tiles per workgroup over 2000 vertices: the last workgroup holds a partial iteration,
    // so clamped loads and skipped stores are exercised. 300 bones: 256 from the cache, the
    // rest from the texture.
    let Some(ctx) = ctx() else { return };
    let mut rng = Rng::new(300);
    for tuning in ComputeTuning::variants() {
        let tuning = ComputeTuning {
            tiles_per_workgroup: Some(3),
            ..tuning
        };
        for (influences, morph) in [
            (Influences::Four, false),
            (Influences::Eight, true),
            (Influences::Sixteen, true),
        ] {
            let config = ComputeSkinningConfig {
                variant: SkinningVariant { influences, morph },
                normals: true,
                joint_format: JointFormat::U16,
                weight_format: WeightFormat::Unorm16,
            };
            run_tuned(ctx, config, tuning, 2000, 300, &mut rng);
        }
    }
}

#[test]
fn bones_past_the_workgroup_cache_come_from_the_texture() {
    // 5000 bones: the first COMPUTE_BONE_CACHE_SIZE from workgroup memory, the rest (wrapped
    // into a second texture row on lavapipe) from the texture.
    let Some(ctx) = ctx() else { return };
    let mut rng = Rng::new(5000);
    for influences in [Influences::Four, Influences::Eight, Influences::Sixteen] {
        let config = ComputeSkinningConfig {
            variant: SkinningVariant {
                influences,
                morph: false,
            },
            ..Default::default()
        };
        run_compact(ctx, config, 20_000, 5000, &mut rng);
    }
}

#[test]
fn large_meshes_dispatch_in_two_dimensions() {
    // A device whose compute grid is only 16 workgroups wide: with one tile of 256 vertices per
    // workgroup, 10 000 vertices need 40 workgroups, so the dispatch is 16 × 3 and the shader
    // must rebuild the vertex index.
    let Some(shared) = ctx() else { return };
    // Its workgroup memory holds only 16 affine bones, so most of the 200 bones come from the
    // texture.
    let limits = wgpu::Limits {
        max_compute_workgroups_per_dimension: 16,
        max_compute_workgroup_storage_size: 16 * 48,
        ..shared.limits.clone()
    };
    let ctx = GpuContext::new_headless_with(&HeadlessOptions {
        required_limits: Some(limits),
        ..Default::default()
    })
    .unwrap();
    let one_tile = ComputeTuning {
        tiles_per_workgroup: Some(1),
        vertices_per_iteration: 1,
        ..ComputeTuning::default()
    };
    let pipeline =
        ComputeSkinning::with_tuning(&ctx, ComputeSkinningConfig::default(), one_tile).unwrap();
    assert_eq!(pipeline.workgroups_for(10_000), (16, 3));
    assert_eq!(pipeline.workgroups_for(256 * 16), (16, 1));
    assert_eq!(pipeline.workgroups_for(0), (0, 0));
    run_tuned(
        &ctx,
        ComputeSkinningConfig::default(),
        one_tile,
        10_000,
        200,
        &mut Rng::new(3),
    );
    // The default tuning (2 tiles per workgroup here) rebuilds it too: 20 workgroups, 16 × 2.
    let default = ComputeSkinning::new(&ctx, ComputeSkinningConfig::default()).unwrap();
    assert_eq!(default.workgroups_for(10_000), (16, 2));
    run_compact(
        &ctx,
        ComputeSkinningConfig::default(),
        10_000,
        200,
        &mut Rng::new(4),
    );
    // One more vertex than 16 × 16 workgroups hold does not fit this device.
    let n = 256 * 16 * 16 + 1;
    let big = |per_vertex: u64| output_buffer(&ctx, u64::from(n) * per_vertex);
    let (p, nr, j, w, op, on) = (big(12), big(12), big(16), big(16), big(12), big(12));
    let inputs = ComputeSkinningInputs {
        vertex_count: n,
        rest_positions: &p,
        rest_normals: Some(&nr),
        joints: [Some(&j), None, None, None],
        weights: [Some(&w), None, None, None],
        out_positions: &op,
        out_normals: Some(&on),
    };
    let err = pipeline.bind(&ctx, &inputs, None, None).unwrap_err();
    assert_eq!(
        err,
        skel_gpu::GpuError::MissingLimit {
            name: "max_compute_workgroups_per_dimension",
            needed: 17,
            available: 16
        }
    );
}
