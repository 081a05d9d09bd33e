//! A box around an asset in its rest pose, for placing a camera before anything plays.

use std::sync::Arc;

use glam::{Mat4, Vec3};
use skel_anim::{AnimationController, NullSink};

use crate::AssetContainer;

/// The world-space box (`min`, `max`) around every vertex of `container` in its rest pose:
/// vertex positions moved by their mesh node's rest world matrix (handedness included), with
/// skinning left out (a skinned mesh's vertices are in its bind pose, which for glTF assets is
/// where the skeleton stands at rest). Meant for framing a camera
/// ([`Camera::orbit`](super::Camera::orbit) around the centre, a few box heights away), not
/// for culling. An asset without vertices gives the unit box around the origin.
#[must_use]
pub fn rest_bounds(container: &AssetContainer) -> (Vec3, Vec3) {
    let mut world = Vec::new();
    if let Ok(mut rest) = AnimationController::new(Arc::clone(&container.animation)) {
        rest.tick(0.0, &mut NullSink);
        world.extend_from_slice(rest.world_matrices());
    }
    let (mut lo, mut hi) = (Vec3::splat(f32::INFINITY), Vec3::splat(f32::NEG_INFINITY));
    for mesh in &container.meshes {
        let m = world.get(mesh.node).copied().unwrap_or(Mat4::IDENTITY);
        for primitive in &mesh.primitives {
            let Some(data) = container.primitives.get(primitive.source) else {
                continue;
            };
            for p in data.positions.chunks_exact(3) {
                let p = m.transform_point3(Vec3::new(p[0], p[1], p[2]));
                if p.is_finite() {
                    lo = lo.min(p);
                    hi = hi.max(p);
                }
            }
        }
    }
    if lo.cmple(hi).all() {
        (lo, hi)
    } else {
        (Vec3::splat(-0.5), Vec3::splat(0.5))
    }
}
