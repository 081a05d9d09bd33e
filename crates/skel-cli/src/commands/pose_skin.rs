//! Skinning a player's pose on the CPU as the reference poser does (`skel::gltf::CpuPoser`):
//! `jointWorld · inverseBind` per joint, every vertex after morph targets and skinning (rigid
//! primitives placed by their node). For the poses `skel pose` makes with its own player
//! (`--graph`, `--terrain`), which `CpuPoser` does not drive.

use skel::anim::glam::{Mat4, Vec3};
use skel::anim::skin_vertices;
use skel::gltf::GltfAsset;

/// The skinned results of the last pose, sized once for one asset.
#[derive(Debug, Clone)]
pub struct Skinned {
    skins: Vec<Vec<Mat4>>,
    positions: Vec<Vec<Vec3>>,
    /// Mesh-space morphed positions (scratch for rigid primitives).
    morphed: Vec<f32>,
}

impl Skinned {
    /// Buffers for every skin and primitive of `asset`.
    #[must_use]
    pub fn new(asset: &GltfAsset) -> Self {
        Self {
            skins: asset
                .skins
                .iter()
                .map(|s| vec![Mat4::IDENTITY; s.joints.len()])
                .collect(),
            positions: asset
                .primitives
                .iter()
                .map(|p| vec![Vec3::ZERO; p.positions.len() / 3])
                .collect(),
            morphed: vec![
                0.0;
                asset
                    .primitives
                    .iter()
                    .map(|p| p.positions.len())
                    .max()
                    .unwrap_or(0)
            ],
        }
    }

    /// Skins every primitive of `asset` with the node world matrices `world` and the morph
    /// weights `morph_weights` (by binding) of a pose.
    ///
    /// # Errors
    /// What [`skin_vertices`] finds (a stream of the wrong length).
    pub fn skin(
        &mut self,
        asset: &GltfAsset,
        world: &[Mat4],
        morph_weights: &[Vec<f32>],
    ) -> Result<(), Box<dyn std::error::Error>> {
        for (skin, out) in asset.skins.iter().zip(&mut self.skins) {
            for (i, (&j, m)) in skin.joints.iter().zip(out.iter_mut()).enumerate() {
                let ibm = &skin.inverse_bind_matrices[i * 16..i * 16 + 16];
                *m = world[j] * Mat4::from_cols_slice(ibm);
            }
        }
        for (pi, prim) in asset.primitives.iter().enumerate() {
            let morph = match (&prim.morph_targets, prim.morph_binding) {
                (Some(targets), Some(b)) => morph_weights.get(b).map(|w| (targets, w.as_slice())),
                _ => None,
            };
            let out: &mut [f32] = bytemuck::cast_slice_mut(self.positions[pi].as_mut_slice());
            match (&prim.influences, prim.skin) {
                (Some(influences), Some(skin)) => {
                    let bones = &self.skins[skin];
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
                    let node_world = world[prim.node];
                    for (src, dst) in morphed.chunks_exact(3).zip(out.chunks_exact_mut(3)) {
                        let p = node_world.transform_point3(Vec3::from_slice(src));
                        dst.copy_from_slice(&p.to_array());
                    }
                }
            }
        }
        Ok(())
    }

    /// `jointWorld · inverseBind` of skin `skin` from the last pose.
    #[must_use]
    pub fn skin_matrices(&self, skin: usize) -> Option<&[Mat4]> {
        self.skins.get(skin).map(Vec::as_slice)
    }

    /// World positions of primitive `primitive`'s vertices from the last pose.
    #[must_use]
    pub fn positions(&self, primitive: usize) -> Option<&[Vec3]> {
        self.positions.get(primitive).map(Vec::as_slice)
    }
}
