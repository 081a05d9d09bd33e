//! Skin influences: every JOINTS_n/WEIGHTS_n set of a primitive merged per vertex, weights
//! renormalised; and the GPU's view of them (at most 16 per vertex).

use gltf::json::accessor::Type;
use skel_anim::VertexInfluences;

use crate::accessor::{Expect, IntAs, JOINT_INDEX, UNSIGNED_NORM, check_count, read_f32, read_u32};
use crate::{GltfDocument, GltfError};

/// Influences per vertex the GPU paths read: `JOINTS_0..3` / `WEIGHTS_0..3`.
pub const GPU_MAX_INFLUENCES: usize = 16;

/// A primitive's influences laid out for the GPU (the seed's `createSkeleton` inputs): four
/// per vertex in set 0, four more in set 1 when the primitive has up to 8, and sets 2 and 3
/// too when it has more (9 to 12 influences are padded with zero weights to 16).
///
/// A primitive with more than [`GPU_MAX_INFLUENCES`] influence slots per vertex (exporters
/// write `JOINTS_4` and beyond) keeps, per vertex, the 16 largest weights renormalised to sum
/// to 1; the CPU path ([`skel_anim::skin_vertices`]) uses them all. `truncated_vertices` and
/// `max_dropped_weight` say how much that changed (`skel info` prints them per mesh).
#[derive(Debug, Clone, PartialEq, Default)]
#[non_exhaustive]
pub struct GpuInfluences {
    /// 4 joint indices per vertex (JOINTS_0), widened to `u32` for `Uint32x4`.
    pub joints0: Vec<u32>,
    /// 4 weights per vertex (WEIGHTS_0), `Float32x4`.
    pub weights0: Vec<f32>,
    /// 4 more joint indices per vertex (JOINTS_1), for 8- and 16-influence skinning.
    pub joints1: Option<Vec<u32>>,
    /// 4 more weights per vertex (WEIGHTS_1).
    pub weights1: Option<Vec<f32>>,
    /// Sets 2 and 3 (`JOINTS_2`, `JOINTS_3`), 8 joint indices per vertex (set 2's four, then
    /// set 3's four), for 16-influence skinning.
    pub joints23: Option<[Vec<u32>; 2]>,
    /// Sets 2 and 3 of the weights, as [`joints23`](Self::joints23).
    pub weights23: Option<[Vec<f32>; 2]>,
    /// Vertices that lost a non-zero weight to the 16-influence limit.
    pub truncated_vertices: usize,
    /// The largest (renormalised) weight dropped from any vertex.
    pub max_dropped_weight: f32,
}

impl GpuInfluences {
    /// Influences per vertex: 4, 8 or 16.
    #[must_use]
    pub fn per_vertex(&self) -> usize {
        self.sets() * 4
    }

    /// Joint/weight sets: 1, 2 or 4.
    #[must_use]
    pub fn sets(&self) -> usize {
        match (&self.joints1, &self.joints23) {
            (_, Some(_)) => 4,
            (Some(_), None) => 2,
            (None, None) => 1,
        }
    }

    /// Set `set`'s joints and weights (4 per vertex), `None` past [`sets`](Self::sets).
    #[must_use]
    pub fn set(&self, set: usize) -> Option<(&[u32], &[f32])> {
        match set {
            0 => Some((&self.joints0, &self.weights0)),
            1 => self.joints1.as_deref().zip(self.weights1.as_deref()),
            2 | 3 => {
                let (j, w) = self.joints23.as_ref().zip(self.weights23.as_ref())?;
                Some((&j[set - 2], &w[set - 2]))
            }
            _ => None,
        }
    }
}

/// GPU sets for `k` influence slots per vertex: 1, 2 or 4.
#[must_use]
pub(crate) fn gpu_sets(k: usize) -> usize {
    match k {
        0..=4 => 1,
        5..=8 => 2,
        _ => 4,
    }
}

