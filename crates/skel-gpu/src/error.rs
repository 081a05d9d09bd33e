//! The one error type of skel-gpu.

/// Everything that can go wrong when creating, uploading to or recovering GPU skinning
/// resources. Every variant carries the numbers that made it fail and, where there is one, the
/// place (vertex, influence slot, limit name).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum GpuError {
    /// No wgpu adapter matched (no GPU, no driver, or `WGPU_BACKEND` selects a backend that is
    /// not there).
    #[error("no wgpu adapter found (backends {backends}): {reason}")]
    NoAdapter {
        /// The backends that were searched, as wgpu prints them.
        backends: String,
        /// wgpu's reason.
        reason: String,
    },
    /// The adapter refused the device request.
    #[error("the adapter {adapter:?} refused the device request: {reason}")]
    RequestDevice {
        /// The adapter's name.
        adapter: String,
        /// wgpu's reason.
        reason: String,
    },
    /// A device limit is lower than what the operation needs.
    #[error("device limit `{name}` is {available}, but {needed} is needed")]
    MissingLimit {
        /// The field name in [`wgpu::Limits`].
        name: &'static str,
        /// The value the operation needs.
        needed: u64,
        /// The value the device has.
        available: u64,
    },
    /// A device feature the operation needs is not enabled.
    #[error("device feature {name} is needed but not enabled")]
    MissingFeature {
        /// The feature, as wgpu prints it.
        name: String,
    },
    /// Two inputs disagree about a length.
    #[error("{what}: expected {expected} elements, got {got}")]
    LengthMismatch {
        /// Which input.
        what: &'static str,
        /// The length implied by the other inputs.
        expected: usize,
        /// The length given.
        got: usize,
    },
    /// A joint index has no bone.
    #[error(
        "vertex {vertex}, influence {slot}: joint index {joint} is out of range for {bone_count} bones"
    )]
    JointOutOfRange {
        /// The vertex.
        vertex: usize,
        /// Influence slot 0..8 (4..8 come from JOINTS_1).
        slot: usize,
        /// The joint index found.
        joint: u32,
        /// Bones in the skeleton.
        bone_count: u32,
    },
    /// A matrix upload does not have one matrix per bone.
    #[error("expected {expected} bone matrices, got {got}")]
    BoneCountMismatch {
        /// Bone matrices expected (bones in the skeleton, or in the whole crowd).
        expected: u32,
        /// Matrices given.
        got: usize,
    },
    /// A skeleton needs at least one bone.
    #[error("a skeleton needs at least one bone, got 0")]
    NoBones,
    /// More bones than the device's largest 2D texture can hold.
    #[error(
        "{got} bones do not fit the bone texture: at most {max} with max_texture_dimension_2d = {max_texture_dimension_2d}"
    )]
    TooManyBones {
        /// Bones asked for.
        got: u32,
        /// The most the device can hold.
        max: u64,
        /// The device limit that sets the maximum.
        max_texture_dimension_2d: u32,
    },
    /// A value that must be finite is NaN or infinite.
    #[error("{what}[{index}] is not finite")]
    NotFinite {
        /// Which input.
        what: &'static str,
        /// Index of the first bad float.
        index: usize,
    },
    /// A ray's direction has no length (picking; a NaN or infinite ray is
    /// [`NotFinite`](Self::NotFinite)).
    #[error("the ray's direction is zero")]
    ZeroRayDirection,
    /// Morph targets were asked for with no targets.
    #[error("morph targets need at least one target, got 0")]
    NoMorphTargets,
    /// More morph targets than the weights uniform holds.
    #[error("{got} morph targets, at most {max} are supported")]
    TooManyMorphTargets {
        /// Targets asked for.
        got: usize,
        /// [`crate::MAX_MORPH_TARGETS`].
        max: usize,
    },
    /// A resource a shader variant binds was not given.
    #[error("{what} is required by this shader variant but was not given")]
    MissingBinding {
        /// What was missing.
        what: &'static str,
    },
    /// A shader variant and a skeleton disagree on influences per vertex.
    #[error("the shader variant skins {shader} influences per vertex, the skeleton has {skeleton}")]
    InfluenceMismatch {
        /// Influences the shader reads.
        shader: u32,
        /// Influences the skeleton stores.
        skeleton: u32,
    },
    /// A shader reads morph deltas from one kind of resource and the morph targets keep them in
    /// the other (a texture-backed [`MorphGpu`](crate::MorphGpu) in compute or crowd skinning,
    /// which read a storage buffer, or a fragment made for the wrong kind).
    #[error("the shader reads morph deltas from {shader}, the morph targets keep them in {morph}")]
    MorphDeltaMismatch {
        /// Where the shader reads them.
        shader: crate::MorphDeltaStorage,
        /// Where the morph targets keep them.
        morph: crate::MorphDeltaStorage,
    },
    /// A buffer is smaller than the operation reads or writes.
    #[error("{what}: buffer has {got} bytes, {needed} are needed")]
    BufferTooSmall {
        /// Which buffer.
        what: &'static str,
        /// Bytes needed.
        needed: u64,
        /// Bytes the buffer has.
        got: u64,
    },
    /// wgpu reported a validation error inside an operation of this crate.
    #[error("wgpu validation error in {context}: {message}")]
    Validation {
        /// The operation.
        context: &'static str,
        /// wgpu's message.
        message: String,
    },
    /// wgpu ran out of memory inside an operation of this crate.
    #[error("out of GPU memory in {context}")]
    OutOfMemory {
        /// The operation.
        context: &'static str,
    },
    /// Reading a buffer or texture back failed (mapping or polling).
    #[error("readback failed: {reason}")]
    Readback {
        /// wgpu's reason.
        reason: String,
    },
    /// No slot of a staging ring came back mapped after waiting for the device: the command
    /// buffers of earlier uploads were never submitted, or mapping failed.
    #[error(
        "no staging slot of {slots} is free after waiting for the device (were earlier uploads submitted?)"
    )]
    StagingBusy {
        /// Slots in the ring.
        slots: usize,
    },
    /// An instance index is not below the instance count.
    #[error("{what}: instance {index} is out of range for {count} instances")]
    InstanceOutOfRange {
        /// What held the index.
        what: &'static str,
        /// The index.
        index: u32,
        /// The instance count.
        count: u32,
    },
    /// A clip moves a skinned mesh's node or one of its ancestors; the GPU pose pass folds the
    /// mesh's inverse world transform into constants and cannot follow it.
    #[error("GPU posing: a clip animates node {node}, which places skinned mesh node {mesh_node}")]
    AnimatedMeshNode {
        /// The skinned mesh's node.
        mesh_node: usize,
        /// The animated node (the mesh node or an ancestor).
        node: usize,
    },
    /// An option or argument is out of its range.
    #[error("{what} is {got}, expected {expected}")]
    OutOfRange {
        /// Which value.
        what: &'static str,
        /// The value given.
        got: String,
        /// The range it must lie in.
        expected: &'static str,
    },
}
