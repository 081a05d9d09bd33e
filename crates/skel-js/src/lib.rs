//! skel's JavaScript bindings: the crate behind the `skel-anim` npm package
//! (`cargo xtask npm`, see `docs/npm.md`).
//!
//! The Rust side is plain and tested natively: an [`Asset`] is a `.glb`, or a `.gltf` with its
//! sibling files passed as a [`FileMap`] ([`Asset::from_gltf`]), read on the CPU with its rig
//! compiled once; an [`Animator`] is one character's
//! player over it, whose pose after each [`Animator::tick`] sits in buffers allocated when the
//! animator was made, so their addresses do not move from frame to frame. On wasm32 the
//! `bindings` module exports both to JavaScript with wasm-bindgen and hands those buffers out
//! as `Float32Array` views over the module's memory (no copy per frame).
//!
//! Matrices are column-major, 16 floats each (glTF's, three.js's `Matrix4.elements` and
//! Babylon's `Matrix.fromArray` order). The asset is read in glTF's own right-handed space
//! unless asked otherwise, since three.js and Babylon's glTF loader keep node transforms in it.
//!
//! ```
//! use skel_js::{Asset, Handedness};
//!
//! # fn main() -> Result<(), skel_js::JsApiError> {
//! let glb = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures/default_character.glb"))
//!     .map_err(|e| skel_js::JsApiError::Read(e.to_string()))?;
//! let asset = Asset::from_bytes(&glb, Handedness::RightHanded)?;
//! let mut animator = asset.animator();
//! animator.play(asset.clip_index("Walk").unwrap_or(0), true)?;
//! animator.tick(1.0 / 60.0);
//! assert_eq!(animator.bone_matrices(0)?.len(), asset.skeleton_joints(0)?.len() * 16);
//! # Ok(())
//! # }
//! ```

mod animator;
mod asset;
#[cfg(target_arch = "wasm32")]
mod bindings;
mod error;
mod graph;

pub use animator::Animator;
pub use asset::Asset;
pub use error::JsApiError;
pub use graph::CompiledGraph;
pub use skel_anim::Handedness;
pub use skel_gltf::FileMap;
