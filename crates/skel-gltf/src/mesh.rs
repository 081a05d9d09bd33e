//! Meshes and the vertex streams of their primitives: positions, normals, UVs, indices,
//! skin influences and morph target deltas, in every component type glTF and
//! `KHR_mesh_quantization` allow.

use gltf::json::accessor::Type;
use gltf::json::mesh::{Mode, Semantic};
use skel_anim::{MorphTargets, VertexInfluences};

use crate::accessor::{
    Expect, IntAs, QUANTIZED, SIGNED_NORM, VERTEX_INDEX, accessor_count, check_count, read_f32,
    read_u32, valid,
};
use crate::budget::Budget;
use crate::influences::{GpuInfluences, gpu_influences, read_influences};
use crate::material::{MaterialInfo, read_material};
use crate::{GltfDocument, GltfError};

/// One glTF mesh.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct MeshInfo {
    /// `mesh.name`, empty when absent.
    pub name: String,
    /// Number of primitives.
    pub primitive_count: usize,
    /// Morph targets per primitive (the same for every primitive of a mesh).
    pub target_count: usize,
    /// `mesh.weights`: default morph weights (zeros when absent and there are targets).
    pub weights: Vec<f32>,
}

/// How a primitive's vertices form shapes (glTF `primitive.mode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum PrimitiveMode {
    /// Points.
    Points,
    /// Separate lines.
    Lines,
    /// A closed line loop.
    LineLoop,
    /// A line strip.
    LineStrip,
    /// Separate triangles (the default).
    #[default]
    Triangles,
    /// A triangle strip.
    TriangleStrip,
    /// A triangle fan.
    TriangleFan,
}

/// The vertex streams of one mesh primitive as instantiated by one node, in the mesh's own
/// space (morph deltas not applied, nothing skinned). Streams are flat: 3 floats per vertex
/// for positions and normals, 2 for UVs.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct PrimitiveData {
    /// `n<node>/p<primitive>`: the key of the golden files and of `skel pose`.
    pub key: String,
    /// The node instantiating the mesh.
    pub node: usize,
    /// The glTF mesh.
    pub mesh: usize,
    /// The primitive's index within the mesh.
    pub primitive: usize,
    /// Topology.
    pub mode: PrimitiveMode,
    /// `POSITION`, dequantized to floats.
    pub positions: Vec<f32>,
    /// `NORMAL`, dequantized.
    pub normals: Option<Vec<f32>>,
    /// The UV set the base colour texture samples (`TEXCOORD_0` without one; a
    /// `KHR_texture_transform` `texCoord` overrides the reference's), dequantized. The
    /// texture's transform is not applied here: it is animatable, so the renderer applies it.
    pub uvs: Option<Vec<f32>>,
    /// Vertex indices, widened to `u32`; `None` for non-indexed geometry.
    pub indices: Option<Vec<u32>>,
    /// Every influence set merged (`4 × sets` per vertex), weights divided by their sum.
    /// Present when the node has a skin and the primitive has `JOINTS_0`.
    pub influences: Option<VertexInfluences>,
    /// The number of `JOINTS_n`/`WEIGHTS_n` sets the file has for this primitive.
    pub influence_sets: usize,
    /// The skin (index into [`GltfAsset::skins`](crate::GltfAsset::skins)) when skinned.
    pub skin: Option<usize>,
    /// The skeleton binding in [`AnimationData::skeletons`](skel_anim::AnimationData) that
    /// drives it, when skinned.
    pub skeleton_binding: Option<usize>,
    /// Morph target deltas, when the primitive has targets.
    pub morph_targets: Option<MorphTargets>,
    /// The morph binding in [`AnimationData::morph_bindings`](skel_anim::AnimationData) that
    /// holds its weights, when it has targets.
    pub morph_binding: Option<usize>,
    /// Its material.
    pub material: MaterialInfo,
}

impl PrimitiveData {
    /// Number of vertices.
    #[must_use]
    pub fn vertex_count(&self) -> usize {
        self.positions.len() / 3
    }

