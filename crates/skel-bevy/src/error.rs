//! What can go wrong between a Bevy scene and skel's pose: typed, logged, never a panic.

use bevy::prelude::Entity;

/// Why a character could not be bound to skel or its asset could not be read. The plugin
/// logs it through Bevy's `error!` and inserts it as [`SkelBindError`](crate::SkelBindError)
/// on the character, whose transforms it then leaves as they were.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SkelBevyError {
    /// The glTF bytes could not be read as skel's animation data.
    #[error("glTF: {0}")]
    Gltf(#[from] skel_gltf::GltfError),
    /// skel rejected the animation data, a layer or the root-motion set-up.
    #[error("animation: {0}")]
    Anim(#[from] skel_anim::AnimError),
    /// The asset reader failed.
    #[error("reading the asset: {0}")]
    Io(#[from] std::io::Error),
    /// A node that a clip animates or a skin uses has no entity of that name under the
    /// character's spawned scene (the scene is not the rig's glTF, or was edited).
    #[error("node {node} ({name:?}) has no entity under character {character}")]
    MissingJoint {
        /// The character entity.
        character: Entity,
        /// skel's (the glTF's) node index.
        node: usize,
        /// The name the node's entity should have.
        name: String,
    },
    /// A layer names a clip the glTF does not have.
    #[error("no clip named {0:?}")]
    NoSuchClip(String),
    /// A root-motion set-up names a node the glTF does not have.
    #[error("no node named {0:?}")]
    NoSuchNode(String),
    /// The rig's glTF failed to load (bevy's asset error, as text).
    #[error("loading the rig: {0}")]
    RigLoad(String),
    /// The character has neither a `WorldAssetRoot` loaded from a file nor an explicit rig.
    #[error("character {0} has no glTF to build a rig from")]
    NoRigSource(Entity),
    /// An animation-graph file is not of skel-graph's format, or does not fit the rig (an
    /// unknown clip, node or parameter; the error names the JSON path).
    #[error("animation graph: {0}")]
    Graph(#[from] skel_graph::GraphError),
    /// The animation-graph asset failed to load (bevy's asset error, as text: the file is
    /// missing or its JSON is not of the format).
    #[error("loading the animation graph: {0}")]
    GraphLoad(String),
    /// Retargeting another file's clips onto the character failed (not humanoid, an unknown
    /// node in the pairs, a crossed hierarchy).
    #[error("retargeting: {0}")]
    Retarget(#[from] skel_retarget::RetargetError),
    /// The rig's VRM spring bones or node constraints do not fit its nodes (a joint whose
    /// child is not below it, a constraint circle); see [`SkelSprings`](crate::SkelSprings).
    #[error("the rig's {what}: {source}")]
    Secondary {
        /// `"spring bones"` or `"node constraints"`.
        what: &'static str,
        /// skel's reason, naming the node.
        #[source]
        source: skel_anim::AnimError,
    },
    /// An IK job names a node the glTF does not have, or its two-bone chain is not a
    /// parent → child → grandchild chain.
    #[error("IK job {job}: {message}")]
    Ik {
        /// The job's index in [`SkelIk`](crate::SkelIk).
        job: usize,
        /// What is wrong.
        message: String,
    },
}
