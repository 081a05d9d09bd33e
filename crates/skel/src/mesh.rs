//! Meshes on the GPU: one [`Mesh`] per mesh node, its primitives' vertex streams concatenated
//! into one set of buffers, so that one bone texture and one morph buffer serve every
//! primitive of the node (the seed keeps one bone texture per skinned mesh).

use std::ops::Range;
use std::sync::Arc;

use skel_gltf::{MaterialInfo, PrimitiveData};
use skel_gpu::MorphGpu;

use crate::{MeshSkeleton, Topology};

/// One primitive of a [`Mesh`]: a draw call over the mesh's shared buffers.
///
/// Draw with `draw_indexed(indices, 0, ..)` when `indices` is set (the mesh's index buffer
/// holds indices into the whole mesh, already offset by `base_vertex`), else with
/// `draw(base_vertex..base_vertex + vertex_count, ..)`. Either way `@builtin(vertex_index)`
/// counts from the mesh's first vertex, which is what the morph fragment indexes by. No draw
/// needs a base vertex: WebGL2 has none (wgpu's `DownlevelFlags::BASE_VERTEX`).
#[derive(Debug, Clone, PartialEq)]
pub struct Primitive {
    /// `n<node>/p<primitive>`, as in [`PrimitiveData::key`].
    pub key: String,
    /// Index of the CPU streams in [`AssetContainer::primitives`](crate::AssetContainer).
    pub source: usize,
    /// What the indices (or the vertex order) describe.
    pub topology: Topology,
    /// The primitive's first vertex in the mesh's buffers.
    pub base_vertex: u32,
    /// Its vertex count.
    pub vertex_count: u32,
    /// Its range in the mesh's index buffer (list indices into the whole mesh: the file's
    /// indices plus `base_vertex`).
    pub indices: Option<Range<u32>>,
    /// Whether the file gave normals (flat shading otherwise, glTF 2.0 §3.7.2.1).
    pub has_normals: bool,
    /// Whether the file gave `TEXCOORD_0`.
    pub has_uvs: bool,
    /// The material.
    pub material: MaterialInfo,
}

/// A mesh's morph targets on the GPU and the morph binding whose weights drive them.
///
/// Cloning shares the `Arc<MorphGpu>`, as [`MeshSkeleton`] shares its skeleton.
#[derive(Debug, Clone)]
pub struct MeshMorph {
    /// Deltas and weights (see [`skel_gpu::create_morph`]), shared by every clone of the mesh.
    pub gpu: Arc<MorphGpu>,
    /// Index in `AnimationData::morph_bindings`.
    pub binding: usize,
}

/// One mesh node of the scene, ready to draw.
///
/// Vertex buffers: `positions` and `normals` are `Float32x3`, `uvs` `Float32x2`, `indices`
/// `Uint32`; the skeleton's joints/weights buffers and the morph deltas run in step with them
/// (same vertex numbering). Primitives without normals or UVs have zeros in those streams.
/// Every vertex buffer has [`VERTEX_BUFFER_USAGE`](crate::VERTEX_BUFFER_USAGE), so
/// `skel::gpu::ComputeSkinning` can skin a whole mesh in one dispatch.
///
/// # Clones share the GPU data
///
/// `clone` copies no GPU memory: vertex buffers are reference-counted `wgpu` handles, and the
/// skeleton and morph targets sit behind `Arc`s. Every clone draws from the same bone texture
/// and morph weights, so one upload (a tick through either clone, or through
/// [`MeshPoseSink`](crate::MeshPoseSink), which writes a shared skeleton once per pose) poses
/// them all. Only `visible` and the other plain fields are per clone. A mesh that must move
/// independently needs its own skeleton (load the asset again, or
/// `skel::gpu::create_skeleton` from the same streams).
#[derive(Debug, Clone)]
pub struct Mesh {
    /// The glTF mesh's name.
    pub name: String,
    /// The node instancing the mesh (its world matrix places the mesh; for skinned meshes it
    /// cancels out, see [`skel_anim::compute_bone_matrices`]).
    pub node: usize,
    /// The glTF mesh index.
    pub mesh: usize,
    /// Whether to draw it (see `set_mesh_visible` with the `bone-control` feature).
    pub visible: bool,
    /// Vertices over all primitives.
    pub vertex_count: u32,
    /// Draw ranges and materials.
    pub primitives: Vec<Primitive>,
    /// `Float32x3` positions in the mesh's (bind) space.
    pub positions: wgpu::Buffer,
    /// `Float32x3` normals.
    pub normals: wgpu::Buffer,
    /// `Float32x2` texture coordinates.
    pub uvs: wgpu::Buffer,
    /// `Uint32` list indices of every indexed primitive (`None` when none is indexed).
    pub indices: Option<wgpu::Buffer>,
    /// The GPU skeleton, when the node is skinned.
    pub skeleton: Option<MeshSkeleton>,
    /// The morph targets, when the mesh has any.
    pub morph: Option<MeshMorph>,
}

