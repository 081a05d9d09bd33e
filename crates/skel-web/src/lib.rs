//! skel in the browser: the demo page's code. On load it makes a wgpu instance (WebGPU where
//! the browser has it, WebGL2 otherwise), a surface on the page's `<canvas id="skel">`, loads
//! the built-in character ([`skel::DEFAULT_CHARACTER`]) or the `.glb` at `?asset=URL`, and
//! draws it with [`skel::render::AssetRenderer`], animated every `requestAnimationFrame`.
//!
//! The page reports to scripts through `<body>`: `data-skel-ready="webgpu"` (or `"webgl2"`)
//! once the first frame was submitted, `data-skel-error="<message>"` when something failed
//! (the message is also shown on the page). `?backend=webgl2|webgpu` forces a backend.
//!
//! Build it with `cargo xtask web` (see `docs/web.md`). Natively only the pieces that do not
//! touch the browser ([`Backend`], [`PageParams`], [`WebError`], [`pose_digest`]), so that the workspace's
//! native clippy and tests cover them.
//!
//! ```
//! use skel_web::{Backend, PageParams};
//!
//! let params = PageParams::from_pairs([("backend", "webgl2"), ("asset", "fox.glb")])?;
//! assert_eq!(params.backend, Some(Backend::WebGl2));
//! assert_eq!(params.asset.as_deref(), Some("fox.glb"));
//! # Ok::<(), skel_web::WebError>(())
//! ```

mod error;
mod params;
mod pointer;
mod pose_digest;
mod slope;

pub use error::WebError;
pub use params::{Backend, PageParams, SceneKind};
pub use pointer::{canvas_ndc, look_target, pointer_ray};
pub use pose_digest::{PoseDigest, VERTEX_STRIDE, digest_difference, pose_digest};
pub use slope::{
    GROUND_NAME, HEAD_FORWARD, HEAD_JOINT, LOOK_DEPTH, LOOK_PARAM, LOOK_WEIGHT_PARAM,
    SLOPE_DEGREES, SLOPE_GRAPH_URL, SLOPE_VIEW, SlopeProbe, SlopeReading, TOE_JOINTS,
    slope_look_target, slope_plane,
};

/// Where the page finds the built-in character's animation graph: `cargo xtask web` copies
/// `graphs/default_character.json` beside `index.html` under this name.
pub const DEFAULT_GRAPH_URL: &str = "default_character.json";

/// Characters in the crowd the page's crowd toggle shows, unless `?crowd=N` says otherwise.
pub const DEFAULT_CROWD: u32 = 100;

/// The largest `?crowd=`.
pub const MAX_CROWD: u32 = 1000;

/// The clip `?test=1` poses, and `cargo xtask web --check` compares (the built-in
/// character's; other assets use their first clip).
pub const TEST_CLIP: &str = "Walk";

/// The times (seconds) `?test=1` poses the clip at: the start, between keys, and past the end
/// (held at the last key).
pub const TEST_TIMES: [f32; 3] = [0.0, 0.437, 100.0];

#[cfg(target_arch = "wasm32")]
mod app;
#[cfg(target_arch = "wasm32")]
mod bench;
#[cfg(target_arch = "wasm32")]
mod crowd;
#[cfg(target_arch = "wasm32")]
mod gpu;
#[cfg(target_arch = "wasm32")]
mod graph;
#[cfg(target_arch = "wasm32")]
mod input;
#[cfg(target_arch = "wasm32")]
mod page;
#[cfg(target_arch = "wasm32")]
mod scene;
#[cfg(target_arch = "wasm32")]
mod stage;
#[cfg(target_arch = "wasm32")]
mod start;
#[cfg(target_arch = "wasm32")]
pub use bench::{skel_bench_frame, skel_bench_setup};