/// Splits CPU influences into the GPU's one, two or four sets of four.
#[must_use]
pub(crate) fn gpu_influences(inf: &VertexInfluences) -> GpuInfluences {
    let k = inf.per_vertex;
    let n = inf.vertex_count();
    let sets = gpu_sets(k);
    let capacity = |s: usize| if s < sets { n * 4 } else { 0 };
    let mut lists: [Vec<u32>; 4] = std::array::from_fn(|s| Vec::with_capacity(capacity(s)));
    let mut wlists: [Vec<f32>; 4] = std::array::from_fn(|s| Vec::with_capacity(capacity(s)));
    let mut truncated_vertices = 0;
    let mut max_dropped_weight = 0.0f32;
    let mut order: Vec<usize> = Vec::with_capacity(k);
    for v in 0..n {
        let joints = &inf.joints[v * k..v * k + k];
        let weights = &inf.weights[v * k..v * k + k];
        let mut picked = [(0u32, 0.0f32); GPU_MAX_INFLUENCES];
        if k <= GPU_MAX_INFLUENCES {
            for (slot, (&j, &w)) in picked.iter_mut().zip(joints.iter().zip(weights)) {
                *slot = (j, w);
            }
        } else {
            order.clear();
            order.extend(0..k);
            // Largest weights first; ties keep glTF order (stable sort).
            order.sort_by(|&a, &b| weights[b].total_cmp(&weights[a]));
            let kept: f32 = order[..GPU_MAX_INFLUENCES]
                .iter()
                .map(|&i| weights[i])
                .sum();
            let dropped = weights[order[GPU_MAX_INFLUENCES]];
            if dropped > 0.0 {
                truncated_vertices += 1;
                max_dropped_weight = max_dropped_weight.max(dropped);
            }
            let scale = if kept > 0.0 { 1.0 / kept } else { 1.0 };
            for (slot, &i) in picked.iter_mut().zip(&order[..GPU_MAX_INFLUENCES]) {
                *slot = (joints[i], weights[i] * scale);
            }
        }
        for (i, &(j, w)) in picked.iter().take(sets * 4).enumerate() {
            lists[i / 4].push(j);
            wlists[i / 4].push(w);
        }
    }
    let [j0, j1, j2, j3] = lists;
    let [w0, w1, w2, w3] = wlists;
    GpuInfluences {
        joints0: j0,
        weights0: w0,
        joints1: (sets > 1).then_some(j1),
        weights1: (sets > 1).then_some(w1),
        joints23: (sets > 2).then_some([j2, j3]),
        weights23: (sets > 2).then_some([w2, w3]),
        truncated_vertices,
        max_dropped_weight,
    }
}

/// Vertices whose influences the GPU layout reduces (more than [`GPU_MAX_INFLUENCES`] non-zero
/// weights), without building the layout: what `skel info` reports per mesh.
#[must_use]
pub fn reduced_vertex_count(inf: &VertexInfluences) -> usize {
    let k = inf.per_vertex;
    if k <= GPU_MAX_INFLUENCES {
        return 0;
    }
    inf.weights
        .chunks_exact(k)
        .filter(|w| w.iter().filter(|&&w| w > 0.0).count() > GPU_MAX_INFLUENCES)
        .count()
}

