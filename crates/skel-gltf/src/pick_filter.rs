//! A conservative test of a ray against a posed character's skinned triangles, finer than its
//! box and cheaper than skinning it: the triangles grouped at load by the set of joints that
//! move their corners, each group given the sphere (in mesh space) around its own corners, and
//! each group boxed, for a pose, by the union of that sphere's boxes under each of its joints'
//! matrices. A ray that enters no group's box hits no skinned triangle, so a picker need not
//! skin the character at all.
//!
//! **Why no triangle is lost.** A skinned corner `v` of a group's triangle lands at
//! `Σ wₖ Jₖ v'` (weights of positive value summing to 1, `v'` the morphed position, `k` among
//! the group's joints): a convex combination of the points `Jₖ v'`. The group's sphere holds
//! `v'` (it holds `v` grown by the sum of the lengths of `v`'s morph deltas, for weights in
//! `0..=1`), so `Jₖ v'` lies in the sphere's image under `Jₖ`, inside that image's box, inside
//! the union box of the group. A box is convex, so it holds the combination, and the triangle
//! (the convex hull of three such corners). The union of the joints' spheres alone is not
//! convex: a corner weighted between two joints, or a triangle spanning them, can lie outside
//! every sphere. A group with a missing or non-finite box, or an asset with a triangle that no
//! group covers, is never filtered out.

use std::collections::HashMap;
use std::ops::Range;

use skel_anim::glam::{Mat4, Vec3};

use crate::bounds::morph_reach;
use crate::pick::{triangle, triangle_count};
use crate::{PrimitiveData, carried_spheres_box, ray_box_entry};

/// Skinned triangles grouped by the joints that move them, for a ray test before skinning.
///
/// Made once per asset from its primitives; [`may_hit`](Self::may_hit) then answers for any
/// pose, given the bone matrices (`jointWorld · inverseBind`, times whatever places the
/// skinned mesh) that carry mesh-space points to the skinned vertices' frame. It covers the
/// skinned primitives only (those with influences and a skeleton binding); rigid primitives
/// are for the caller to test.
#[derive(Debug, Clone, Default)]
pub struct PickFilter {
    /// Every `(skeleton binding, joint)` a group names: the matrices asked for, once each.
    joints: Vec<(usize, usize)>,
    /// Each group: its sphere (mesh-space centre, radius) and its joints (a range of
    /// `members`, indices into `joints`).
    groups: Vec<(Vec3, f32, Range<usize>)>,
    members: Vec<usize>,
    /// Per primitive, per triangle: its group (`u32::MAX`: none, or not skinned).
    triangles: Vec<Vec<u32>>,
    /// Whether every triangle of every skinned primitive lies in a group.
    complete: bool,
}

/// Scratch space for [`PickFilter::may_hit`]: one matrix a joint.
pub type PickFilterScratch = Vec<Option<Mat4>>;

impl PickFilter {
    /// The groups of `primitives`' skinned triangles. A triangle with a corner out of range,
    /// with a non-finite position, or with no joint of positive weight leaves the filter
    /// incomplete: [`may_hit`](Self::may_hit) then always says yes.
    #[must_use]
    pub fn new(primitives: &[PrimitiveData]) -> Self {
        let mut filter = Self {
            complete: true,
            ..Self::default()
        };
        let mut joint_ids: HashMap<(usize, usize), usize> = HashMap::new();
        for prim in primitives {
            let (Some(influences), Some(binding)) = (&prim.influences, prim.skeleton_binding)
            else {
                filter.triangles.push(Vec::new());
                continue;
            };
            let reach = morph_reach(prim);
            let per = influences.per_vertex;
            let vertices = prim.vertex_count();
            let position = |v: usize| {
                let p = Vec3::from_slice(prim.positions.get(3 * v..3 * v + 3)?);
                p.is_finite().then_some(p)
            };
            // This primitive's groups: joint set → its place in `groups`, which holds each
            // group's joint set and the corners of its triangles.
            let mut ids: HashMap<Vec<usize>, usize> = HashMap::new();
            let mut groups: Vec<(Vec<usize>, Vec<usize>)> = Vec::new();
            let mut of_triangle = vec![u32::MAX; triangle_count(prim)];
            let mut set: Vec<usize> = Vec::new();
            let base = filter.groups.len();
            for (t, group) in of_triangle.iter_mut().enumerate() {
                set.clear();
                let Some(corners) = triangle(prim, t) else {
                    filter.complete = false;
                    continue;
                };
                for v in corners {
                    let at = v * per..(v + 1) * per;
                    let (Some(js), Some(ws), Some(_), true) = (
                        influences.joints.get(at.clone()),
                        influences.weights.get(at),
                        position(v),
                        v < vertices,
                    ) else {
                        filter.complete = false;
                        continue;
                    };
                    let before = set.len();
                    set.extend(
                        js.iter()
                            .zip(ws)
                            .filter(|&(_, &w)| w > 0.0)
                            .map(|(&j, _)| j as usize),
                    );
                    if set.len() == before {
                        filter.complete = false;
                    }
                }
                set.sort_unstable();
                set.dedup();
                if !set.is_empty() {
                    let next = groups.len();
                    let id = *ids.entry(set.clone()).or_insert(next);
                    if id == next {
                        groups.push((set.clone(), Vec::new()));
                    }
                    groups[id].1.extend(corners);
                    *group = u32::try_from(base + id).unwrap_or(u32::MAX);
                }
            }
            filter.triangles.push(of_triangle);
            for (set, mut corners) in groups {
                corners.sort_unstable();
                corners.dedup();
                let (mut lo, mut hi) = (Vec3::INFINITY, Vec3::NEG_INFINITY);
                for p in corners.iter().filter_map(|&v| position(v)) {
                    lo = lo.min(p);
                    hi = hi.max(p);
                }
                let center = (lo + hi) * 0.5;
                let radius = corners
                    .iter()
                    .filter_map(|&v| {
                        let p = position(v)?;
                        Some((p - center).length() + reach.get(v).copied().unwrap_or(0.0))
                    })
                    .fold(0.0, f32::max);
                let at = filter.members.len();
                for joint in set {
                    let next = joint_ids.len();
                    let id = *joint_ids.entry((binding, joint)).or_insert(next);
                    if id == filter.joints.len() {
                        filter.joints.push((binding, joint));
                    }
                    filter.members.push(id);
                }
                filter
                    .groups
                    .push((center, radius, at..filter.members.len()));
            }
        }
        filter
    }

