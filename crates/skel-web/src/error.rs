//! [`WebError`]: everything the page can fail with, shown on the page and in `data-skel-error`.

/// What can go wrong between page load and the first frame (and while drawing).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum WebError {
    /// `?backend=` named something other than `webgpu` or `webgl2`.
    #[error("unknown backend {got:?} in ?backend= (use webgpu or webgl2)")]
    UnknownBackend {
        /// The value in the query string.
        got: String,
    },
    /// `?t=` is not a finite number of seconds ≥ 0.
    #[error("?t= must be a time in seconds ≥ 0, not {got:?}")]
    BadTime {
        /// The value in the query string.
        got: String,
    },
    /// The animation graph does not compile against the asset, or refused a parameter.
    #[error("animation graph: {0}")]
    Graph(String),
    /// `?crowd=` is not a count from 1 to [`MAX_CROWD`](crate::MAX_CROWD).
    #[error("?crowd= must be a number of characters from 1 to 1000, not {got:?}")]
    BadCrowd {
        /// The value in the query string.
        got: String,
    },
    /// `?scene=` named something other than `default` or `slope`.
    #[error("unknown scene {got:?} in ?scene= (use default or slope)")]
    UnknownScene {
        /// The value in the query string.
        got: String,
    },
    /// `?scene=` cannot be shown with another parameter.
    #[error("?scene={scene} cannot be combined with ?{with}")]
    SceneConflict {
        /// The scene asked for.
        scene: &'static str,
        /// The parameter it cannot be combined with.
        with: &'static str,
    },
    /// The CPU pose of `?test=1` (or of the native side of the check) failed.
    #[error("cannot pose the asset on the CPU: {0}")]
    Pose(String),
    /// The browser offers neither API (or the forced one is missing).
    #[error(
        "this browser offers {wanted}, which skel needs to draw; try a current Chrome, Edge, \
         Firefox or Safari, or enable hardware acceleration"
    )]
    NoGraphics {
        /// What was looked for: "neither WebGPU nor WebGL2", "no WebGPU", "no WebGL2".
        wanted: &'static str,
    },
    /// A page element or browser API the demo needs is missing.
    #[error("the page has no {what}")]
    Page {
        /// What is missing.
        what: &'static str,
    },
    /// wgpu could not make a surface on the canvas.
    #[error("cannot draw on the canvas with {backend}: {reason}")]
    Surface {
        /// The backend tried.
        backend: &'static str,
        /// wgpu's message.
        reason: String,
    },
    /// No adapter for the canvas.
    #[error("no {backend} adapter for the canvas: {reason}")]
    Adapter {
        /// The backend tried.
        backend: &'static str,
        /// wgpu's message.
        reason: String,
    },
    /// The surface cannot be configured for the adapter (no format in common).
    #[error("the canvas offers no colour format skel can draw to on {backend}")]
    NoSurfaceFormat {
        /// The backend tried.
        backend: &'static str,
    },
    /// Fetching `?asset=` failed.
    #[error("cannot fetch {url}: {reason}")]
    Fetch {
        /// The URL asked for.
        url: String,
        /// The browser's message or the HTTP status.
        reason: String,
    },
    /// skel-gpu refused (device request, a limit the device lacks).
    #[error(transparent)]
    Gpu(#[from] skel::gpu::GpuError),
    /// Loading the asset failed (bad glTF, a GPU limit such as storage buffers on WebGL2).
    #[error(transparent)]
    Load(#[from] skel::SkelError),
    /// Building the renderer or drawing failed.
    #[error(transparent)]
    Render(#[from] skel::render::RenderError),
    /// The facade refused to advance the character (a step that is not a number of seconds).
    #[error(transparent)]
    Frame(#[from] skel::FrameError),
    /// wgpu reported a validation or out-of-memory error while the page drew.
    #[error("GPU error: {0}")]
    Uncaptured(String),
}
