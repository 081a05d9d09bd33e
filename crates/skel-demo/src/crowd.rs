//! How a crowd stands: a square grid on the ground, spaced by one character's footprint over
//! its clip, and the corners of every character's box over the clip for a camera to frame
//! ([`OrbitView::overlook`](crate::OrbitView::overlook)). `skel render --crowd`, `skel view
//! --crowd` and the page's crowd all stand theirs this way.

use glam::{Mat4, Vec3};
use skel::AssetContainer;
use skel::anim::{AnimError, Handedness, LayerDesc, NullSink, Player};

use crate::BoundsSampler;
use crate::orbit::{box_corners, mirror};

/// Space between neighbours of a crowd's grid, as a multiple of one character's footprint
/// ([`crowd_spacing`]): a quarter of a footprint between two characters' boxes, so that arms
/// swinging over the clip never cross into the next cell, and the grid stays dense.
pub const CROWD_SPACING: f32 = 1.25;

/// Poses sampled over the clip to find one character's footprint.
const FOOTPRINT_SAMPLES: usize = 24;

/// `count` places in a square grid on the ground (`y = 0`), `spacing` apart, centred on the
/// origin: row after row of `ceil(sqrt(count))`.
#[must_use]
pub fn crowd_grid(count: u32, spacing: f32) -> Vec<Vec3> {
    let columns = (1..=count).find(|c| c * c >= count).unwrap_or(1);
    let rows = count.div_ceil(columns);
    #[expect(clippy::cast_precision_loss, reason = "a grid side is far below 2^24")]
    let centre = |n: u32, i: u32| (i as f32 - (n as f32 - 1.0) * 0.5) * spacing;
    (0..count)
        .map(|i| Vec3::new(centre(columns, i % columns), 0.0, centre(rows, i / columns)))
        .collect()
}

/// The grid spacing for characters whose box over the clip measures `extent`: the wider of
/// its two ground sides, or a third of its height for a thin one (a character seen edge-on
/// still needs room), times [`CROWD_SPACING`].
#[must_use]
pub fn crowd_spacing(extent: Vec3) -> f32 {
    extent.x.max(extent.z).max(extent.y * 0.35) * CROWD_SPACING
}

/// `count` characters whose box over the clip is `lo`..`hi` (world space, one character where
/// it stands alone) on a [`crowd_grid`] [`crowd_spacing`] apart: each one's placement (the box's
/// footprint centred on its cell), and the 8 corners of every placed box, what a camera must
/// frame to see every character whole at every time of the clip.
///
/// A left-handed world is glTF's mirrored in x, and so is its grid: character `i` stands in the
/// same cell of the picture either way.
#[must_use]
pub fn place_crowd(
    lo: Vec3,
    hi: Vec3,
    count: u32,
    handedness: Handedness,
) -> (Vec<Mat4>, Vec<Vec3>) {
    let cells = crowd_grid(count, crowd_spacing(hi - lo));
    let centre = Vec3::new((lo.x + hi.x) * 0.5, 0.0, (lo.z + hi.z) * 0.5);
    let mirror = mirror(handedness);
    let placements: Vec<Mat4> = cells
        .iter()
        .map(|&c| Mat4::from_translation(c * mirror - centre))
        .collect();
    let corners = placements
        .iter()
        .flat_map(|m| box_corners(lo, hi).map(|p| m.transform_point3(p)))
        .collect();
    (placements, corners)
}

/// Where a crowd's characters stand and what frames them ([`CrowdLayout::new`]).
#[derive(Debug, Clone, PartialEq)]
pub struct CrowdLayout {
    /// Each character's placement ([`place_crowd`]).
    pub placements: Vec<Mat4>,
    /// One character's node world matrices at the clip's start (a crowd renderer's rest).
    pub world: Vec<Mat4>,
    /// The 8 corners of every character's box over the clip, placed: what a camera frames
    /// ([`OrbitView::overlook`](crate::OrbitView::overlook)).
    pub corners: Vec<Vec3>,
    /// One character's extent over the clip.
    pub extent: Vec3,
    /// The clip's loop duration in seconds (0 for the rest pose).
    pub duration: f32,
}

impl CrowdLayout {
    /// The grid of `count` characters of `container` playing `clip` (the rest pose for `None`)
    /// in `handedness`'s world ([`place_crowd`]), from one character's box over the clip: its
    /// sampled vertices ([`BoundsSampler`]) at the start and 24 times across the clip. An asset
    /// whose sampled vertices give no finite box falls back to its rest box
    /// ([`skel::render::rest_bounds`]).
    ///
    /// # Errors
    /// [`AnimError`] when `clip` is not one of the container's clips.
    pub fn new(
        container: &AssetContainer,
        clip: Option<usize>,
        count: u32,
        handedness: Handedness,
    ) -> Result<Self, AnimError> {
        let mut probe = Player::new(&container.rig);
        if let Some(clip) = clip {
            probe.add_layer(LayerDesc::new(clip))?;
        }
        let duration = probe
            .layers()
            .iter()
            .map(|l| l.clock().to() - l.clock().from())
            .fold(0.0, f32::max);
        let (lo, hi, world) = footprint(container, &mut probe, duration);
        let (placements, corners) = place_crowd(lo, hi, count, handedness);
        Ok(Self {
            placements,
            world,
            corners,
            extent: hi - lo,
            duration,
        })
    }
}

