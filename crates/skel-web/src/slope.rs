//! The slope scene (`?scene=slope`): the built-in character on a tilted [`GroundPlane`] under
//! `graphs/default_character_slope.json`, whose foot placement keeps its feet on the slope and
//! whose look-at turns chest, neck and head to the point under the pointer. What the page
//! measures of it ([`SlopeProbe`]) for the browser check is here, natively tested; the page
//! itself (DOM, GPU) is in `stage.rs`.

use glam::{Mat4, Vec2, Vec3};
use skel::anim::{GroundPlane, Player, Rig};
use skel::render::Camera;

use crate::WebError;

/// Where the page finds the slope scene's graph: `cargo xtask web` copies
/// `graphs/default_character_slope.json` beside `index.html` under this name.
pub const SLOPE_GRAPH_URL: &str = "default_character_slope.json";

/// The slope's tilt: it rises along the world x axis, across the character's path, so that one
/// foot stands higher than the other.
pub const SLOPE_DEGREES: f32 = 18.0;

/// The slope scene's first view (yaw and pitch of [`OrbitView`](skel_demo::OrbitView), radians):
/// nearly from the character's front and a little above, so the slope rising across it reads
/// as a tilted floor and both feet show.
pub const SLOPE_VIEW: (f32, f32) = (0.25, 0.3);

/// The ground name the graph's foot placement queries (`"ground": "plane"`).
pub const GROUND_NAME: &str = "plane";

/// The vec3 parameter the look-at faces, set from the pointer every frame.
pub const LOOK_PARAM: &str = "look";

/// The look-at's weight parameter: 1 while the page's look-at toggle is on, else 0.
pub const LOOK_WEIGHT_PARAM: &str = "look_weight";

/// The joints the probe reads: the toes of both feet (left, right) and the head.
pub const TOE_JOINTS: [&str; 2] = ["LeftToes", "RightToes"];
/// The joint whose forward axis the look-at turns.
pub const HEAD_JOINT: &str = "Head";
/// The head's forward axis in its own frame (the graph's look-at `"forward"`).
pub const HEAD_FORWARD: Vec3 = Vec3::Z;

/// How far in front of the character, towards the camera, the plane the pointer's point is
/// taken on lies (world units: metres for the built-in character): near enough that the head
/// turns visibly as the pointer crosses the canvas, far enough that a pointer over the
/// character is not a point inside its head.
pub const LOOK_DEPTH: f32 = 1.5;

/// The point the character looks at for the pointer at `ndc` (see [`crate::canvas_ndc`]):
/// under the pointer, on the plane facing `camera` [`LOOK_DEPTH`] in front of `centre` (the
/// orbit camera's target, the middle of the character). `None` when the camera cannot see it
/// (see [`crate::look_target`]).
#[must_use]
pub fn slope_look_target(camera: &Camera, centre: Vec3, ndc: Vec2) -> Option<Vec3> {
    crate::look_target(camera, ndc, centre + camera.back * LOOK_DEPTH)
}

/// The slope: the plane through the origin (where the character stands) tilted by
/// [`SLOPE_DEGREES`] about the world z axis, rising towards +x.
///
/// # Errors
/// Never for the constants above; [`WebError::Pose`] keeps the signature honest should they
/// change to a plane that [`GroundPlane`] refuses.
pub fn slope_plane() -> Result<GroundPlane, WebError> {
    let tilt = SLOPE_DEGREES.to_radians();
    GroundPlane::through(Vec3::ZERO, Vec3::new(-tilt.sin(), tilt.cos(), 0.0))
        .map_err(|e| WebError::Pose(e.to_string()))
}

/// What the probe reads off one pose.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SlopeReading {
    /// Per toe (left, right): its distance from the slope along the slope's normal, less its
    /// height above the floor in the rest pose. 0: the toe stands on the slope as it stands on
    /// level ground; negative: it sinks into the slope; positive: it floats.
    pub toe_gap: [f32; 2],
    /// Radians between the head's forward axis and the direction from the head to the
    /// look-at's target.
    pub head_angle: f32,
}

impl SlopeReading {
    /// The gap of the foot nearest the slope (the lower of the two).
    #[must_use]
    pub fn lowest_gap(&self) -> f32 {
        self.toe_gap[0].min(self.toe_gap[1])
    }
}

/// Reads the toes' gaps to the slope and the head's aim off a pose's world matrices, by node
/// (what [`Player::world_matrices`] gives). Built once per rig.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SlopeProbe {
    toes: [usize; 2],
    head: usize,
    /// Each toe's height above the floor (`y`) in the rest pose.
    toe_rest: [f32; 2],
}

impl SlopeProbe {
    /// Finds [`TOE_JOINTS`] and [`HEAD_JOINT`] in `rig` and measures the toes' rest heights.
    ///
    /// # Errors
    /// [`WebError::Pose`] naming the first joint the rig lacks (an asset that is not the
    /// built-in character).
    pub fn new(rig: &std::sync::Arc<Rig>) -> Result<Self, WebError> {
        let node = |name: &str| {
            rig.node_index(name).ok_or_else(|| {
                WebError::Pose(format!("the slope scene needs a joint named {name:?}"))
            })
        };
        let toes = [node(TOE_JOINTS[0])?, node(TOE_JOINTS[1])?];
        let head = node(HEAD_JOINT)?;
        let mut rest = Player::new(rig);
        rest.evaluate(&mut skel::anim::NullSink);
        let world = rest.world_matrices();
        let height = |n: usize| world.get(n).map_or(0.0, |m| m.w_axis.y);
        Ok(Self {
            toes,
            head,
            toe_rest: [height(toes[0]), height(toes[1])],
        })
    }

    /// The toes' gaps to `ground` and the head's angle to `target`, from `world` (one matrix
    /// per node). Nodes missing from `world` read as the origin. Allocates nothing.
    #[must_use]
    pub fn measure(&self, world: &[Mat4], ground: &GroundPlane, target: Vec3) -> SlopeReading {
        let at = |n: usize| world.get(n).copied().unwrap_or(Mat4::IDENTITY);
        let gap = |i: usize| ground.distance(at(self.toes[i]).w_axis.truncate()) - self.toe_rest[i];
        let head = at(self.head);
        let forward = head.transform_vector3(HEAD_FORWARD).normalize_or_zero();
        let to = (target - head.w_axis.truncate()).normalize_or_zero();
        SlopeReading {
            toe_gap: [gap(0), gap(1)],
            head_angle: forward.dot(to).clamp(-1.0, 1.0).acos(),
        }
    }

    /// Each toe's height above the floor in the rest pose (left, right).
    #[must_use]
    pub fn toe_rest(&self) -> [f32; 2] {
        self.toe_rest
    }
}
