//! A posed character's world box from spheres made once at load: for each joint, the sphere
//! (in mesh space) around every vertex it moves, widened by how far the morph targets can
//! push each of those vertices; for each rigid primitive, the sphere around its vertices. A
//! pose's box is the union of those spheres under the pose's matrices, so it holds every
//! skinned and morphed vertex by construction (see [`CharacterBounds`]), at a cost per part,
//! not per vertex.

use core::borrow::Borrow;

use skel_anim::glam::{Mat4, Vec3, Vec4};
use skel_math::load_mat4;

use crate::box_join::{Join, SphereBoxes, finite_union};
use crate::{GltfAsset, PrimitiveData, SkinInfo};

/// Per-joint and per-primitive bounding spheres of an asset's geometry, for boxing any pose.
///
/// **Why it holds every vertex.** A skinned vertex lands at `Σ wₖ Jₖ v` with the weights
/// summing to 1 (skel-gltf divides them by their sum at load), `Jₖ = jointWorldₖ ·
/// inverseBindₖ` and `v` the morphed position: a convex combination of the points `Jₖ v`.
/// Each `v` lies in joint `k`'s sphere (the sphere holds every vertex the joint moves, grown
/// by the sum of the lengths of that vertex's morph deltas), so `Jₖ v` lies in the sphere's
/// image, an ellipsoid, whose axis-aligned box is at most the centre `Jₖ c` plus or minus
/// `r` times the length of each row of `Jₖ`'s 3×3 part (exactly that box; `r` is carried
/// into the joint's frame once, at load, by an upper bound of the inverse bind matrix's
/// stretch, exact for a rotation and a uniform scale). The union box is convex, so it holds
/// the combination too. Rigid primitives take their node's world matrix the same way.
///
/// **Assumed:** morph weights between 0 and 1 (a weight past 1 pushes a vertex farther than
/// its delta; the box then grows only as far as the weight 1 would).
///
/// ```
/// use skel_gltf::{CharacterBounds, LoadOptions, load_slice, rest_world_matrices};
///
/// # let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../skel/assets/default_character.glb");
/// # let glb = std::fs::read(path).unwrap();
/// let asset = load_slice(&glb, None, &LoadOptions::default())?;
/// let bounds = CharacterBounds::new(&asset);
/// let rest = rest_world_matrices(&asset.animation)?;
/// let (min, max) = bounds.world_box(&rest).expect("the character has geometry");
/// assert!(min.cmple(max).all());
/// # Ok::<(), skel_gltf::GltfError>(())
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CharacterBounds {
    parts: Vec<Part>,
    bones: Vec<BoneSphere>,
}

/// A skin joint's sphere in mesh space, before its inverse bind matrix: what the joint's
/// skinning matrix (`jointWorld · inverseBind`, the bone matrix a skeleton binding hands to
/// the GPU) carries. A crowd holds bone matrices, not node world matrices, so it boxes its
/// instances from these (see [`CharacterBounds::bone_spheres`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BoneSphere {
    /// The skeleton binding (index into `AnimationData::skeletons`) whose bone
    /// matrices carry the sphere.
    pub binding: usize,
    /// The joint's bone index in that binding (its place in the skin's joint list).
    pub joint: usize,
    /// Centre, in the skinned mesh's space.
    pub center: Vec3,
    /// Radius, in the same space: every vertex the joint moves, pushed as far as its morph
    /// targets can push it, lies within it.
    pub radius: f32,
}

/// One sphere in the frame of the node whose world matrix places it: a joint's sphere carried
/// by its inverse bind matrix `B` into the joint's frame (the centre `B c`, the radius `r`
/// times an upper bound of `B`'s stretch), a rigid primitive's in its node's (mesh) frame.
#[derive(Debug, Clone, PartialEq)]
struct Part {
    node: usize,
    center: Vec3,
    radius: f32,
}

impl CharacterBounds {
    /// The spheres of every primitive of `asset`: one per skin joint that moves a vertex
    /// (with a weight above 0), one per rigid primitive. Primitives without vertices, and
    /// vertices with a non-finite position, are left out.
    #[must_use]
    pub fn new(asset: &GltfAsset) -> Self {
        Self::from_primitives(&asset.primitives, &asset.skins)
    }

