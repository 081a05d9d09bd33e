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
//! touch the browser build ([`Backend`], [`PageParams`], [`WebError`]), so that the workspace's
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

pub use error::WebError;
pub use params::{Backend, PageParams};

#[cfg(target_arch = "wasm32")]
mod app;
#[cfg(target_arch = "wasm32")]
mod gpu;
#[cfg(target_arch = "wasm32")]
mod page;
#[cfg(target_arch = "wasm32")]
mod start;
