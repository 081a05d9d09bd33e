//! Picking on the CPU: the first triangle of a posed character that a ray hits, against the
//! skinned and morphed positions of the pose (not the bind pose), after one test against the
//! character's world box.

use skel_anim::glam::Vec3;

use crate::{GltfAsset, PrimitiveData, PrimitiveMode, SkinnedPose};

/// Where a ray first meets a posed character.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PickHit {
    /// The primitive hit (index into [`GltfAsset::primitives`]).
    pub primitive: usize,
    /// Its glTF mesh.
    pub mesh: usize,
    /// The triangle of the primitive, in the primitive's own order (its `n`-th triangle for
    /// triangle lists, strips and fans alike).
    pub triangle: usize,
    /// Barycentric coordinates `(u, v)` of the hit: the point is `(1 − u − v) a + u b + v c`
    /// for the triangle's vertices `a, b, c` in the primitive's order.
    pub barycentric: [f32; 2],
    /// The distance from the ray's origin, in units of the ray's direction (normalised here,
    /// so in world units).
    pub distance: f32,
    /// The point hit.
    pub point: Vec3,
}

/// Why a ray cannot be cast.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RayError {
    /// The origin or the direction has a NaN or infinite component.
    #[error("the ray's origin or direction is not finite")]
    NotFinite,
    /// The direction has no length.
    #[error("the ray's direction is zero")]
    ZeroDirection,
}

/// Vertex positions of a posed asset, by primitive: what [`pick`] reads.
pub trait PosedPositions {
    /// World positions of primitive `primitive`'s vertices.
    fn posed_positions(&self, primitive: usize) -> Option<&[Vec3]>;
}

impl PosedPositions for SkinnedPose {
    fn posed_positions(&self, primitive: usize) -> Option<&[Vec3]> {
        self.positions(primitive)
    }
}

impl PosedPositions for crate::CpuPoser {
    fn posed_positions(&self, primitive: usize) -> Option<&[Vec3]> {
        self.positions(primitive)
    }
}

/// The first triangle of `asset` posed as `posed` (a [`CpuPoser`](crate::CpuPoser) or
/// [`SkinnedPose`] after its last pose) that the ray from `origin` along `direction` hits,
/// both faces of a triangle counting, or `None`. With `bounds` (the pose's world box, from
/// [`CharacterBounds::world_box`](crate::CharacterBounds::world_box)) a ray that misses the
/// box is answered without reading a triangle. Points, lines and degenerate triangles are
/// never hit. Allocates nothing.
///
/// # Errors
/// [`RayError::NotFinite`] for a NaN or infinite origin or direction,
/// [`RayError::ZeroDirection`] for a direction without length.
///
/// ```
/// use skel_gltf::{CpuPoser, LoadOptions, load_slice, pick};
/// use skel_anim::glam::Vec3;
///
/// # let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../skel/assets/default_character.glb");
/// # let glb = std::fs::read(path).unwrap();
/// let asset = load_slice(&glb, None, &LoadOptions::default())?;
/// let mut poser = CpuPoser::new(&asset)?;
/// poser.pose(&asset, Some(0), 0.5)?;
/// // From in front of the character, straight at its chest.
/// let hit = pick(&asset, &poser, None, Vec3::new(0.0, 1.3, 5.0), Vec3::NEG_Z)?;
/// assert!(hit.is_some_and(|h| h.distance > 0.0));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn pick(
    asset: &GltfAsset,
    posed: &impl PosedPositions,
    bounds: Option<(Vec3, Vec3)>,
    origin: Vec3,
    direction: Vec3,
) -> Result<Option<PickHit>, RayError> {
    pick_primitives(&asset.primitives, posed, bounds, origin, direction)
}