    /// Whether every skinned triangle lies in a group (otherwise nothing is filtered out).
    #[must_use]
    pub fn is_complete(&self) -> bool {
        self.complete
    }

    /// How many groups (distinct joint sets of a primitive's triangles) there are.
    #[must_use]
    pub fn group_count(&self) -> usize {
        self.groups.len()
    }

    /// The group of triangle `triangle` of primitive `primitive` (indices into the
    /// primitives the filter was made from), `None` for a triangle in no group.
    #[must_use]
    pub fn group_of(&self, primitive: usize, triangle: usize) -> Option<usize> {
        let g = *self.triangles.get(primitive)?.get(triangle)?;
        (g != u32::MAX).then_some(g as usize)
    }

    /// Fills `scratch` with the matrices `matrix(binding, joint)` of every joint the groups
    /// name, for [`group_box`](Self::group_box) and [`may_hit`](Self::may_hit).
    pub fn set_matrices(
        &self,
        matrix: impl Fn(usize, usize) -> Option<Mat4>,
        scratch: &mut PickFilterScratch,
    ) {
        scratch.clear();
        scratch.extend(self.joints.iter().map(|&(b, j)| matrix(b, j)));
    }

    /// Group `group`'s box under the matrices in `scratch` ([`set_matrices`](Self::set_matrices)):
    /// the union of its sphere's boxes under its joints' matrices, which holds every skinned
    /// corner of its triangles. `None` when a matrix is missing or a box is not finite.
    #[must_use]
    pub fn group_box(&self, group: usize, scratch: &PickFilterScratch) -> Option<(Vec3, Vec3)> {
        let (center, radius, joints) = self.groups.get(group)?;
        let members = self.members.get(joints.clone())?;
        let (mut lo, mut hi) = (Vec3::INFINITY, Vec3::NEG_INFINITY);
        for &k in members {
            let m = scratch.get(k).copied().flatten()?;
            let (a, z) = carried_spheres_box([(m, *center, *radius)])?;
            lo = lo.min(a);
            hi = hi.max(z);
        }
        (!members.is_empty()).then_some((lo, hi))
    }

    /// Whether the ray from `origin` along `direction` may hit a skinned triangle of the pose
    /// in which `matrix(binding, joint)` carries mesh-space points of skeleton binding
    /// `binding` by joint `joint` into the ray's frame: `false` only when the ray enters no
    /// group's box, so that no skinned triangle of that pose can be hit. `true` whenever the
    /// filter is incomplete, a matrix is missing (`None`), or a group's box is not finite.
    /// `scratch` allocates only the first time.
    pub fn may_hit(
        &self,
        matrix: impl Fn(usize, usize) -> Option<Mat4>,
        origin: Vec3,
        direction: Vec3,
        scratch: &mut PickFilterScratch,
    ) -> bool {
        if !self.complete {
            return true;
        }
        self.set_matrices(matrix, scratch);
        (0..self.groups.len()).any(|group| {
            // A missing matrix or a box that is not finite: the group is kept.
            let Some((lo, hi)) = self.group_box(group, scratch) else {
                return true;
            };
            // Widened by the rounding of the skinning sums and of the slab test (the box's
            // own computation is exact up to a few ulps of its coordinates).
            let margin = 1e-5 * (lo.abs().max(hi.abs()).max_element() + (hi - lo).max_element());
            ray_box_entry(origin, direction, lo - margin, hi + margin).is_some()
        })
    }
}