/// Reads every influence set `(JOINTS_n, WEIGHTS_n)` accessor pair, merges them to
/// `4 × sets` influences per vertex, checks joint indices against `joint_count` and that no
/// weight is negative, and divides
/// each vertex's weights by their sum (a vertex whose weights sum to zero is bound fully to
/// its first influence, as three.js's `normalizeSkinWeights` does).
pub(crate) fn read_influences(
    doc: &GltfDocument,
    sets: &[(usize, usize)],
    vertex_count: usize,
    joint_count: usize,
    used_by: &str,
) -> Result<VertexInfluences, GltfError> {
    let per_vertex = sets.len() * 4;
    let mut joints = vec![0u32; vertex_count * per_vertex];
    let mut weights = vec![0f32; vertex_count * per_vertex];
    for (s, &(ja, wa)) in sets.iter().enumerate() {
        let j_use = format!("{used_by}.JOINTS_{s}");
        let w_use = format!("{used_by}.WEIGHTS_{s}");
        check_count(doc, ja, &j_use, vertex_count)?;
        check_count(doc, wa, &w_use, vertex_count)?;
        let j = read_u32(
            doc,
            ja,
            &j_use,
            Expect {
                ty: Type::Vec4,
                components: JOINT_INDEX,
            },
        )?;
        let w = read_f32(
            doc,
            wa,
            &w_use,
            Expect {
                ty: Type::Vec4,
                components: UNSIGNED_NORM,
            },
            IntAs::Normalized,
        )?;
        for v in 0..vertex_count {
            for c in 0..4 {
                let joint = j[v * 4 + c];
                if joint as usize >= joint_count {
                    return Err(GltfError::JointOutOfRange {
                        accessor: ja,
                        vertex: v,
                        joint,
                        joint_count,
                    });
                }
                let weight = w[v * 4 + c];
                // glTF 2.0 §3.7.3.3: weights are non-negative. A negative one cannot be
                // repaired by renormalising (it would pull the vertex away from its joint).
                if weight < 0.0 {
                    return Err(GltfError::Invalid {
                        path: w_use,
                        reason: format!(
                            "accessor {wa}: vertex {v} has the negative weight {weight}"
                        ),
                    });
                }
                joints[v * per_vertex + s * 4 + c] = joint;
                weights[v * per_vertex + s * 4 + c] = weight;
            }
        }
    }
    for vw in weights.chunks_exact_mut(per_vertex.max(1)) {
        let sum: f32 = vw.iter().sum();
        if sum > 0.0 && sum.is_finite() {
            for w in vw.iter_mut() {
                *w /= sum;
            }
        } else {
            vw.fill(0.0);
            vw[0] = 1.0;
        }
    }
    Ok(VertexInfluences {
        per_vertex,
        joints,
        weights,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gpu_keeps_the_sixteen_largest_renormalised() {
        // 20 influences: weights 1..=20 on joints 0..20 (sum 210).
        let weights: Vec<f32> = (1..=20).map(|w| w as f32 / 210.0).collect();
        let inf = VertexInfluences {
            per_vertex: 20,
            joints: (0..20).collect(),
            weights,
        };
        let gpu = gpu_influences(&inf);
        assert_eq!(gpu.per_vertex(), 16);
        assert_eq!(gpu.joints0, [19, 18, 17, 16]);
        assert_eq!(gpu.joints1.as_deref(), Some(&[15, 14, 13, 12][..]));
        assert_eq!(gpu.set(2).unwrap().0, [11, 10, 9, 8]);
        assert_eq!(gpu.set(3).unwrap().0, [7, 6, 5, 4]);
        assert!(gpu.set(4).is_none());
        let kept: f32 = (5..=20).map(|w| w as f32).sum();
        assert!((gpu.weights0[0] - 20.0 / kept).abs() < 1e-6);
        let total: f32 = (0..4).flat_map(|s| gpu.set(s).unwrap().1).sum();
        assert!((total - 1.0).abs() < 1e-6);
        assert_eq!(gpu.truncated_vertices, 1);
        assert_eq!(reduced_vertex_count(&inf), 1);
        assert!((gpu.max_dropped_weight - 4.0 / 210.0).abs() < 1e-6);
    }

    #[test]
    fn twelve_influences_are_padded_to_sixteen() {
        let inf = VertexInfluences {
            per_vertex: 12,
            joints: (0..12).collect(),
            weights: vec![1.0 / 12.0; 12],
        };
        let gpu = gpu_influences(&inf);
        assert_eq!(gpu.sets(), 4);
        assert_eq!(gpu.set(2).unwrap().0, [8, 9, 10, 11]);
        assert_eq!(gpu.set(3).unwrap(), (&[0u32; 4][..], &[0.0f32; 4][..]));
        assert_eq!(gpu.truncated_vertices, 0);
        assert_eq!(reduced_vertex_count(&inf), 0);
    }

    #[test]
    fn zero_weights_past_sixteen_are_not_a_reduction() {
        // 20 slots, only 16 of them non-zero: nothing is lost.
        let mut weights = vec![1.0 / 16.0; 16];
        weights.extend([0.0; 4]);
        let inf = VertexInfluences {
            per_vertex: 20,
            joints: (0..20).collect(),
            weights,
        };
        assert_eq!(gpu_influences(&inf).truncated_vertices, 0);
        assert_eq!(reduced_vertex_count(&inf), 0);
    }

    #[test]
    fn four_influences_stay_one_set() {
        let inf = VertexInfluences {
            per_vertex: 4,
            joints: vec![3, 2, 1, 0],
            weights: vec![0.25; 4],
        };
        let gpu = gpu_influences(&inf);
        assert_eq!(gpu.per_vertex(), 4);
        assert_eq!(gpu.joints0, [3, 2, 1, 0]);
        assert!(gpu.joints1.is_none());
        assert_eq!(gpu.truncated_vertices, 0);
    }
}
