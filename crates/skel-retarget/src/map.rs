//! Which source node drives which target node.

use std::collections::BTreeMap;

use skel_anim::AnimationData;

use crate::error::{RetargetError, Side};

/// The pairing of target nodes with the source nodes whose channels drive them (target →
/// source, by node index). Babylon.js's `mapNodeNames` is the same relation read the other way
/// (source name → target name).
///
/// A target node is driven by at most one source node; target nodes not in the map keep their
/// rest values, and channels of source nodes no target node names are dropped.
///
/// ```
/// use skel_anim::{AnimationData, NodeRest};
/// use skel_retarget::NodeMap;
///
/// let rig = |names: &[&str]| AnimationData {
///     nodes: names.iter().map(|n| NodeRest::new(*n, None)).collect(),
///     ..AnimationData::default()
/// };
/// let (source, target) = (rig(&["mixamorig:Hips"]), rig(&["pelvis"]));
/// let map = NodeMap::from_names(&source, &target, [("pelvis", "mixamorig:Hips")])?;
/// assert_eq!(map.source_of(0), Some(0));
/// # Ok::<(), skel_retarget::RetargetError>(())
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NodeMap {
    /// target node → source node.
    pairs: BTreeMap<usize, usize>,
}

fn find(data: &AnimationData, side: Side, name: &str) -> Result<usize, RetargetError> {
    data.nodes
        .iter()
        .position(|n| n.name == name)
        .ok_or_else(|| RetargetError::UnknownNode {
            side,
            name: name.to_owned(),
        })
}

impl NodeMap {
    /// An empty map.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Pairs every joint of the target's skins with the source node of the same name, as
    /// Babylon.js does without `mapNodeNames` (only skin joints are bones there).
    #[must_use]
    pub fn same_names(source: &AnimationData, target: &AnimationData) -> Self {
        let mut map = Self::new();
        for &joint in target.skeletons.iter().flat_map(|s| &s.joints) {
            let name = &target.nodes[joint].name;
            if name.is_empty() {
                continue;
            }
            if let Some(s) = source.nodes.iter().position(|n| &n.name == name) {
                map.pairs.insert(joint, s);
            }
        }
        map
    }

    /// A map from `(target name, source name)` pairs.
    ///
    /// # Errors
    /// [`RetargetError::UnknownNode`] for a name that is in neither rig.
    pub fn from_names<'a>(
        source: &AnimationData,
        target: &AnimationData,
        pairs: impl IntoIterator<Item = (&'a str, &'a str)>,
    ) -> Result<Self, RetargetError> {
        let mut map = Self::new();
        for (t, s) in pairs {
            map.pairs.insert(
                find(target, Side::Target, t)?,
                find(source, Side::Source, s)?,
            );
        }
        Ok(map)
    }

    /// A map read from a JSON object `{"target node": "source node", …}`.
    ///
    /// # Errors
    /// [`RetargetError::MapJson`] when the text is not such an object,
    /// [`RetargetError::UnknownNode`] for a name that is in neither rig.
    pub fn from_json(
        json: &str,
        source: &AnimationData,
        target: &AnimationData,
    ) -> Result<Self, RetargetError> {
        let pairs = crate::map_json::name_pairs(json)?;
        Self::from_names(
            source,
            target,
            pairs.iter().map(|(t, s)| (t.as_str(), s.as_str())),
        )
    }

    /// The map as JSON text `{"target node": "source node", …}` (the input of
    /// [`NodeMap::from_json`]).
    #[must_use]
    pub fn to_json(&self, source: &AnimationData, target: &AnimationData) -> String {
        let object: serde_json::Map<String, serde_json::Value> = self
            .pairs
            .iter()
            .map(|(&t, &s)| {
                (
                    target.nodes[t].name.clone(),
                    serde_json::Value::String(source.nodes[s].name.clone()),
                )
            })
            .collect();
        serde_json::to_string_pretty(&serde_json::Value::Object(object)).unwrap_or_default()
    }

    /// Pairs `target` with `source` (replacing an earlier pairing of `target`).
    pub fn insert(&mut self, target: usize, source: usize) {
        self.pairs.insert(target, source);
    }

    /// Removes `target`'s pairing.
    pub fn remove(&mut self, target: usize) -> Option<usize> {
        self.pairs.remove(&target)
    }

    /// The source node driving `target`.
    #[must_use]
    pub fn source_of(&self, target: usize) -> Option<usize> {
        self.pairs.get(&target).copied()
    }

    /// The first target node driven by `source` (in target node order).
    #[must_use]
    pub fn target_of(&self, source: usize) -> Option<usize> {
        self.pairs
            .iter()
            .find(|&(_, &s)| s == source)
            .map(|(&t, _)| t)
    }

    /// `(target, source)` pairs in target node order.
    pub fn iter(&self) -> impl Iterator<Item = (usize, usize)> + '_ {
        self.pairs.iter().map(|(&t, &s)| (t, s))
    }

    /// Number of paired target nodes.
    #[must_use]
    pub fn len(&self) -> usize {
        self.pairs.len()
    }

    /// Whether no node is paired.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.pairs.is_empty()
    }

    /// Checks indices against both rigs.
    pub(crate) fn check_ranges(
        &self,
        source: &AnimationData,
        target: &AnimationData,
    ) -> Result<(), RetargetError> {
        for (t, s) in self.iter() {
            if t >= target.nodes.len() {
                return Err(RetargetError::NodeOutOfRange {
                    side: Side::Target,
                    node: t,
                    count: target.nodes.len(),
                });
            }
            if s >= source.nodes.len() {
                return Err(RetargetError::NodeOutOfRange {
                    side: Side::Source,
                    node: s,
                    count: source.nodes.len(),
                });
            }
        }
        Ok(())
    }
}
