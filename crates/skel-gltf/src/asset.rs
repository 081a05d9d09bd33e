//! Loading a whole asset: the document, its hierarchy, skins, meshes, bindings and clips.

use std::path::Path;

use skel_anim::{AnimationData, Handedness, MorphBinding, SkeletonBinding};

use crate::animation::read_clips;
use crate::budget::Budget;
use crate::image::decode_image;
use crate::material::ImageSlot;
use crate::mesh::{Instance, MeshInfo, PrimitiveData, read_meshes, read_primitive};
use crate::morph_names::{MorphNames, morph_names};
use crate::nodes::{NodeInfo, SceneNodes, read_nodes, scene_nodes};
use crate::skin::{SkinInfo, read_skins};
use crate::{ExternalFiles, GltfDocument, GltfError, LoadWarning, PropertyTarget};

/// How to load an asset.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LoadOptions {
    /// The world's handedness: left-handed by default (the seed's and Babylon.js's: root nodes
    /// are mirrored in x), or glTF's own right-handed space.
    pub handedness: Handedness,
    /// Decode base-colour images to RGBA8 (default true). Tools that only pose (`skel pose`,
    /// the conformance tests) turn it off.
    pub decode_images: bool,
}

impl Default for LoadOptions {
    fn default() -> Self {
        Self {
            handedness: Handedness::LeftHanded,
            decode_images: true,
        }
    }
}

impl LoadOptions {
    /// The defaults with `handedness`.
    #[must_use]
    pub fn with_handedness(handedness: Handedness) -> Self {
        Self {
            handedness,
            ..Self::default()
        }
    }
}

/// Everything skel takes from a glTF file, on the CPU.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct GltfAsset {
    /// Nodes at rest, clips, one skeleton binding per skinned mesh node of the scene, one
    /// morph binding per mesh node with targets: the input of
    /// [`AnimationController`](skel_anim::AnimationController).
    pub animation: AnimationData,
    /// Every node's links and contents.
    pub nodes: Vec<NodeInfo>,
    /// The scene shown (`scene`, else 0; `None` when the file has no scenes and every root
    /// node is shown).
    pub scene: Option<usize>,
    /// The shown scene's root nodes.
    pub scene_roots: Vec<usize>,
    /// Every node of the shown scene, depth first.
    pub scene_nodes: Vec<usize>,
    /// Every skin.
    pub skins: Vec<SkinInfo>,
    /// Every mesh.
    pub meshes: Vec<MeshInfo>,
    /// One entry per primitive of every mesh node of the scene, ordered by node then
    /// primitive (the order of the golden files).
    pub primitives: Vec<PrimitiveData>,
    /// One slot per glTF image: base-colour images decoded when asked for.
    pub images: Vec<ImageSlot>,
    /// The mesh and target names of each morph binding, in the order of
    /// [`AnimationData::morph_bindings`]: what retargeting matches morph-weight channels by.
    pub morph_names: Vec<MorphNames>,
    /// What each property slot of the clips' [`PropertyTrack`](skel_anim::PropertyTrack)s
    /// animates (`KHR_animation_pointer`): slot `i` is `properties[i]`.
    pub properties: Vec<PropertyTarget>,
    /// What loading skipped, with JSON paths: channels skel does not apply, undecodable
    /// images, extensions drawn without.
    pub warnings: Vec<LoadWarning>,
    /// `extensionsUsed`, as written (see [`extension_support`](crate::extension_support) for
    /// what skel does with each).
    pub extensions_used: Vec<String>,
    /// `extensionsRequired`, as written.
    pub extensions_required: Vec<String>,
    /// The VRM avatar data (`VRMC_vrm` 1.0 and its companions, or VRM 0.x's `VRM`), when the
    /// file is a VRM; warnings about it (a beta `specVersion`, skipped entries) are in
    /// [`warnings`](Self::warnings).
    pub vrm: Option<crate::vrm::Vrm>,
}

impl GltfAsset {
    /// The primitive with key `n<node>/p<primitive>`.
    #[must_use]
    pub fn primitive(&self, key: &str) -> Option<&PrimitiveData> {
        self.primitives.iter().find(|p| p.key == key)
    }

    /// The VRM avatar data, if the file is a VRM (see [`crate::vrm`]).
    #[must_use]
    pub fn vrm(&self) -> Option<&crate::vrm::Vrm> {
        self.vrm.as_ref()
    }