    /// [`new`](Self::new) from an asset's primitives and skins (what a container keeps of
    /// a loaded asset).
    #[must_use]
    pub fn from_primitives(primitives: &[PrimitiveData], skins: &[SkinInfo]) -> Self {
        let mut parts = Vec::new();
        let mut bones = Vec::new();
        for prim in primitives {
            let reach = morph_reach(prim);
            match (&prim.influences, prim.skin) {
                (Some(influences), Some(skin)) => {
                    let joints = skins.get(skin).map_or(0, |s| s.joints.len());
                    // The points each joint moves: their box, then the sphere around its
                    // centre.
                    let mut boxes = vec![Aabb::EMPTY; joints];
                    // Vertex `v`'s joints with a weight above 0 (none past the streams' end).
                    let moved_by = |v: usize| {
                        let per = influences.per_vertex;
                        let at = v * per..(v + 1) * per;
                        let (j, w) = (
                            influences.joints.get(at.clone()),
                            influences.weights.get(at),
                        );
                        j.into_iter()
                            .flatten()
                            .zip(w.into_iter().flatten())
                            .filter(|&(_, &w)| w > 0.0)
                            .map(|(&j, _)| j as usize)
                    };
                    for (v, p) in positions(prim) {
                        for j in moved_by(v) {
                            if let Some(b) = boxes.get_mut(j) {
                                b.add(p);
                            }
                        }
                    }
                    let Some(skin) = skins.get(skin) else {
                        continue;
                    };
                    for (joint, b) in boxes.iter().enumerate() {
                        let (Some(center), Some(&node)) = (b.center(), skin.joints.get(joint))
                        else {
                            continue;
                        };
                        if skin.inverse_bind_matrices.len() < (joint + 1) * 16 {
                            continue;
                        }
                        let radius = sphere_radius(prim, &reach, center, |v| {
                            moved_by(v).any(|j| j == joint)
                        });
                        let bind = load_mat4(&skin.inverse_bind_matrices, joint * 16);
                        if let Some(binding) = prim.skeleton_binding {
                            bones.push(BoneSphere {
                                binding,
                                joint,
                                center,
                                radius,
                            });
                        }
                        parts.push(Part {
                            node,
                            center: bind.transform_point3(center),
                            radius: radius * stretch(&bind),
                        });
                    }
                }
                _ => {
                    let mut b = Aabb::EMPTY;
                    for (_, p) in positions(prim) {
                        b.add(p);
                    }
                    if let Some(center) = b.center() {
                        let radius = sphere_radius(prim, &reach, center, |_| true);
                        parts.push(Part {
                            node: prim.node,
                            center,
                            radius,
                        });
                    }
                }
            }
        }
        Self { parts, bones }
    }

    /// The spheres held: one per skin joint that moves a vertex, one per rigid primitive.
    #[must_use]
    pub fn part_count(&self) -> usize {
        self.parts.len()
    }

    /// Every sphere as `(node, center, radius)`: the node whose world matrix places it, and
    /// its centre and radius in that node's frame (a joint's sphere carried into the joint's
    /// frame by its inverse bind matrix). What a GPU culling pass needs to box a posed
    /// character the way [`world_box`](Self::world_box) does, without this crate's types.
    ///
    /// ```
    /// use skel_gltf::{CharacterBounds, LoadOptions, load_slice};
    ///
    /// # let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../skel/assets/default_character.glb");
    /// # let glb = std::fs::read(path).unwrap();
    /// let asset = load_slice(&glb, None, &LoadOptions::default())?;
    /// let bounds = CharacterBounds::new(&asset);
    /// assert_eq!(bounds.parts().len(), bounds.part_count());
    /// let nodes = asset.animation.nodes.len();
    /// assert!(bounds.parts().all(|(node, _, radius)| node < nodes && radius >= 0.0));
    /// # Ok::<(), skel_gltf::GltfError>(())
    /// ```
    pub fn parts(&self) -> impl ExactSizeIterator<Item = (usize, Vec3, f32)> + Clone + '_ {
        self.parts.iter().map(|p| (p.node, p.center, p.radius))
    }

    /// The world box `(min, max)` of the pose whose node world matrices are `world` (by node
    /// index, as [`CpuPoser::node_world_matrices`](crate::CpuPoser::node_world_matrices) and
    /// [`rest_world_matrices`](crate::rest_world_matrices) give them) for the asset these
    /// bounds were made from. `None` when no part has a finite box (no geometry, or
    /// non-finite matrices). Allocates nothing: per sphere, one point carried and the lengths
    /// of the matrix's three rows.
    #[must_use]
    pub fn world_box(&self, world: &[Mat4]) -> Option<(Vec3, Vec3)> {
        carried_spheres_box(
            self.parts
                .iter()
                .filter_map(|p| Some((world.get(p.node)?, p.center, p.radius))),
        )
    }

    /// The skin joints' spheres in mesh space, each with the skeleton binding and bone index
    /// whose bone matrix carries it: the skinned part of [`parts`](Self::parts), for code that
    /// holds bone matrices rather than node world matrices (a crowd). Boxing them with
    /// [`carried_spheres_box`] under a pose's bone matrices gives a box that holds every
    /// skinned vertex of that pose, for the same reason as [`world_box`](Self::world_box)
    /// (rigid primitives are not among them).
    pub fn bone_spheres(&self) -> impl ExactSizeIterator<Item = BoneSphere> + Clone + '_ {
        self.bones.iter().copied()
    }
}

