//! The rays foot placement casts: straight down under the ankle and the toes, and the turn
//! that lifts a held foot's toes clear of the ground.

use glam::{Quat, Vec3A};

use super::ground::GroundQuery;
use crate::ik::turn_between;

/// The rays of one frame: straight down along up, from `above` over the clip's ground to
/// `below` under it.
pub(crate) struct Probe<'a> {
    pub(crate) ground: &'a dyn GroundQuery,
    pub(crate) up: Vec3A,
    pub(crate) origin: Vec3A,
    pub(crate) above: f32,
    pub(crate) below: f32,
}

impl Probe<'_> {
    /// The ground's height above the clip's ground plane under `point`, and its unit normal
    /// on the up side; `None` for no hit, or a hit that is not finite.
    #[inline(always)]
    pub(crate) fn height_under(&self, point: Vec3A) -> Option<(f32, Vec3A)> {
        let on_plane = point - self.up * self.up.dot(point - self.origin);
        let hit = self.ground.cast(
            (on_plane + self.up * self.above).into(),
            (-self.up).into(),
            self.above + self.below,
        )?;
        let normal = Vec3A::from(hit.normal).try_normalize()?;
        let height = self.up.dot(Vec3A::from(hit.point) - self.origin);
        if !height.is_finite() {
            return None;
        }
        // A query that answers outside the ray is held to it.
        let height = height.clamp(-self.below, self.above);
        Some((
            height,
            if normal.dot(self.up) < 0.0 {
                -normal
            } else {
                normal
            },
        ))
    }
}

/// The turn about the ankle at `ankle` that lifts the toes at `ankle + reach` to
/// `toe_height` over the ground under them (the identity when they are there already). Two
/// steps: the turn moves the toes along a slope, so the ground under them is asked again.
#[inline(always)]
pub(crate) fn toe_clear(probe: &Probe<'_>, ankle: Vec3A, reach: Vec3A, toe_height: f32) -> Quat {
    let up = probe.up;
    let mut turn = Quat::IDENTITY;
    for _ in 0..2 {
        let reach = turn * reach;
        let Some((ground, normal)) = probe.height_under(ankle + reach) else {
            break;
        };
        let rise =
            ground + clearance(toe_height, normal, up) - up.dot(ankle + reach - probe.origin);
        let length = reach.length();
        let Some(axis) = reach.cross(up).try_normalize() else {
            break;
        };
        if !(rise > 0.0 && length > 0.0) {
            break;
        }
        // The toes' elevation above the plane across up, now and wanted, as sines; both
        // angles lie within a quarter turn of it, so their cosines are not negative.
        let now = (up.dot(reach) / length).clamp(-1.0, 1.0);
        let want = ((up.dot(reach) + rise) / length).clamp(-1.0, 1.0);
        let cos = |sin: f32| (1.0 - sin * sin).max(0.0).sqrt();
        turn = turn_between(axis, (cos(now), now), (cos(want), want)) * turn;
    }
    turn
}

/// How far above the ground (along up) a point must be to be `height` from it along its
/// normal: more on a slope (at most 10 times, for ground near vertical).
pub(crate) fn clearance(height: f32, normal: Vec3A, up: Vec3A) -> f32 {
    height / normal.dot(up).max(0.1)
}
