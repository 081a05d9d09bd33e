//! The hierarchy's layout and the affine steps every pass shares, below both the build-time plan
//! and the per-frame passes: node order with parent links, where each track's values go, and
//! how a node's matrix is placed on its parent's.

use glam::Vec4;

use crate::data::NONE;
use crate::math::interpolate::{self, Cols};
use crate::{Handedness, TRS_STRIDE};

/// One node of the hierarchy pass, in parents-before-children order.
#[derive(Debug, Clone, Copy)]
pub(crate) struct NodeStep {
    pub(crate) node: u32,
    /// The parent node, [`NONE`] for a root.
    pub(crate) parent: u32,
}

/// One LINEAR or STEP translation, rotation or scale channel: sampler `sampler` (of its clip),
/// keyed on timeline `timeline`, written at `dst` in the TRS scratch.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Track {
    pub(crate) sampler: u32,
    pub(crate) timeline: u32,
    pub(crate) dst: u32,
    pub(crate) step: bool,
}

/// One node of a clip's fused pass (sampling straight into the hierarchy): where its
/// translation, rotation and scale come from this frame, as indices into the frame's sample
/// buffer: the clip's `vec3` track samples, then its `quat` track samples, then its
/// `fused_rest` values (rest values of the properties no track animates).
#[derive(Debug, Clone, Copy)]
pub(crate) struct NodeSources {
    pub(crate) node: u32,
    pub(crate) parent: u32,
    pub(crate) t: u32,
    pub(crate) r: u32,
    pub(crate) s: u32,
}

/// `diag(-1, 1, 1, 1)` (as a column scale) in left-handed mode, the identity otherwise: what
/// roots are pre-multiplied by in world space.
#[inline]
pub(crate) fn mirror(handedness: Handedness) -> Vec4 {
    match handedness {
        Handedness::LeftHanded => Vec4::new(-1.0, 1.0, 1.0, 1.0),
        Handedness::RightHanded => Vec4::ONE,
    }
}

/// A buffer of TRS records ([`TRS_STRIDE`] floats per node: translation, rotation, scale,
/// padding) as records; a trailing partial record is not part of it.
#[inline(always)]
#[must_use]
pub(crate) fn records(trs: &[f32]) -> &[[f32; TRS_STRIDE]] {
    trs.as_chunks::<TRS_STRIDE>().0
}

/// [`records`] for writing.
#[inline(always)]
#[must_use]
pub(crate) fn records_mut(trs: &mut [f32]) -> &mut [[f32; TRS_STRIDE]] {
    trs.as_chunks_mut::<TRS_STRIDE>().0
}

/// Composes every node's TRS (in `steps` order) and places it on its parent in `out`, roots
/// pre-multiplied by `root`.
#[inline]
pub(crate) fn hierarchy_pass(trs: &[f32], steps: &[NodeStep], out: &mut [f32], root: &Transform) {
    // Lane by lane: the translation and scale were written as three floats each.
    let trs = records(trs);
    let read = |node: usize| {
        let rec = &trs[node];
        (
            Vec4::new(rec[0], rec[1], rec[2], 0.0),
            Vec4::from_slice(&rec[3..7]),
            Vec4::new(rec[7], rec[8], rec[9], 0.0),
        )
    };
    // Four nodes composed at a time, then multiplied onto their parents in order (parents
    // come first, also within a quad).
    let mut quads = steps.chunks_exact(4);
    for quad in &mut quads {
        let mut t = [Vec4::ZERO; 4];
        let mut r = [Vec4::ZERO; 4];
        let mut s = [Vec4::ZERO; 4];
        for (lane, step) in quad.iter().enumerate() {
            (t[lane], r[lane], s[lane]) = read(step.node as usize);
        }
        for (step, local) in quad.iter().zip(&interpolate::compose4(&t, &r, &s)) {
            place_step(out, step.node, step.parent, local, root);
        }
    }
    for step in quads.remainder() {
        let (t, r, s) = read(step.node as usize);
        place_step(
            out,
            step.node,
            step.parent,
            &interpolate::compose(t, r, s),
            root,
        );
    }
}

/// `world[node] = world[parent] · local` (`root · local` for a root, `parent == NONE`).
#[inline]
pub(crate) fn place_step(
    world: &mut [f32],
    node: u32,
    parent: u32,
    local: &Cols,
    root: &Transform,
) {
    let m = if parent == NONE {
        root.apply(local)
    } else {
        let world = interpolate::matrices(world);
        interpolate::mul_affine(&interpolate::load(&world[parent as usize]), local)
    };
    interpolate::store(&mut interpolate::matrices_mut(world)[node as usize], &m);
}

/// An affine transform by how cheaply it applies on the left of a matrix.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Transform {
    /// `diag(d)`: a mirror and/or scale, applied row by row (a column scale).
    Diagonal(Vec4),
    /// Any affine matrix.
    Affine(Cols),
}

impl Transform {
    /// `self · m` for an affine `m`.
    #[inline]
    pub(crate) fn apply(&self, m: &Cols) -> Cols {
        match self {
            Self::Diagonal(d) => m.map(|c| c * *d),
            Self::Affine(a) => interpolate::mul_affine(a, m),
        }
    }

    /// `m` by how it applies: a diagonal matrix (zero off the diagonal, last row
    /// `(0, 0, 0, 1)`) as a column scale.
    pub(crate) fn of(m: &Cols) -> Self {
        let diagonal = (0..4).all(|c| (0..4).all(|r| r == c || m[c][r] == 0.0)) && m[3].w == 1.0;
        if diagonal {
            Self::Diagonal(Vec4::new(m[0].x, m[1].y, m[2].z, 1.0))
        } else {
            Self::Affine(*m)
        }
    }
}