impl Mesh {
    /// Joint influences per vertex: 0 (rigid), 4, 8 or 16.
    #[must_use]
    pub fn influences_per_vertex(&self) -> u32 {
        self.skeleton
            .as_ref()
            .map_or(0, |s| s.gpu.influences_per_vertex())
    }

    /// The skinning fragment variant that draws this mesh.
    #[must_use]
    pub fn skinning_variant(&self) -> skel_gpu::SkinningVariant {
        let influences = skel_gpu::Influences::for_count(self.influences_per_vertex());
        skel_gpu::SkinningVariant {
            influences,
            morph: self.morph.is_some(),
        }
    }

    /// Where this mesh's morph deltas are on the GPU (a storage buffer, or a texture on
    /// WebGL2; see `LoadOptions::morph_deltas`). [`MorphDeltaStorage::Buffer`] without morph
    /// targets, where it makes no difference.
    ///
    /// [`MorphDeltaStorage::Buffer`]: skel_gpu::MorphDeltaStorage::Buffer
    #[must_use]
    pub fn morph_deltas(&self) -> skel_gpu::MorphDeltaStorage {
        self.morph
            .as_ref()
            .map(|m| m.gpu.delta_storage())
            .unwrap_or_default()
    }

    /// The skinning fragment that draws this mesh at `bindings`: its
    /// [`skinning_variant`](Self::skinning_variant), reading morph deltas where
    /// [`morph_deltas`](Self::morph_deltas) says, so that its bind group takes this mesh's
    /// skeleton and morph targets on any device.
    #[must_use]
    pub fn shader_fragment(
        &self,
        bindings: skel_gpu::FragmentBindings,
    ) -> skel_gpu::ShaderFragment {
        skel_gpu::ShaderFragment::with_morph_deltas(
            self.skinning_variant(),
            bindings,
            self.morph_deltas(),
        )
    }
}

#[cfg(feature = "bone-control")]
impl skel_bone_control::HasMeshSkeleton for Mesh {
    fn mesh_skeleton(&self) -> Option<std::sync::Arc<skel_bone_control::Skeleton>> {
        self.skeleton.as_ref()?.gpu.handle.mesh_skeleton()
    }
}

#[cfg(feature = "bone-control")]
impl skel_bone_control::MeshVisibility for Mesh {
    fn set_visible(&mut self, visible: bool) {
        self.visible = visible;
    }
}

/// The CPU streams of one mesh node, concatenated over its primitives.
#[derive(Debug, Default)]
pub(crate) struct MeshStreams {
    pub positions: Vec<f32>,
    pub normals: Vec<f32>,
    pub uvs: Vec<f32>,
    pub indices: Vec<u32>,
    pub primitives: Vec<Primitive>,
    /// Joints/weights per influence set, 4 per vertex each: 1 set, 2 when some primitive has
    /// 8 influences, 4 when some has 16 (primitives with fewer are padded with zero weights).
    pub influence_sets: Vec<(Vec<u32>, Vec<f32>)>,
    /// Morph deltas, target-major over the concatenated vertices.
    pub morph_positions: Vec<f32>,
    pub morph_normals: Vec<f32>,
    pub target_count: usize,
}

impl MeshStreams {
    pub(crate) fn vertex_count(&self) -> usize {
        self.positions.len() / 3
    }
}

