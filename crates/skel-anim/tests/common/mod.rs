//! Helpers shared by the skel-anim integration tests: f64 reference implementations of the pose
//! math (written independently of the library, straight from the glTF 2.0 formulas), rig
//! generators, and proptest strategies for random hierarchies and clips.

#![allow(
    dead_code,
    unused_imports,
    reason = "each test binary uses its own subset of the helpers"
)]
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

pub mod clips;
pub mod groups;
pub mod model_shell;
pub mod motions;
mod reference;
mod rigs;
mod strategies;

pub use reference::*;
pub use rigs::*;
pub use strategies::*;