    /// Whether joints move the vertices (otherwise the node's world matrix places them).
    #[must_use]
    pub fn is_skinned(&self) -> bool {
        self.skeleton_binding.is_some()
    }

    /// The influences laid out for the GPU: 4 per vertex, 8 when the primitive has two sets, 16
    /// when it has three or four (more than 16 are cut to the 16 largest, renormalised; see
    /// [`GpuInfluences`]).
    #[must_use]
    pub fn gpu_influences(&self) -> Option<GpuInfluences> {
        self.influences.as_ref().map(gpu_influences)
    }
}

/// Every mesh's summary; checks that a mesh's primitives agree on their target count and
/// that `mesh.weights` has one weight per target.
pub(crate) fn read_meshes(doc: &GltfDocument) -> Result<Vec<MeshInfo>, GltfError> {
    let mut out = Vec::with_capacity(doc.root.meshes.len());
    for (mi, mesh) in doc.root.meshes.iter().enumerate() {
        let counts: Vec<usize> = mesh
            .primitives
            .iter()
            .map(|p| p.targets.as_ref().map_or(0, Vec::len))
            .collect();
        let target_count = counts.first().copied().unwrap_or(0);
        if let Some((pi, &got)) = counts.iter().enumerate().find(|&(_, &c)| c != target_count) {
            return Err(GltfError::MorphTargetCount {
                mesh: mi,
                what: format!("primitive {pi}"),
                expected: target_count,
                got,
            });
        }
        let weights = match &mesh.weights {
            Some(w) if w.len() != target_count => {
                return Err(GltfError::MorphTargetCount {
                    mesh: mi,
                    what: "weights".into(),
                    expected: target_count,
                    got: w.len(),
                });
            }
            Some(w) => w.clone(),
            None => vec![0.0; target_count],
        };
        if weights.iter().any(|w| !w.is_finite()) {
            return Err(GltfError::Invalid {
                path: format!("meshes[{mi}].weights"),
                reason: "a weight is not finite".into(),
            });
        }
        out.push(MeshInfo {
            name: mesh.name.clone().unwrap_or_default(),
            primitive_count: mesh.primitives.len(),
            target_count,
            weights,
        });
    }
    Ok(out)
}

/// What the node instantiating a primitive decides about it.
pub(crate) struct Instance {
    pub node: usize,
    pub mesh: usize,
    /// `(skin index, joint count, skeleton binding)` when the node is skinned.
    pub skin: Option<(usize, usize, usize)>,
    pub morph_binding: Option<usize>,
}

