//! The error type of skel-anim.

/// What was wrong with animation data or a request made of the controller.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum AnimError {
    /// A node names a parent index past the end of the node list.
    #[error("node {node} has parent {parent}, but there are only {node_count} nodes")]
    BadParent {
        /// The node whose parent is wrong.
        node: usize,
        /// The parent index it names.
        parent: usize,
        /// How many nodes there are.
        node_count: usize,
    },
    /// Following parent links from `node` leads back to `node` (including self-parenting).
    #[error("node {node} is its own ancestor (a cycle in the node hierarchy)")]
    Cycle {
        /// A node on the cycle.
        node: usize,
    },
    /// A sampler's keyframe times are not strictly increasing, or not finite.
    #[error("sampler keyframe times must be finite and strictly increasing (key {key}: {time})")]
    KeyTimesNotIncreasing {
        /// Index of the first offending key.
        key: usize,
        /// Its time.
        time: f32,
    },
    /// A sampler has no keys.
    #[error("sampler has no keyframes")]
    EmptySampler,
    /// A sampler's output length does not match its input count and interpolation.
    #[error(
        "sampler output has {got} floats, expected a multiple of {keys} keys × {per_key} (interpolation {interpolation:?})"
    )]
    OutputCountMismatch {
        /// Floats in the output.
        got: usize,
        /// Keys in the input.
        keys: usize,
        /// Multiplier per key (3 for CUBICSPLINE, 1 otherwise).
        per_key: usize,
        /// The sampler's interpolation.
        interpolation: crate::Interpolation,
    },
    /// A property track names a sampler the clip does not have, or one too narrow for it.
    #[error("clip {clip:?}: property track {property}: {reason}")]
    BadPropertyTrack {
        /// The clip's name.
        clip: String,
        /// The track's index in [`Clip::properties`](crate::Clip::properties).
        property: usize,
        /// What is wrong.
        reason: String,
    },
    /// A channel names a sampler that the clip does not have.
    #[error(
        "clip {clip:?}: channel {channel} names sampler {sampler}, but the clip has {sampler_count}"
    )]
    BadSampler {
        /// Clip name.
        clip: String,
        /// Channel index.
        channel: usize,
        /// Sampler index named.
        sampler: usize,
        /// How many samplers the clip has.
        sampler_count: usize,
    },
    /// A channel, skeleton binding or morph binding names a node that does not exist.
    #[error("{what} names node {node}, but there are only {node_count} nodes")]
    BadNode {
        /// What named it (e.g. "clip \"Walk\" channel 3").
        what: String,
        /// The node index named.
        node: usize,
        /// How many nodes there are.
        node_count: usize,
    },
    /// A channel's sampler output does not hold the number of components its path needs.
    #[error(
        "clip {clip:?}: channel {channel} ({path:?}) needs {components} components per key, its sampler gives {got} floats for {keys} keys"
    )]
    ChannelComponentMismatch {
        /// Clip name.
        clip: String,
        /// Channel index.
        channel: usize,
        /// The path animated.
        path: crate::ChannelPath,
        /// Components the path needs per key.
        components: usize,
        /// Floats in the sampler output.
        got: usize,
        /// Keys in the sampler input.
        keys: usize,
    },
    /// A skeleton binding's inverse bind matrices do not hold 16 floats per joint.
    #[error(
        "skeleton binding has {joints} joints but {floats} inverse-bind floats (need 16 per joint)"
    )]
    InverseBindCount {
        /// Joint count.
        joints: usize,
        /// Floats given.
        floats: usize,
    },
    /// A clip index past the end of the clip list.
    #[error("clip {clip} does not exist (there are {clip_count})")]
    NoSuchClip {
        /// The index asked for.
        clip: usize,
        /// How many clips there are.
        clip_count: usize,
    },
    /// Data that must be finite is not.
    #[error("{what} contains a value that is not finite")]
    NotFinite {
        /// What holds it.
        what: String,
    },
    /// A buffer handed to a function has the wrong length.
    #[error("{what}: expected {expected} floats, got {got}")]
    LengthMismatch {
        /// Which argument.
        what: &'static str,
        /// Length needed.
        expected: usize,
        /// Length given.
        got: usize,
    },
    /// A blend layer index past the end of a [`WeightedBlend`](crate::WeightedBlend)'s layers.
    #[error("blend layer {layer} does not exist (there are {layer_count})")]
    NoSuchLayer {
        /// The index asked for.
        layer: usize,
        /// How many layers there are.
        layer_count: usize,
    },
    /// A playback range that is not finite or ends before it starts.
    #[error("playback range {from}..{to} s is not a finite range with from <= to")]
    BadPlaybackRange {
        /// Start of the range asked for, in seconds.
        from: f32,
        /// End of the range asked for, in seconds.
        to: f32,
    },
    /// An item of a `CLIP=WEIGHT,…` blend specification that cannot be used.
    #[error("blend spec item {item:?}: {reason}")]
    BadBlendSpec {
        /// The item as written.
        item: String,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// A layer's mask that leaves no node with a non-zero weight: the layer could never
    /// contribute (say so instead of playing nothing).
    #[error("the mask of a layer playing clip {clip} selects no node")]
    MaskSelectsNothing {
        /// The clip of the layer.
        clip: usize,
    },
    /// A layer group index past the end of a [`Player`](crate::Player)'s groups.
    #[error("layer group {group} does not exist (there are {group_count})")]
    NoSuchGroup {
        /// The index asked for.
        group: usize,
        /// How many groups there are.
        group_count: usize,
    },
    /// Something that does not fit a layer group's mode: an override group takes blend layers,
    /// an additive group takes additive layers.
    #[error("layer group {group} is {group_mode}: it cannot take {what}")]
    GroupModeMismatch {
        /// The group.
        group: usize,
        /// `"an override group"` or `"an additive group"`.
        group_mode: &'static str,
        /// What was asked of it (`"a blend layer"` or `"an additive layer"`).
        what: &'static str,
    },
    /// A layer group's mask that leaves no node with a non-zero weight.
    #[error("the mask of layer group {group} selects no node")]
    GroupMaskSelectsNothing {
        /// The group being added.
        group: usize,
    },
    /// A weight, time or duration that is NaN or infinite.
    #[error("{what} is {value}, not a finite number")]
    NotFiniteValue {
        /// What the value is (`"layer weight"`, `"reference time"`, …).
        what: &'static str,
        /// The value given.
        value: f32,
    },
    /// An IK chain whose joints are not parent and child ([`check_chain`](crate::check_chain)).
    #[error("IK chain: node {node} should be a child of node {expected}, its parent is {parent:?}")]
    IkNotAChain {
        /// The node whose parent is not the one expected (the chain's mid or end joint).
        node: usize,
        /// The parent the chain needs (the start or mid joint).
        expected: usize,
        /// The parent it has.
        parent: Option<usize>,
    },
    /// IK input that has no solution at all: a zero-length bone or axis, a joint scaled to
    /// nothing.
    #[error("IK: {reason}")]
    IkDegenerate {
        /// What is degenerate.
        reason: &'static str,
    },
    /// A [`Compression`](crate::Compression) whose shell distance or error bound is not
    /// finite and positive.
    #[error(
        "compression: the shell distance ({shell}) and error bound ({bound}) must be finite and positive"
    )]
    BadCompression {
        /// The shell distance given.
        shell: f32,
        /// The error bound given.
        bound: f32,
    },
    /// A clip's stored compressed keys ([`StoredKeys`](crate::StoredKeys)) cannot be read
    /// against the clip they are attached to: truncated or corrupt bytes, another format
    /// version, or keys written for another layout of the clip's nodes and key times.
    #[error("clip {clip}: stored compressed keys: {reason}")]
    BadStoredKeys {
        /// The clip's index.
        clip: usize,
        /// What does not fit.
        reason: String,
    },
    /// A mirror pair whose parents are not partners: mirroring maps a node's local transform
    /// onto its partner's, which is only the reflection of the pose when the partner of a
    /// node's parent is its partner's parent (`partner(parent(node)) == parent(partner(node))`;
    /// a node paired with itself is a centre node, whose parent must be a centre node too).
    #[error(
        "mirror pairs: node {node} pairs with node {partner}, whose parent is {partner_parent:?}, but the partner of node {node}'s parent is {expected:?} (the parents of a pair must be a pair)"
    )]
    MirrorPairBreaksHierarchy {
        /// The node whose pairing does not fit the hierarchy.
        node: usize,
        /// Its partner (itself for a centre node).
        partner: usize,
        /// The parent its partner has.
        partner_parent: Option<usize>,
        /// The parent its partner needs: the partner of the node's parent.
        expected: Option<usize>,
    },
    /// A node named in two mirror pairs with different partners.
    #[error("mirror pairs: node {node} pairs with node {first} and with node {second}")]
    MirrorPairConflict {
        /// The node paired twice.
        node: usize,
        /// Its first partner.
        first: usize,
        /// The other partner.
        second: usize,
    },
    /// No mirror plane can be found from the rest pose: no pair at the top of its limb has
    /// its two nodes apart at rest (give the plane instead).
    #[error(
        "mirror plane: none of the {pairs} mirror pairs at the top of their limbs has its two nodes apart at rest; give the plane"
    )]
    MirrorPlaneUnknown {
        /// How many pairs the plane was looked for from.
        pairs: usize,
    },
    /// A mirror plane whose normal is zero or not finite, or whose distance is not finite.
    #[error("mirror plane: normal {normal:?} and distance {distance} do not make a plane")]
    BadMirrorPlane {
        /// The normal given.
        normal: [f32; 3],
        /// The distance from the origin given.
        distance: f32,
    },
    /// A [`MirrorMap`](crate::MirrorMap) used with an asset it was not built for.
    #[error("mirror map built for {map_nodes} nodes used with an asset of {data_nodes} nodes")]
    MirrorMapMismatch {
        /// Nodes of the asset the map was built for.
        map_nodes: usize,
        /// Nodes of the asset it was used with.
        data_nodes: usize,
    },
    /// A morph weights channel that mirroring moves to the partner node, whose mesh has
    /// another number of morph targets.
    #[error(
        "mirror: node {node} has {targets} morph targets but its partner {partner} has {partner_targets}"
    )]
    MirrorMorphTargets {
        /// The node whose weights are animated.
        node: usize,
        /// Its partner.
        partner: usize,
        /// Morph targets on the node.
        targets: usize,
        /// Morph targets on the partner.
        partner_targets: usize,
    },
    /// A [`GroundPlane`](crate::GroundPlane) whose normal is zero or not finite, or whose
    /// offset is not finite: there is no plane to stand on.
    #[error("ground plane: normal {normal:?} and offset {offset} do not define a plane")]
    BadGroundPlane {
        /// The normal given.
        normal: [f32; 3],
        /// The offset given.
        offset: f32,
    },
    /// A [`TriangleGround`](crate::TriangleGround) index list that is not three indices per
    /// triangle.
    #[error("ground mesh: {count} indices is not a whole number of triangles")]
    GroundIndexCount {
        /// How many indices were given.
        count: usize,
    },
    /// A [`TriangleGround`](crate::TriangleGround) index past the end of its positions.
    #[error("ground mesh: index {at} is {index}, but there are only {vertex_count} positions")]
    GroundIndexOutOfRange {
        /// Where in the index list.
        at: usize,
        /// The index found there.
        index: u32,
        /// How many positions there are.
        vertex_count: usize,
    },
    /// A [`FootPlacementDesc`](crate::FootPlacementDesc) setting outside what it means.
    #[error("foot placement: {what} is {value}, it must be {rule}")]
    BadFootPlacement {
        /// The setting (`"max step down"`, `"foot 1 ankle height"`, …).
        what: &'static str,
        /// The value given (or measured from the rest pose).
        value: f32,
        /// What it must be (`"finite and >= 0"`).
        rule: &'static str,
    },
    /// A foot whose hip is not below the pelvis: lowering the pelvis would not move that leg.
    #[error(
        "foot placement: foot {foot}'s hip (node {hip}) is not a descendant of the pelvis (node {pelvis})"
    )]
    FootNotBelowPelvis {
        /// The foot's index in the description.
        foot: usize,
        /// Its hip node.
        hip: usize,
        /// The pelvis node.
        pelvis: usize,
    },
    /// A foot index past the feet of a [`FootPlacement`](crate::FootPlacement).
    #[error("foot {foot} does not exist (there are {foot_count})")]
    NoSuchFoot {
        /// The index asked for.
        foot: usize,
        /// How many feet there are.
        foot_count: usize,
    },
    /// An IK joint list whose length the solver cannot take: a chain of fewer than 2 or more
    /// than [`MAX_CHAIN_JOINTS`](crate::ik::MAX_CHAIN_JOINTS) joints, a look-at over more than
    /// [`MAX_LOOK_AT_JOINTS`](crate::ik::MAX_LOOK_AT_JOINTS), a spine longer than
    /// [`MAX_SPINE_JOINTS`](crate::ik::MAX_SPINE_JOINTS).
    #[error("{what}: {got} joints, the solver takes {min} to {max}")]
    IkJointCount {
        /// Which list (`"IK chain"`, `"look-at joints"`, `"full-body spine"`).
        what: &'static str,
        /// The joints given.
        got: usize,
        /// The fewest it takes.
        min: usize,
        /// The most it takes.
        max: usize,
    },
    /// A [`JointLimit`](crate::ik::JointLimit) that bounds nothing sensible: a zero or
    /// non-finite axis, a NaN angle, a range whose minimum is above its maximum, a negative
    /// cone.
    #[error("IK joint {joint} (position in its list): limit {reason}")]
    IkBadLimit {
        /// The joint's position in the chain (root first) or list.
        joint: usize,
        /// What is wrong.
        reason: &'static str,
    },
    /// A full-body joint whose nearest ancestor among the solve's joints is not the one the
    /// layout needs (a hip must hang below the pelvis, a shoulder and the neck below the last
    /// spine joint, each limb joint below the one before it).
    #[error(
        "full-body IK: node {node} should hang below node {expected}, its nearest solved ancestor is {found:?}"
    )]
    IkBodyLayout {
        /// The misplaced node.
        node: usize,
        /// The joint it should hang below.
        expected: usize,
        /// The nearest ancestor it has among the solve's joints (`None`: none of them).
        found: Option<usize>,
    },
    /// Spring bones ([`SpringBones`](crate::spring::SpringBones)) that cannot be made: a node,
    /// collider or collider group index out of range, a joint whose tail is not its child, a
    /// collider value that is not finite.
    #[error("spring bones: {reason}")]
    BadSpring {
        /// What is wrong, with the index it concerns.
        reason: String,
    },
    /// A node constraint ([`NodeConstraints`](crate::constraint::NodeConstraints)) that cannot
    /// run: a node past the character's nodes, a source that is its destination, a weight
    /// that is not finite, or a circle of constraints each waiting for another.
    #[error("node constraint on node {node}: {reason}")]
    BadConstraint {
        /// The constrained node.
        node: usize,
        /// What is wrong.
        reason: &'static str,
    },
}
