//! [`JsApiError`]: every way a call of the bindings can fail. On wasm32 each becomes a
//! JavaScript `Error` whose message is this type's `Display` (a bad file throws, it never
//! aborts the module).

use skel_anim::AnimError;
use skel_gltf::GltfError;
use skel_graph::GraphError;

/// What went wrong, with the numbers and the place.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum JsApiError {
    /// The bytes are not a glTF asset skel can read (the loader's error names the place).
    #[error("cannot load the glTF asset: {0}")]
    Gltf(#[from] GltfError),
    /// The asset's animation data does not validate, or the player refused a layer.
    #[error("animation: {0}")]
    Anim(#[from] AnimError),
    /// A clip index past the end.
    #[error("no clip {clip}: the asset has {clip_count} clips")]
    NoSuchClip {
        /// The index asked for.
        clip: usize,
        /// How many clips there are.
        clip_count: usize,
    },
    /// No clip has this name.
    #[error("no clip named {name:?}; the clips are {names:?}")]
    NoClipNamed {
        /// The name asked for.
        name: String,
        /// Every clip's name.
        names: Vec<String>,
    },
    /// A skeleton binding (skinned mesh) index past the end.
    #[error("no skeleton binding {binding}: the asset has {count} skinned meshes")]
    NoSuchSkeleton {
        /// The index asked for.
        binding: usize,
        /// How many bindings there are.
        count: usize,
    },
    /// A morph binding index past the end.
    #[error("no morph binding {binding}: the asset has {count} morph bindings")]
    NoSuchMorphBinding {
        /// The index asked for.
        binding: usize,
        /// How many bindings there are.
        count: usize,
    },
    /// A graph file that does not compile against the asset (the message names its JSON
    /// path), or a parameter the graph does not have or of another kind.
    #[error("graph: {0}")]
    Graph(#[from] GraphError),
    /// A graph drives this animator: it plays what its parameters choose, not a clip.
    #[error("a graph drives this player: set its parameters instead of playing a clip")]
    GraphDriven,
    /// No graph drives this animator: it has no parameters.
    #[error("no graph drives this player: it has no parameter {name:?}")]
    NotAGraph {
        /// The parameter asked for.
        name: String,
    },
    /// The sibling files given with a `.gltf` are not a `Map` or an object from URI strings
    /// to bytes (JavaScript callers).
    #[error("the files must be a Map or an object from URI strings to Uint8Array or ArrayBuffer")]
    NotAFileMap,
    /// A sibling file's value is not bytes.
    #[error("file {uri:?} is not a Uint8Array or an ArrayBuffer")]
    FileNotBytes {
        /// The URI it was given under.
        uri: String,
    },
    /// A file could not be read (native callers and tests; the browser passes bytes).
    #[error("cannot read the file: {0}")]
    Read(String),
}
