//! What `skel play` prints for every frame, with `--layers` or `--graph`: the root-motion
//! delta and the events fired; and how many ticks `--seconds` and `--fps` make.

use serde::Serialize;
use skel::anim::RootDelta;

/// A root-motion delta or total as printed.
#[derive(Debug, Serialize)]
pub struct Motion {
    /// Translation.
    pub translation: [f32; 3],
    /// Rotation `[x, y, z, w]`.
    pub rotation: [f32; 4],
}

impl From<RootDelta> for Motion {
    fn from(d: RootDelta) -> Self {
        Self {
            translation: d.translation.to_array(),
            rotation: d.rotation.to_array(),
        }
    }
}

/// A fired marker as printed.
#[derive(Debug, Serialize)]
pub struct Event {
    /// The player's layer (`--layers`) or the graph layer (`--graph`).
    pub layer: usize,
    /// The clip's name.
    pub clip: String,
    /// The marker's name.
    pub name: String,
    /// The marker's time in the clip, in seconds.
    pub time: f32,
}

/// How many ticks `--seconds` and `--fps` make: round(SECONDS × FPS).
///
/// # Errors
/// A `--fps` that is not positive, a `--seconds` below 0, more than 10 000 000 ticks.
pub fn tick_count(seconds: f64, fps: f64) -> Result<usize, Box<dyn std::error::Error>> {
    if !(fps.is_finite() && fps > 0.0) {
        return Err(format!("--fps must be a positive number, got {}", fps).into());
    }
    if !(seconds.is_finite() && seconds >= 0.0) {
        return Err(format!("--seconds must be a number from 0 up, got {}", seconds).into());
    }
    let ticks = (seconds * fps).round();
    if ticks > 10_000_000.0 {
        return Err(format!("{ticks} ticks is too many (at most 10 000 000)").into());
    }
    #[expect(
        clippy::cast_possible_truncation,
        clippy::cast_sign_loss,
        reason = "checked finite, non-negative and at most 10 000 000 above"
    )]
    Ok(ticks as usize)
}

/// The world position of every spring joint's node (`nodes`, the springs' joint nodes) in
/// the pose `player` last made: what `skel play` prints per frame when a VRM's springs run.
pub fn spring_positions(player: &mut skel::anim::Player, nodes: &[usize]) -> Vec<[f32; 3]> {
    let world = player.world_matrices();
    nodes
        .iter()
        .filter_map(|&n| world.get(n))
        .map(|m| m.w_axis.truncate().to_array())
        .collect()
}

/// The spring joints' nodes of `motion` (empty without springs).
#[must_use]
pub fn spring_nodes(motion: &skel::SecondaryMotion) -> Vec<usize> {
    motion
        .springs()
        .map(|s| s.joint_nodes().collect())
        .unwrap_or_default()
}