/// The axis-aligned box of spheres `(matrix, center, radius)` (the matrix by value or by
/// reference), each carried by its matrix:
/// the union of the exact boxes of their images (centre `M c`, half extent `r` times the
/// length of each row of `M`'s 3×3 part). A sphere whose box is not finite (a NaN or
/// infinite matrix) is left out; `None` when no sphere gives a finite box. Allocates nothing;
/// [`CharacterBounds::world_box`] is this over its parts.
///
/// A crowd boxes every joint of every character every frame, so the common case costs two
/// adds per sphere for the finiteness test: the boxes are summed as they are joined, and only
/// when the sum is not finite does a second pass over `spheres` leave the bad ones out.
///
/// ```
/// use skel_gltf::carried_spheres_box;
/// use skel_anim::glam::{Mat4, Vec3};
///
/// let m = Mat4::from_scale_rotation_translation(
///     Vec3::splat(2.0),
///     Default::default(),
///     Vec3::new(1.0, 0.0, 0.0),
/// );
/// let (min, max) = carried_spheres_box([(&m, Vec3::ZERO, 0.5)]).unwrap();
/// assert_eq!((min, max), (Vec3::new(0.0, -1.0, -1.0), Vec3::new(2.0, 1.0, 1.0)));
/// // A NaN matrix's sphere is left out.
/// let bad = Mat4::NAN;
/// assert_eq!(carried_spheres_box([(&m, Vec3::ZERO, 0.5), (&bad, Vec3::ZERO, 1.0)]), Some((min, max)));
/// ```
#[must_use]
pub fn carried_spheres_box<M, I>(spheres: I) -> Option<(Vec3, Vec3)>
where
    M: Borrow<Mat4>,
    I: IntoIterator<Item = (M, Vec3, f32)>,
    I::IntoIter: Clone,
{
    finite_union(Carried(spheres.into_iter()))
}

/// Spheres `(matrix, centre, radius)` from an iterator.
#[derive(Clone)]
struct Carried<I>(I);

impl<M, I> SphereBoxes for Carried<I>
where
    M: Borrow<Mat4>,
    I: Iterator<Item = (M, Vec3, f32)> + Clone,
{
    #[inline(always)]
    fn each_box(self, to: &mut impl Join) {
        for (m, center, radius) in self.0 {
            let (lo, hi) = sphere_box(m.borrow(), center, radius);
            to.join(lo, hi);
        }
    }
}

/// The box of one sphere carried by `m`, in four lanes (the fourth is finite whenever the
/// matrix is: a bone's bottom row is 0, 0, 0, 1): its image's centre, less and plus `r` times
/// each row's length of the 3×3 part (the rows' squares summed column by column, in four lanes
/// at once; the root's one `sqrtps`).
#[inline(always)]
fn sphere_box(m: &Mat4, center: Vec3, radius: f32) -> (Vec4, Vec4) {
    let center = *m * center.extend(1.0);
    let rows = m.x_axis * m.x_axis + m.y_axis * m.y_axis + m.z_axis * m.z_axis;
    let half = skel_anim::lane_sqrt(rows) * radius;
    (center - half, center + half)
}

/// An upper bound of how far `m`'s 3×3 part stretches a vector (its largest singular value):
/// the square root of the largest absolute row sum of `mᵀ m` (Gershgorin), exact for a
/// rotation times a uniform scale, the inverse bind matrices of nearly every rig.
fn stretch(m: &Mat4) -> f32 {
    let c = [m.x_axis, m.y_axis, m.z_axis].map(|c| c.truncate().as_dvec3());
    let widest = (0..3)
        .map(|i| (0..3).map(|j| c[i].dot(c[j]).abs()).sum::<f64>())
        .fold(0.0, f64::max);
    // Rounded up, so that f32's rounding of the product never undercuts it.
    (widest.sqrt() * (1.0 + 1e-6)) as f32
}

