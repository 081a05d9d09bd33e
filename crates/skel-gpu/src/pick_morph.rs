//! Morph targets in GPU picking: each morphing vertex's position deltas packed after the
//! character's vertices in the pick's vertex buffer, so that the triangle passes morph a
//! vertex with its instance's weights before skinning it (glTF 2.0 §3.7.2.2: morph, then
//! skin), as the CPU reference (`skel_anim::skin_vertices`) does.
//!
//! Layout (16 bytes a record, after the `1 + 2 · sets` records of every vertex): for each
//! morphing vertex, a head `(targets, first weight, 0, 0)` then one record per target with the
//! delta's bits in `xyz`. The vertex's own position record keeps the head's index in `w`
//! (0: the vertex does not morph; the head always follows at least one vertex record).
//! Deltas take a record a target a vertex: a pick's buffers are made once per character,
//! not per instance.

use crate::GpuError;

/// One primitive's morph targets for picking.
#[derive(Debug, Clone, Copy)]
pub struct PickMorph<'a> {
    /// Position deltas, 3 floats a vertex a target, target-major (target `t`'s delta of vertex
    /// `v` at `(t · n + v) · 3`, as `skel_anim::MorphTargets::positions`).
    pub deltas: &'a [f32],
    /// Targets.
    pub targets: u32,
    /// The primitive's first weight within an instance's weights
    /// ([`CrowdPickDescriptor::morph_weights`](crate::CrowdPickDescriptor::morph_weights)).
    pub first_weight: u32,
}

/// Checks `morph` against a primitive of `n` vertices and returns its records: per vertex,
/// the head then the deltas.
pub(crate) fn morph_records(morph: &PickMorph<'_>, n: usize) -> Result<Vec<[u32; 4]>, GpuError> {
    let targets = morph.targets as usize;
    let expected = targets.saturating_mul(n).saturating_mul(3);
    if morph.deltas.len() != expected {
        return Err(GpuError::LengthMismatch {
            what: "pick primitive morph deltas (3 per vertex per target)",
            expected,
            got: morph.deltas.len(),
        });
    }
    if let Some(index) = morph.deltas.iter().position(|v| !v.is_finite()) {
        return Err(GpuError::NotFinite {
            what: "pick primitive morph deltas",
            index,
        });
    }
    let mut records = Vec::with_capacity(n * (1 + targets));
    for v in 0..n {
        records.push([morph.targets, morph.first_weight, 0, 0]);
        for t in 0..targets {
            let at = (t * n + v) * 3;
            let d = &morph.deltas[at..at + 3];
            records.push([d[0].to_bits(), d[1].to_bits(), d[2].to_bits(), 0]);
        }
    }
    Ok(records)
}
