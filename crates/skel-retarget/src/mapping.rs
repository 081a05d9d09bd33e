//! How a node map is asked for by name (equal names, humanoid detection, explicit pairs, or
//! detection with explicit overrides) and made against two rigs: written once for every front
//! end (skel's `--map`/`--auto` options, skel-bevy's `SkelRetarget`).

use skel_anim::AnimationData;

use crate::error::RetargetError;
use crate::humanoid::HumanoidMap;
use crate::map::NodeMap;

/// How the source's nodes are paired with the target's, by name: resolved against both rigs
/// by [`Mapping::node_map`].
///
/// ```
/// use skel_anim::{AnimationData, NodeRest};
/// use skel_retarget::Mapping;
///
/// let rig = |names: &[&str]| AnimationData {
///     nodes: names.iter().map(|n| NodeRest::new(*n, None)).collect(),
///     ..AnimationData::default()
/// };
/// let (source, target) = (rig(&["mixamorig:Hips"]), rig(&["pelvis"]));
/// let pairs = Mapping::pairs_from_json(r#"{"pelvis": "mixamorig:Hips"}"#)?;
/// let map = Mapping::Pairs(pairs).node_map(&source, &target)?;
/// assert_eq!(map.source_of(0), Some(0));
/// # Ok::<(), skel_retarget::RetargetError>(())
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub enum Mapping {
    /// Every target skin joint with the source node of the same name
    /// ([`NodeMap::same_names`], Babylon.js's default).
    #[default]
    SameNames,
    /// Both rigs' canonical humanoid joints (hips, spine, limbs, head, fingers), found by
    /// [`HumanoidMap::detect`] (Mixamo, Unreal, Rigify, VRM and plain English names).
    Humanoid,
    /// Explicit `(target node, source node)` name pairs, and nothing else.
    Pairs(Vec<(String, String)>),
    /// [`Mapping::Humanoid`], then explicit `(target node, source node)` pairs that replace
    /// or add to the detected ones.
    HumanoidWith(Vec<(String, String)>),
}

impl Mapping {
    /// The node map (target → source) this mapping asks for between `source` and `target`.
    ///
    /// # Errors
    /// [`RetargetError::NotHumanoid`] when humanoid detection fails on either rig,
    /// [`RetargetError::UnknownNode`] for a pair naming a node its rig does not have,
    /// [`RetargetError::EmptyMap`] for a map that pairs nothing (no equal names, no pairs).
    pub fn node_map(
        &self,
        source: &AnimationData,
        target: &AnimationData,
    ) -> Result<NodeMap, RetargetError> {
        let humanoid = || -> Result<NodeMap, RetargetError> {
            Ok(HumanoidMap::pair(
                &HumanoidMap::detect(source)?,
                &HumanoidMap::detect(target)?,
            ))
        };
        let (mut map, pairs) = match self {
            Self::SameNames => (NodeMap::same_names(source, target), &[][..]),
            Self::Humanoid => (humanoid()?, &[][..]),
            Self::Pairs(pairs) => (NodeMap::new(), pairs.as_slice()),
            Self::HumanoidWith(pairs) => (humanoid()?, pairs.as_slice()),
        };
        let named = NodeMap::from_names(
            source,
            target,
            pairs.iter().map(|(t, s)| (t.as_str(), s.as_str())),
        )?;
        for (t, s) in named.iter() {
            map.insert(t, s);
        }
        if map.is_empty() {
            return Err(RetargetError::EmptyMap);
        }
        Ok(map)
    }

    /// The `(target node, source node)` pairs of a JSON object `{"target node": "source
    /// node", …}` (the format of [`NodeMap::to_json`]), one per entry, not yet resolved
    /// against any rig.
    ///
    /// # Errors
    /// [`RetargetError::MapJson`] when the text is not such an object.
    pub fn pairs_from_json(json: &str) -> Result<Vec<(String, String)>, RetargetError> {
        crate::map_json::name_pairs(json)
    }
}
