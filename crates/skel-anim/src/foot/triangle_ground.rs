//! A ground made of triangles (a level's walkable mesh, a staircase), searched through a
//! bounding-volume hierarchy built once.

use glam::Vec3;

use super::ground::{GroundHit, GroundQuery};
use crate::AnimError;

/// Triangles per leaf: a few ray-triangle tests cost less than one more level of boxes.
const LEAF_SIZE: usize = 4;

/// Barycentric slack that closes the cracks between triangles sharing an edge: a ray through
/// the edge itself hits one of them even after rounding.
const EDGE_SLACK: f32 = 1e-6;

/// One box of the hierarchy: a leaf holds `count` triangles from `first`; an inner node
/// (`count` 0) has its two children at `first` and `first + 1`.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Node {
    min: Vec3,
    max: Vec3,
    first: u32,
    count: u32,
}

/// A ground of triangles in the world frame: a staircase, a level's walkable mesh. Built once
/// into a bounding-volume hierarchy (median splits on the longest axis, four triangles a
/// leaf), so a ray visits about `log₂(n)` boxes instead of every triangle; a ray in any
/// direction works, the ground's "up" is not assumed.
///
/// A cast returns the hit nearest to the ray's origin (Möller–Trumbore per triangle), with
/// the triangle's normal turned to face the origin, so winding does not matter. A ray along a
/// triangle's plane (a vertical riser under a vertical ray) does not hit it. Casting allocates
/// nothing.
///
/// ```
/// use skel_anim::glam::Vec3;
/// use skel_anim::{GroundQuery, TriangleGround};
///
/// // One step 0.2 high, from z = 1 on; the floor before it at y = 0.
/// let quad = |y: f32, z0: f32, z1: f32| {
///     let p = |x: f32, z: f32| Vec3::new(x, y, z);
///     [[p(-1.0, z0), p(1.0, z0), p(1.0, z1)], [p(-1.0, z0), p(1.0, z1), p(-1.0, z1)]]
/// };
/// let mut triangles = quad(0.0, -1.0, 1.0).to_vec();
/// triangles.extend(quad(0.2, 1.0, 3.0));
/// let stairs = TriangleGround::new(triangles)?;
/// let hit = stairs.cast(Vec3::new(0.0, 1.0, 1.5), Vec3::NEG_Y, 2.0).unwrap();
/// assert!((hit.point.y - 0.2).abs() < 1e-6 && hit.normal == Vec3::Y);
/// # Ok::<(), skel_anim::AnimError>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct TriangleGround {
    /// In the order of the hierarchy's leaves.
    triangles: Vec<[Vec3; 3]>,
    nodes: Vec<Node>,
}

impl TriangleGround {
    /// A ground from a triangle soup (three corners each, any winding).
    ///
    /// # Errors
    /// [`AnimError::NotFinite`] naming the first triangle with a corner that is not finite;
    /// [`AnimError::LengthMismatch`] for more than `u32::MAX` triangles.
    pub fn new(triangles: Vec<[Vec3; 3]>) -> Result<Self, AnimError> {
        if let Some(bad) = triangles
            .iter()
            .position(|t| !t.iter().all(|v| v.is_finite()))
        {
            return Err(AnimError::NotFinite {
                what: format!("ground triangle {bad}"),
            });
        }
        if u32::try_from(triangles.len()).is_err() {
            return Err(AnimError::LengthMismatch {
                what: "ground triangles (at most u32::MAX)",
                expected: u32::MAX as usize,
                got: triangles.len(),
            });
        }
        let (nodes, order) = build(&triangles);
        let triangles = order.iter().map(|&i| triangles[i as usize]).collect();
        Ok(Self { triangles, nodes })
    }

