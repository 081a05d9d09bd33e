//! The error type of skel-gltf: every way a file can be wrong, with the place it is wrong.

use std::path::PathBuf;

use skel_anim::AnimError;

/// What was wrong with a glTF file, and where. Loading never panics: every malformed input
/// ends here, naming the accessor, node, buffer or object at fault (glTF indices).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum GltfError {
    /// A file (the asset or an external buffer/image) could not be read.
    #[error("cannot read {}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The binary container (`.glb`) is malformed: bad magic, version, or chunk lengths.
    #[error("malformed GLB container: {reason}")]
    Glb {
        /// What is wrong.
        reason: String,
    },
    /// The JSON is not valid glTF JSON (syntax, or a field of the wrong JSON type).
    #[error("invalid glTF JSON: {reason}")]
    Parse {
        /// The parser's message, with line and column.
        reason: String,
    },
    /// A field holds a value glTF does not allow (e.g. an unknown `componentType` or
    /// interpolation), at the JSON path `path`.
    #[error("{path}: {reason}")]
    Invalid {
        /// JSON path of the field, e.g. `accessors[3].componentType`.
        path: String,
        /// What is wrong with it.
        reason: String,
    },
    /// The file requires an extension this loader does not implement
    /// (`extensionsRequired`).
    #[error("the file requires the unsupported extension {extension}")]
    UnsupportedExtension {
        /// The extension's name.
        extension: String,
    },
    /// An object names an accessor that does not exist.
    #[error("{used_by} names accessor {accessor}, but the file has {accessor_count} accessors")]
    MissingAccessor {
        /// Who names it, e.g. `meshes[0].primitives[1].attributes.JOINTS_0`.
        used_by: String,
        /// The accessor index named.
        accessor: usize,
        /// How many accessors there are.
        accessor_count: usize,
    },
    /// An object names another object (node, mesh, skin, buffer view, buffer, sampler, image,
    /// texture, material, scene) that does not exist.
    #[error("{used_by} names {kind} {index}, but the file has {count}")]
    BadReference {
        /// Who names it (a JSON path).
        used_by: String,
        /// What kind of object is named (`"node"`, `"bufferView"` …).
        kind: &'static str,
        /// The index named.
        index: usize,
        /// How many objects of that kind exist.
        count: usize,
    },
    /// A buffer's bytes are not available: no `uri` outside a GLB, a GLB without a `BIN`
    /// chunk, an external file given to [`load_slice`](crate::load_slice) without a base
    /// directory, or one the [`ExternalFiles`](crate::ExternalFiles) given to
    /// [`load_slice_with_files`](crate::load_slice_with_files) does not hold (the reason names
    /// its URI).
    #[error("buffer {buffer}: {reason}")]
    MissingBuffer {
        /// The buffer index.
        buffer: usize,
        /// Why its bytes are missing.
        reason: String,
    },
    /// A buffer holds fewer bytes than its `byteLength` says.
    #[error("buffer {buffer} declares {expected} bytes but holds {actual}")]
    BufferLength {
        /// The buffer index.
        buffer: usize,
        /// `byteLength`.
        expected: u64,
        /// Bytes found.
        actual: u64,
    },
    /// A `data:` URI could not be decoded.
    #[error("{used_by}: bad data URI: {reason}")]
    DataUri {
        /// The buffer or image holding it (a JSON path).
        used_by: String,
        /// What is wrong.
        reason: String,
    },
    /// A buffer view lies (partly) outside its buffer.
    #[error(
        "buffer view {view} spans bytes {start}..{end} of buffer {buffer}, which has {buffer_len}"
    )]
    BufferViewOutOfRange {
        /// The buffer view index.
        view: usize,
        /// The buffer it views.
        buffer: usize,
        /// First byte.
        start: u64,
        /// One past the last byte.
        end: u64,
        /// Bytes in the buffer.
        buffer_len: u64,
    },
    /// An accessor reads past the end of its buffer view (offset, stride and count do not fit),
    /// or its stride is smaller than one element.
    #[error(
        "accessor {accessor} needs {needed} bytes of buffer view {view}, which has {available}"
    )]
    AccessorOutOfRange {
        /// The accessor index.
        accessor: usize,
        /// Its buffer view (for sparse parts: the sparse indices' or values' view).
        view: usize,
        /// Bytes the accessor reads, counted from the view's start.
        needed: u64,
        /// Bytes in the view.
        available: u64,
    },
    /// An accessor without a buffer view declares more elements than the loader will zero-fill
    /// (such accessors hold no data, so a huge `count` is a malformed header, not a big mesh).
    #[error("accessor {accessor} has no buffer view and declares {count} elements (limit {limit})")]
    AccessorTooLarge {
        /// The accessor index.
        accessor: usize,
        /// Its `count`.
        count: u64,
        /// The largest count accepted without a buffer view.
        limit: u64,
    },
    /// An accessor has the wrong `type` or `componentType` for its use.
    #[error("accessor {accessor} used as {used_as}: expected {expected}, got {got}")]
    AccessorType {
        /// The accessor index.
        accessor: usize,
        /// Its use, e.g. `JOINTS_0` or `animation 2 sampler 0 output`.
        used_as: String,
        /// What is allowed there, e.g. `VEC4 of UNSIGNED_BYTE or UNSIGNED_SHORT`.
        expected: String,
        /// What the accessor is, e.g. `VEC3 of FLOAT`.
        got: String,
    },
    /// An accessor has the wrong number of elements for its use (e.g. `WEIGHTS_0` shorter than
    /// `POSITION`, fewer inverse bind matrices than joints).
    #[error("accessor {accessor} used as {used_as} has {got} elements, expected {expected}")]
    AccessorCount {
        /// The accessor index.
        accessor: usize,
        /// Its use.
        used_as: String,
        /// Elements needed.
        expected: usize,
        /// Elements it has.
        got: usize,
    },
    /// A sparse accessor's index points past the accessor's element count.
    #[error("accessor {accessor}: sparse index {index} is not below the count {count}")]
    SparseIndexOutOfRange {
        /// The accessor index.
        accessor: usize,
        /// The sparse index found.
        index: u64,
        /// The accessor's `count`.
        count: usize,
    },
    /// Data that must be finite holds NaN or an infinity.
    #[error(
        "accessor {accessor} ({used_as}) holds a value that is not finite at element {element}"
    )]
    NotFinite {
        /// The accessor index.
        accessor: usize,
        /// Its use.
        used_as: String,
        /// The first offending element.
        element: usize,
    },
    /// A node's transform (`matrix`, `translation`, `rotation`, `scale`) holds NaN or an
    /// infinity.
    #[error("node {node} has a transform that is not finite")]
    NodeNotFinite {
        /// The node index.
        node: usize,
    },
    /// A vertex names a joint past the end of its skin's joint list.
    #[error(
        "accessor {accessor}: vertex {vertex} uses joint {joint}, but the skin has {joint_count} joints"
    )]
    JointOutOfRange {
        /// The JOINTS_n accessor.
        accessor: usize,
        /// The vertex.
        vertex: usize,
        /// The joint index found.
        joint: u32,
        /// Joints in the skin.
        joint_count: usize,
    },
    /// A primitive's vertex index points past its vertex count.
    #[error(
        "accessor {accessor} (indices): entry {position} is vertex {index}, but the primitive has {vertex_count} vertices"
    )]
    IndexOutOfRange {
        /// The indices accessor.
        accessor: usize,
        /// Position of the entry in the index list.
        position: usize,
        /// The vertex index found.
        index: u32,
        /// Vertices in the primitive.
        vertex_count: usize,
    },
    /// An animation sampler's key times are not strictly increasing (or negative).
    #[error(
        "accessor {accessor} (key times): key {key} at {time} does not come after the key before"
    )]
    KeyTimesNotIncreasing {
        /// The input accessor.
        accessor: usize,
        /// Index of the first offending key.
        key: usize,
        /// Its time.
        time: f32,
    },
    /// An animation sampler's output does not hold one value per key (three per key for
    /// CUBICSPLINE: in-tangent, value, out-tangent; × the target count for weights).
    #[error(
        "animation {animation} sampler {sampler}: output accessor {accessor} has {got} elements, expected {expected} for {keys} keys"
    )]
    SamplerOutputCount {
        /// The animation index.
        animation: usize,
        /// The sampler index within it.
        sampler: usize,
        /// The output accessor.
        accessor: usize,
        /// Keys in the input.
        keys: usize,
        /// Elements needed.
        expected: usize,
        /// Elements found.
        got: usize,
    },
    /// The node hierarchy has a cycle (a node is its own ancestor, or its own child).
    #[error("node {node} is its own ancestor (a cycle in the node hierarchy)")]
    NodeCycle {
        /// A node on the cycle.
        node: usize,
    },
    /// A node is listed as a child of two nodes (glTF nodes form a forest).
    #[error("node {node} is a child of both node {first_parent} and node {second_parent}")]
    NodeHasTwoParents {
        /// The node.
        node: usize,
        /// Its first parent.
        first_parent: usize,
        /// The other parent.
        second_parent: usize,
    },
    /// A node was expected to hold a mesh (e.g. the mesh node given to
    /// [`extract_skin`](crate::extract_skin)) but has none.
    #[error("node {node} has no mesh")]
    NoMesh {
        /// The node.
        node: usize,
    },
    /// The primitives of one mesh disagree on the number of morph targets, or the mesh's
    /// default weights do not have one weight per target.
    #[error("mesh {mesh}: {what} has {got} morph targets/weights, expected {expected}")]
    MorphTargetCount {
        /// The mesh.
        mesh: usize,
        /// Which part disagrees, e.g. `primitive 1` or `weights`.
        what: String,
        /// Targets expected.
        expected: usize,
        /// Targets found.
        got: usize,
    },
    /// A mesh primitive has no `POSITION` attribute.
    #[error("mesh {mesh} primitive {primitive} has no POSITION attribute")]
    NoPositions {
        /// The mesh.
        mesh: usize,
        /// The primitive.
        primitive: usize,
    },
    /// Decoding the asset would need more memory than one asset may take (a small file can ask
    /// for a lot by reusing one accessor in many morph targets or influence sets, or one mesh
    /// or skin on many nodes).
    #[error(
        "{what} would need {floats} more floats, past the limit of {limit} floats for one asset"
    )]
    TooLarge {
        /// What was being decoded (a JSON path).
        what: String,
        /// Floats it needs.
        floats: u64,
        /// The limit for the whole asset.
        limit: u64,
    },
    /// A compressed buffer view or primitive (`EXT_meshopt_compression`,
    /// `KHR_meshopt_compression`, `KHR_draco_mesh_compression`) could not be decoded: a
    /// malformed stream, or parameters the codec does not allow, and no fallback data.
    #[error("{path}: {extension}: {reason}")]
    Compressed {
        /// JSON path of the buffer view or primitive, e.g. `bufferViews[3]`.
        path: String,
        /// The compression extension.
        extension: String,
        /// What is wrong.
        reason: String,
    },
    /// The file needs a decoder this build of skel-gltf was compiled without (its `meshopt`
    /// feature).
    #[error(
        "{extension} is not decoded by this build of skel ({why}); re-export the file without it: {command}"
    )]
    CodecNotBuilt {
        /// The compression extension.
        extension: String,
        /// Why this build has no decoder.
        why: &'static str,
        /// A command that writes the file without the extension.
        command: &'static str,
    },
    /// A base-colour image could not be decoded.
    #[error("image {image}: {reason}")]
    Image {
        /// The image index.
        image: usize,
        /// Why it could not be decoded.
        reason: String,
    },
    /// The assembled animation data failed skel-anim's checks.
    #[error(transparent)]
    Anim(#[from] AnimError),
    /// A VRM extension (`VRMC_vrm`, `VRMC_springBone`, `VRMC_node_constraint`, VRM 0.x's
    /// `VRM`) is malformed; the error names the JSON path.
    #[error(transparent)]
    Vrm(#[from] crate::vrm_error::VrmError),
}
