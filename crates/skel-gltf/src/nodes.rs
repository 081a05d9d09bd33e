//! The node hierarchy: parent links from `children` lists (checked to form a forest), rest
//! TRS (a node `matrix` decomposed), and the nodes of the scene that is shown.

use glam::Mat4;
use skel_anim::{AnimError, NodeRest};
use skel_math::normalize_quat_into;

use crate::{GltfDocument, GltfError};

/// One glTF node as this crate sees it: its place in the hierarchy and what it holds.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct NodeInfo {
    /// `node.name`, empty when absent.
    pub name: String,
    /// The node listing this one in its `children`, `None` for roots.
    pub parent: Option<usize>,
    /// Child node indices, in glTF order.
    pub children: Vec<usize>,
    /// The mesh it instantiates.
    pub mesh: Option<usize>,
    /// The skin its mesh is bound to.
    pub skin: Option<usize>,
    /// `KHR_node_visibility` `visible` (true without the extension). A hidden node hides its
    /// mesh and every descendant's; the property can be animated
    /// ([`PropertyTarget::NodeVisible`](crate::PropertyTarget::NodeVisible)).
    pub visible: bool,
}

fn bad_ref(used_by: String, kind: &'static str, index: usize, count: usize) -> GltfError {
    GltfError::BadReference {
        used_by,
        kind,
        index,
        count,
    }
}

/// Every node's hierarchy links and rest transform. Rotations are normalised; a `matrix` is
/// decomposed into translation, rotation and scale (glTF 2.0 §3.5.3: node matrices must be
/// decomposable, so composing the TRS gives the matrix back).
///
/// # Errors
/// [`GltfError::BadReference`] for a child, mesh or skin index out of range,
/// [`GltfError::NodeCycle`] for a node that is its own ancestor,
/// [`GltfError::NodeHasTwoParents`], [`GltfError::NodeNotFinite`].
pub(crate) fn read_nodes(doc: &GltfDocument) -> Result<(Vec<NodeInfo>, Vec<NodeRest>), GltfError> {
    let json = &doc.root;
    let count = json.nodes.len();
    let mut parent: Vec<Option<usize>> = vec![None; count];
    let mut infos = Vec::with_capacity(count);
    for (i, node) in json.nodes.iter().enumerate() {
        let mut children = Vec::new();
        for (k, c) in node.children.iter().flatten().enumerate() {
            let c = c.value();
            if c >= count {
                return Err(bad_ref(
                    format!("nodes[{i}].children[{k}]"),
                    "node",
                    c,
                    count,
                ));
            }
            if c == i {
                return Err(GltfError::NodeCycle { node: i });
            }
            if let Some(first) = parent[c] {
                if first == i {
                    // The same child listed twice by one parent.
                    return Err(GltfError::Invalid {
                        path: format!("nodes[{i}].children"),
                        reason: format!("lists node {c} twice"),
                    });
                }
                return Err(GltfError::NodeHasTwoParents {
                    node: c,
                    first_parent: first,
                    second_parent: i,
                });
            }
            parent[c] = Some(i);
            children.push(c);
        }
        let mesh = node.mesh.map(|m| m.value());
        if let Some(m) = mesh.filter(|&m| m >= json.meshes.len()) {
            return Err(bad_ref(
                format!("nodes[{i}].mesh"),
                "mesh",
                m,
                json.meshes.len(),
            ));
        }
        let skin = node.skin.map(|s| s.value());
        if let Some(s) = skin.filter(|&s| s >= json.skins.len()) {
            return Err(bad_ref(
                format!("nodes[{i}].skin"),
                "skin",
                s,
                json.skins.len(),
            ));
        }
        let visible = match doc.raw.pointer(&format!(
            "/nodes/{i}/extensions/KHR_node_visibility/visible"
        )) {
            None => true,
            Some(v) => v.as_bool().ok_or_else(|| GltfError::Invalid {
                path: format!("nodes[{i}].extensions.KHR_node_visibility.visible"),
                reason: "not a boolean".into(),
            })?,
        };
        infos.push(NodeInfo {
            name: node.name.clone().unwrap_or_default(),
            parent: None,
            children,
            mesh,
            skin,
            visible,
        });
    }
    let mut rests = Vec::with_capacity(count);
    for (i, (node, info)) in json.nodes.iter().zip(&mut infos).enumerate() {
        info.parent = parent[i];
        let mut rest = NodeRest::new(info.name.clone(), parent[i]);
        if let Some(m) = node.matrix {
            if m.iter().any(|v| !v.is_finite()) {
                return Err(GltfError::NodeNotFinite { node: i });
            }
            let (s, r, t) = Mat4::from_cols_array(&m).to_scale_rotation_translation();
            rest.translation = t.to_array();
            rest.rotation = r.to_array();
            rest.scale = s.to_array();
        } else {
            rest.translation = node.translation.unwrap_or([0.0; 3]);
            rest.rotation = node.rotation.map_or([0.0, 0.0, 0.0, 1.0], |q| q.0);
            rest.scale = node.scale.unwrap_or([1.0; 3]);
        }
        let finite = rest
            .translation
            .iter()
            .chain(&rest.rotation)
            .chain(&rest.scale)
            .all(|v| v.is_finite());
        if !finite {
            return Err(GltfError::NodeNotFinite { node: i });
        }
        normalize_quat_into(&mut rest.rotation, 0);
        rests.push(rest);
    }
    // Unique parents make a forest unless parent links loop; find such loops.
    skel_anim::compute_topo_order(&rests).map_err(|e| match e {
        AnimError::Cycle { node } => GltfError::NodeCycle { node },
        other => GltfError::Anim(other),
    })?;
    Ok((infos, rests))
}

