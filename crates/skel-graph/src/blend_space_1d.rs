//! 1D blend spaces (Godot's `AnimationNodeBlendSpace1D`): clips at positions on one axis, the
//! two around the value sharing it linearly.

use crate::BlendSpaceError;

/// The most points a blend space takes.
pub const MAX_POINTS: usize = 64;

/// Clips at distinct positions on one axis.
///
/// For a value `x` between the neighbouring positions `p_lo < p_hi`, the weights are
/// `w_hi = (x − p_lo) / (p_hi − p_lo)` and `w_lo = 1 − w_hi`; every other point gets 0. At or
/// beyond an end, that end's point gets 1 (a NaN value counts as the lowest end). The weights
/// sum to 1, are exact at the points and continuous in `x`.
///
/// ```
/// use skel_graph::BlendSpace1d;
/// let space = BlendSpace1d::new(&[0.0, 4.0, 1.5])?; // idle, run, walk: any order
/// let mut w = [0.0; 3];
/// space.weights(2.75, &mut w); // halfway between walk (1.5) and run (4)
/// assert_eq!(w, [0.0, 0.5, 0.5]);
/// # Ok::<(), skel_graph::BlendSpaceError>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct BlendSpace1d {
    /// Positions in ascending order.
    sorted: Vec<f32>,
    /// For each sorted position, the index of its point as given.
    point: Vec<u32>,
}

impl BlendSpace1d {
    /// A blend space over `positions` (in any order; weights come back in this order).
    ///
    /// # Errors
    /// [`BlendSpaceError::TooFewPoints`] for none, [`BlendSpaceError::TooManyPoints`] past
    /// [`MAX_POINTS`], [`BlendSpaceError::NotFinite`], [`BlendSpaceError::Duplicate`] for two
    /// equal positions.
    pub fn new(positions: &[f32]) -> Result<Self, BlendSpaceError> {
        check_count(positions.len(), 1)?;
        if let Some(point) = positions.iter().position(|p| !p.is_finite()) {
            return Err(BlendSpaceError::NotFinite { point });
        }
        let mut order: Vec<usize> = (0..positions.len()).collect();
        order.sort_by(|&a, &b| positions[a].total_cmp(&positions[b]).then(a.cmp(&b)));
        for pair in order.windows(2) {
            if positions[pair[0]] == positions[pair[1]] {
                return Err(BlendSpaceError::Duplicate {
                    first: pair[0].min(pair[1]),
                    second: pair[0].max(pair[1]),
                });
            }
        }
        Ok(Self {
            sorted: order.iter().map(|&i| positions[i]).collect(),
            #[expect(clippy::cast_possible_truncation, reason = "at most MAX_POINTS")]
            point: order.iter().map(|&i| i as u32).collect(),
        })
    }

    /// Number of points.
    #[must_use]
    pub fn len(&self) -> usize {
        self.sorted.len()
    }

    /// Whether there are no points (never: [`new`](Self::new) refuses that).
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.sorted.is_empty()
    }

    /// Writes the weight of every point (in the order given to [`new`](Self::new)) for the
    /// value `x` into `out[..len]`. Allocates nothing.
    pub fn weights(&self, x: f32, out: &mut [f32]) {
        let out = &mut out[..self.sorted.len()];
        out.fill(0.0);
        let p = &self.sorted;
        let last = p.len() - 1;
        // NaN fails `x > p[0]` and lands on the lowest end.
        let hi = if x > p[0] {
            p.partition_point(|&v| v <= x)
        } else {
            0
        };
        if hi == 0 {
            out[self.point[0] as usize] = 1.0;
        } else if hi > last {
            out[self.point[last] as usize] = 1.0;
        } else {
            let lo = hi - 1;
            let w_hi = (x - p[lo]) / (p[hi] - p[lo]);
            out[self.point[hi] as usize] = w_hi;
            out[self.point[lo] as usize] = 1.0 - w_hi;
        }
    }
}

/// Refuses fewer than `need` or more than [`MAX_POINTS`] points.
pub(crate) fn check_count(got: usize, need: usize) -> Result<(), BlendSpaceError> {
    if got < need {
        Err(BlendSpaceError::TooFewPoints { got, need })
    } else if got > MAX_POINTS {
        Err(BlendSpaceError::TooManyPoints {
            got,
            max: MAX_POINTS,
        })
    } else {
        Ok(())
    }
}
