//! The pose pass compiled for x86-64 with AVX2 and FMA. Every function here is
//! `#[target_feature(enable = "avx2,fma")]`: calling one is sound only on a CPU that has both,
//! which [`Kernels::detect`](super::Kernels::detect) checked before choosing them.

use crate::{AnimationData, PoseScratch, PoseSink};

/// [`pose_clip_baseline`](super::pose_clip_baseline)'s code (inlined whole) compiled with AVX2
/// and FMA enabled: the compiler never fuses a multiply and an add on its own, so the
/// operations and their bits are the baseline's; the encoding is shorter.
#[target_feature(enable = "avx2,fma")]
pub(crate) fn pose_clip(
    data: &AnimationData,
    clip: usize,
    time: f32,
    scratch: &mut PoseScratch,
    record: bool,
    sink: &mut dyn PoseSink,
) -> bool {
    super::pose_clip_baseline(data, clip, time, scratch, record, sink)
}

/// `bones[i] = post(world[joints[i]] · inverseBind[i])`, two columns per 256-bit operation
/// with fused multiply-adds: `wide[i]` holds inverse bind `i` as [`wide_splats`] lays it out,
/// and `post` is the diagonal mesh inverse's column scale (`None`: the identity). The
/// baseline's `pose::splat_bones` within rounding (FMA rounds once per product and sum).
///
/// # Panics
/// When a joint's matrix lies past the end of `world` (as the baseline).
#[target_feature(enable = "avx2,fma")]
pub(crate) fn splat_bones(
    world: &[f32],
    joints: &[usize],
    wide: &[[[f32; 8]; 8]],
    affine: bool,
    bones: &mut [f32],
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
    for ((&joint, b), out) in joints.iter().zip(wide).zip(bones.chunks_exact_mut(16)) {
        let w: &[f32; 16] = world[joint * 16..joint * 16 + 16]
            .try_into()
            .unwrap_or_else(|_| unreachable!("a 16-float range"));
        let out: &mut [f32; 16] = out
            .try_into()
            .unwrap_or_else(|_| unreachable!("chunks of 16"));
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

/// An inverse-bind matrix (16 floats, column-major) laid out for [`splat_bones`]: entry
/// `4p + r` holds element (row `r`, column `2p`) in floats 0–3 and (row `r`, column `2p + 1`)
/// in floats 4–7, so that one 256-bit load feeds two columns of the product.
#[must_use]
pub(crate) fn wide_splats(m: &[f32]) -> [[f32; 8]; 8] {
    std::array::from_fn(|i| {
        let (p, r) = (i / 4, i % 4);
        std::array::from_fn(|k| m[4 * (2 * p + k / 4) + r])
    })
}
