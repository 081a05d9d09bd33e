//! What [`CrowdPick`](crate::CrowdPick) is built from and asked with: the character's skinned
//! primitives ([`CrowdPickPrimitive`]) packed into the pass's vertex and triangle buffers, the
//! answer ([`CrowdPickHit`]), the ray's checks, and a ray from a screen pixel
//! ([`pick_ray_from_pixel`]).

use glam::{Mat4, Vec2, Vec3, Vec4};

use crate::GpuError;
use crate::pick_morph::{PickMorph, morph_records};

/// How a primitive's indices make triangles (glTF 2.0 §3.7.2.1; the modes that draw
/// triangles).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum PickTopology {
    /// Every three indices a triangle.
    #[default]
    Triangles,
    /// Triangle `t` is `(t, t + 1, t + 2)`, its first two swapped for odd `t`.
    TriangleStrip,
    /// Triangle `t` is `(t + 1, t + 2, 0)`.
    TriangleFan,
}

/// One skinned primitive of the crowd's character, as [`CrowdPick::new`](crate::CrowdPick::new)
/// reads it: rest positions and influences (what the asset loader gives, e.g. skel-gltf's
/// `PrimitiveData`), the triangles, and where its bones start in an instance's bones.
#[derive(Debug, Clone, Copy)]
pub struct CrowdPickPrimitive<'a> {
    /// The caller's number for the primitive, reported back in [`CrowdPickHit::primitive`]
    /// (skel-gltf: its index in `GltfAsset::primitives`).
    pub primitive: u32,
    /// The glTF mesh it belongs to, reported back in [`CrowdPickHit::mesh`].
    pub mesh: u32,
    /// How `indices` make triangles.
    pub topology: PickTopology,
    /// Rest (bind-pose) positions, 3 floats a vertex, in the mesh's frame.
    pub positions: &'a [f32],
    /// Vertex indices; `None` for non-indexed geometry (vertex `i` is index `i`).
    pub indices: Option<&'a [u32]>,
    /// Influences per vertex: a multiple of 4 (4, 8, 12, 16), the same for `joints` and
    /// `weights`.
    pub influences_per_vertex: u32,
    /// Joint indices into the primitive's skeleton, `influences_per_vertex` a vertex.
    pub joints: &'a [u32],
    /// Weights, `influences_per_vertex` a vertex (summing to 1, as skel-gltf leaves them).
    pub weights: &'a [f32],
    /// The skeleton's first bone within an instance's bones (joint `j` is bone
    /// `bone_offset + j`).
    pub bone_offset: u32,
    /// The world matrix of the skinned mesh's node at rest: the bone buffer holds
    /// `meshInverse · jointWorld · inverseBind`, so a skinned vertex's place in the character
    /// is `mesh_world · Σ wᵢ Sᵢ v` (as [`CullBone::left`](crate::CullBone::left)).
    pub mesh_world: Mat4,
    /// Its morph targets, morphed with each instance's weights before skinning
    /// ([`CrowdPickDescriptor::morph_weights`](crate::CrowdPickDescriptor::morph_weights));
    /// `None`: picked unmorphed.
    pub morph: Option<PickMorph<'a>>,
}

/// Where a ray first meets a crowd: the instance, and the same fields as skel-gltf's CPU
/// `PickHit` for that instance.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CrowdPickHit {
    /// The instance hit.
    pub instance: u32,
    /// The primitive ([`CrowdPickPrimitive::primitive`]).
    pub primitive: u32,
    /// Its mesh ([`CrowdPickPrimitive::mesh`]).
    pub mesh: u32,
    /// The triangle, in the primitive's own order.
    pub triangle: u32,
    /// Barycentric `(u, v)`: the point is `(1 − u − v) a + u b + v c`.
    pub barycentric: [f32; 2],
    /// The distance from the ray's origin along its normalised direction (world units).
    pub distance: f32,
    /// The point hit, `origin + direction · distance` (direction normalised).
    pub point: Vec3,
}

