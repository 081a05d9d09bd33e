//! Morph weights: skel's sampled weights written to the `MorphWeights` that bevy's glTF
//! loader puts on each mesh node with morph targets (its primitives read them through
//! `MeshMorphWeights::Reference`).

use bevy::mesh::morph::MorphWeights;
use bevy::prelude::*;

use crate::SkelPlayer;

/// A mesh node whose `MorphWeights` a [`SkelPlayer`] drives: which character, and which of
/// skel's morph bindings (`AnimationData::morph_bindings`, one per mesh node with targets).
/// Inserted when the character binds, on every such node found under its scene.
#[derive(Component, Debug, Clone, Copy, PartialEq, Eq)]
pub struct SkelMorph {
    /// The character entity holding the [`SkelPlayer`].
    pub character: Entity,
    /// skel's morph binding index.
    pub binding: usize,
}

/// Copies each driven mesh node's weights from its character's last pose (as many as both
/// have), only where they changed, so that change detection skips still faces. Parallel
/// across meshes; allocates nothing.
pub(crate) fn write_morph_weights(
    players: Query<&SkelPlayer>,
    mut meshes: Query<(&SkelMorph, &mut MorphWeights)>,
) {
    meshes.par_iter_mut().for_each(|(morph, mut weights)| {
        let posed = players
            .get(morph.character)
            .ok()
            .and_then(SkelPlayer::player)
            .and_then(|p| p.morph_weights(morph.binding));
        let Some(posed) = posed else {
            return;
        };
        let n = posed.len().min(weights.weights().len());
        if weights.weights()[..n] != posed[..n] {
            weights.weights_mut()[..n].copy_from_slice(&posed[..n]);
        }
    });
}