    /// A ground from an indexed mesh: `positions` and three indices per triangle (a glTF
    /// primitive's `POSITION` and `indices`, already in the world frame).
    ///
    /// # Errors
    /// [`AnimError::GroundIndexCount`] when the index count is not a multiple of 3,
    /// [`AnimError::GroundIndexOutOfRange`] for an index past the positions, and what
    /// [`new`](Self::new) returns.
    pub fn from_indexed(positions: &[Vec3], indices: &[u32]) -> Result<Self, AnimError> {
        if !indices.len().is_multiple_of(3) {
            return Err(AnimError::GroundIndexCount {
                count: indices.len(),
            });
        }
        let corner = |at: usize| {
            let index = indices[at];
            positions
                .get(index as usize)
                .copied()
                .ok_or(AnimError::GroundIndexOutOfRange {
                    at,
                    index,
                    vertex_count: positions.len(),
                })
        };
        let triangles = (0..indices.len() / 3)
            .map(|t| Ok([corner(3 * t)?, corner(3 * t + 1)?, corner(3 * t + 2)?]))
            .collect::<Result<Vec<_>, AnimError>>()?;
        Self::new(triangles)
    }

    /// How many triangles the ground has.
    #[must_use]
    pub fn triangle_count(&self) -> usize {
        self.triangles.len()
    }
}

impl GroundQuery for TriangleGround {
    fn cast(&self, origin: Vec3, dir: Vec3, max_dist: f32) -> Option<GroundHit> {
        if self.nodes.is_empty() || !(origin.is_finite() && dir.is_finite() && max_dist >= 0.0) {
            return None;
        }
        let mut best: Option<(f32, usize)> = None;
        let mut reach = max_dist;
        // Median splits keep the depth under log₂(u32::MAX) + 1, so 64 entries never overflow.
        let mut stack = [0_u32; 64];
        let mut top = 1;
        while top > 0 {
            top -= 1;
            let node = self.nodes[stack[top] as usize];
            if !box_hit(&node, origin, dir, reach) {
                continue;
            }
            if node.count == 0 {
                stack[top] = node.first;
                stack[top + 1] = node.first + 1;
                top += 2;
                continue;
            }
            let first = node.first as usize;
            for (i, triangle) in self.triangles[first..first + node.count as usize]
                .iter()
                .enumerate()
            {
                if let Some(t) = ray_triangle(triangle, origin, dir, reach) {
                    reach = t;
                    best = Some((t, first + i));
                }
            }
        }
        let (t, index) = best?;
        let [a, b, c] = self.triangles[index];
        let normal = (b - a).cross(c - a).try_normalize()?;
        Some(GroundHit {
            point: origin + dir * t,
            normal: if normal.dot(dir) > 0.0 {
                -normal
            } else {
                normal
            },
        })
    }
}

/// The hierarchy over `triangles` and the order its leaves put them in. Iterative, so a
/// large mesh cannot overflow the call stack.
fn build(triangles: &[[Vec3; 3]]) -> (Vec<Node>, Vec<u32>) {
    let centroids: Vec<Vec3> = triangles
        .iter()
        .map(|[a, b, c]| (*a + *b + *c) / 3.0)
        .collect();
    // `new` checked that the count fits a u32.
    let mut order: Vec<u32> = (0..triangles.len() as u32).collect();
    let mut nodes = Vec::new();
    if triangles.is_empty() {
        return (nodes, order);
    }
    let empty = Node {
        min: Vec3::ZERO,
        max: Vec3::ZERO,
        first: 0,
        count: 0,
    };
    nodes.push(empty);
    let mut pending = vec![(0_usize, 0_usize, triangles.len())];
    while let Some((at, start, end)) = pending.pop() {
        let items = &mut order[start..end];
        let (mut min, mut max) = (Vec3::INFINITY, Vec3::NEG_INFINITY);
        let (mut cmin, mut cmax) = (Vec3::INFINITY, Vec3::NEG_INFINITY);
        for &i in items.iter() {
            for v in triangles[i as usize] {
                min = min.min(v);
                max = max.max(v);
            }
            cmin = cmin.min(centroids[i as usize]);
            cmax = cmax.max(centroids[i as usize]);
        }
        let extent = cmax - cmin;
        let axis = if extent.x >= extent.y && extent.x >= extent.z {
            0
        } else if extent.y >= extent.z {
            1
        } else {
            2
        };
        // Small enough, or every centroid in one place (no split separates them): a leaf.
        if items.len() <= LEAF_SIZE || extent[axis] <= 0.0 {
            nodes[at] = Node {
                min,
                max,
                first: start as u32,
                count: items.len() as u32,
            };
            continue;
        }
        let half = items.len() / 2;
        items.select_nth_unstable_by(half, |&a, &b| {
            centroids[a as usize][axis].total_cmp(&centroids[b as usize][axis])
        });
        let left = nodes.len();
        nodes.push(empty);
        nodes.push(empty);
        nodes[at] = Node {
            min,
            max,
            first: left as u32,
            count: 0,
        };
        pending.push((left, start, start + half));
        pending.push((left + 1, start + half, end));
    }
    (nodes, order)
}