/// One character's box over the clip (sampled poses, world space) and its nodes' world
/// matrices at the start. `probe` is left at the end of the clip.
fn footprint(
    container: &AssetContainer,
    probe: &mut Player,
    duration: f32,
) -> (Vec3, Vec3, Vec<Mat4>) {
    let mut sampler = BoundsSampler::new(container);
    let mut points = Vec::new();
    let tick = |probe: &mut Player, dt| skel::advance_pose(probe, dt, &mut NullSink, &mut |_| {});
    tick(probe, 0.0);
    let world = probe.scratch().world.clone();
    sampler.collect(container, probe, &mut points);
    #[expect(clippy::cast_precision_loss, reason = "a handful of samples")]
    let step = duration / FOOTPRINT_SAMPLES as f32;
    if step > 0.0 {
        for _ in 0..FOOTPRINT_SAMPLES {
            tick(probe, step);
            sampler.collect(container, probe, &mut points);
        }
    }
    let (lo, hi) = points.iter().filter(|p| p.is_finite()).fold(
        (Vec3::splat(f32::INFINITY), Vec3::splat(f32::NEG_INFINITY)),
        |(lo, hi), &p| (lo.min(p), hi.max(p)),
    );
    if lo.cmple(hi).all() {
        (lo, hi, world)
    } else {
        let (lo, hi) = skel::render::rest_bounds(container);
        (lo, hi, world)
    }
}

#[cfg(test)]
mod tests {
    use glam::Vec3;
    use skel::anim::Handedness;

    use super::{CROWD_SPACING, crowd_grid as grid, crowd_spacing, place_crowd};

    #[test]
    fn grids_are_square_and_centred() {
        let cells = grid(9, 2.0);
        assert_eq!(cells.len(), 9);
        assert_eq!(cells[0], Vec3::new(-2.0, 0.0, -2.0));
        assert_eq!(cells[4], Vec3::ZERO);
        assert_eq!(cells[8], Vec3::new(2.0, 0.0, 2.0));
        // 10 characters: 4 columns, 3 rows.
        let ten = grid(10, 1.0);
        assert_eq!(ten[3].x, 1.5);
        assert_eq!(ten[9].z, 1.0);
        assert_eq!(grid(1, 5.0), vec![Vec3::ZERO]);
        assert!(grid(0, 1.0).is_empty());
    }

    #[test]
    fn spacing_follows_the_wider_ground_side_or_a_third_of_the_height() {
        assert_eq!(crowd_spacing(Vec3::new(0.8, 1.8, 0.4)), 0.8 * CROWD_SPACING);
        assert_eq!(crowd_spacing(Vec3::new(0.3, 1.8, 0.9)), 0.9 * CROWD_SPACING);
        // A thin character (a plane seen edge-on) still gets room.
        let thin = crowd_spacing(Vec3::new(0.1, 2.0, 0.05));
        assert!((thin - 0.7 * CROWD_SPACING).abs() < 1e-6, "{thin}");
    }

    #[test]
    fn every_placed_box_gives_its_8_corners_and_neighbours_do_not_touch() {
        // A box off the origin (a character whose root stands aside): its footprint is centred
        // on the cell, its height kept.
        let (lo, hi) = (Vec3::new(0.6, 0.0, -0.5), Vec3::new(1.4, 1.8, -0.1));
        for handedness in [Handedness::LeftHanded, Handedness::RightHanded] {
            let (placements, corners) = place_crowd(lo, hi, 4, handedness);
            assert_eq!(placements.len(), 4);
            assert_eq!(corners.len(), 4 * 8);
            let boxes: Vec<(Vec3, Vec3)> = corners
                .chunks_exact(8)
                .map(|c| {
                    c.iter()
                        .fold((Vec3::INFINITY, Vec3::NEG_INFINITY), |(a, b), &p| {
                            (a.min(p), b.max(p))
                        })
                })
                .collect();
            for (i, (a, b)) in boxes.iter().enumerate() {
                // All 8 corners, not 4: each box is whole, the same size as the character's.
                assert!(((*b - *a) - (hi - lo)).length() < 1e-5, "{i}: {a} {b}");
                let own = &corners[i * 8..i * 8 + 8];
                for (k, p) in own.iter().enumerate() {
                    assert!(own[k + 1..].iter().all(|q| q != p), "{i}: a corner twice");
                }
                assert!((a.y - lo.y).abs() < 1e-6 && (b.y - hi.y).abs() < 1e-6);
                for (c, d) in &boxes[i + 1..] {
                    let apart = a.x > d.x || c.x > b.x || a.z > d.z || c.z > b.z;
                    assert!(apart, "{handedness:?}: boxes {i} and another overlap");
                }
            }
            // Two by two around the origin: the grid's footprint is centred.
            let (a, b) = boxes
                .iter()
                .fold((Vec3::INFINITY, Vec3::NEG_INFINITY), |(a, b), &(c, d)| {
                    (a.min(c), b.max(d))
                });
            assert!(
                (a.x + b.x).abs() < 1e-5 && (a.z + b.z).abs() < 1e-5,
                "{a} {b}"
            );
            // Character 1 stands right of character 0 on screen in both worlds: +x in glTF's,
            // -x in its mirror.
            let x1 = placements[1].w_axis.x - placements[0].w_axis.x;
            match handedness {
                Handedness::RightHanded => assert!(x1 > 0.0),
                Handedness::LeftHanded => assert!(x1 < 0.0),
            }
        }
    }
}