/// Decodes primitive `pi` of the instance's mesh.
pub(crate) fn read_primitive(
    doc: &GltfDocument,
    inst: &Instance,
    pi: usize,
    budget: &mut Budget,
) -> Result<PrimitiveData, GltfError> {
    let mesh = inst.mesh;
    let prim = doc
        .root
        .meshes
        .get(mesh)
        .and_then(|m| m.primitives.get(pi))
        .ok_or_else(|| GltfError::BadReference {
            used_by: format!("nodes[{}].mesh", inst.node),
            kind: "mesh primitive",
            index: pi,
            count: doc.root.meshes.get(mesh).map_or(0, |m| m.primitives.len()),
        })?;
    let at = format!("meshes[{mesh}].primitives[{pi}]");
    let mode = match valid(&prim.mode) {
        Some(Mode::Points) => PrimitiveMode::Points,
        Some(Mode::Lines) => PrimitiveMode::Lines,
        Some(Mode::LineLoop) => PrimitiveMode::LineLoop,
        Some(Mode::LineStrip) => PrimitiveMode::LineStrip,
        Some(Mode::Triangles) => PrimitiveMode::Triangles,
        Some(Mode::TriangleStrip) => PrimitiveMode::TriangleStrip,
        Some(Mode::TriangleFan) => PrimitiveMode::TriangleFan,
        None => {
            return Err(GltfError::Invalid {
                path: format!("{at}.mode"),
                reason: "not a glTF primitive mode".into(),
            });
        }
    };
    let mut position = None;
    let mut normal = None;
    let mut uv_sets: Vec<(u32, usize)> = Vec::new();
    let mut joint_sets: Vec<(u32, usize)> = Vec::new();
    let mut weight_sets: Vec<(u32, usize)> = Vec::new();
    for (semantic, acc) in &prim.attributes {
        let acc = acc.value();
        match semantic {
            gltf::json::validation::Checked::Valid(Semantic::Positions) => position = Some(acc),
            gltf::json::validation::Checked::Valid(Semantic::Normals) => normal = Some(acc),
            gltf::json::validation::Checked::Valid(Semantic::TexCoords(n)) => {
                uv_sets.push((*n, acc));
            }
            gltf::json::validation::Checked::Valid(Semantic::Joints(n)) => {
                joint_sets.push((*n, acc));
            }
            gltf::json::validation::Checked::Valid(Semantic::Weights(n)) => {
                weight_sets.push((*n, acc));
            }
            // Tangents, colours and application-specific attributes are not used by skinning
            // or drawing.
            _ => {}
        }
    }
    let position = position.ok_or(GltfError::NoPositions {
        mesh,
        primitive: pi,
    })?;
    let pos_use = format!("{at}.attributes.POSITION");
    let vertex_count = accessor_count(doc, position, &pos_use)?;
    let vec3 = |components| Expect {
        ty: Type::Vec3,
        components,
    };
    let positions = read_f32(doc, position, &pos_use, vec3(QUANTIZED), IntAs::Flag)?;
    // Positions, normals, UVs and indices are backed by bytes of their own; what can grow
    // beyond the file (reuse across nodes, targets, sets) is counted against the budget.
    let vc = vertex_count as u64;
    budget.take(&|| pos_use.clone(), vc * 8)?;
    let normals = match normal {
        None => None,
        Some(acc) => {
            let used = format!("{at}.attributes.NORMAL");
            check_count(doc, acc, &used, vertex_count)?;
            Some(read_f32(
                doc,
                acc,
                &used,
                vec3(SIGNED_NORM),
                IntAs::Normalized,
            )?)
        }
    };
    let material = read_material(
        doc,
        prim.material.map(|m| m.value()),
        &format!("{at}.material"),
    )?;
    // The set the base colour texture samples (after a `KHR_texture_transform` override).
    let uv_set = material.base_color_texture.map_or(0, |t| t.uv_set());
    let uvs = match uv_sets.iter().find(|(n, _)| *n == uv_set).map(|&(_, a)| a) {
        None => None,
        Some(acc) => {
            let used = format!("{at}.attributes.TEXCOORD_{uv_set}");
            check_count(doc, acc, &used, vertex_count)?;
            let expect = Expect {
                ty: Type::Vec2,
                components: QUANTIZED,
            };
            Some(read_f32(doc, acc, &used, expect, IntAs::Flag)?)
        }
    };
    let indices = match prim.indices {
        None => None,
        Some(acc) => {
            let acc = acc.value();
            let used = format!("{at}.indices");
            let expect = Expect {
                ty: Type::Scalar,
                components: VERTEX_INDEX,
            };
            let idx = read_u32(doc, acc, &used, expect)?;
            if let Some(p) = idx.iter().position(|&i| i as usize >= vertex_count) {
                return Err(GltfError::IndexOutOfRange {
                    accessor: acc,
                    position: p,
                    index: idx[p],
                    vertex_count,
                });
            }
            Some(idx)
        }
    };
    let sets = pair_sets(&at, &mut joint_sets, &mut weight_sets)?;
    let influence_sets = sets.len();
    let (influences, skin, skeleton_binding) = match (inst.skin, sets.is_empty()) {
        (Some((skin, joint_count, binding)), false) => {
            let used = format!("{at}.attributes");
            budget.take(&|| used.clone(), vc * sets.len() as u64 * 8)?;
            let inf = read_influences(doc, &sets, vertex_count, joint_count, &used)?;
            (Some(inf), Some(skin), Some(binding))
        }
        // A node without a skin draws its mesh rigidly, influences or not (glTF 2.0 §3.7.3);
        // a skinned node's primitive without JOINTS_0 has nothing to skin it with.
        _ => (None, None, None),
    };
    let morph_targets = read_targets(doc, prim, &at, vertex_count, budget)?;
    Ok(PrimitiveData {
        key: format!("n{}/p{pi}", inst.node),
        node: inst.node,
        mesh,
        primitive: pi,
        mode,
        positions,
        normals,
        uvs,
        indices,
        influences,
        influence_sets,
        skin,
        skeleton_binding,
        morph_binding: morph_targets.as_ref().and(inst.morph_binding),
        morph_targets,
        material,
    })
}