/// Whether the ray meets the node's box for some `t` in `0..=reach`. An axis the ray does not
/// move along is a containment test, so a ray exactly on a box's face still enters it.
#[inline]
fn box_hit(node: &Node, origin: Vec3, dir: Vec3, reach: f32) -> bool {
    let (mut lo, mut hi) = (0.0_f32, reach);
    for axis in 0..3 {
        let (o, d) = (origin[axis], dir[axis]);
        let (min, max) = (node.min[axis], node.max[axis]);
        if d == 0.0 {
            if o < min || o > max {
                return false;
            }
            continue;
        }
        let (a, b) = ((min - o) / d, (max - o) / d);
        lo = lo.max(a.min(b));
        hi = hi.min(a.max(b));
        if lo > hi {
            return false;
        }
    }
    true
}

/// Möller–Trumbore: the ray's distance to the triangle when it hits it within `reach`.
#[inline]
fn ray_triangle([a, b, c]: &[Vec3; 3], origin: Vec3, dir: Vec3, reach: f32) -> Option<f32> {
    let (e1, e2) = (*b - *a, *c - *a);
    let p = dir.cross(e2);
    let det = e1.dot(p);
    // Parallel to the plane (relative to the triangle's size): no single point of contact.
    if det.abs() <= 1e-7 * e1.length() * e2.length() || det == 0.0 {
        return None;
    }
    let inv = 1.0 / det;
    let s = origin - *a;
    let u = s.dot(p) * inv;
    if !(-EDGE_SLACK..=1.0 + EDGE_SLACK).contains(&u) {
        return None;
    }
    let q = s.cross(e1);
    let v = dir.dot(q) * inv;
    if v < -EDGE_SLACK || u + v > 1.0 + EDGE_SLACK {
        return None;
    }
    let t = e2.dot(q) * inv;
    (0.0..=reach).contains(&t).then_some(t)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every triangle of a grid lies in exactly one leaf, and every box holds its triangles.
    #[test]
    fn leaves_cover_every_triangle_once() {
        let mut triangles = Vec::new();
        for i in 0..37 {
            let x = i as f32;
            triangles.push([
                Vec3::new(x, 0.0, 0.0),
                Vec3::new(x + 1.0, 0.0, 0.0),
                Vec3::new(x, 0.0, 1.0),
            ]);
        }
        let ground = TriangleGround::new(triangles).unwrap();
        let mut seen = vec![0; ground.triangle_count()];
        for node in ground.nodes.iter().filter(|n| n.count > 0) {
            for i in node.first..node.first + node.count {
                seen[i as usize] += 1;
                for v in ground.triangles[i as usize] {
                    assert!(v.cmpge(node.min).all() && v.cmple(node.max).all());
                }
            }
        }
        assert!(seen.iter().all(|&n| n == 1), "{seen:?}");
    }
}
