//! What a CPU-posed crowd boxes its instances with: each skin joint's sphere under its bone's
//! place in an instance's matrices (and its mesh node's rest world matrix), the box of an
//! instance, and the frustum test of a placed box. [`Crowd::cull`](crate::Crowd::cull) and
//! [`Crowd::instance_box`](crate::Crowd::instance_box) (`crowd_cull`) use them.

use skel_gltf::JointSpheres;

use skel_gpu::glam::{Mat4, Vec3, Vec4};

use crate::AssetContainer;

/// The skin joints' spheres of a crowd's character, by their bones' places in an instance's
/// matrices, grouped by skinned mesh node.
///
/// A bone matrix is `inverse(meshWorld) · jointWorld · inverseBind` (skinned vertices in the
/// mesh node's frame, which the renderer then places), so a group whose node's rest world
/// matrix is not the identity is boxed in the node's frame and that box carried by the matrix
/// (its centre moved, its half extent through the matrix's absolute 3×3 part): exact for the
/// axis turns of a Z-up export (CesiumMan's), a little wider for other turns, and one matrix
/// per group a frame instead of one product per joint.
#[derive(Debug, Clone, Default)]
pub(crate) struct CullSpheres {
    /// Each group's mesh node rest world matrix (`None`: the identity) and its spheres by
    /// bone place (laid out for boxing: one bounds check a run of consecutive bones).
    groups: Vec<(Option<Mat4>, JointSpheres)>,
}

/// A sphere under its bone's place in an instance's matrices: place, centre, radius.
type Placed = (usize, Vec3, f32);

/// The spheres of `asset`'s skinned meshes, each under its bone's place in an instance's
/// matrices (`first_bone(binding)`: where that skeleton binding's bones start), grouped by
/// their mesh node's rest world matrix.
pub(crate) fn cull_spheres(
    asset: &AssetContainer,
    first_bone: impl Fn(usize) -> Option<usize>,
) -> CullSpheres {
    let rest = skel_gltf::rest_world_matrices(&asset.animation).unwrap_or_default();
    let mesh_world = |binding: usize| {
        let node = asset.animation.skeletons.get(binding)?.mesh_node;
        rest.get(node).copied().filter(|m| *m != Mat4::IDENTITY)
    };
    // (mesh matrix, (bone place, centre, radius)).
    let mut placed: Vec<(Option<Mat4>, Placed)> = asset
        .bounds
        .bone_spheres()
        .filter_map(|s| {
            Some((
                mesh_world(s.binding),
                (first_bone(s.binding)? + s.joint, s.center, s.radius),
            ))
        })
        .collect();
    // One group per mesh matrix.
    placed.sort_by_key(|(mesh, ..)| mesh.map(|m| m.to_cols_array().map(f32::to_bits)));
    let mut groups: Vec<(Option<Mat4>, Vec<Placed>)> = Vec::new();
    for (mesh, sphere) in placed {
        match groups.last_mut() {
            Some((m, group)) if *m == mesh => group.push(sphere),
            _ => groups.push((mesh, vec![sphere])),
        }
    }
    CullSpheres {
        groups: groups
            .into_iter()
            .map(|(mesh, group)| (mesh, JointSpheres::new(group)))
            .collect(),
    }
}

impl CullSpheres {
    /// Whether no sphere is held (a character without skinned geometry).
    fn is_empty(&self) -> bool {
        self.groups.iter().all(|(_, g)| g.is_empty())
    }
}

/// Whether one instance's box, from `spheres` under its `bones`, moved by `placement`, meets
/// `frustum`. With no finite box: `false` when there are spheres (every one carried by a
/// non-finite bone: nothing of the instance can be drawn; the GPU cull decides the same),
/// `true` when there are none to box it by.
pub(crate) fn box_meets_frustum(
    spheres: &CullSpheres,
    bones: &[Mat4],
    placement: &Mat4,
    frustum: &Frustum,
) -> bool {
    box_verdict(spheres, spheres_box(spheres, bones), placement, frustum)
}

