//! A loaded asset's skins at rest: the seed's `extractSkin` (joint and mesh world matrices
//! from the rest pose) and `computeBoneTextureData` (the bone matrices uploaded before the
//! first tick). Kept apart from `skin.rs`, which reads skins while the asset is being built:
//! this works on the finished [`GltfAsset`].

use glam::Mat4;
use skel_anim::{AnimationData, PoseScratch, compute_world_matrices, reset_to_rest};

use crate::{GltfAsset, GltfError};

/// What the seed's `extractSkin` returns for one skinned mesh, at rest: everything
/// [`compute_bone_texture_data`] needs.
#[derive(Debug, Clone, PartialEq)]
pub struct SkinData {
    /// Joint node indices, in glTF joint order.
    pub joint_nodes: Vec<usize>,
    /// Inverse bind matrix of every joint (identity when the file has none).
    pub inverse_bind_matrices: Vec<Mat4>,
    /// World matrix of every joint at rest, in the asset's handedness.
    pub joint_world_matrices: Vec<Mat4>,
    /// World matrix of the skinned mesh's node at rest, in the asset's handedness.
    pub mesh_world_matrix: Mat4,
}

/// World matrices of every node at rest, by node index, in `data`'s handedness.
///
/// # Errors
/// What [`AnimationData::validate`] finds.
pub fn rest_world_matrices(data: &AnimationData) -> Result<Vec<Mat4>, GltfError> {
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
    let joint_world_matrices = info.joints.iter().map(|&j| world[j]).collect();
    let mesh_world_matrix = world[mesh_node];
    let inverse_bind_matrices = (0..info.joints.len())
        .map(|i| {
            info.inverse_bind_matrices
                .get(i * 16..i * 16 + 16)
                .map_or(Mat4::IDENTITY, Mat4::from_cols_slice)
        })
        .collect();
    Ok(SkinData {
        joint_nodes: info.joints.clone(),
        inverse_bind_matrices,
        joint_world_matrices,
        mesh_world_matrix,
    })
}

/// The seed's `computeBoneTextureData`: rest-pose bone matrices, one per joint,
/// `bone[i] = invMeshWorld · jointWorld[i] · inverseBind[i]` — the same product the
/// controller computes every frame, so the first frame uploaded before any tick is already
/// right. A singular mesh world matrix counts as the identity (as in the controller).
/// Missing or short matrix arrays count as identity matrices, so this never panics.
#[doc(alias = "computeBoneTextureData")]
#[must_use]
pub fn compute_bone_texture_data(skin: &SkinData) -> Vec<Mat4> {
    let mesh_world = skin.mesh_world_matrix;
    let det = mesh_world.determinant();
    let inv_mesh = if det != 0.0 && det.is_finite() {
        mesh_world.inverse()
    } else {
        Mat4::IDENTITY
    };
    let mat = |v: &[Mat4], i: usize| v.get(i).copied().unwrap_or(Mat4::IDENTITY);
    (0..skin.joint_nodes.len())
        .map(|i| {
            inv_mesh * mat(&skin.joint_world_matrices, i) * mat(&skin.inverse_bind_matrices, i)
        })
        .collect()
}
