//! Skin influences: every JOINTS_n/WEIGHTS_n set of a primitive merged per vertex, weights
//! renormalised; and the GPU's view of them (at most 8 per vertex).

use gltf::json::accessor::Type;
use skel_anim::VertexInfluences;

use crate::accessor::{Expect, IntAs, JOINT_INDEX, UNSIGNED_NORM, read_f32, read_u32};
use crate::{GltfDocument, GltfError};

/// Influences per vertex the GPU path reads: JOINTS_0/WEIGHTS_0 and JOINTS_1/WEIGHTS_1.
pub const GPU_MAX_INFLUENCES: usize = 8;

/// A primitive's influences laid out for the GPU (the seed's `createSkeleton` inputs): four
/// per vertex in set 0, four more in set 1 when the primitive needs more than four.
///
/// A primitive with more than [`GPU_MAX_INFLUENCES`] influence slots per vertex keeps, per
/// vertex, the 8 largest weights renormalised to sum to 1; the CPU path
/// ([`skel_anim::skin_vertices`]) uses them all. `truncated_vertices` and
/// `max_dropped_weight` say how much that changed.
#[derive(Debug, Clone, PartialEq, Default)]
#[non_exhaustive]
pub struct GpuInfluences {
    /// 4 joint indices per vertex (JOINTS_0), widened to `u32` for `Uint32x4`.
    pub joints0: Vec<u32>,
    /// 4 weights per vertex (WEIGHTS_0), `Float32x4`.
    pub weights0: Vec<f32>,
    /// 4 more joint indices per vertex (JOINTS_1), for 8-influence skinning.
    pub joints1: Option<Vec<u32>>,
    /// 4 more weights per vertex (WEIGHTS_1).
    pub weights1: Option<Vec<f32>>,
    /// Vertices that lost a non-zero weight to the 8-influence limit.
    pub truncated_vertices: usize,
    /// The largest (renormalised) weight dropped from any vertex.
    pub max_dropped_weight: f32,
}

impl GpuInfluences {
    /// Influences per vertex: 4 or 8.
    #[must_use]
    pub fn per_vertex(&self) -> usize {
        if self.joints1.is_some() { 8 } else { 4 }
    }
}

/// Splits CPU influences into the GPU's one or two sets of four.
#[must_use]
pub(crate) fn gpu_influences(inf: &VertexInfluences) -> GpuInfluences {
    let k = inf.per_vertex;
    let n = inf.vertex_count();
    let eight = k > 4;
    let mut out = GpuInfluences {
        joints0: Vec::with_capacity(n * 4),
        weights0: Vec::with_capacity(n * 4),
        joints1: eight.then(|| Vec::with_capacity(n * 4)),
        weights1: eight.then(|| Vec::with_capacity(n * 4)),
        truncated_vertices: 0,
        max_dropped_weight: 0.0,
    };
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
                out.truncated_vertices += 1;
                out.max_dropped_weight = out.max_dropped_weight.max(dropped);
            }
            let scale = if kept > 0.0 { 1.0 / kept } else { 1.0 };
            for (slot, &i) in picked.iter_mut().zip(&order[..GPU_MAX_INFLUENCES]) {
                *slot = (joints[i], weights[i] * scale);
            }
        }
        for (i, &(j, w)) in picked.iter().enumerate() {
            match (i < 4, &mut out.joints1, &mut out.weights1) {
                (true, _, _) => {
                    out.joints0.push(j);
                    out.weights0.push(w);
                }
                (false, Some(j1), Some(w1)) => {
                    j1.push(j);
                    w1.push(w);
                }
                _ => {}
            }
        }
    }
    out
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
        crate::mesh::check_count(doc, ja, &j_use, vertex_count)?;
        crate::mesh::check_count(doc, wa, &w_use, vertex_count)?;
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
    fn gpu_keeps_the_eight_largest_renormalised() {
        // 12 influences: weights 1..=12 on joints 0..12 (sum 78).
        let weights: Vec<f32> = (1..=12).map(|w| w as f32 / 78.0).collect();
        let inf = VertexInfluences {
            per_vertex: 12,
            joints: (0..12).collect(),
            weights,
        };
        let gpu = gpu_influences(&inf);
        assert_eq!(gpu.per_vertex(), 8);
        assert_eq!(gpu.joints0, [11, 10, 9, 8]);
        assert_eq!(gpu.joints1.as_deref(), Some(&[7, 6, 5, 4][..]));
        let kept: f32 = (5..=12).map(|w| w as f32).sum();
        assert!((gpu.weights0[0] - 12.0 / kept).abs() < 1e-6);
        let total: f32 = gpu
            .weights0
            .iter()
            .chain(gpu.weights1.iter().flatten())
            .sum();
        assert!((total - 1.0).abs() < 1e-6);
        assert_eq!(gpu.truncated_vertices, 1);
        assert!((gpu.max_dropped_weight - 4.0 / 78.0).abs() < 1e-6);
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
