//! The error type of skel-bone-control.

use skel_anim::AnimError;

/// What was wrong with a bone-control request. Every setter checks all of its input before it
/// writes anything: an `Err` means the override state is exactly what it was before the call,
/// and nothing was handed to the sink.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum BoneControlError {
    /// A bone index past the end of the skeleton's bone list.
    #[error(
        "bone {bone} is out of range: the skeleton of binding {binding} has {bone_count} bones"
    )]
    BoneOutOfRange {
        /// The index asked for.
        bone: usize,
        /// How many bones the skeleton has.
        bone_count: usize,
        /// The skeleton binding (index in `AnimationData::skeletons`).
        binding: usize,
    },
    /// A [`Bone`](crate::Bone) that is not an element of this skeleton's bone list (it belongs to
    /// another `Skeleton` handle, even one of the same asset).
    #[error("bone {name:?} is not a bone of the skeleton of binding {binding}")]
    ForeignBone {
        /// The name of the bone passed.
        name: String,
        /// The skeleton binding it was passed to.
        binding: usize,
    },
    /// A translation, rotation or scale component that is NaN or infinite.
    #[error("{what} of bone {bone}: component {component} is {value}, not a finite number")]
    NotFinite {
        /// Which input ("position", "rotation", "scaling", "world position", …).
        what: &'static str,
        /// The bone index.
        bone: usize,
        /// Which component of the input (0 = x).
        component: usize,
        /// The value given.
        value: f32,
    },
    /// A rotation quaternion of length zero: it names no orientation.
    #[error("{what} of bone {bone}: quaternion {rotation:?} has length zero")]
    ZeroRotation {
        /// Which input ("rotation" or "world rotation").
        what: &'static str,
        /// The bone index.
        bone: usize,
        /// The quaternion given `[x, y, z, w]`.
        rotation: [f32; 4],
    },
    /// A world pose cannot become a local one because the world matrix of the bone's parent
    /// node is singular (an ancestor is scaled to zero at rest or by a scaling override).
    #[error(
        "world pose of bone {bone} (node {node}): the world matrix of its parent node {parent} is singular"
    )]
    SingularParent {
        /// The bone index.
        bone: usize,
        /// The bone's joint node.
        node: usize,
        /// The parent node whose world matrix has no inverse.
        parent: usize,
    },
    /// A bone's world matrix is singular (it or an ancestor is scaled to zero by its rest pose or
    /// a scaling override), so it has no world orientation to report.
    #[error("bone {bone} (node {node}) has a singular world matrix: it has no world pose")]
    SingularWorld {
        /// The bone index.
        bone: usize,
        /// The bone's joint node.
        node: usize,
    },
    /// The hook was to be installed on a controller that plays other animation data (another
    /// node hierarchy): its overrides would land on the wrong nodes.
    #[error(
        "the controller's animation data ({controller_nodes} nodes) is not this bone-control asset's ({asset_nodes} nodes)"
    )]
    ForeignController {
        /// Nodes of the asset bone control was enabled for.
        asset_nodes: usize,
        /// Nodes of the controller's data.
        controller_nodes: usize,
    },
    /// The animation data is invalid (found when bone control is enabled).
    #[error(transparent)]
    Anim(#[from] AnimError),
}