/// Concatenates the primitives of one mesh node (`sources` index into `all`).
pub(crate) fn concatenate(
    node: usize,
    all: &[PrimitiveData],
    sources: &[usize],
) -> Result<MeshStreams, crate::SkelError> {
    let inconsistent = |reason: String| crate::SkelError::InconsistentMesh { node, reason };
    let prims: Vec<&PrimitiveData> = sources.iter().map(|&i| &all[i]).collect();
    let skinned = prims.iter().any(|p| p.is_skinned());
    let gpu_influences: Vec<_> = prims.iter().map(|p| p.gpu_influences()).collect();
    let sets = gpu_influences
        .iter()
        .flatten()
        .map(skel_gltf::GpuInfluences::sets)
        .max()
        .unwrap_or(1);
    let target_count = prims
        .iter()
        .map(|p| p.morph_targets.as_ref().map_or(0, |t| t.target_count))
        .max()
        .unwrap_or(0);
    let morph_normals = prims.iter().any(|p| {
        p.morph_targets
            .as_ref()
            .is_some_and(|t| !t.normals.is_empty())
    });

    let mut s = MeshStreams {
        target_count,
        influence_sets: vec![(Vec::new(), Vec::new()); if skinned { sets } else { 0 }],
        ..MeshStreams::default()
    };
    for (&source, (p, influences)) in sources.iter().zip(prims.iter().zip(&gpu_influences)) {
        let n = p.vertex_count();
        let base_vertex = u32::try_from(s.vertex_count())
            .map_err(|_| inconsistent(format!("more than {} vertices", u32::MAX)))?;
        let vertex_count =
            u32::try_from(n).map_err(|_| inconsistent(format!("primitive with {n} vertices")))?;
        s.positions.extend_from_slice(&p.positions);
        match &p.normals {
            Some(normals) if normals.len() == n * 3 => s.normals.extend_from_slice(normals),
            _ => s.normals.resize(s.normals.len() + n * 3, 0.0),
        }
        match &p.uvs {
            Some(uvs) if uvs.len() == n * 2 => s.uvs.extend_from_slice(uvs),
            _ => s.uvs.resize(s.uvs.len() + n * 2, 0.0),
        }
        let order: Vec<u32> = match &p.indices {
            Some(indices) => indices.clone(),
            None => (0..vertex_count).collect(),
        };
        let list = crate::topology::list_indices(p.mode, &order);
        let indices = match (list, &p.indices) {
            (Some(list), _) => Some(list),
            (None, Some(indices)) => Some(indices.clone()),
            (None, None) => None,
        };
        let index_range = match indices {
            Some(indices) => {
                let start = u32::try_from(s.indices.len())
                    .map_err(|_| inconsistent("more than 2³² indices".into()))?;
                if let Some(&bad) = indices.iter().find(|&&i| i >= vertex_count) {
                    return Err(inconsistent(format!(
                        "primitive {} index {bad} ≥ vertex count {vertex_count}",
                        p.primitive
                    )));
                }
                // Offset here, once, so that draws need no base vertex (WebGL2 has none).
                // Every index is < vertex_count, so base_vertex + index < the mesh's vertex
                // count, which the next primitive's base_vertex (or the GPU upload) bounds.
                for index in indices {
                    let absolute = base_vertex
                        .checked_add(index)
                        .ok_or_else(|| inconsistent(format!("more than {} vertices", u32::MAX)))?;
                    s.indices.push(absolute);
                }
                let end = u32::try_from(s.indices.len())
                    .map_err(|_| inconsistent("more than 2³² indices".into()))?;
                Some(start..end)
            }
            None => None,
        };
        // A primitive without JOINTS_0 on a skinned node gets no influence (glTF requires
        // them on every primitive of a skinned mesh; this keeps the buffers in step), and a
        // primitive with fewer sets than the node's zero weights in the others.
        for (set, (joints, weights)) in s.influence_sets.iter_mut().enumerate() {
            match influences.as_ref().and_then(|g| g.set(set)) {
                Some((gj, gw)) => {
                    joints.extend_from_slice(gj);
                    weights.extend_from_slice(gw);
                }
                None => {
                    joints.resize(joints.len() + n * 4, 0);
                    weights.resize(weights.len() + n * 4, 0.0);
                }
            }
        }
        s.primitives.push(Primitive {
            key: p.key.clone(),
            source,
            topology: crate::topology::list_topology(p.mode),
            base_vertex,
            vertex_count,
            indices: index_range,
            has_normals: p.normals.is_some(),
            has_uvs: p.uvs.is_some(),
            material: p.material.clone(),
        });
    }
    if target_count > 0 {
        let total = s.vertex_count();
        s.morph_positions = Vec::with_capacity(target_count * total * 3);
        if morph_normals {
            s.morph_normals = Vec::with_capacity(target_count * total * 3);
        }
        for t in 0..target_count {
            for p in &prims {
                let n = p.vertex_count() * 3;
                let slice = |deltas: &[f32]| deltas.get(t * n..(t + 1) * n).map(<[f32]>::to_vec);
                let targets = p.morph_targets.as_ref();
                let pos = targets.and_then(|m| slice(&m.positions));
                s.morph_positions
                    .extend(pos.unwrap_or_else(|| vec![0.0; n]));
                if morph_normals {
                    let nrm = targets.and_then(|m| slice(&m.normals));
                    s.morph_normals.extend(nrm.unwrap_or_else(|| vec![0.0; n]));
                }
            }
        }
    }
    Ok(s)
}
