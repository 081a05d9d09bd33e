//! The CPU side of the crowd tests: the influences the GPU gets, and what an instance's morph
//! weights make of a primitive's rest vertices.

use skel::anim::skin_vertices;
use skel::gltf::PrimitiveData;
use skel::{AssetContainer, Crowd, CrowdMesh};

/// A read-back buffer's bytes as `f32`s.
pub fn floats(bytes: &[u8]) -> Vec<f32> {
    bytemuck::pod_collect_to_vec(bytes)
}

/// The morph weights crowd compute skinning morphs `cm` of `instance` with: its player's,
/// when the mesh morphs (`None` otherwise; the vertex-shader fragment never morphs).
pub fn instance_weights<'a>(
    asset: &AssetContainer,
    crowd: &'a Crowd,
    cm: &CrowdMesh,
    instance: usize,
) -> Option<&'a [f32]> {
    if !cm.morph {
        return None;
    }
    let binding = asset.meshes[cm.mesh].morph.as_ref()?.binding;
    crowd.players[instance].morph_weights(binding)
}

/// Primitive `p`'s rest positions and normals morphed with `weights` (`p + Σ w_t Δp_t`,
/// normals likewise and renormalised, by `skin_vertices` without influences), or as they are.
pub fn morphed(p: &PrimitiveData, weights: Option<&[f32]>) -> (Vec<f32>, Option<Vec<f32>>) {
    let (Some(w), Some(targets)) = (weights, p.morph_targets.as_ref()) else {
        return (p.positions.clone(), p.normals.clone());
    };
    let mut positions = vec![0.0; p.positions.len()];
    let mut normals = p.normals.clone();
    skin_vertices(
        &p.positions,
        p.normals.as_deref(),
        None,
        &[],
        Some((targets, w)),
        &mut positions,
        normals.as_deref_mut(),
    )
    .unwrap();
    (positions, normals)
}
