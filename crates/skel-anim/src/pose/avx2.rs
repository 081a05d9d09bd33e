//! The pose pass compiled for x86-64 with AVX2 and FMA. Every function here is
//! `#[target_feature(enable = "avx2,fma")]`: calling one is sound only on a CPU that has both,
//! which [`Kernels::detect`](crate::rig::kernels::Kernels::detect) checked before choosing them.

#![allow(
    unsafe_code,
    reason = "#[target_feature] functions and the intrinsics they call; every block says why"
)]

use glam::Vec4;

use crate::data::NONE;
use crate::inertial::Inertialization;
use crate::pose::four_node::Place;
use crate::rig::layout::Transform;
use crate::sample::four_node::{Lanes, Quad};

/// [`Place`] by [`place_quad`]. Made only by [`Fma::new`], whose callers promise that the CPU
/// has AVX2 and FMA: holding an `Fma` proves it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Fma(());

impl Fma {
    /// The token.
    ///
    /// # Safety
    /// Only where AVX2 and FMA are known to be present: inside a
    /// `#[target_feature(enable = "avx2,fma")]` function that is itself only called after
    /// [`Kernels::detect`](crate::rig::kernels::Kernels::detect) chose `Avx2Fma`.
    #[inline(always)]
    pub(crate) unsafe fn new() -> Self {
        Self(())
    }
}

impl Place for Fma {
    #[inline(always)]
    fn place_quad(
        self,
        world: &mut [f32],
        q: &Quad,
        e: &[[Vec4; 4]; 3],
        zero: [Vec4; 3],
        root: &Transform,
    ) {
        // SAFETY: an `Fma` exists only where `Fma::new`'s contract holds: inside a
        // `#[target_feature(enable = "avx2,fma")]` function called only after
        // `Kernels::detect` found both features, so the CPU has them.
        unsafe { place_quad(world, q, e, zero, root) }
    }

    #[inline(always)]
    fn offset_quad(self, offset: &Inertialization, qi: usize, lanes: &mut Lanes) {
        // SAFETY: as `place_quad` above: holding an `Fma` proves the CPU has AVX2 and FMA.
        unsafe { offset.apply_quad_avx2(qi, lanes) }
    }
}

/// `pose::four_node::place_rows` of every lane of `q` with two columns per 256-bit operation and fused
/// multiply-adds: each parent column broadcast to both halves once, each local element
/// broadcast from its lane by one in-lane permute of a row's column pair. Roots (no parent)
/// take the baseline's `place_rows`. Within rounding of the baseline (FMA rounds once per
/// product and sum).
///
/// Not a `#[target_feature]` function itself, so that it inlines into the pass (a
/// `#[target_feature]` function cannot be `#[inline(always)]`), where the intrinsics become
/// single instructions.
///
/// # Safety
/// The CPU must have AVX2 and FMA.
#[inline(always)]
pub(crate) unsafe fn place_quad(
    world: &mut [f32],
    q: &Quad,
    e: &[[Vec4; 4]; 3],
    zero: [Vec4; 3],
    root: &Transform,
) {
    use std::arch::x86_64::{__m256, _mm256_set_m128, _mm256_setr_ps};
    // SAFETY: AVX (`_mm256_set_m128`, `_mm256_setr_ps`) is part of AVX2, which the caller
    // guarantees; `place_lane`'s contract is the same.
    unsafe {
        // Row r's columns (0, 1) and (2, 3), one node per lane in each half.
        let pair = |r: usize, p: usize| _mm256_set_m128(e[r][2 * p + 1].into(), e[r][2 * p].into());
        let rows: [[__m256; 2]; 3] = std::array::from_fn(|r| [pair(r, 0), pair(r, 1)]);
        // Row 3 of columns 2 and 3: (0, 1), the parent's translation added to column 3.
        let last = _mm256_setr_ps(0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0);
        place_lane::<0x00>(world, q, 0, &rows, last, e, zero, root);
        if q.lanes > 1 {
            place_lane::<0x55>(world, q, 1, &rows, last, e, zero, root);
        }
        if q.lanes > 2 {
            place_lane::<0xAA>(world, q, 2, &rows, last, e, zero, root);
        }
        if q.lanes > 3 {
            place_lane::<0xFF>(world, q, 3, &rows, last, e, zero, root);
        }
    }
}