/// Pairs `JOINTS_n` with `WEIGHTS_n`: sets must be numbered 0, 1, 2 … and come in pairs.
fn pair_sets(
    at: &str,
    joints: &mut [(u32, usize)],
    weights: &mut [(u32, usize)],
) -> Result<Vec<(usize, usize)>, GltfError> {
    joints.sort_unstable();
    weights.sort_unstable();
    let mut sets = Vec::with_capacity(joints.len());
    for (k, (&(jn, ja), &(wn, wa))) in joints.iter().zip(weights.iter()).enumerate() {
        if jn as usize != k || wn as usize != k {
            return Err(GltfError::Invalid {
                path: format!("{at}.attributes"),
                reason: format!("influence set {k} missing (JOINTS_{jn} / WEIGHTS_{wn} found)"),
            });
        }
        sets.push((ja, wa));
    }
    if joints.len() != weights.len() {
        return Err(GltfError::Invalid {
            path: format!("{at}.attributes"),
            reason: format!(
                "{} JOINTS_n sets but {} WEIGHTS_n sets",
                joints.len(),
                weights.len()
            ),
        });
    }
    Ok(sets)
}

fn read_targets(
    doc: &GltfDocument,
    prim: &gltf::json::mesh::Primitive,
    at: &str,
    vertex_count: usize,
    budget: &mut Budget,
) -> Result<Option<MorphTargets>, GltfError> {
    let Some(targets) = prim.targets.as_ref().filter(|t| !t.is_empty()) else {
        return Ok(None);
    };
    let n = vertex_count * 3;
    let has_normals = targets.iter().any(|t| t.normals.is_some());
    let per_target = n as u64 * if has_normals { 2 } else { 1 };
    budget.take(
        &|| format!("{at}.targets"),
        targets.len() as u64 * per_target,
    )?;
    let mut positions = vec![0.0; targets.len() * n];
    let mut normals = if has_normals {
        vec![0.0; targets.len() * n]
    } else {
        Vec::new()
    };
    // Position deltas may be quantized to (normalized or not) BYTE/SHORT; normal deltas to
    // normalized BYTE/SHORT (KHR_mesh_quantization).
    const POSITION_DELTA: &[gltf::json::accessor::ComponentType] = &[
        gltf::json::accessor::ComponentType::F32,
        gltf::json::accessor::ComponentType::I8,
        gltf::json::accessor::ComponentType::I16,
    ];
    for (t, target) in targets.iter().enumerate() {
        let dst = t * n..(t + 1) * n;
        if let Some(acc) = target.positions {
            let acc = acc.value();
            let used = format!("{at}.targets[{t}].POSITION");
            check_count(doc, acc, &used, vertex_count)?;
            let expect = Expect {
                ty: Type::Vec3,
                components: POSITION_DELTA,
            };
            positions[dst.clone()].copy_from_slice(&read_f32(
                doc,
                acc,
                &used,
                expect,
                IntAs::Flag,
            )?);
        }
        if let Some(acc) = target.normals {
            let acc = acc.value();
            let used = format!("{at}.targets[{t}].NORMAL");
            check_count(doc, acc, &used, vertex_count)?;
            let expect = Expect {
                ty: Type::Vec3,
                components: SIGNED_NORM,
            };
            normals[dst].copy_from_slice(&read_f32(doc, acc, &used, expect, IntAs::Normalized)?);
        }
    }
    Ok(Some(MorphTargets {
        target_count: targets.len(),
        positions,
        normals,
    }))
}
