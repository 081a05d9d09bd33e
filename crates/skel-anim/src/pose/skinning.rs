//! CPU reference skinning: the oracle for GPU tests, and positions for picking and bounds.

use glam::{Mat4, Vec3};
use skel_math::load_mat4;

use crate::AnimError;

/// Joint indices and weights of every vertex, `per_vertex` influences each (4 per glTF
/// JOINTS_n/WEIGHTS_n set: 4, 8, 12 …). Joint indices index the bone matrices.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct VertexInfluences {
    /// Influences per vertex (a multiple of 4).
    pub per_vertex: usize,
    /// `per_vertex` joint indices per vertex.
    pub joints: Vec<u32>,
    /// `per_vertex` weights per vertex.
    pub weights: Vec<f32>,
}

impl VertexInfluences {
    /// Number of vertices described.
    #[must_use]
    pub fn vertex_count(&self) -> usize {
        self.joints.len().checked_div(self.per_vertex).unwrap_or(0)
    }
}

/// Morph target deltas, target-major: target `t`, vertex `v` at `(t * vertex_count + v) * 3`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct MorphTargets {
    /// Number of targets.
    pub target_count: usize,
    /// Position deltas, 3 floats per vertex per target.
    pub positions: Vec<f32>,
    /// Normal deltas (empty when the targets have none).
    pub normals: Vec<f32>,
}

/// Skins `positions` (and `normals`, when given) into the `out_*` buffers, 3 floats per vertex:
/// morph target deltas first (weighted by `morph_weights`), then
/// `Σ w_k · bone[j_k]` over every influence (glTF 2.0 §3.7.3). Normals go through the same
/// matrix's upper 3×3 and are renormalised. Without influences, positions are only morphed.
///
/// # Errors
/// [`AnimError::LengthMismatch`] when a buffer's length disagrees with the vertex count, or a
/// joint index has no bone matrix.
pub fn skin_vertices(
    positions: &[f32],
    normals: Option<&[f32]>,
    influences: Option<&VertexInfluences>,
    bone_matrices: &[f32],
    morph: Option<(&MorphTargets, &[f32])>,
    out_positions: &mut [f32],
    mut out_normals: Option<&mut [f32]>,
) -> Result<(), AnimError> {
    let n = positions.len() / 3;
    let check = |what, expected: usize, got: usize| {
        if expected == got {
            Ok(())
        } else {
            Err(AnimError::LengthMismatch {
                what,
                expected,
                got,
            })
        }
    };
    check("positions", n * 3, positions.len())?;
    check("out_positions", n * 3, out_positions.len())?;
    if let Some(nr) = normals {
        check("normals", n * 3, nr.len())?;
    }
    if let Some(on) = out_normals.as_deref() {
        check("out_normals", n * 3, on.len())?;
    }
    if let Some(inf) = influences {
        check(
            "influence joints",
            n.saturating_mul(inf.per_vertex),
            inf.joints.len(),
        )?;
        check(
            "influence weights",
            n.saturating_mul(inf.per_vertex),
            inf.weights.len(),
        )?;
        let bones = bone_matrices.len() / 16;
        if let Some(&bad) = inf.joints.iter().find(|&&j| j as usize >= bones) {
            return Err(AnimError::LengthMismatch {
                what: "bone matrices for joint index",
                expected: (bad as usize + 1) * 16,
                got: bone_matrices.len(),
            });
        }
    }
    if let Some((targets, weights)) = morph {
        check("morph weights", targets.target_count, weights.len())?;
        check(
            "morph position deltas",
            targets.target_count.saturating_mul(n).saturating_mul(3),
            targets.positions.len(),
        )?;
        if !targets.normals.is_empty() {
            check(
                "morph normal deltas",
                targets.target_count.saturating_mul(n).saturating_mul(3),
                targets.normals.len(),
            )?;
        }
    }

    for v in 0..n {
        let mut p = Vec3::from_slice(&positions[v * 3..v * 3 + 3]);
        let mut nrm = normals.map(|nr| Vec3::from_slice(&nr[v * 3..v * 3 + 3]));
        if let Some((targets, weights)) = morph {
            for (t, &w) in weights.iter().enumerate() {
                if w == 0.0 {
                    continue;
                }
                let at = (t * n + v) * 3;
                p += w * Vec3::from_slice(&targets.positions[at..at + 3]);
                if let (Some(nv), false) = (nrm.as_mut(), targets.normals.is_empty()) {
                    *nv += w * Vec3::from_slice(&targets.normals[at..at + 3]);
                }
            }
        }
        let skin = influences.map(|inf| {
            let k = inf.per_vertex;
            let mut m = Mat4::ZERO;
            for i in v * k..v * k + k {
                let w = inf.weights[i];
                if w != 0.0 {
                    m += load_mat4(bone_matrices, inf.joints[i] as usize * 16) * w;
                }
            }
            m
        });
        let (p, nrm) = match skin {
            Some(m) => (
                m.transform_point3(p),
                nrm.map(|x| m.transform_vector3(x).normalize_or_zero()),
            ),
            None => (p, nrm.map(Vec3::normalize_or_zero)),
        };
        out_positions[v * 3..v * 3 + 3].copy_from_slice(&p.to_array());
        if let (Some(on), Some(x)) = (out_normals.as_deref_mut(), nrm) {
            on[v * 3..v * 3 + 3].copy_from_slice(&x.to_array());
        }
    }
    Ok(())
}