/// The nodes of the scene that is shown.
pub(crate) struct SceneNodes {
    /// The scene index (`None` when the file has no scenes).
    pub scene: Option<usize>,
    /// Its root nodes.
    pub roots: Vec<usize>,
    /// Every node under them, depth first.
    pub order: Vec<usize>,
}

/// The scene shown: `scene`, else the first scene, else (a file without scenes) every root
/// node. Returns its root nodes and every node under them, in depth-first order.
///
/// # Errors
/// [`GltfError::BadReference`] for a scene or scene node index out of range.
pub(crate) fn scene_nodes(doc: &GltfDocument, nodes: &[NodeInfo]) -> Result<SceneNodes, GltfError> {
    let json = &doc.root;
    let scene = match json.scene {
        Some(s) => Some(s.value()),
        None if json.scenes.is_empty() => None,
        None => Some(0),
    };
    let roots: Vec<usize> = match scene {
        Some(s) => {
            let sc = json
                .scenes
                .get(s)
                .ok_or_else(|| bad_ref("scene".into(), "scene", s, json.scenes.len()))?;
            let mut roots = Vec::with_capacity(sc.nodes.len());
            // One flag per node keeps de-duplication linear (a file may list 100 000 roots).
            let mut listed = vec![false; nodes.len()];
            for (k, n) in sc.nodes.iter().enumerate() {
                let n = n.value();
                if n >= nodes.len() {
                    return Err(bad_ref(
                        format!("scenes[{s}].nodes[{k}]"),
                        "node",
                        n,
                        nodes.len(),
                    ));
                }
                if !listed[n] {
                    listed[n] = true;
                    roots.push(n);
                }
            }
            roots
        }
        None => (0..nodes.len())
            .filter(|&i| nodes[i].parent.is_none())
            .collect(),
    };
    let mut seen = vec![false; nodes.len()];
    let mut order = Vec::new();
    let mut stack: Vec<usize> = roots.iter().rev().copied().collect();
    while let Some(n) = stack.pop() {
        if std::mem::replace(&mut seen[n], true) {
            continue;
        }
        order.push(n);
        stack.extend(nodes[n].children.iter().rev());
    }
    Ok(SceneNodes {
        scene,
        roots,
        order,
    })
}