/// [`box_meets_frustum`] from the instance's box already made (`spheres_box`'s answer, kept
/// by a tick that boxes, `CrowdDescriptor::boxes_in_tick`): both ways of culling decide by
/// this one rule.
pub(crate) fn box_verdict(
    spheres: &CullSpheres,
    instance_box: Option<(Vec3, Vec3)>,
    placement: &Mat4,
    frustum: &Frustum,
) -> bool {
    match instance_box {
        Some(b) => meets_frustum(placement, b, frustum),
        None => spheres.is_empty(),
    }
}

/// The box of `spheres` under one instance's `bones` (and their mesh nodes' matrices).
pub(crate) fn spheres_box(spheres: &CullSpheres, bones: &[Mat4]) -> Option<(Vec3, Vec3)> {
    let mut whole: Option<(Vec3, Vec3)> = None;
    for (mesh, group) in &spheres.groups {
        let Some(b) = group.boxed(bones) else {
            continue;
        };
        let (lo, hi) = match mesh {
            Some(m) => carried_box(m, b),
            None => b,
        };
        whole = Some(whole.map_or((lo, hi), |(a, z)| (a.min(lo), z.max(hi))));
    }
    whole
}

/// The box `(min, max)` carried by `m` and boxed again: the centre moved, the half extent
/// through `m`'s absolute 3×3 part.
fn carried_box(m: &Mat4, b: (Vec3, Vec3)) -> (Vec3, Vec3) {
    let (center, extent) = carried_center_extent(m, b);
    (center - extent, center + extent)
}

/// The centre of the box `min..max` carried by `m`, and the half extent of the box around the
/// carried box: the half extent through the absolute values of `m`'s 3×3 part (exact for axis
/// turns, wider for others).
fn carried_center_extent(m: &Mat4, (min, max): (Vec3, Vec3)) -> (Vec3, Vec3) {
    let center = m.transform_point3((min + max) * 0.5);
    let half = (max - min) * 0.5;
    let abs = |c: Vec4| c.truncate().abs();
    let extent = abs(m.x_axis) * half.x + abs(m.y_axis) * half.y + abs(m.z_axis) * half.z;
    (center, extent)
}

/// A frustum's six planes (`n·p + d ≥ 0` inside) in SIMD lanes, made once a cull: planes 0–3
/// and planes 4, 5 (twice), each group as its normals' `x`, `y`, `z`, their absolute values,
/// and `d`, so that one box is tested against four planes at once.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Frustum {
    groups: [[Vec4; 7]; 2],
}

impl Frustum {
    /// The lanes of `planes` (as [`skel_gpu::frustum_planes`] gives them).
    pub(crate) fn new(planes: &[Vec4; 6]) -> Self {
        let group = |ids: [usize; 4]| {
            let lane = |f: &dyn Fn(Vec4) -> f32| Vec4::from_array(ids.map(|k| f(planes[k])));
            [
                lane(&|p| p.x),
                lane(&|p| p.y),
                lane(&|p| p.z),
                lane(&|p| p.x.abs()),
                lane(&|p| p.y.abs()),
                lane(&|p| p.z.abs()),
                lane(&|p| p.w),
            ]
        };
        Self {
            groups: [group([0, 1, 2, 3]), group([4, 5, 4, 5])],
        }
    }
}

/// Whether the box `(min, max)` moved by `placement` is not wholly outside one of the
/// frustum's planes. The moved box is boxed again (its centre moved, its half extent through
/// the absolute 3×3 part), which only widens it.
pub(crate) fn meets_frustum(placement: &Mat4, b: (Vec3, Vec3), frustum: &Frustum) -> bool {
    let (center, extent) = carried_center_extent(placement, b);
    let (c, e) = (
        center.to_array().map(Vec4::splat),
        extent.to_array().map(Vec4::splat),
    );
    frustum.groups.iter().all(|[nx, ny, nz, ax, ay, az, d]| {
        // Each plane's box corner farthest along its normal: outside only when even it is
        // behind the plane (a NaN distance is not less than 0, so a non-finite placement
        // keeps the instance).
        let farthest =
            *nx * c[0] + *ny * c[1] + *nz * c[2] + *ax * e[0] + *ay * e[1] + *az * e[2] + *d;
        !farthest.cmplt(Vec4::ZERO).any()
    })
}

