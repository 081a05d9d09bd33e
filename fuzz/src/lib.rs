//! The fuzz harness of skel, shared by the cargo-fuzz targets in `fuzz_targets/`:
//!
//! - `load_gltf`: arbitrary `.glb`/`.gltf` bytes through the whole CPU pipeline
//!   ([`exercise_asset`]);
//! - `controller_api`: arbitrary sequences of playback and bone-control calls with invariants
//!   checked after each ([`api::run_bytes`]);
//! - `graph_json`: arbitrary text as an animation-graph file, played when it compiles
//!   ([`graph::run_bytes`]);
//! - `pointer`: arbitrary text as a `KHR_animation_pointer` pointer
//!   ([`extensions::pointer_bytes`]);
//! - `meshopt`: arbitrary bytes as an `EXT_meshopt_compression` stream
//!   ([`extensions::meshopt_bytes`]);
//! - `stored_keys`: arbitrary bytes as a clip's stored compressed keys
//!   ([`stored::stored_keys_bytes`]).
//!
//! Kept out of the workspace (it needs libFuzzer's nightly flags); run it with
//! `cargo xtask fuzz --seconds N [--target T]` (see `docs/fuzzing.md`).

pub mod api;
mod asset;
pub mod extensions;
pub mod graph;
pub mod num;
pub mod rig;
pub mod stored;
pub mod vrm;

pub use asset::exercise_asset;
