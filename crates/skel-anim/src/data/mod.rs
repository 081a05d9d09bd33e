//! The animation data of one asset: nodes at rest, clips, skeleton and morph bindings.

pub(crate) mod clip;
pub(crate) mod hierarchy;
pub(crate) mod property;
pub(crate) mod sampler;
pub(crate) mod stored_keys;

use crate::{AnimError, ChannelPath, Clip, NodeRest, Sampler};

/// "No parent" / "no binding" in the plan's `u32` links.
pub(crate) const NONE: u32 = u32::MAX;

/// Floats per node in the TRS scratch buffer: translation, rotation, scale, padding.
pub const TRS_STRIDE: usize = 12;
/// Offset of the translation (3 floats) within a node's TRS record.
pub const T_OFF: usize = 0;
/// Offset of the rotation quaternion `[x, y, z, w]` within a node's TRS record.
pub const R_OFF: usize = 3;
/// Offset of the scale (3 floats) within a node's TRS record.
pub const S_OFF: usize = 7;

/// Which way the world is handed. glTF is right-handed; the seed engine (and Babylon.js) is
/// left-handed and mirrors x on every root node with [`skel_math::RH_TO_LH`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Handedness {
    /// Left-handed: roots get `diag(-1, 1, 1, 1)` pre-multiplied (the default, the seed's).
    #[default]
    LeftHanded,
    /// glTF's own right-handed space: no reflection.
    RightHanded,
}

/// One skinned mesh's view of a skin: which nodes are its joints and how to bring vertices from
/// bind space to each joint. `bone[i] = invMeshWorld · world[joints[i]] · inverse_bind[i]`.
#[derive(Debug, Clone, PartialEq)]
pub struct SkeletonBinding {
    /// Index of the glTF skin this binding uses (several meshes may share one skin).
    pub skin: usize,
    /// The node holding the skinned mesh.
    pub mesh_node: usize,
    /// Joint node indices, in glTF joint order (the bone index is the position here).
    pub joints: Vec<usize>,
    /// 16 floats per joint, column-major.
    pub inverse_bind_matrices: Vec<f32>,
}

impl SkeletonBinding {
    /// A binding; empty `inverse_bind_matrices` means identity for every joint (glTF 2.0
    /// §5.28: "each matrix is a 4x4 identity matrix" when the accessor is absent).
    ///
    /// # Errors
    /// [`AnimError::InverseBindCount`] when the matrices are not 16 floats per joint.
    pub fn new(
        skin: usize,
        mesh_node: usize,
        joints: Vec<usize>,
        inverse_bind_matrices: Vec<f32>,
    ) -> Result<Self, AnimError> {
        let inverse_bind_matrices = if inverse_bind_matrices.is_empty() {
            joints.iter().flat_map(|_| skel_math::IDENTITY).collect()
        } else {
            inverse_bind_matrices
        };
        if inverse_bind_matrices.len() != joints.len() * 16 {
            return Err(AnimError::InverseBindCount {
                joints: joints.len(),
                floats: inverse_bind_matrices.len(),
            });
        }
        Ok(Self {
            skin,
            mesh_node,
            joints,
            inverse_bind_matrices,
        })
    }

    /// Number of bones (joints) in the binding.
    #[must_use]
    pub fn bone_count(&self) -> usize {
        self.joints.len()
    }
}

/// A node whose mesh has morph targets: weights channels on `node` drive it.
#[derive(Debug, Clone, PartialEq)]
pub struct MorphBinding {
    /// The node holding the morphed mesh.
    pub node: usize,
    /// Default weights (glTF `mesh.weights`, or zeros), one per target.
    pub default_weights: Vec<f32>,
}

impl MorphBinding {
    /// Number of morph targets.
    #[must_use]
    pub fn target_count(&self) -> usize {
        self.default_weights.len()
    }
}

/// Everything the pose pipeline needs for one asset (the seed's `GltfAnimationData`). Share it
/// between characters with an `Arc`: controllers never copy keyframes.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct AnimationData {
    /// Every node of the asset, at rest.
    pub nodes: Vec<NodeRest>,
    /// Every clip.
    pub clips: Vec<Clip>,
    /// One binding per skinned mesh node.
    pub skeletons: Vec<SkeletonBinding>,
    /// Morph bindings, one per morphed mesh node (a node may carry several, e.g. one per
    /// primitive: a weights channel on the node drives them all).
    pub morph_bindings: Vec<MorphBinding>,
    /// The world's handedness, chosen at load.
    pub handedness: Handedness,
}

