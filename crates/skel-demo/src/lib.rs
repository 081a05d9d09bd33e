//! Demo policy shared by skel's two front ends, the `skel` program (skel-cli) and the browser
//! page (skel-web): where the camera starts and how the mouse moves it ([`OrbitView`]), how a
//! crowd stands and what frames it ([`CrowdLayout`], [`OrbitView::overlook`]), and each
//! character's phase and speed in a crowd ([`phase_and_speed`]).
//!
//! **Why a crate of its own, and why unpublished.** These are choices of the demos (a 3/4 view,
//! a grid 1.25 footprints apart, golden-ratio phases), not mechanism a program built on skel
//! needs: the mechanism (a camera's view and projection from an eye, the renderer, a pose's
//! bounds) stays in `skel`. Written here once, the two front ends cannot drift apart (they had
//! one orbit camera each, and two crowd framings that no longer agreed). `publish = false`:
//! nothing here is a promise to anyone but those two, and a change of taste is not a breaking
//! change of skel.
//!
//! Everything builds for `wasm32-unknown-unknown` (no files, no threads): the page links it.
//!
//! ```
//! use skel::anim::Handedness;
//! use skel_demo::{OrbitView, phase_and_speed};
//! use glam::Vec3;
//!
//! // A character 1.8 m tall, framed in a 4:3 window, then dragged 100 pixels to the right.
//! let mut view = OrbitView::framing(
//!     Vec3::new(-0.4, 0.0, -0.2),
//!     Vec3::new(0.4, 1.8, 0.3),
//!     4.0 / 3.0,
//!     Handedness::LeftHanded,
//! );
//! let yaw = view.yaw;
//! view.nudge(100.0, 0.0, 0.0);
//! assert!((view.yaw - (yaw - 1.0)).abs() < 1e-6);
//! let camera = view.camera(4.0 / 3.0);
//! assert!((camera.eye - view.target).length() > 1.0);
//!
//! // Neighbours of a crowd start apart in the clip and play at different speeds.
//! let ((p0, s0), (p1, s1)) = (phase_and_speed(0), phase_and_speed(1));
//! assert!((p0 - p1).abs() > 0.1 && s0 != s1);
//! ```

mod bounds_sampler;
mod crowd;
mod orbit;
mod overlook;
mod phases;

pub use bounds_sampler::{BoundsSampler, MAX_SAMPLE_VERTICES};
pub use crowd::{CROWD_SPACING, CrowdLayout, crowd_grid, crowd_spacing, place_crowd};
pub use orbit::{OrbitView, WHEEL_NOTCH};
pub use phases::phase_and_speed;