    /// The clip named `name` (see also [`AnimationData::clip_index`]).
    #[must_use]
    pub fn clip_index(&self, name: &str) -> Option<usize> {
        self.animation.clip_index(name)
    }
}

/// Reads and loads the `.gltf` or `.glb` file at `path` (external files relative to it).
///
/// # Errors
/// Any [`GltfError`]: the file is unreadable or malformed (see [`load_document`]).
pub fn load_path(path: &Path, opts: &LoadOptions) -> Result<GltfAsset, GltfError> {
    load_document(&GltfDocument::from_path(path)?, opts)
}

/// Loads a `.gltf` or `.glb` file held in memory; external buffers and images are read
/// relative to `base_dir` (without one, only embedded data can be used).
///
/// # Errors
/// Any [`GltfError`]: the bytes are malformed (see [`load_document`]).
pub fn load_slice(
    bytes: &[u8],
    base_dir: Option<&Path>,
    opts: &LoadOptions,
) -> Result<GltfAsset, GltfError> {
    load_document(&GltfDocument::from_slice(bytes, base_dir)?, opts)
}

/// Loads a `.gltf` or `.glb` file held in memory whose external buffers and images come from
/// `files` (see [`GltfDocument::from_slice_with_files`]): what a page that fetched a `.gltf`
/// and its `.bin` passes, as a [`FileMap`](crate::FileMap) keyed by the URIs the JSON writes.
///
/// ```no_run
/// use skel_gltf::{FileMap, LoadOptions, load_slice_with_files};
///
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let gltf = std::fs::read("Fox/Fox.gltf")?;
/// let mut files = FileMap::new();
/// files.insert("Fox.bin", std::fs::read("Fox/Fox.bin")?);
/// let asset = load_slice_with_files(&gltf, files, &LoadOptions::default())?;
/// # Ok(())
/// # }
/// ```
///
/// # Errors
/// Any [`GltfError`]: [`GltfError::MissingBuffer`] naming the URI of a buffer `files` does not
/// hold, and every error of [`load_slice`].
pub fn load_slice_with_files(
    bytes: &[u8],
    files: impl ExternalFiles + 'static,
    opts: &LoadOptions,
) -> Result<GltfAsset, GltfError> {
    load_document(&GltfDocument::from_slice_with_files(bytes, files)?, opts)
}

/// The structure shared by [`load_document`] and [`parse_animation_data`].
struct Structure {
    animation: AnimationData,
    nodes: Vec<NodeInfo>,
    scene: Option<usize>,
    scene_roots: Vec<usize>,
    scene_nodes: Vec<usize>,
    skins: Vec<SkinInfo>,
    meshes: Vec<MeshInfo>,
    /// Mesh nodes of the scene in node order, with their bindings.
    instances: Vec<Instance>,
    /// One per morph binding.
    morph_names: Vec<MorphNames>,
    /// What the bindings took of the memory budget.
    budget: Budget,
    properties: Vec<PropertyTarget>,
    warnings: Vec<LoadWarning>,
}

