//! Where the model goes during a clip: CPU-skinned sample vertices at several times, in world
//! space, for a camera to frame and a crowd to be spaced by (`skel::anim::skin_vertices` is the
//! CPU reference of the GPU fragment, so the box fits what the GPU draws, tighter than the
//! library's conservative [`AssetContainer::world_box`] of joint spheres).

use glam::{Mat4, Vec3};
use skel::AssetContainer;
use skel::anim::{MorphTargets, Player, VertexInfluences, skin_vertices};

/// At most this many vertices per primitive are skinned for the bounds (every k-th vertex).
pub const MAX_SAMPLE_VERTICES: usize = 2048;

/// A subset of one primitive's vertices, ready for `skin_vertices`.
#[derive(Debug)]
struct SampledPrimitive {
    mesh: usize,
    node: usize,
    skeleton_binding: Option<usize>,
    morph_binding: Option<usize>,
    positions: Vec<f32>,
    influences: Option<VertexInfluences>,
    morph: Option<MorphTargets>,
    out: Vec<f32>,
}

/// Skins sampled vertices of every primitive on the CPU to collect world-space points.
#[derive(Debug)]
pub struct BoundsSampler {
    primitives: Vec<SampledPrimitive>,
}

/// Every `stride`-th element group of `size` floats of `values`.
fn pick(values: &[f32], size: usize, stride: usize) -> Vec<f32> {
    values
        .chunks_exact(size)
        .step_by(stride)
        .flatten()
        .copied()
        .collect()
}

impl BoundsSampler {
    /// Picks up to [`MAX_SAMPLE_VERTICES`] vertices of every primitive of `container`.
    #[must_use]
    pub fn new(container: &AssetContainer) -> Self {
        let mut primitives = Vec::new();
        for (mi, mesh) in container.meshes.iter().enumerate() {
            for primitive in &mesh.primitives {
                let Some(p) = container.primitives.get(primitive.source) else {
                    continue;
                };
                let n = p.vertex_count();
                if n == 0 {
                    continue;
                }
                let stride = n.div_ceil(MAX_SAMPLE_VERTICES).max(1);
                let positions = pick(&p.positions, 3, stride);
                let influences = p.influences.as_ref().map(|inf| {
                    let k = inf.per_vertex.max(1);
                    VertexInfluences {
                        per_vertex: inf.per_vertex,
                        joints: inf
                            .joints
                            .chunks_exact(k)
                            .step_by(stride)
                            .flatten()
                            .copied()
                            .collect(),
                        weights: pick(&inf.weights, k, stride),
                    }
                });
                let morph = p.morph_targets.as_ref().map(|m| {
                    let per_target = n * 3;
                    let sub = |deltas: &[f32]| -> Vec<f32> {
                        if deltas.is_empty() {
                            return Vec::new();
                        }
                        deltas
                            .chunks_exact(per_target)
                            .flat_map(|target| pick(target, 3, stride))
                            .collect()
                    };
                    MorphTargets {
                        target_count: m.target_count,
                        positions: sub(&m.positions),
                        normals: Vec::new(),
                    }
                });
                let out = vec![0.0; positions.len()];
                primitives.push(SampledPrimitive {
                    mesh: mi,
                    node: mesh.node,
                    skeleton_binding: p.skeleton_binding,
                    morph_binding: p.morph_binding,
                    positions,
                    influences,
                    morph,
                    out,
                });
            }
        }
        Self { primitives }
    }

    /// Appends the world positions of the sampled vertices in `player`'s last pose (its bone
    /// matrices, morph weights and the node world matrices it last resolved, as
    /// [`skel::advance_pose`] leaves them) to `points`. Hidden meshes are left out; primitives
    /// whose pose data is missing or inconsistent are skipped.
    pub fn collect(&mut self, container: &AssetContainer, player: &Player, points: &mut Vec<Vec3>) {
        let world = &player.scratch().world;
        for s in &mut self.primitives {
            if !container.meshes.get(s.mesh).is_some_and(|m| m.visible) {
                continue;
            }
            let bones = match (s.skeleton_binding, &s.influences) {
                (Some(b), Some(_)) => player.bone_matrices(b).unwrap_or(&[]),
                _ => &[],
            };
            let influences = if bones.is_empty() {
                None
            } else {
                s.influences.as_ref()
            };
            let weights = s.morph_binding.and_then(|b| player.morph_weights(b));
            let morph = match (&s.morph, weights) {
                (Some(m), Some(w)) if w.len() == m.target_count => Some((m, w)),
                _ => None,
            };
            let ok = skin_vertices(
                &s.positions,
                None,
                influences,
                bones,
                morph,
                &mut s.out,
                None,
            );
            if ok.is_err() {
                continue;
            }
            let m = world.get(s.node).copied().unwrap_or(Mat4::IDENTITY);
            points.extend(
                s.out
                    .chunks_exact(3)
                    .map(|p| m.transform_point3(Vec3::new(p[0], p[1], p[2]))),
            );
        }
    }
}
