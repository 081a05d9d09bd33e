//! The names of morph-target meshes and their targets, which glTF keeps outside the targets:
//! `mesh.name`, and by convention (Blender's exporter, three.js, Babylon.js) the list
//! `mesh.extras.targetNames`. Retargeting matches morph-weight channels by these names.

use crate::GltfDocument;

/// The names of one morph binding's mesh and targets (one entry per morph binding of
/// [`AnimationData::morph_bindings`](skel_anim::AnimationData), in the same order).
///
/// Babylon.js names a mesh after the node that instances it, so the name it matches morph
/// targets by is `animation.nodes[binding.node].name`; `mesh` is glTF's own mesh name.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct MorphNames {
    /// `mesh.name`, empty when absent.
    pub mesh: String,
    /// `mesh.extras.targetNames`, one name per target. `None` when the file has none, or when
    /// it is not a list of as many strings as the mesh has targets: `extras` is free-form
    /// application data, so a list that does not fit is ignored rather than refused.
    pub targets: Option<Vec<String>>,
}

/// The names of mesh `mesh`, which has `count` morph targets.
pub(crate) fn morph_names(doc: &GltfDocument, mesh: usize, count: usize) -> MorphNames {
    #[derive(serde::Deserialize)]
    struct Extras {
        #[serde(rename = "targetNames")]
        target_names: Option<Vec<String>>,
    }
    let Some(json) = doc.root.meshes.get(mesh) else {
        return MorphNames::default();
    };
    let targets = json
        .extras
        .as_ref()
        .and_then(|raw| serde_json::from_str::<Extras>(raw.get()).ok())
        .and_then(|e| e.target_names)
        .filter(|names| names.len() == count);
    MorphNames {
        mesh: json.name.clone().unwrap_or_default(),
        targets,
    }
}
