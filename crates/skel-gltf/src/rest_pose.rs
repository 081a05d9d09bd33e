//! A loaded asset's skins at rest: the seed's `extractSkin` (joint and mesh world matrices
//! from the rest pose) and `computeBoneTextureData` (the bone matrices uploaded before the
//! first tick). Kept apart from `skin.rs`, which reads skins while the asset is being built:
//! this works on the finished [`GltfAsset`].

use skel_anim::{AnimationData, PoseScratch, compute_world_matrices, reset_to_rest};
use skel_math::{load_mat4, store_mat4};

use crate::{GltfAsset, GltfError};

/// What the seed's `extractSkin` returns for one skinned mesh, at rest: everything
/// [`compute_bone_texture_data`] needs.
#[derive(Debug, Clone, PartialEq)]
pub struct SkinData {
    /// Joint node indices, in glTF joint order.
    pub joint_nodes: Vec<usize>,
    /// 16 floats per joint, column-major (identity when the file has none).
    pub inverse_bind_matrices: Vec<f32>,
    /// World matrix of every joint at rest, 16 floats each, in the asset's handedness.
    pub joint_world_matrices: Vec<f32>,
    /// World matrix of the skinned mesh's node at rest, in the asset's handedness.
    pub mesh_world_matrix: [f32; 16],
}

/// World matrices of every node at rest, 16 floats each, in `data`'s handedness.
///
/// # Errors
/// What [`AnimationData::validate`] finds.
pub fn rest_world_matrices(data: &AnimationData) -> Result<Vec<f32>, GltfError> {
    let mut scratch = PoseScratch::new(data)?;
    reset_to_rest(data, &mut scratch);
    compute_world_matrices(data, &mut scratch);
    Ok(scratch.world)
}

/// The seed's `extractSkin`: joint nodes, inverse bind matrices, and the rest-pose world
/// matrices of the joints and of the skinned mesh's node (`mesh_node`), in the asset's
/// handedness.
///
/// # Errors
/// [`GltfError::BadReference`] when `skin` or `mesh_node` does not exist,
/// [`GltfError::NoMesh`] when `mesh_node` holds no mesh.
#[doc(alias = "extractSkin")]
pub fn extract_skin(
    asset: &GltfAsset,
    skin: usize,
    mesh_node: usize,
) -> Result<SkinData, GltfError> {
    let info = asset
        .skins
        .get(skin)
        .ok_or_else(|| GltfError::BadReference {
            used_by: "extract_skin".into(),
            kind: "skin",
            index: skin,
            count: asset.skins.len(),
        })?;
    let node = asset
        .nodes
        .get(mesh_node)
        .ok_or_else(|| GltfError::BadReference {
            used_by: "extract_skin".into(),
            kind: "node",
            index: mesh_node,
            count: asset.nodes.len(),
        })?;
    if node.mesh.is_none() {
        return Err(GltfError::NoMesh { node: mesh_node });
    }
    let world = rest_world_matrices(&asset.animation)?;
    let mut joint_world_matrices = vec![0.0; info.joints.len() * 16];
    for (i, &j) in info.joints.iter().enumerate() {
        joint_world_matrices[i * 16..i * 16 + 16].copy_from_slice(&world[j * 16..j * 16 + 16]);
    }
    let mut mesh_world_matrix = [0.0; 16];
    mesh_world_matrix.copy_from_slice(&world[mesh_node * 16..mesh_node * 16 + 16]);
    Ok(SkinData {
        joint_nodes: info.joints.clone(),
        inverse_bind_matrices: info.inverse_bind_matrices.clone(),
        joint_world_matrices,
        mesh_world_matrix,
    })
}

/// The seed's `computeBoneTextureData`: rest-pose bone matrices, 16 floats per bone,
/// `bone[i] = invMeshWorld · jointWorld[i] · inverseBind[i]` — the same product the
/// controller computes every frame, so the first frame uploaded before any tick is already
/// right. A singular mesh world matrix counts as the identity (as in the controller).
/// Missing or short matrix arrays count as identity matrices, so this never panics.
#[doc(alias = "computeBoneTextureData")]
#[must_use]
pub fn compute_bone_texture_data(skin: &SkinData) -> Vec<f32> {
    let mesh_world = load_mat4(&skin.mesh_world_matrix, 0);
    let det = mesh_world.determinant();
    let inv_mesh = if det != 0.0 && det.is_finite() {
        mesh_world.inverse()
    } else {
        glam::Mat4::IDENTITY
    };
    let mat = |v: &[f32], i: usize| {
        if v.len() >= i * 16 + 16 {
            load_mat4(v, i * 16)
        } else {
            glam::Mat4::IDENTITY
        }
    };
    let mut out = vec![0.0; skin.joint_nodes.len() * 16];
    for i in 0..skin.joint_nodes.len() {
        let bone =
            inv_mesh * mat(&skin.joint_world_matrices, i) * mat(&skin.inverse_bind_matrices, i);
        store_mat4(&mut out, i * 16, &bone);
    }
    out
}
