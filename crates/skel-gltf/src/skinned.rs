//! A pose's skinned geometry on the CPU: `jointWorld · inverseBind` per joint and the world
//! position of every vertex after morph targets and skinning (rigid primitives placed by their
//! node). [`CpuPoser`](crate::CpuPoser) fills one from its own poses; a program posing with its
//! own player (a graph, foot placement) fills one from that player's world matrices and morph
//! weights.

use skel_anim::glam::{Mat4, Vec3};
use skel_anim::skin_vertices;
use skel_math::load_mat4;

use crate::{GltfAsset, GltfError};

/// The skinned results of the last pose of one asset, sized once for it.
///
/// ```
/// use skel_gltf::{LoadOptions, SkinnedPose, load_slice, rest_world_matrices};
///
/// # let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../skel/assets/default_character.glb");
/// # let glb = std::fs::read(path).unwrap();
/// // `glb`: a .glb file's bytes (here skel's built-in character).
/// let asset = load_slice(&glb, None, &LoadOptions::default())?;
/// let mut skinned = SkinnedPose::new(&asset);
/// // The rest pose, with the morph targets at their default weights.
/// let rest = rest_world_matrices(&asset.animation)?;
/// let weights: Vec<Vec<f32>> = asset
///     .animation
///     .morph_bindings
///     .iter()
///     .map(|b| b.default_weights.clone())
///     .collect();
/// skinned.skin(&asset, &rest, &weights)?;
/// let vertices = asset.primitives[0].positions.len() / 3;
/// assert_eq!(skinned.positions(0).map(<[_]>::len), Some(vertices));
/// # Ok::<(), skel_gltf::GltfError>(())
/// ```
#[derive(Debug, Clone)]
pub struct SkinnedPose {
    /// `jointWorld · inverseBind` per skin, one per joint.
    skin_matrices: Vec<Vec<Mat4>>,
    /// World position of every vertex, per primitive (x, y, z).
    positions: Vec<Vec<f32>>,
    /// Mesh-space morphed positions (scratch for rigid primitives).
    morphed: Vec<f32>,
}

impl SkinnedPose {
    /// Buffers for every skin and primitive of `asset`. Allocates; [`skin`](Self::skin) does
    /// not.
    #[must_use]
    pub fn new(asset: &GltfAsset) -> Self {
        let largest = asset
            .primitives
            .iter()
            .map(|p| p.positions.len())
            .max()
            .unwrap_or(0);
        Self {
            skin_matrices: asset
                .skins
                .iter()
                .map(|s| vec![Mat4::ZERO; s.joints.len()])
                .collect(),
            positions: asset
                .primitives
                .iter()
                .map(|p| vec![0.0; p.positions.len()])
                .collect(),
            morphed: vec![0.0; largest],
        }
    }

    /// Skins every primitive of `asset` (the asset these buffers were made for) with a pose's
    /// node world matrices `world` and morph weights `morph_weights` (by binding).
    ///
    /// # Errors
    /// [`GltfError::Anim`] when a stream's length disagrees (another asset's pose).
    pub fn skin(
        &mut self,
        asset: &GltfAsset,
        world: &[Mat4],
        morph_weights: &[Vec<f32>],
    ) -> Result<(), GltfError> {
        for (skin, out) in asset.skins.iter().zip(self.skin_matrices.iter_mut()) {
            for (i, (&j, m)) in skin.joints.iter().zip(out.iter_mut()).enumerate() {
                *m = world.get(j).copied().unwrap_or(Mat4::IDENTITY)
                    * load_mat4(&skin.inverse_bind_matrices, i * 16);
            }
        }
        for (pi, prim) in asset.primitives.iter().enumerate() {
            let morph = match (&prim.morph_targets, prim.morph_binding) {
                (Some(targets), Some(b)) => morph_weights.get(b).map(|w| (targets, w.as_slice())),
                _ => None,
            };
            let Some(out) = self.positions.get_mut(pi) else {
                continue;
            };
            match (&prim.influences, prim.skin) {
                (Some(influences), Some(skin)) => {
                    let bones = self.skin_matrices.get(skin).map_or(&[][..], Vec::as_slice);
                    skin_vertices(
                        &prim.positions,
                        None,
                        Some(influences),
                        bones,
                        morph,
                        out,
                        None,
                    )?;
                }
                _ => {
                    let morphed = &mut self.morphed[..prim.positions.len()];
                    skin_vertices(&prim.positions, None, None, &[], morph, morphed, None)?;
                    let node_world = world.get(prim.node).copied().unwrap_or(Mat4::IDENTITY);
                    for (src, dst) in morphed.chunks_exact(3).zip(out.chunks_exact_mut(3)) {
                        let p = node_world.transform_point3(Vec3::from_slice(src));
                        dst.copy_from_slice(&p.to_array());
                    }
                }
            }
        }
        Ok(())
    }

    /// `jointWorld · inverseBind` of every joint of skin `skin` from the last pose.
    #[must_use]
    pub fn skin_matrices(&self, skin: usize) -> Option<&[Mat4]> {
        self.skin_matrices.get(skin).map(Vec::as_slice)
    }

    /// World position of every vertex of primitive `primitive` (index into
    /// [`GltfAsset::primitives`]) from the last pose.
    #[must_use]
    pub fn positions(&self, primitive: usize) -> Option<&[Vec3]> {
        self.positions
            .get(primitive)
            .map(|p| bytemuck::cast_slice(p.as_slice()))
    }
}