fn read_structure(doc: &GltfDocument, opts: &LoadOptions) -> Result<Structure, GltfError> {
    let (nodes, rests) = read_nodes(doc)?;
    let SceneNodes {
        scene,
        roots: scene_roots,
        order: scene_order,
    } = scene_nodes(doc, &nodes)?;
    let skins = read_skins(doc, &nodes)?;
    let meshes = read_meshes(doc)?;
    let mut mesh_nodes: Vec<usize> = scene_order
        .iter()
        .copied()
        .filter(|&n| nodes[n].mesh.is_some())
        .collect();
    mesh_nodes.sort_unstable();
    let mut skeletons = Vec::new();
    let mut morph_bindings = Vec::new();
    let mut names = Vec::new();
    let mut instances = Vec::with_capacity(mesh_nodes.len());
    let mut budget = Budget::new();
    for &n in &mesh_nodes {
        let (Some(mesh), node_json) = (nodes[n].mesh, &doc.root.nodes[n]) else {
            continue;
        };
        let skin = match nodes[n].skin {
            Some(s) => {
                let info = &skins[s];
                // Joint indices, inverse bind matrices, and the bone scratch of the pose.
                let floats = info.joints.len() as u64 * 33;
                budget.take(&|| format!("nodes[{n}].skin"), floats)?;
                skeletons.push(SkeletonBinding::new(
                    s,
                    n,
                    info.joints.clone(),
                    info.inverse_bind_matrices.clone(),
                )?);
                Some((s, info.joints.len(), skeletons.len() - 1))
            }
            None => None,
        };
        let target_count = meshes[mesh].target_count;
        let morph_binding = if target_count > 0 {
            let default_weights = match &node_json.weights {
                Some(w) if w.len() != target_count => {
                    return Err(GltfError::MorphTargetCount {
                        mesh,
                        what: format!("nodes[{n}].weights"),
                        expected: target_count,
                        got: w.len(),
                    });
                }
                Some(w) => w.clone(),
                None => meshes[mesh].weights.clone(),
            };
            morph_bindings.push(MorphBinding {
                node: n,
                default_weights,
            });
            names.push(morph_names(doc, mesh, target_count));
            Some(morph_bindings.len() - 1)
        } else {
            None
        };
        instances.push(Instance {
            node: n,
            mesh,
            skin,
            morph_binding,
        });
    }
    let animations = read_clips(doc, nodes.len(), &morph_bindings)?;
    let mut animation = AnimationData {
        nodes: rests,
        clips: animations.clips,
        skeletons,
        morph_bindings,
        handedness: opts.handedness,
    };
    animation.validate()?;
    crate::stored_clips::attach_stored_clips(doc, &mut animation)?;
    Ok(Structure {
        animation,
        nodes,
        scene,
        scene_roots,
        scene_nodes: scene_order,
        skins,
        meshes,
        instances,
        morph_names: names,
        budget,
        properties: animations.properties,
        warnings: doc
            .warnings()
            .iter()
            .cloned()
            .chain(animations.warnings)
            .collect(),
    })
}

/// The seed's `parseAnimationData`: nodes at rest (node matrices decomposed), every clip
/// (translation, rotation, scale and weights channels; STEP, LINEAR and CUBICSPLINE; rotation
/// keys normalised), one skeleton binding per skinned mesh node of the scene and one morph
/// binding per mesh node with morph targets. Vertex data is not decoded.
///
/// # Errors
/// Any [`GltfError`] about nodes, skins, meshes' target counts or animations.
#[doc(alias = "parseAnimationData")]
pub fn parse_animation_data(
    doc: &GltfDocument,
    opts: &LoadOptions,
) -> Result<AnimationData, GltfError> {
    Ok(read_structure(doc, opts)?.animation)
}

/// Loads everything from a parsed document: [`parse_animation_data`], skins, and the vertex
/// streams of every mesh primitive in the scene; base-colour images when
/// [`LoadOptions::decode_images`] is set (an image that cannot be decoded is reported in
/// [`GltfAsset::images`], not as an error).
///
/// # Errors
/// Any [`GltfError`]: a bad index, accessor, count, joint, key time, non-finite value or
/// hierarchy, each naming the offending object; [`GltfError::Vrm`] for a malformed VRM
/// extension, naming its JSON path.
pub fn load_document(doc: &GltfDocument, opts: &LoadOptions) -> Result<GltfAsset, GltfError> {
    let mut s = read_structure(doc, opts)?;
    let mut primitives = Vec::new();
    for inst in &s.instances {
        for pi in 0..s.meshes[inst.mesh].primitive_count {
            primitives.push(read_primitive(doc, inst, pi, &mut s.budget)?);
        }
    }
    let vrm = crate::vrm::read_vrm(&doc.raw, &s.nodes, &s.meshes, &mut s.warnings)?;
    let mut images = vec![ImageSlot::NotLoaded; doc.root.images.len()];
    if opts.decode_images {
        for p in &primitives {
            if let Some(tex) = p.material.base_color_texture
                && images[tex.image] == ImageSlot::NotLoaded
            {
                images[tex.image] = decode_image(doc, tex.image);
            }
        }
    }
    Ok(GltfAsset {
        animation: s.animation,
        nodes: s.nodes,
        scene: s.scene,
        scene_roots: s.scene_roots,
        scene_nodes: s.scene_nodes,
        skins: s.skins,
        meshes: s.meshes,
        primitives,
        images,
        morph_names: s.morph_names,
        properties: s.properties,
        warnings: s.warnings,
        extensions_used: doc.root.extensions_used.clone(),
        extensions_required: doc.root.extensions_required.clone(),
        vrm,
    })
}
