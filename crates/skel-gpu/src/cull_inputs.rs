//! What [`CrowdCull`](crate::CrowdCull) needs from a loaded asset: one [`CullBone`] per skin
//! joint, in the order a crowd's bone buffer holds them (the skeleton bindings in order, each
//! binding's joints in order), and one [`CullPart`] per bounding sphere (what
//! `skel_gltf::CharacterBounds::parts` lists), pointing at the bone of its joint.

use glam::{Mat4, Vec3};
use skel_anim::{AnimError, AnimationData, PoseScratch, compute_world_matrices, reset_to_rest};

use crate::GpuError;

/// The culling pass's parts and bones for one character (see the module docs).
///
/// ```no_run
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// use skel_gltf::{CharacterBounds, LoadOptions, load_path};
/// use skel_gpu::CullInputs;
///
/// let asset = load_path("CesiumMan.glb".as_ref(), &LoadOptions::default())?;
/// let inputs = CullInputs::new(&asset.animation, CharacterBounds::new(&asset).parts())?;
/// // CrowdCullDescriptor { parts: &inputs.parts, bones: &inputs.bones, .. }
/// # Ok(()) }
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CullInputs {
    /// One per sphere whose joint is a joint of a skeleton binding (a sphere of any other node
    /// is left out: no bone moves it in the crowd).
    pub parts: Vec<CullPart>,
    /// One per bone of an instance: the mesh node's rest world matrix and the bind matrix.
    pub bones: Vec<CullBone>,
}

impl CullInputs {
    /// The parts and bones of `animation`'s skeleton bindings and of `spheres` (node, centre
    /// and radius in the node's frame: `CharacterBounds::parts()` of the same asset).
    ///
    /// # Errors
    /// What [`PoseScratch::new`] finds wrong with `animation` (a hierarchy that does not
    /// validate).
    pub fn new(
        animation: &AnimationData,
        spheres: impl IntoIterator<Item = (usize, Vec3, f32)>,
    ) -> Result<Self, AnimError> {
        // The mesh nodes' world matrices at rest.
        let mut scratch = PoseScratch::new(animation)?;
        reset_to_rest(animation, &mut scratch);
        compute_world_matrices(animation, &mut scratch);
        let rest = scratch.world;
        let mut bones = Vec::new();
        let mut nodes = Vec::new();
        for binding in &animation.skeletons {
            let mesh = rest
                .get(binding.mesh_node)
                .copied()
                .unwrap_or(Mat4::IDENTITY);
            for (j, &node) in binding.joints.iter().enumerate() {
                let inverse_bind = binding
                    .inverse_bind_matrices
                    .get(j * 16..j * 16 + 16)
                    .map_or(Mat4::IDENTITY, Mat4::from_cols_slice);
                bones.push(CullBone::new(mesh, inverse_bind));
                nodes.push(node);
            }
        }
        let parts = spheres
            .into_iter()
            .filter_map(|(node, center, radius)| {
                let bone = nodes.iter().position(|&n| n == node)?;
                Some(CullPart {
                    bone: u32::try_from(bone).ok()?,
                    center,
                    radius,
                })
            })
            .collect();
        Ok(Self { parts, bones })
    }
}

/// One bounding sphere of the character, in the frame of the joint whose bone moves it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CullPart {
    /// The bone (index within an instance's bones) whose skinning matrix places the sphere.
    pub bone: u32,
    /// The centre, in the joint's frame.
    pub center: Vec3,
    /// The radius, in the joint's frame (≥ 0).
    pub radius: f32,
}

/// How one bone's skinning matrix `S` becomes its joint's matrix in the character's frame:
/// `left · S · right` (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CullBone {
    /// The world matrix of the skinned mesh's node at rest (undoes the mesh inverse the pose
    /// folds into `S`; the identity for a mesh at the scene's origin).
    pub left: Mat4,
    /// The bind matrix: the inverse of the bone's inverse bind matrix.
    pub right: Mat4,
}

impl CullBone {
    /// The bone of a skin whose mesh node's rest world matrix is `mesh_world` and whose inverse
    /// bind matrix is `inverse_bind` (inverted here, in f64).
    #[must_use]
    pub fn new(mesh_world: Mat4, inverse_bind: Mat4) -> Self {
        Self {
            left: mesh_world,
            right: inverse_bind.as_dmat4().inverse().as_mat4(),
        }
    }
}

/// Fails on a part whose bone is past `bones`, or whose centre or radius is not finite or
/// whose radius is negative.
pub(crate) fn check_parts(parts: &[CullPart], bones: u32) -> Result<(), GpuError> {
    for (index, part) in parts.iter().enumerate() {
        if part.bone >= bones {
            return Err(GpuError::OutOfRange {
                what: "cull part bone",
                got: part.bone.to_string(),
                expected: "below the crowd's bones per instance",
            });
        }
        if !(part.center.is_finite() && part.radius.is_finite() && part.radius >= 0.0) {
            return Err(GpuError::NotFinite {
                what: "cull parts (finite centre, radius ≥ 0)",
                index,
            });
        }
    }
    Ok(())
}
