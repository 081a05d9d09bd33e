//! `--terrain` drawn under the character (`skel::render::GroundRenderer`): a plane as a square
//! around where the character goes over the render, a mesh as its triangles; the ground near
//! the character is framed with it.

use skel::gpu::GpuContext;
use skel::render::{GroundRenderer, RenderFormat, Vec3};

use super::RenderError;
use crate::terrain::Terrain;

/// The ground of `spec` (in `handedness`'s world) under a character reaching `points`, drawn
/// into passes of `format`. The ground's corners within the character's largest extent of its
/// middle are added to `points`, so that the camera frames the ground around the feet too
/// (a plane's whole square; of a large mesh, what is near, the rest may be cut by the frame).
///
/// # Errors
/// [`RenderError::Terrain`] for a bad `--terrain`; [`RenderError::Gpu`] when the ground's
/// pipeline does not build.
pub fn ground(
    ctx: &GpuContext,
    format: &RenderFormat,
    spec: &str,
    handedness: skel::anim::Handedness,
    points: &mut Vec<Vec3>,
) -> Result<GroundRenderer, RenderError> {
    let terrain = Terrain::parse(spec, handedness)?;
    let (lo, hi) = points
        .iter()
        .filter(|p| p.is_finite())
        .fold((Vec3::INFINITY, Vec3::NEG_INFINITY), |(lo, hi), &p| {
            (lo.min(p), hi.max(p))
        });
    let (lo, hi) = if lo.cmple(hi).all() {
        (lo, hi)
    } else {
        (Vec3::splat(-0.5), Vec3::splat(0.5))
    };
    let triangles = terrain.triangles_around(lo, hi);
    let (middle, reach) = ((lo + hi) * 0.5, (hi - lo).max_element());
    points.extend(
        triangles
            .iter()
            .flatten()
            .filter(|p| p.distance(middle) <= reach),
    );
    Ok(GroundRenderer::new(ctx, format, &triangles)?)
}