/// Every vertex with a finite position: its index and mesh-space position.
fn positions(prim: &PrimitiveData) -> impl Iterator<Item = (usize, Vec3)> + '_ {
    prim.positions
        .chunks_exact(3)
        .map(Vec3::from_slice)
        .enumerate()
        .filter(|(_, p)| p.is_finite())
}

/// How far the morph targets can push each vertex (weights in `0..=1`): the sum of the
/// lengths of its deltas. Empty without targets.
pub(crate) fn morph_reach(prim: &PrimitiveData) -> Vec<f32> {
    let Some(targets) = &prim.morph_targets else {
        return Vec::new();
    };
    let n = prim.vertex_count();
    let mut reach = vec![0.0_f32; n];
    for t in 0..targets.target_count {
        let deltas = targets.positions.get(t * n * 3..(t + 1) * n * 3);
        for (r, d) in reach.iter_mut().zip(deltas.unwrap_or(&[]).chunks_exact(3)) {
            let len = Vec3::from_slice(d).length();
            if len.is_finite() {
                *r += len;
            }
        }
    }
    reach
}

/// The radius around `center` that holds every chosen vertex pushed as far as its morph
/// targets reach.
fn sphere_radius(
    prim: &PrimitiveData,
    reach: &[f32],
    center: Vec3,
    chosen: impl Fn(usize) -> bool,
) -> f32 {
    positions(prim)
        .filter(|&(v, _)| chosen(v))
        .map(|(v, p)| (p - center).length() + reach.get(v).copied().unwrap_or(0.0))
        .fold(0.0, f32::max)
}

/// An axis-aligned box that grows to hold points.
#[derive(Debug, Clone, Copy)]
struct Aabb {
    min: Vec3,
    max: Vec3,
}

impl Aabb {
    const EMPTY: Self = Self {
        min: Vec3::INFINITY,
        max: Vec3::NEG_INFINITY,
    };

    fn add(&mut self, p: Vec3) {
        self.min = self.min.min(p);
        self.max = self.max.max(p);
    }

    fn bounds(&self) -> Option<(Vec3, Vec3)> {
        self.min
            .cmple(self.max)
            .all()
            .then_some((self.min, self.max))
    }

    fn center(&self) -> Option<Vec3> {
        self.bounds().map(|(a, b)| (a + b) * 0.5)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{LoadOptions, load_slice, rest_world_matrices};

    fn character() -> GltfAsset {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../skel/assets/default_character.glb"
        );
        load_slice(&std::fs::read(path).unwrap(), None, &LoadOptions::default()).unwrap()
    }

    #[test]
    fn matrices_missing_or_not_finite_give_no_box() {
        let asset = character();
        let bounds = CharacterBounds::new(&asset);
        assert!(bounds.part_count() > 0);
        let rest = rest_world_matrices(&asset.animation).unwrap();
        assert!(bounds.world_box(&rest).is_some());
        assert_eq!(bounds.world_box(&[]), None, "no matrices");
        assert_eq!(bounds.world_box(&vec![Mat4::NAN; rest.len()]), None);
        // One joint's matrix NaN: the others still box the character.
        let mut one = rest.clone();
        one[bounds.parts[0].node] = Mat4::NAN;
        let (min, max) = bounds.world_box(&one).unwrap();
        assert!(min.is_finite() && max.is_finite());
    }

    #[test]
    fn a_uniform_scale_stretches_by_its_factor() {
        let m = Mat4::from_scale_rotation_translation(
            Vec3::splat(2.5),
            skel_anim::glam::Quat::from_rotation_y(0.7),
            Vec3::ONE,
        );
        assert!((stretch(&m) - 2.5).abs() < 1e-5, "{}", stretch(&m));
        // Never under the largest singular value, for a sheared matrix too.
        let sheared = Mat4::from_cols_array(&[
            1.0, 0.0, 0.0, 0.0, 0.8, 1.0, 0.0, 0.0, 0.0, 0.3, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0,
        ]);
        let s = stretch(&sheared);
        for k in 0..1000 {
            let a = k as f32 * 0.01;
            let v = Vec3::new(a.cos() * (a * 0.7).sin(), a.sin(), (a * 1.3).cos()).normalize();
            assert!(sheared.transform_vector3(v).length() <= s, "{k}");
        }
    }
}
