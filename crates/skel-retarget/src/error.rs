//! The one error type of the crate: every refusal names the node (and the side, source or
//! target) at fault.

use skel_anim::AnimError;

/// Which of the two rigs a node belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Side {
    /// The rig whose clips are read.
    Source,
    /// The rig the clips are written for.
    Target,
}

impl std::fmt::Display for Side {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::Source => "source",
            Self::Target => "target",
        })
    }
}

/// Why a retargeting, a node map or a humanoid detection was refused.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum RetargetError {
    /// A name in a map or an option names no node of that rig.
    #[error("the {side} rig has no node named {name:?}")]
    UnknownNode {
        /// The rig searched.
        side: Side,
        /// The name asked for.
        name: String,
    },
    /// A node index in a map is out of range.
    #[error("{side} node {node} is out of range ({count} nodes)")]
    NodeOutOfRange {
        /// The rig.
        side: Side,
        /// The index given.
        node: usize,
        /// How many nodes the rig has.
        count: usize,
    },
    /// Two target nodes of which one is the ancestor of the other are driven by source nodes
    /// the other way round (or by the same source node): the baked hierarchy would apply a
    /// parent's motion twice.
    #[error(
        "target {target_ancestor:?} is an ancestor of target {target_descendant:?}, but its source \
         {source_of_ancestor:?} is not a strict ancestor-or-unrelated of {source_of_descendant:?} \
         (the map pairs a node with its own ancestor)"
    )]
    CrossedHierarchy {
        /// The target ancestor.
        target_ancestor: String,
        /// The target descendant.
        target_descendant: String,
        /// The source node mapped to the ancestor.
        source_of_ancestor: String,
        /// The source node mapped to the descendant.
        source_of_descendant: String,
    },
    /// The hierarchy (or another index) of a rig is invalid.
    #[error("the {side} rig is invalid: {source}")]
    InvalidRig {
        /// The rig.
        side: Side,
        /// What the validation found.
        source: AnimError,
    },
    /// The target has no skinned mesh: there is nothing to retarget onto.
    #[error("the target rig has no skin")]
    NoSkin,
    /// The root and ground-reference nodes are at the same height at rest along the vertical
    /// axis, so the height ratio of the root-position rule is undefined.
    #[error(
        "the {side} rig has zero height between root {root:?} and ground reference {ground:?} along axis {axis}"
    )]
    ZeroHeight {
        /// The rig.
        side: Side,
        /// The root node.
        root: String,
        /// The ground-reference node.
        ground: String,
        /// The vertical axis (0 = x, 1 = y, 2 = z).
        axis: usize,
    },
    /// The root-position rule needs a root or ground-reference node the map does not pair
    /// with a source node.
    #[error("the target {role} node {name:?} is not mapped to a source node")]
    Unmapped {
        /// `"root"` or `"ground reference"`.
        role: &'static str,
        /// The target node.
        name: String,
    },
    /// Root position fixing is on and no root or ground reference was given or found.
    #[error("root position fixing needs a {role} node: give one, or turn the fix off")]
    NoRootNode {
        /// `"root"` or `"ground reference"`.
        role: &'static str,
    },
    /// A source clip named in the options does not exist.
    #[error("the source has no clip named {name:?}")]
    UnknownClip {
        /// The clip asked for.
        name: String,
    },
    /// A node map pairs no target node with a source node (no equal names, no pairs): the
    /// clips would be dropped whole.
    #[error("no target node pairs with a source node")]
    EmptyMap,
    /// A node map in JSON could not be read.
    #[error("node map JSON: {reason}")]
    MapJson {
        /// What was wrong.
        reason: String,
    },
    /// A rewritten key is not a finite number (a degenerate rest matrix).
    #[error("{side} node {node:?}: a rest matrix cannot be inverted")]
    Singular {
        /// The rig.
        side: Side,
        /// The node whose rest world matrix is singular.
        node: String,
    },
    /// A `.vrma`'s hips sit at height 0 at rest: three-vrm-animation scales the hips'
    /// motion by the ratio of the two rigs' hips heights, which is then undefined.
    #[error("the {side} rig's hips {node:?} are at height 0 at rest")]
    VrmaHips {
        /// The rig.
        side: Side,
        /// The hips node.
        node: String,
    },
    /// The rig is not recognised as a humanoid.
    #[error("not a humanoid: {reason}")]
    NotHumanoid {
        /// Which part of the test failed.
        reason: String,
    },
    /// A table of morph target names does not fit its rig: one entry per morph binding, and
    /// one name per target where a binding has names.
    #[error("{side} morph target names: {got} given for {expected} {}", match binding {
        Some(b) => format!("targets of morph binding {b}"),
        None => "morph bindings".to_owned(),
    })]
    MorphNameCount {
        /// The rig.
        side: Side,
        /// The morph binding whose names are miscounted; `None`: the table's length is wrong.
        binding: Option<usize>,
        /// How many the rig has.
        expected: usize,
        /// How many were given.
        got: usize,
    },
}
