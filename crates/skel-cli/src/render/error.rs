//! The errors of `skel render` and `skel bench`.

use std::path::PathBuf;

/// What the install hint says when no GPU adapter is found. It names the exact packages.
pub const NO_ADAPTER_HINT: &str = concat!(
    "skel render needs a GPU adapter through wgpu, and none was found.\n",
    "On a machine without a GPU, install Mesa's software Vulkan driver (lavapipe) and the Vulkan loader:\n",
    "    sudo apt-get install mesa-vulkan-drivers libvulkan1      (Debian, Ubuntu)\n",
    "    sudo dnf install mesa-vulkan-drivers vulkan-loader       (Fedora)\n",
    "or run `cargo xtask demo` from the repository, which installs them when it can (scripts/install-vulkan.sh).\n",
    "If a driver is installed but not picked, try WGPU_BACKEND=vulkan (or gl).",
);

/// Everything `skel render` / `skel bench` can fail with. Each variant names the file, the
/// clip or the numbers involved.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RenderError {
    /// No wgpu adapter (no GPU, no driver).
    #[error("{NO_ADAPTER_HINT}\n(wgpu said: {reason})")]
    NoAdapter {
        /// What wgpu reported.
        reason: String,
    },
    /// The asset file does not exist.
    #[error(
        "no such file: {path} (give a .gltf or .glb file, or no ASSET for the built-in character)"
    )]
    MissingFile {
        /// The path given.
        path: PathBuf,
    },
    /// A bone override could not be applied (unknown bone, bad quaternion).
    #[error("bone control: {0}")]
    BoneControl(String),
    /// `--graph` (or its `--set` / `--travel`) cannot be used with the asset.
    #[error("{asset}: {message}")]
    Graph {
        /// The asset.
        asset: String,
        /// What is wrong, naming the graph file and the JSON path or name.
        message: String,
    },
    /// Loading the asset failed (missing file, bad glTF, GPU resource creation).
    #[error("cannot load {asset}: {source}")]
    Load {
        /// The asset as the user named it.
        asset: String,
        /// The facade's error.
        #[source]
        source: skel::SkelError,
    },
    /// A `--vrma` clip that does not load or does not fit the character.
    #[error("{0}")]
    Vrma(String),
    /// The asset has no mesh to draw.
    #[error("{asset} has no mesh to render (nodes: {nodes}, meshes: 0)")]
    NoMesh {
        /// The asset as the user named it.
        asset: String,
        /// How many nodes it has.
        nodes: usize,
    },
    /// `--clip` names no clip of the asset.
    #[error("{asset} has no clip {requested:?}; its clips are: {available}")]
    UnknownClip {
        /// The asset as the user named it.
        asset: String,
        /// What `--clip` said.
        requested: String,
        /// The clips it has, `index: name`, or "none".
        available: String,
    },
    /// `--layers` names a file that cannot be read or used.
    #[error("{0}")]
    BadLayers(#[from] crate::layer_file::LayerFileError),
    /// `--terrain` cannot be used: a bad ground, or an asset without humanoid legs.
    #[error("{0}")]
    Terrain(#[from] crate::terrain::TerrainError),
    /// `--blend` is malformed or names a clip the asset does not have.
    #[error("{asset}: bad --blend {spec:?}: {reason}; its clips are: {available}")]
    BadBlend {
        /// The asset as the user named it.
        asset: String,
        /// What `--blend` said.
        spec: String,
        /// skel-anim's reason, naming the item.
        reason: String,
        /// The clips it has.
        available: String,
    },
    /// A size is zero or too large for the device or for GIF.
    #[error("image size {width}×{height} is not allowed (each side must be 1..={max})")]
    BadSize {
        /// Requested width.
        width: u32,
        /// Requested height.
        height: u32,
        /// The largest side allowed.
        max: u32,
    },
    /// A command-line value is out of range.
    #[error("{what} must be {rule}, got {got}")]
    BadArgument {
        /// The flag.
        what: &'static str,
        /// The rule it breaks.
        rule: &'static str,
        /// The value given.
        got: String,
    },
    /// A GPU operation failed (pipeline creation, validation, device loss).
    #[error("GPU error while {context}: {source}")]
    Gpu {
        /// What the renderer was doing.
        context: &'static str,
        /// skel-gpu's error.
        #[source]
        source: skel::gpu::GpuError,
    },
    /// The crowd of `--crowd` could not be built or bound (no skinned mesh, GPU limits).
    #[error("crowd: {context}: {source}")]
    Crowd {
        /// What was being done.
        context: &'static str,
        /// The facade's error.
        #[source]
        source: skel::SkelError,
    },
    /// wgpu reported an error while a frame was drawn (outside any error scope).
    #[error("GPU error while drawing frame {frame}: {message}")]
    Frame {
        /// The frame index.
        frame: usize,
        /// wgpu's message.
        message: String,
    },
    /// Reading a frame back from the GPU failed.
    #[error("reading the frame back from the GPU failed: {0}")]
    Readback(String),
    /// The facade refused to advance a frame (a step that is not a number of seconds).
    #[error("advancing the animation: {0}")]
    Advance(#[from] skel::FrameError),
    /// The CPU pose pipeline rejected the asset (bad indices, clip out of range).
    #[error("animation error: {0}")]
    Anim(#[from] skel::anim::AnimError),
    /// A file or directory could not be created or written.
    #[error("cannot write {path}: {source}")]
    Io {
        /// The path.
        path: PathBuf,
        /// The OS error.
        #[source]
        source: std::io::Error,
    },
    /// PNG encoding or writing failed.
    #[error("cannot write image {path}: {source}")]
    Image {
        /// The path.
        path: PathBuf,
        /// The encoder's error.
        #[source]
        source: image::ImageError,
    },
    /// GIF encoding or writing failed.
    #[error("cannot write GIF {path}: {source}")]
    Gif {
        /// The path.
        path: PathBuf,
        /// The encoder's error.
        #[source]
        source: gif::EncodingError,
    },
}

impl From<skel::render::RenderError> for RenderError {
    /// The facade renderer's errors, with the same messages.
    fn from(e: skel::render::RenderError) -> Self {
        match e {
            skel::render::RenderError::Gpu { context, source } => Self::Gpu { context, source },
            skel::render::RenderError::BadSize { width, height, max } => {
                Self::BadSize { width, height, max }
            }
            skel::render::RenderError::Readback(m) => Self::Readback(m),
            skel::render::RenderError::Crowd { context, source } => Self::Crowd {
                context,
                source: *source,
            },
            // The facade's enum is non-exhaustive: a future variant keeps its message.
            other => Self::Readback(other.to_string()),
        }
    }
}