/// The pass's view of the character, packed once.
pub(crate) struct PackedMesh {
    /// Per vertex `1 + 2 · sets` `[u32; 4]`: position bits (and the index of its morph head
    /// in `w`), joints (bones), weight bits; then the morph records (`pick_morph`).
    pub(crate) vertices: Vec<[u32; 4]>,
    /// Per triangle: three vertices (into `vertices`) and the primitive's slot.
    pub(crate) triangles: Vec<[u32; 4]>,
    /// Per primitive slot: its mesh node's world matrix.
    pub(crate) frames: Vec<Mat4>,
    /// Joint/weight sets of 4 per vertex.
    pub(crate) sets: u32,
    /// Per slot: first triangle, caller's primitive number, mesh.
    pub(crate) slots: Vec<[u32; 3]>,
}

/// Packs `primitives` (checked) for an instance of `bones` bones and, with
/// `weights_per_instance`, their morph targets (left out without).
pub(crate) fn pack(
    primitives: &[CrowdPickPrimitive<'_>],
    bones: u32,
    weights_per_instance: Option<u32>,
) -> Result<PackedMesh, GpuError> {
    if primitives.is_empty() {
        return Err(GpuError::LengthMismatch {
            what: "pick primitives",
            expected: 1,
            got: 0,
        });
    }
    let mut sets = 1;
    for p in primitives {
        let per = p.influences_per_vertex;
        if per == 0 || per % 4 != 0 {
            return Err(GpuError::OutOfRange {
                what: "pick primitive influences per vertex",
                got: per.to_string(),
                expected: "a multiple of 4, at least 4",
            });
        }
        sets = sets.max(per / 4);
    }
    let mut packed = PackedMesh {
        vertices: Vec::new(),
        triangles: Vec::new(),
        frames: Vec::with_capacity(primitives.len()),
        sets,
        slots: Vec::with_capacity(primitives.len()),
    };
    let mut bases = Vec::with_capacity(primitives.len());
    for (slot, p) in primitives.iter().enumerate() {
        bases.push(pack_primitive(&mut packed, p, slot as u32, bones)?);
    }
    // The morphing vertices' heads and deltas after every vertex, each vertex's position
    // record pointing at its head (see `pick_morph`).
    let stride = 1 + 2 * packed.sets as usize;
    for (p, &base) in primitives.iter().zip(&bases) {
        let (Some(morph), Some(floats)) = (&p.morph, weights_per_instance) else {
            continue;
        };
        if u64::from(morph.first_weight) + u64::from(morph.targets) > u64::from(floats) {
            return Err(GpuError::OutOfRange {
                what: "pick primitive morph weights (first weight + targets)",
                got: (u64::from(morph.first_weight) + u64::from(morph.targets)).to_string(),
                expected: "at most the weights per instance",
            });
        }
        let n = p.positions.len() / 3;
        let records = morph_records(morph, n)?;
        let per = 1 + morph.targets as usize;
        let first = packed.vertices.len();
        for v in 0..n {
            let head = u32::try_from(first + v * per).map_err(|_| GpuError::OutOfRange {
                what: "pick vertex records",
                got: (first + v * per).to_string(),
                expected: "at most u32::MAX",
            })?;
            packed.vertices[(base as usize + v) * stride][3] = head;
        }
        packed.vertices.extend(records);
    }
    Ok(packed)
}

/// Appends one primitive's vertices, triangles and frame; returns its first vertex.
fn pack_primitive(
    packed: &mut PackedMesh,
    p: &CrowdPickPrimitive<'_>,
    slot: u32,
    bones: u32,
) -> Result<u32, GpuError> {
    let per = p.influences_per_vertex as usize;
    let n = p.positions.len() / 3;
    for (what, expected, got) in [
        (
            "pick primitive positions (3 per vertex)",
            3 * n,
            p.positions.len(),
        ),
        ("pick primitive joints", n * per, p.joints.len()),
        ("pick primitive weights", n * per, p.weights.len()),
    ] {
        if got != expected {
            return Err(GpuError::LengthMismatch {
                what,
                expected,
                got,
            });
        }
    }
    for (what, floats) in [
        ("pick primitive positions", p.positions),
        ("pick primitive weights", p.weights),
        (
            "pick primitive mesh_world",
            p.mesh_world.as_ref().as_slice(),
        ),
    ] {
        if let Some(index) = floats.iter().position(|v| !v.is_finite()) {
            return Err(GpuError::NotFinite { what, index });
        }
    }
    let first_vertex = packed.vertices.len() as u64 / u64::from(1 + 2 * packed.sets);
    let base = u32::try_from(first_vertex + n as u64).map_err(|_| GpuError::OutOfRange {
        what: "pick vertices",
        got: (first_vertex + n as u64).to_string(),
        expected: "at most u32::MAX",
    })? - n as u32;
    let sets = packed.sets as usize;
    for v in 0..n {
        let at = v * 3;
        let pos = &p.positions[at..at + 3];
        packed
            .vertices
            .push([pos[0].to_bits(), pos[1].to_bits(), pos[2].to_bits(), 0]);
        // The sets' joints then their weights, zero past this primitive's influences.
        let at = packed.vertices.len();
        packed.vertices.resize(at + 2 * sets, [0; 4]);
        for k in 0..per {
            let (joint, weight) = (p.joints[v * per + k], p.weights[v * per + k]);
            let bone = p.bone_offset.checked_add(joint).filter(|&b| b < bones);
            let Some(bone) = bone else {
                return Err(GpuError::JointOutOfRange {
                    vertex: v,
                    slot: k,
                    joint,
                    bone_count: bones.saturating_sub(p.bone_offset),
                });
            };
            packed.vertices[at + k / 4][k % 4] = bone;
            packed.vertices[at + sets + k / 4][k % 4] = weight.to_bits();
        }
    }
    let count = p.indices.map_or(n, <[u32]>::len);
    let triangles = match p.topology {
        PickTopology::Triangles => count / 3,
        PickTopology::TriangleStrip | PickTopology::TriangleFan => count.saturating_sub(2),
    };
    packed
        .slots
        .push([packed.triangles.len() as u32, p.primitive, p.mesh]);
    packed.frames.push(p.mesh_world);
    for t in 0..triangles {
        let corners = match p.topology {
            PickTopology::Triangles => [3 * t, 3 * t + 1, 3 * t + 2],
            PickTopology::TriangleStrip => {
                let flip = t % 2;
                [t + flip, t + 1 - flip, t + 2]
            }
            PickTopology::TriangleFan => [t + 1, t + 2, 0],
        };
        let mut tri = [0, 0, 0, slot];
        for (out, corner) in tri.iter_mut().zip(corners) {
            let vertex = p.indices.map_or(corner as u32, |ix| ix[corner]);
            if vertex as usize >= n {
                return Err(GpuError::OutOfRange {
                    what: "pick primitive index",
                    got: vertex.to_string(),
                    expected: "below the primitive's vertex count",
                });
            }
            *out = base + vertex;
        }
        packed.triangles.push(tri);
    }
    Ok(base)
}

/// The ray's origin and normalised direction.
///
/// # Errors
/// [`GpuError::NotFinite`] for a NaN or infinite component, [`GpuError::ZeroRayDirection`]
/// for a direction without length.
pub(crate) fn check_ray(origin: Vec3, direction: Vec3) -> Result<Vec3, GpuError> {
    let floats = [origin.to_array(), direction.to_array()];
    if let Some(index) = floats.as_flattened().iter().position(|v| !v.is_finite()) {
        return Err(GpuError::NotFinite {
            what: "pick ray (origin, direction)",
            index,
        });
    }
    direction.try_normalize().ok_or(GpuError::ZeroRayDirection)
}

/// The world ray under a screen pixel: `(origin, direction)` for
/// [`CrowdPick::pick`](crate::CrowdPick::pick).
///
/// `pixel` is in window coordinates: `(0, 0)` the top-left corner of the viewport, `+y` down,
/// pixel `(x, y)` covering `x..x + 1` (its centre is `x + 0.5`; a mouse position is used as
/// it is); `viewport` its size in pixels. It becomes wgpu's normalised device coordinates
/// `(2x / w − 1, 1 − 2y / h)` (NDC `+y` up), and the ray runs from the point at NDC depth 0
/// (the near plane) through the point at depth 1 (the far plane), both unprojected with
/// `inverse_view_projection` (the inverse of `projection · view`). That is wgpu's depth range
/// `0..1` with near at 0: glam's `perspective_rh`/`_lh` and `orthographic_rh`/`_lh`. A
/// reversed-z or infinite-far projection puts a plane at infinity and fails with
/// [`GpuError::NotFinite`].
///
/// # Errors
/// [`GpuError::OutOfRange`] for a viewport that is not positive and finite;
/// [`GpuError::NotFinite`] for a pixel, a matrix or an unprojected point that is not finite;
/// [`GpuError::ZeroRayDirection`] when both points coincide (a singular matrix).
pub fn pick_ray_from_pixel(
    inverse_view_projection: Mat4,
    pixel: Vec2,
    viewport: Vec2,
) -> Result<(Vec3, Vec3), GpuError> {
    if !(viewport.is_finite() && viewport.x > 0.0 && viewport.y > 0.0) {
        return Err(GpuError::OutOfRange {
            what: "pick viewport",
            got: format!("{viewport}"),
            expected: "positive and finite",
        });
    }
    let matrix = inverse_view_projection.to_cols_array();
    let inputs = [pixel.x, pixel.y].into_iter().chain(matrix);
    if let Some(index) = inputs.into_iter().position(|v| !v.is_finite()) {
        return Err(GpuError::NotFinite {
            what: "pick pixel then inverse view-projection",
            index,
        });
    }
    let ndc = Vec2::new(
        2.0 * pixel.x / viewport.x - 1.0,
        1.0 - 2.0 * pixel.y / viewport.y,
    );
    let unproject = |z: f32| {
        let p = inverse_view_projection * Vec4::new(ndc.x, ndc.y, z, 1.0);
        p.truncate() / p.w
    };
    let (near, far) = (unproject(0.0), unproject(1.0));
    if !(near.is_finite() && far.is_finite()) {
        return Err(GpuError::NotFinite {
            what: "pick ray's unprojected near and far points",
            index: usize::from(near.is_finite()),
        });
    }
    let direction = (far - near)
        .try_normalize()
        .ok_or(GpuError::ZeroRayDirection)?;
    Ok((near, direction))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pixel_ray_passes_through_the_point_drawn_there() {
        let view = Mat4::look_at_rh(Vec3::new(1.0, 2.0, 6.0), Vec3::new(0.0, 1.0, 0.0), Vec3::Y);
        let proj = Mat4::perspective_rh(0.9, 1.5, 0.1, 100.0);
        let vp = proj * view;
        let viewport = Vec2::new(300.0, 200.0);
        for target in [Vec3::new(0.3, 1.2, -0.5), Vec3::new(-1.0, 0.0, 2.0)] {
            let clip = vp * target.extend(1.0);
            let ndc = clip.truncate() / clip.w;
            let pixel = Vec2::new(
                (ndc.x + 1.0) * 0.5 * viewport.x,
                (1.0 - ndc.y) * 0.5 * viewport.y,
            );
            let (origin, dir) = pick_ray_from_pixel(vp.inverse(), pixel, viewport).unwrap();
            let to = target - origin;
            let off = (to - dir * to.dot(dir)).length();
            assert!(off < 1e-4 * to.length(), "{target}: {off}");
            assert!(to.dot(dir) > 0.0);
        }
    }

    /// A primitive of `n` vertices at x = 0, 1, 2, … bound to joint 0.
    fn line(n: usize, topology: PickTopology, indices: Option<&[u32]>) -> PackedMesh {
        let positions: Vec<f32> = (0..n).flat_map(|i| [i as f32, 0.0, 0.0]).collect();
        let (joints, weights) = (vec![0; 4 * n], [1.0, 0.0, 0.0, 0.0].repeat(n));
        let p = CrowdPickPrimitive {
            primitive: 0,
            mesh: 0,
            topology,
            positions: &positions,
            indices,
            influences_per_vertex: 4,
            joints: &joints,
            weights: &weights,
            bone_offset: 0,
            mesh_world: Mat4::IDENTITY,
            morph: None,
        };
        pack(&[p], 1, None).unwrap()
    }

    #[test]
    fn strips_and_fans_make_the_triangles_gltf_names() {
        // glTF 2.0 §3.7.2.1: strip triangle t is (t, t+1, t+2), its first two swapped for odd
        // t; fan triangle t is (t+1, t+2, 0).
        let strip = line(5, PickTopology::TriangleStrip, None);
        let tris: Vec<[u32; 3]> = strip.triangles.iter().map(|t| [t[0], t[1], t[2]]).collect();
        assert_eq!(tris, [[0, 1, 2], [2, 1, 3], [2, 3, 4]]);
        let fan = line(4, PickTopology::TriangleFan, Some(&[3, 2, 1, 0]));
        let tris: Vec<[u32; 3]> = fan.triangles.iter().map(|t| [t[0], t[1], t[2]]).collect();
        assert_eq!(tris, [[2, 1, 3], [1, 0, 3]]);
        let list = line(7, PickTopology::Triangles, None);
        assert_eq!(
            list.triangles.len(),
            2,
            "a trailing vertex makes no triangle"
        );
    }

    #[test]
    fn bad_primitives_are_typed_errors() {
        let positions = [0.0; 9];
        let (joints, weights) = ([0u32; 12], [0.25f32; 12]);
        let good = CrowdPickPrimitive {
            primitive: 0,
            mesh: 0,
            topology: PickTopology::Triangles,
            positions: &positions,
            indices: None,
            influences_per_vertex: 4,
            joints: &joints,
            weights: &weights,
            bone_offset: 0,
            mesh_world: Mat4::IDENTITY,
            morph: None,
        };
        assert!(pack(&[good], 1, None).is_ok());
        assert!(matches!(
            pack(&[], 1, None),
            Err(GpuError::LengthMismatch { .. })
        ));
        let cases = [
            CrowdPickPrimitive {
                bone_offset: 1,
                ..good
            },
            CrowdPickPrimitive {
                influences_per_vertex: 6,
                ..good
            },
            CrowdPickPrimitive {
                positions: &positions[..8],
                ..good
            },
            CrowdPickPrimitive {
                indices: Some(&[0, 1, 3]),
                ..good
            },
            CrowdPickPrimitive {
                mesh_world: Mat4::NAN,
                ..good
            },
        ];
        for (i, case) in cases.into_iter().enumerate() {
            assert!(pack(&[case], 1, None).is_err(), "case {i}");
        }
    }

    #[test]
    fn bad_pixels_and_rays_are_typed_errors() {
        let inv = Mat4::perspective_rh(0.9, 1.0, 0.1, 10.0).inverse();
        let size = Vec2::splat(100.0);
        for (pixel, viewport) in [(Vec2::NAN, size), (Vec2::ZERO, Vec2::ZERO)] {
            assert!(pick_ray_from_pixel(inv, pixel, viewport).is_err());
        }
        let infinite = Mat4::perspective_infinite_reverse_rh(0.9, 1.0, 0.1).inverse();
        assert!(matches!(
            pick_ray_from_pixel(infinite, Vec2::splat(50.0), size),
            Err(GpuError::NotFinite { .. })
        ));
        assert_eq!(
            check_ray(Vec3::ZERO, Vec3::ZERO),
            Err(GpuError::ZeroRayDirection)
        );
        assert!(matches!(
            check_ray(Vec3::NAN, Vec3::X),
            Err(GpuError::NotFinite { .. })
        ));
    }
}