#[cfg(test)]
mod tests {
    use skel_gpu::frustum_planes;

    use super::*;

    #[test]
    fn a_box_is_outside_only_when_wholly_behind_a_plane() {
        let view = Mat4::look_at_rh(Vec3::new(0.0, 0.0, 5.0), Vec3::ZERO, Vec3::Y);
        let planes = Frustum::new(&frustum_planes(
            Mat4::perspective_rh(1.0, 1.0, 0.1, 50.0) * view,
        ));
        let unit = (Vec3::splat(-0.5), Vec3::splat(0.5));
        let at = |x: f32, z: f32| Mat4::from_translation(Vec3::new(x, 0.0, z));
        assert!(meets_frustum(&at(0.0, 0.0), unit, &planes), "in front");
        assert!(
            !meets_frustum(&at(0.0, 10.0), unit, &planes),
            "behind the camera"
        );
        assert!(
            !meets_frustum(&at(30.0, 0.0), unit, &planes),
            "far to the side"
        );
        assert!(
            !meets_frustum(&at(0.0, -60.0), unit, &planes),
            "past the far plane"
        );
        // The box's far face is 5.5 m from the camera, where the half-width seen is
        // 5.5 tan(0.5) ≈ 3.0: a box reaching 0.1 past it meets, one 0.1 short of it does not.
        let edge = 5.5 * 0.5_f32.tan();
        assert!(
            meets_frustum(&at(edge + 0.4, 0.0), unit, &planes),
            "straddles"
        );
        assert!(
            !meets_frustum(&at(edge + 0.6, 0.0), unit, &planes),
            "just outside"
        );
        // A turned placement widens the box, never loses it.
        let turned = at(edge + 0.6, 0.0) * Mat4::from_rotation_z(0.7);
        assert!(
            meets_frustum(&turned, unit, &planes),
            "the turned box's corner reaches in"
        );
        assert!(meets_frustum(&Mat4::NAN, unit, &planes), "not finite: kept");
    }

    #[test]
    fn an_instance_without_a_finite_box_goes_unless_there_is_nothing_to_box_it_by() {
        let view = Mat4::look_at_rh(Vec3::new(0.0, 0.0, 5.0), Vec3::ZERO, Vec3::Y);
        let frustum = Frustum::new(&frustum_planes(
            Mat4::perspective_rh(1.0, 1.0, 0.1, 50.0) * view,
        ));
        let spheres = CullSpheres {
            groups: vec![(
                None,
                JointSpheres::new([
                    (0, Vec3::new(0.0, 1.0, 0.0), 0.2),
                    (1, Vec3::new(0.0, 0.5, 0.0), 0.3),
                ]),
            )],
        };
        let at = Mat4::IDENTITY;
        let bones = [Mat4::IDENTITY, Mat4::from_translation(Vec3::X)];
        assert!(
            box_meets_frustum(&spheres, &bones, &at, &frustum),
            "in view"
        );
        // One joint's bone NaN: the other's box still places the instance.
        let one = [Mat4::NAN, bones[1]];
        let (lo, hi) = spheres_box(&spheres, &one).unwrap();
        assert!(lo.abs_diff_eq(Vec3::new(0.7, 0.2, -0.3), 1e-6), "{lo}");
        assert!(hi.abs_diff_eq(Vec3::new(1.3, 0.8, 0.3), 1e-6), "{hi}");
        assert!(box_meets_frustum(&spheres, &one, &at, &frustum));
        // Every bone NaN or infinite: nothing to draw, culled (as on the GPU).
        for bad in [Mat4::NAN, Mat4::from_translation(Vec3::INFINITY)] {
            assert!(
                !box_meets_frustum(&spheres, &[bad, bad], &at, &frustum),
                "{bad}"
            );
        }
        // No spheres at all: never culled.
        let none = CullSpheres::default();
        assert!(box_meets_frustum(&none, &[Mat4::NAN; 2], &at, &frustum));
    }
}
