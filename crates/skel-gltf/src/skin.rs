//! Skins as the file declares them: joint lists and inverse bind matrices (glTF 2.0 §3.7.3),
//! checked. What a loaded asset's skins look like at rest is `rest_pose.rs`.

use skel_math::IDENTITY;

use crate::accessor::{Expect, FLOAT, IntAs, accessor_count, read_f32};
use crate::nodes::NodeInfo;
use crate::{GltfDocument, GltfError};

/// One glTF skin.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct SkinInfo {
    /// `skin.name`, empty when absent.
    pub name: String,
    /// Joint node indices in glTF order; a vertex's joint index `j` means `joints[j]`.
    pub joints: Vec<usize>,
    /// 16 floats per joint, column-major; identity matrices when the file has none (glTF 2.0
    /// §5.28).
    pub inverse_bind_matrices: Vec<f32>,
    /// `skin.skeleton`: only a hint at the common root, never used to place vertices.
    pub skeleton: Option<usize>,
    /// Joints with no other joint of this skin among their ancestors (non-joint nodes in
    /// between are skipped), in joint order: the roots of the skin's bone forest.
    pub root_joints: Vec<usize>,
}

impl SkinInfo {
    /// Number of joints.
    #[must_use]
    pub fn joint_count(&self) -> usize {
        self.joints.len()
    }
}

/// Every skin's joints and inverse bind matrices, checked: at least one joint, every joint an
/// existing node listed once, all joints in one tree (glTF 2.0 §3.7.3 and the schema's
/// `minItems`/`uniqueItems`), enough inverse bind matrices.
pub(crate) fn read_skins(
    doc: &GltfDocument,
    nodes: &[NodeInfo],
) -> Result<Vec<SkinInfo>, GltfError> {
    let mut skins = Vec::with_capacity(doc.root.skins.len());
    let tree_root = tree_roots(nodes);
    // `joint_slot[node]` = (skin, position) of the last skin that listed `node`: finds a
    // duplicate in O(joints) without a per-skin allocation.
    let mut joint_slot: Vec<Option<(usize, usize)>> = vec![None; nodes.len()];
    for (si, skin) in doc.root.skins.iter().enumerate() {
        if skin.joints.is_empty() {
            return Err(GltfError::Invalid {
                path: format!("skins[{si}].joints"),
                reason: "a skin needs at least one joint".into(),
            });
        }
        let mut joints = Vec::with_capacity(skin.joints.len());
        for (k, j) in skin.joints.iter().enumerate() {
            let j = j.value();
            if j >= nodes.len() {
                return Err(GltfError::BadReference {
                    used_by: format!("skins[{si}].joints[{k}]"),
                    kind: "node",
                    index: j,
                    count: nodes.len(),
                });
            }
            if let Some((s, first)) = joint_slot[j].filter(|&(s, _)| s == si) {
                return Err(GltfError::Invalid {
                    path: format!("skins[{s}].joints[{k}]"),
                    reason: format!("node {j} is already joint {first}: joints must be unique"),
                });
            }
            joint_slot[j] = Some((si, k));
            if tree_root[j] != tree_root[joints.first().copied().unwrap_or(j)] {
                return Err(GltfError::Invalid {
                    path: format!("skins[{si}].joints[{k}]"),
                    reason: format!(
                        "node {j} is in the tree rooted at node {}, joint 0 in the tree rooted at \
                         node {}: a skin's joints must share a common root",
                        tree_root[j], tree_root[joints[0]]
                    ),
                });
            }
            joints.push(j);
        }
        let skeleton = skin.skeleton.map(|s| s.value());
        if let Some(s) = skeleton.filter(|&s| s >= nodes.len()) {
            return Err(GltfError::BadReference {
                used_by: format!("skins[{si}].skeleton"),
                kind: "node",
                index: s,
                count: nodes.len(),
            });
        }
        let inverse_bind_matrices = match skin.inverse_bind_matrices {
            None => joints.iter().flat_map(|_| IDENTITY).collect(),
            Some(acc) => {
                let acc = acc.value();
                let used_as = format!("skins[{si}].inverseBindMatrices");
                let count = accessor_count(doc, acc, &used_as)?;
                if count < joints.len() {
                    return Err(GltfError::AccessorCount {
                        accessor: acc,
                        used_as,
                        expected: joints.len(),
                        got: count,
                    });
                }
                let expect = Expect {
                    ty: gltf::json::accessor::Type::Mat4,
                    components: FLOAT,
                };
                let mut m = read_f32(doc, acc, &used_as, expect, IntAs::Flag)?;
                m.truncate(joints.len() * 16);
                m
            }
        };
        let root_joints = root_joints(&joints, nodes);
        skins.push(SkinInfo {
            name: skin.name.clone().unwrap_or_default(),
            joints,
            inverse_bind_matrices,
            skeleton,
            root_joints,
        });
    }
    Ok(skins)
}

/// The root of the tree holding each node, found once for all nodes (each walk stops at the
/// first node whose root is known, so the total work is linear in the node count).
fn tree_roots(nodes: &[NodeInfo]) -> Vec<usize> {
    let mut root: Vec<Option<usize>> = vec![None; nodes.len()];
    let mut path = Vec::new();
    for start in 0..nodes.len() {
        path.clear();
        let mut at = start;
        // The hierarchy is checked acyclic before skins are read; the bound is belt and braces.
        let found = loop {
            if let Some(r) = root[at] {
                break r;
            }
            path.push(at);
            match nodes[at].parent {
                Some(p) if path.len() <= nodes.len() => at = p,
                _ => break at,
            }
        };
        for &n in &path {
            root[n] = Some(found);
        }
    }
    root.into_iter()
        .enumerate()
        .map(|(i, r)| r.unwrap_or(i))
        .collect()
}

/// Joints whose ancestor chain holds no other joint of the same skin.
fn root_joints(joints: &[usize], nodes: &[NodeInfo]) -> Vec<usize> {
    let mut is_joint = vec![false; nodes.len()];
    for &j in joints {
        is_joint[j] = true;
    }
    joints
        .iter()
        .copied()
        .filter(|&j| {
            // The hierarchy is checked acyclic, so this walk ends; the bound is belt and braces.
            let mut p = nodes[j].parent;
            for _ in 0..nodes.len() {
                match p {
                    Some(n) if is_joint[n] => return false,
                    Some(n) => p = nodes[n].parent,
                    None => break,
                }
            }
            true
        })
        .collect()
}
