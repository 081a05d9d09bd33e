//! Foot placement: feet on the ground the caller's world reports, on slopes and stairs, a
//! planted foot locked where it touched down, the pelvis lowered so that the lower foot
//! reaches, every correction eased in and out.
//!
//! # Parts
//!
//! - [`GroundQuery`]: one ray in, a [`GroundHit`] (point and normal) out; the caller's world.
//!   [`GroundPlane`] (a plane) and [`TriangleGround`] (a triangle mesh in a bounding-volume
//!   hierarchy) are provided.
//! - [`FootPlacement`]: built once per rig from a [`FootPlacementDesc`] (legs as hip, knee,
//!   ankle and optional toe joints, the pelvis, limits and times), validated then.
//! - [`FootPlacementState`]: one per character, sized at build: what persists between frames.
//! - [`FootPlacement::solve`]: the per-frame job on a local TRS pose, after the layers and IK,
//!   before local → world (the [`ik`](crate::ik) module's place in a player), returning a
//!   [`FootReport`]; [`FootPlacementState::feet`] holds each foot's [`FootStatus`].
//! - [`FootPlacement::solve_batch`]: the same job for many characters of the rig in one call
//!   ([`FootBatchJob`] each), bit for bit what `solve` gives each, two characters' legs
//!   solved together in the four SIMD lanes.
//!
//! # Conventions and units
//!
//! Everything the job measures is in the **ground's world frame**: the pose is mapped into it
//! by the `root` handed to `solve` (what the hierarchy pass puts in front of root nodes, with
//! the character's placement in front of that; a player posing in `inverse(B) · world` passes
//! `placement · B · frame`, see [`ik`](crate::ik)). Distances are world units, speeds world
//! units per second, times seconds, angles radians. The defaults of
//! [`FootPlacementDesc::new`] are for 1 unit = 1 m.
//!
//! The **clip's ground** is the plane through `root`'s translation perpendicular to
//! [`up`](FootPlacementDesc::up): the floor the clip was animated on. A foot's **lift** is how
//! far the clip raises its sole above that plane (its ankle's height minus the ankle height,
//! measured from the rest pose or given). Placement keeps lifted feet lifted: it moves a foot
//! by the ground's height under it, not onto it.
//!
//! # Each frame
//!
//! 1. **Read** each leg's hip, knee, ankle (and toe) model matrices from the local pose: one
//!    walk from the pelvis to the root, then down each chain (no hierarchy pass).
//! 2. **Plant**: a foot is planted when its ankle moved across the ground (perpendicular to
//!    up) slower than [`plant_speed`](FootPlacementDesc::plant_speed) since the last frame,
//!    with its sole lifted at most [`plant_height`](FootPlacementDesc::plant_height); or as
//!    [`FootPlacementState::set_planted`] says (footfall markers, contact curves). The speed is
//!    the world's: a character moved by root motion plants the foot its clip holds still, and
//!    one climbing stairs (its root rising) still plants its feet.
//! 3. **Ground**: a ray straight down (along −up) from
//!    [`max_step_up`](FootPlacementDesc::max_step_up) above the clip's ground, under the
//!    ankle, [`ray_length`](FootPlacementDesc::ray_length) long. The hit's
//!    height above the clip's ground and its normal are eased with time constant
//!    [`ground_time`](FootPlacementDesc::ground_time) (exponential smoothing,
//!    `1 − exp(−dt / time)` of the way per frame, so the same at any frame rate); no hit
//!    eases back to the clip's ground. The normal is limited to
//!    [`max_tilt`](FootPlacementDesc::max_tilt) from up.
//! 4. **Target**: the ankle moved up by the eased height, and sideways by
//!    `(n − up) · ankle height` so that the sole point under it stays where the ray hit (the
//!    ankle sits on the tilted foot's normal). **Never below the ground**: the height is at
//!    least what puts the (lifted) sole on this frame's hit, and, with a toe, what puts the
//!    toes above the ground under them (a second ray); the eased height is pushed up to that
//!    floor. So a ground that rises *into* a foot moves it at once (no penetration wins over
//!    smoothness), while ground that falls away, rises under a lifted foot or tilts is eased.
//! 5. **Lock**: when a foot becomes planted, its target is frozen where the foot is on screen
//!    (a release still under way hands over without a jump) until the clip lifts it. A held
//!    foot keeps its place on the ground but rises and falls as the clip lifts it (a heel
//!    coming up before the other foot lands), never into the ground. Then
//!    the foot moves with the clip at once, carrying the lock's last offset from the free
//!    target across the ground (and above it, never below: a lifting foot rises with its
//!    clip), which fades with time constant
//!    [`release_time`](FootPlacementDesc::release_time). A lock further than
//!    [`max_lock_distance`](FootPlacementDesc::max_lock_distance) from the free target
//!    follows it on that leash instead of stretching the leg. A held foot whose clip tips
//!    the toes into the ground (a heel-and-toe roll animated on level ground) turns up about
//!    the ankle until they clear it, a third ray under them telling where it is.
//! 6. **Pelvis**: lowered along up by the most any foot needs to reach its target with the
//!    leg at most [`max_extension`](FootPlacementDesc::max_extension) of its length (or as
//!    stretched as the clip has it, if more): never raised above the clip, never lowered more
//!    than [`max_step_down`](FootPlacementDesc::max_step_down). It goes down as soon as a foot
//!    needs it (the targets are eased already, so it moves smoothly, and a locked foot stays
//!    in reach) and rises back eased with [`pelvis_time`](FootPlacementDesc::pelvis_time).
//!    The change is written to the pelvis's local translation.
//! 7. **Legs**: each leg solved with [`TwoBoneIk`](crate::TwoBoneIk) onto its target, the
//!    pole being the knee's current side of the hip → ankle line (the knee bends the way the
//!    clip bends it; the rest pose's hinge settles a straight leg), then the ankle turned so
//!    that the foot's world orientation is the clip's turned by the rotation from up to the
//!    ground's normal: a heel the clip raises stays raised, relative to the slope.
//!
//! [`FootPlacementState::set_active`] switches all of it on or off over
//! [`fade_time`](FootPlacementDesc::fade_time): each foot's move from the clip (locks
//! included) and the sole's turn are scaled by the fade, so the pose eases between the clip's
//! and the placed one; once faded out, nothing is written.
//!
//! # Degenerate input
//!
//! Nothing panics and nothing writes NaN. NaN or infinite joints, `root` or `dt`, zero-length
//! leg bones, a joint scaled to nothing: `solve` returns the error and leaves the pose and the
//! state exactly as they were (the pose as the clip made it). A ground that answers a point or
//! normal that is not finite, or a zero normal, is no ground for that foot this frame (it eases
//! back to the clip's ground). A foot out of reach hangs towards its target (the leg
//! straightens), above the ground rather than in it. A negative `dt` counts as 0.
//!
//! # Limits
//!
//! One ray under the ankle and one under the toes: a foot half over a step edge stands on
//! whichever is higher (its heel may hang over the lower step), and a foot that swings over
//! a step edge lower than its lift meets the step at once (no look-ahead). The sole turns to
//! the ankle ray's normal only. Easing is exponential: a change starts at full speed (a
//! critically damped spring would start it gently, at the cost of a velocity per eased
//! value). A nearly straight knee moves more than the foot it serves (2.3 times in the
//! step-edge test). Legs are two-bone chains with uniform scale (the [`ik`](crate::ik)
//! module's limit).

mod batch;
mod config;
mod feet;
mod ground;
mod lanes;
mod leg;
mod legs_x4;
#[cfg(test)]
mod legs_x4_tests;
mod placement;
mod rays;
mod solve;
mod state;
mod triangle_ground;

pub use batch::FootBatchJob;
pub use config::{FootDesc, FootPlacementDesc};
pub use ground::{GroundHit, GroundPlane, GroundQuery};
pub use placement::FootPlacement;
pub use state::{FootPlacementState, FootReport, FootStatus};
pub use triangle_ground::TriangleGround;
