//! How a VRM extension can be malformed. Every variant names the JSON path of the offending
//! field (`extensions.VRMC_springBone.springs[2].joints[0].node`), as gltf-rs's errors do, so a
//! user can find it in the file.

use crate::human_bone::HumanBone;

/// A malformed VRM extension. Loading never panics on one: it ends here.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum VrmError {
    /// A field the specification requires is absent.
    #[error("{path}: required field is missing")]
    Missing {
        /// JSON path of the missing field.
        path: String,
    },
    /// A field holds the wrong JSON type (or a number that is not finite).
    #[error("{path}: expected {expected}")]
    WrongType {
        /// JSON path of the field.
        path: String,
        /// What the specification allows there.
        expected: &'static str,
    },
    /// A node index past the file's nodes.
    #[error("{path}: node {node} out of range (the file has {node_count} nodes)")]
    NodeOutOfRange {
        /// JSON path of the index.
        path: String,
        /// The index as written.
        node: i64,
        /// How many nodes the file has.
        node_count: usize,
    },
    /// An index into another VRM array (a collider, a collider group) past its end.
    #[error("{path}: {what} {index} out of range ({len} exist)")]
    IndexOutOfRange {
        /// JSON path of the index.
        path: String,
        /// What it indexes (`collider`, `collider group`).
        what: &'static str,
        /// The index as written.
        index: i64,
        /// How many there are.
        len: usize,
    },
    /// A collider or joint radius below zero.
    #[error("{path}: radius {radius} is negative")]
    NegativeRadius {
        /// JSON path of the radius.
        path: String,
        /// The value.
        radius: f32,
    },
    /// A string outside the specification's set (an axis, a look-at type, an override).
    #[error("{path}: {value:?} is not one of {allowed}")]
    UnknownValue {
        /// JSON path of the field.
        path: String,
        /// The value as written.
        value: String,
        /// The values allowed.
        allowed: &'static str,
    },
    /// A collider with neither a sphere nor a capsule (nor an extended shape): three-vrm
    /// refuses it too ("has no valid shape").
    #[error("{path}: no valid shape (sphere or capsule)")]
    NoShape {
        /// JSON path of the collider.
        path: String,
    },
    /// A VRMC_node_constraint without roll, aim or rotation.
    #[error("{path}: no roll, aim or rotation constraint")]
    NoConstraint {
        /// JSON path of the `constraint` object.
        path: String,
    },
    /// Humanoid bones VRM requires (hips, spine, head, arms, legs) are not mapped; three-vrm
    /// refuses such a file too.
    #[error("{path}: required human bones missing: {missing:?}")]
    MissingHumanBones {
        /// JSON path of the humanoid's bone map.
        path: String,
        /// The required bones that are absent.
        missing: Vec<HumanBone>,
    },
}