/// [`pick`] over `primitives` (an asset's [`GltfAsset::primitives`], or the copy a renderer
/// keeps of them) rather than a whole asset: `posed` gives positions by index into
/// `primitives`, and a primitive it gives none for is left out.
///
/// # Errors
/// As [`pick`].
pub fn pick_primitives(
    primitives: &[PrimitiveData],
    posed: &impl PosedPositions,
    bounds: Option<(Vec3, Vec3)>,
    origin: Vec3,
    direction: Vec3,
) -> Result<Option<PickHit>, RayError> {
    if !(origin.is_finite() && direction.is_finite()) {
        return Err(RayError::NotFinite);
    }
    let dir = direction.try_normalize().ok_or(RayError::ZeroDirection)?;
    if let Some((min, max)) = bounds
        && !crosses_box(origin, dir, min, max)
    {
        return Ok(None);
    }
    let mut best: Option<PickHit> = None;
    for (p, prim) in primitives.iter().enumerate() {
        let Some(positions) = posed.posed_positions(p) else {
            continue;
        };
        for t in 0..triangle_count(prim) {
            let Some([a, b, c]) = triangle(prim, t)
                .map(|ix| ix.map(|i| positions.get(i).copied()))
                .and_then(|[a, b, c]| Some([a?, b?, c?]))
            else {
                continue;
            };
            let Some((distance, u, v)) = intersect(origin, dir, a, b, c) else {
                continue;
            };
            if best.is_none_or(|h| distance < h.distance) {
                best = Some(PickHit {
                    primitive: p,
                    mesh: prim.mesh,
                    triangle: t,
                    barycentric: [u, v],
                    distance,
                    point: origin + dir * distance,
                });
            }
        }
    }
    Ok(best)
}

/// How many triangles `prim` draws.
pub(crate) fn triangle_count(prim: &PrimitiveData) -> usize {
    let n = prim.indices.as_ref().map_or(prim.vertex_count(), Vec::len);
    match prim.mode {
        PrimitiveMode::Triangles => n / 3,
        PrimitiveMode::TriangleStrip | PrimitiveMode::TriangleFan => n.saturating_sub(2),
        _ => 0,
    }
}

/// The vertex indices of triangle `t` of `prim` (glTF 2.0 §3.7.2.1's order for strips and
/// fans).
pub(crate) fn triangle(prim: &PrimitiveData, t: usize) -> Option<[usize; 3]> {
    let corners = match prim.mode {
        PrimitiveMode::Triangles => [3 * t, 3 * t + 1, 3 * t + 2],
        PrimitiveMode::TriangleStrip => {
            let flip = t % 2;
            [t + flip, t + 1 - flip, t + 2]
        }
        PrimitiveMode::TriangleFan => [t + 1, t + 2, 0],
        _ => return None,
    };
    match &prim.indices {
        Some(indices) => {
            let [a, b, c] = corners.map(|i| indices.get(i).map(|&x| x as usize));
            Some([a?, b?, c?])
        }
        None => Some(corners),
    }
}

/// Möller–Trumbore, both faces: `(distance, u, v)` of the hit in front of `origin`.
fn intersect(origin: Vec3, dir: Vec3, a: Vec3, b: Vec3, c: Vec3) -> Option<(f32, f32, f32)> {
    let (e1, e2) = (b - a, c - a);
    let p = dir.cross(e2);
    let det = e1.dot(p);
    // Parallel to the plane, or a degenerate triangle.
    if det.abs() <= f32::EPSILON * e1.length() * e2.length() || !det.is_finite() {
        return None;
    }
    let inv = 1.0 / det;
    let s = origin - a;
    let u = s.dot(p) * inv;
    if !(0.0..=1.0).contains(&u) {
        return None;
    }
    let q = s.cross(e1);
    let v = dir.dot(q) * inv;
    if v < 0.0 || u + v > 1.0 {
        return None;
    }
    let distance = e2.dot(q) * inv;
    (distance > 0.0 && distance.is_finite()).then_some((distance, u, v))
}

/// Where the ray from `origin` along `dir` (any length: the answer is in units of it) enters
/// the box `min..max`: 0 when the origin is inside, `None` when the ray misses it or the box
/// lies behind the origin (slabs). Picking sorts characters by it, nearest box first.
#[must_use]
pub fn ray_box_entry(origin: Vec3, dir: Vec3, min: Vec3, max: Vec3) -> Option<f32> {
    let (mut near, mut far) = (0.0_f32, f32::INFINITY);
    for axis in 0..3 {
        let (o, d) = (origin[axis], dir[axis]);
        if d == 0.0 {
            if o < min[axis] || o > max[axis] {
                return None;
            }
            continue;
        }
        let (t0, t1) = ((min[axis] - o) / d, (max[axis] - o) / d);
        near = near.max(t0.min(t1));
        far = far.min(t0.max(t1));
    }
    (near <= far).then_some(near)
}

/// Whether the ray enters the box `min..max` in front of its origin.
fn crosses_box(origin: Vec3, dir: Vec3, min: Vec3, max: Vec3) -> bool {
    ray_box_entry(origin, dir, min, max).is_some()
}