impl AnimationData {
    /// Checks every index and count the pose pipeline relies on, so that nothing in `tick` can
    /// go out of bounds: parents, channel nodes and samplers, component counts, joint nodes,
    /// inverse-bind lengths, morph nodes, and that the hierarchy has no cycle.
    ///
    /// # Errors
    /// The first problem found, as an [`AnimError`] naming the place.
    pub fn validate(&self) -> Result<(), AnimError> {
        let node_count = self.nodes.len();
        crate::compute_topo_order(&self.nodes)?;
        let check_node = |node: usize, what: &dyn Fn() -> String| {
            if node < node_count {
                Ok(())
            } else {
                Err(AnimError::BadNode {
                    what: what(),
                    node,
                    node_count,
                })
            }
        };
        for (rest_idx, rest) in self.nodes.iter().enumerate() {
            let finite = rest
                .translation
                .iter()
                .chain(&rest.rotation)
                .chain(&rest.scale)
                .all(|v| v.is_finite());
            if !finite {
                return Err(AnimError::NotFinite {
                    what: format!("rest pose of node {rest_idx}"),
                });
            }
        }
        for clip in &self.clips {
            for (ci, ch) in clip.channels.iter().enumerate() {
                check_node(ch.node, &|| format!("clip {:?} channel {ci}", clip.name))?;
                let sampler =
                    clip.samplers
                        .get(ch.sampler)
                        .ok_or_else(|| AnimError::BadSampler {
                            clip: clip.name.clone(),
                            channel: ci,
                            sampler: ch.sampler,
                            sampler_count: clip.samplers.len(),
                        })?;
                // Weights need one component per morph target of every binding on the node (a
                // node without a morph binding takes whatever the sampler gives, and ignores it).
                let needed = match ch.path.components() {
                    Some(n) => n,
                    None => self
                        .morph_bindings
                        .iter()
                        .filter(|m| m.node == ch.node)
                        .map(MorphBinding::target_count)
                        .find(|&count| count != sampler.components())
                        .unwrap_or(sampler.components()),
                };
                if sampler.components() != needed {
                    return Err(AnimError::ChannelComponentMismatch {
                        clip: clip.name.clone(),
                        channel: ci,
                        path: ch.path,
                        components: needed,
                        got: sampler.output().len(),
                        keys: sampler.input().len(),
                    });
                }
            }
        }
        for clip in &self.clips {
            for (pi, p) in clip.properties.iter().enumerate() {
                if let Some(node) = p.node {
                    check_node(node, &|| format!("clip {:?} property {pi}", clip.name))?;
                }
                let components = clip.samplers.get(p.sampler).map(Sampler::components);
                if components.is_none_or(|c| c < p.kind.components()) {
                    return Err(AnimError::BadPropertyTrack {
                        clip: clip.name.clone(),
                        property: pi,
                        reason: match components {
                            None => format!(
                                "sampler {} of {} does not exist",
                                p.sampler,
                                clip.samplers.len()
                            ),
                            Some(c) => format!(
                                "sampler {} has {c} components, {:?} needs {}",
                                p.sampler,
                                p.kind,
                                p.kind.components()
                            ),
                        },
                    });
                }
            }
        }
        for (si, sk) in self.skeletons.iter().enumerate() {
            check_node(sk.mesh_node, &|| {
                format!("skeleton binding {si} (mesh node)")
            })?;
            for (ji, &j) in sk.joints.iter().enumerate() {
                check_node(j, &|| format!("skeleton binding {si} joint {ji}"))?;
            }
            if sk.inverse_bind_matrices.len() != sk.joints.len() * 16 {
                return Err(AnimError::InverseBindCount {
                    joints: sk.joints.len(),
                    floats: sk.inverse_bind_matrices.len(),
                });
            }
        }
        for (mi, mb) in self.morph_bindings.iter().enumerate() {
            check_node(mb.node, &|| format!("morph binding {mi}"))?;
        }
        Ok(())
    }

    /// Index of the clip named `name`.
    #[must_use]
    pub fn clip_index(&self, name: &str) -> Option<usize> {
        self.clips.iter().position(|c| c.name == name)
    }

    /// Whether any clip animates `path` of `node`.
    #[must_use]
    pub fn is_animated(&self, node: usize, path: ChannelPath) -> bool {
        self.clips.iter().any(|c| {
            c.channels
                .iter()
                .any(|ch| ch.node == node && ch.path == path)
        })
    }
}
