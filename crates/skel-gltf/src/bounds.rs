//! A posed character's world box from spheres made once at load: for each joint, the sphere
//! (in mesh space) around every vertex it moves, widened by how far the morph targets can
//! push each of those vertices; for each rigid primitive, the sphere around its vertices. A
//! pose's box is the union of those spheres under the pose's matrices, so it holds every
//! skinned and morphed vertex by construction (see [`CharacterBounds`]), at a cost per part,
//! not per vertex.

use skel_anim::glam::{Mat4, Vec3};
use skel_math::load_mat4;

use crate::{GltfAsset, PrimitiveData};

/// Per-joint and per-primitive bounding spheres of an asset's geometry, for boxing any pose.
///
/// **Why it holds every vertex.** A skinned vertex lands at `Σ wₖ Jₖ v` with the weights
/// summing to 1 (skel-gltf divides them by their sum at load), `Jₖ = jointWorldₖ ·
/// inverseBindₖ` and `v` the morphed position: a convex combination of the points `Jₖ v`.
/// Each `v` lies in joint `k`'s sphere (the sphere holds every vertex the joint moves, grown
/// by the sum of the lengths of that vertex's morph deltas), so `Jₖ v` lies in the sphere's
/// image, an ellipsoid, whose axis-aligned box is exact: the centre `Jₖ c` plus or minus
/// `r` times the length of each row of `Jₖ`'s 3×3 part. The union box is convex, so it holds
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
/// let (min, max) = bounds.world_box(&asset, &rest).expect("the character has geometry");
/// assert!(min.cmple(max).all());
/// # Ok::<(), skel_gltf::GltfError>(())
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CharacterBounds {
    parts: Vec<Part>,
}

/// One sphere, in mesh space, and what places it.
#[derive(Debug, Clone, PartialEq)]
struct Part {
    place: Place,
    center: Vec3,
    radius: f32,
}

/// The matrix that takes a part from mesh space into the world.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Place {
    /// Joint `joint` (index in the skin's joint list) of skin `skin`: `jointWorld ·
    /// inverseBind`.
    Joint { skin: usize, joint: usize },
    /// A rigid primitive's node.
    Node(usize),
}

impl CharacterBounds {
    /// The spheres of every primitive of `asset`: one per skin joint that moves a vertex
    /// (with a weight above 0), one per rigid primitive. Primitives without vertices, and
    /// vertices with a non-finite position, are left out.
    #[must_use]
    pub fn new(asset: &GltfAsset) -> Self {
        let mut parts = Vec::new();
        for prim in &asset.primitives {
            let reach = morph_reach(prim);
            match (&prim.influences, prim.skin) {
                (Some(influences), Some(skin)) => {
                    let joints = asset.skins.get(skin).map_or(0, |s| s.joints.len());
                    // The points each joint moves: their box, then the sphere around its
                    // centre.
                    let mut boxes = vec![Aabb::EMPTY; joints];
                    let per = influences.per_vertex;
                    for (v, p) in positions(prim) {
                        let influence = (v * per..(v + 1) * per)
                            .map(|i| (influences.joints[i] as usize, influences.weights[i]));
                        for (j, w) in influence {
                            if let Some(b) = boxes.get_mut(j).filter(|_| w > 0.0) {
                                b.add(p);
                            }
                        }
                    }
                    for (joint, b) in boxes.iter().enumerate() {
                        if let Some(center) = b.center() {
                            let radius = sphere_radius(prim, &reach, center, |v| {
                                (v * per..(v + 1) * per).any(|i| {
                                    influences.joints[i] as usize == joint
                                        && influences.weights[i] > 0.0
                                })
                            });
                            parts.push(Part {
                                place: Place::Joint { skin, joint },
                                center,
                                radius,
                            });
                        }
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
                            place: Place::Node(prim.node),
                            center,
                            radius,
                        });
                    }
                }
            }
        }
        Self { parts }
    }

    /// The spheres held: one per skin joint that moves a vertex, one per rigid primitive.
    #[must_use]
    pub fn part_count(&self) -> usize {
        self.parts.len()
    }

    /// The world box `(min, max)` of the pose whose node world matrices are `world` (by node
    /// index, as [`CpuPoser::node_world_matrices`](crate::CpuPoser::node_world_matrices) and
    /// [`rest_world_matrices`](crate::rest_world_matrices) give them) for `asset`, the asset
    /// these bounds were made from. `None` when no part has a finite box (no geometry, or
    /// non-finite matrices). Allocates nothing.
    #[must_use]
    pub fn world_box(&self, asset: &GltfAsset, world: &[Mat4]) -> Option<(Vec3, Vec3)> {
        let mut total = Aabb::EMPTY;
        for part in &self.parts {
            let m = match part.place {
                Place::Joint { skin, joint } => {
                    let Some(s) = asset.skins.get(skin) else {
                        continue;
                    };
                    let (Some(&node), true) = (
                        s.joints.get(joint),
                        s.inverse_bind_matrices.len() >= (joint + 1) * 16,
                    ) else {
                        continue;
                    };
                    let Some(w) = world.get(node) else {
                        continue;
                    };
                    *w * load_mat4(&s.inverse_bind_matrices, joint * 16)
                }
                Place::Node(node) => match world.get(node) {
                    Some(w) => *w,
                    None => continue,
                },
            };
            let center = m.transform_point3(part.center);
            // The box of the sphere's image: r times each row's length of the 3×3 part.
            let rows = Vec3::new(
                Vec3::new(m.x_axis.x, m.y_axis.x, m.z_axis.x).length(),
                Vec3::new(m.x_axis.y, m.y_axis.y, m.z_axis.y).length(),
                Vec3::new(m.x_axis.z, m.y_axis.z, m.z_axis.z).length(),
            );
            let half = rows * part.radius;
            if center.is_finite() && half.is_finite() {
                total.add(center - half);
                total.add(center + half);
            }
        }
        total.bounds()
    }
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
fn morph_reach(prim: &PrimitiveData) -> Vec<f32> {
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