/// [`place_quad`] for lane `lane`, whose broadcast is the permute `IMM` (`lane · 0x55`).
///
/// # Safety
/// The CPU must have AVX2 and FMA.
#[expect(
    clippy::too_many_arguments,
    reason = "one quad's registers, passed down inlined"
)]
#[inline(always)]
unsafe fn place_lane<const IMM: i32>(
    world: &mut [f32],
    q: &Quad,
    lane: usize,
    rows: &[[std::arch::x86_64::__m256; 2]; 3],
    last: std::arch::x86_64::__m256,
    e: &[[Vec4; 4]; 3],
    zero: [Vec4; 3],
    root: &Transform,
) {
    use std::arch::x86_64::{
        _mm_loadu_ps, _mm256_fmadd_ps, _mm256_mul_ps, _mm256_permute_ps, _mm256_set_m128,
        _mm256_storeu_ps,
    };
    let (node, parent) = (q.nodes[lane] as usize, q.parents[lane]);
    if parent == NONE {
        match lane {
            0 => crate::pose::four_node::place_rows::<0>(world, q, e, zero, root),
            1 => crate::pose::four_node::place_rows::<1>(world, q, e, zero, root),
            2 => crate::pose::four_node::place_rows::<2>(world, q, e, zero, root),
            _ => crate::pose::four_node::place_rows::<3>(world, q, e, zero, root),
        }
        return;
    }
    let p: &[f32; 16] = &crate::math::interpolate::matrices(world)[parent as usize];
    // SAFETY: the caller guarantees AVX2 and FMA; `p` is 16 floats, so each load of floats
    // 4c..4c + 4 (c < 4) is inside it, and `out` below is 16 floats, so both 8-float stores
    // are inside it.
    unsafe {
        let col = |c: usize| {
            let v = _mm_loadu_ps(p.as_ptr().add(4 * c));
            _mm256_set_m128(v, v)
        };
        let (p0, p1, p2, p3) = (col(0), col(1), col(2), col(3));
        let at = |r: usize, h: usize| _mm256_permute_ps::<IMM>(rows[r][h]);
        let lo = _mm256_mul_ps(p0, at(0, 0));
        let lo = _mm256_fmadd_ps(p2, at(2, 0), _mm256_fmadd_ps(p1, at(1, 0), lo));
        let hi = _mm256_mul_ps(p0, at(0, 1));
        let hi = _mm256_fmadd_ps(p2, at(2, 1), _mm256_fmadd_ps(p1, at(1, 1), hi));
        let hi = _mm256_fmadd_ps(p3, last, hi);
        let out = &mut crate::math::interpolate::matrices_mut(world)[node];
        _mm256_storeu_ps(out.as_mut_ptr(), lo);
        _mm256_storeu_ps(out.as_mut_ptr().add(8), hi);
    }
}

/// `bones[i] = post(world[joints[i]] · inverseBind[i])`, two columns per 256-bit operation
/// with fused multiply-adds: `wide[i]` holds inverse bind `i` as [`wide_splats`] lays it out,
/// and `post` is the diagonal mesh inverse's column scale (`None`: the identity). The
/// baseline's `pose::bones::splat_bones` within rounding (FMA rounds once per product and sum).
///
/// # Panics
/// When a joint's matrix lies past the end of `world` (as the baseline).
#[target_feature(enable = "avx2,fma")]
pub(crate) fn splat_bones(
    world: &[f32],
    joints: &[usize],
    wide: &[[[f32; 8]; 8]],
    affine: bool,
    bones: &mut [[f32; 16]],
    post: Option<glam::Vec4>,
) {
    use std::arch::x86_64::{
        __m128, _mm_loadu_ps, _mm256_fmadd_ps, _mm256_loadu_ps, _mm256_mul_ps, _mm256_set_m128,
        _mm256_storeu_ps,
    };
    let post = post.map(|d| {
        let d = __m128::from(d);
        _mm256_set_m128(d, d)
    });
    let world = crate::math::interpolate::matrices(world);
    for ((&joint, b), out) in joints.iter().zip(wide).zip(bones) {
        let w: &[f32; 16] = &world[joint];
        // Column `c` of the joint's world matrix in both halves.
        let col = |c: usize| {
            // SAFETY: `w` is 16 floats; floats 4c..4c + 4 (c < 4) are inside it.
            let v = unsafe { _mm_loadu_ps(w.as_ptr().add(4 * c)) };
            _mm256_set_m128(v, v)
        };
        // SAFETY: each `b[e]` is an array of 8 floats, read unaligned.
        let e = |e: usize| unsafe { _mm256_loadu_ps(b[e].as_ptr()) };
        let (w0, w1, w2, w3) = (col(0), col(1), col(2), col(3));
        // Columns 0 and 1 of the product, then 2 and 3.
        let mut lo = _mm256_fmadd_ps(w1, e(1), _mm256_mul_ps(w0, e(0)));
        lo = _mm256_fmadd_ps(w2, e(2), lo);
        if !affine {
            lo = _mm256_fmadd_ps(w3, e(3), lo);
        }
        let mut hi = _mm256_fmadd_ps(w1, e(5), _mm256_mul_ps(w0, e(4)));
        hi = _mm256_fmadd_ps(w2, e(6), hi);
        // Row 3 of columns 2 and 3: (0, 1) for an affine inverse bind, so `+ w3` in column 3.
        hi = _mm256_fmadd_ps(w3, e(7), hi);
        if let Some(d) = post {
            lo = _mm256_mul_ps(lo, d);
            hi = _mm256_mul_ps(hi, d);
        }
        // SAFETY: `out` is 16 floats: 0..8 and 8..16 are inside it.
        unsafe {
            _mm256_storeu_ps(out.as_mut_ptr(), lo);
            _mm256_storeu_ps(out.as_mut_ptr().add(8), hi);
        }
    }
}
