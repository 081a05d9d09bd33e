//! A step's scale `l / √x` in FABRIK's passes, and the multiply-adds they round with: what
//! one chain's steps ([`passes_one`](super::passes_one)), the passes' dispatch
//! ([`passes`](super::passes)) and the conversion to rotations share.
//!
//! On x86-64 the reciprocal square root is SSE's estimate with one Newton step (relative
//! error about 2e-7, f32's own rounding), about half the latency of a square root and a
//! division.

/// How the chain's multiply-adds round: once ([`Fused`], where the CPU has FMA) or twice.
pub(crate) trait MulAdd {
    /// `a · b + c`.
    fn mul_add(a: f32, b: f32, c: f32) -> f32;
}

/// A multiply, then an add (every CPU).
pub(crate) struct Separate;

impl MulAdd for Separate {
    #[inline(always)]
    fn mul_add(a: f32, b: f32, c: f32) -> f32 {
        a * b + c
    }
}

/// One fused multiply-add: only inside a function compiled with FMA (elsewhere it is a
/// library call).
#[cfg(target_arch = "x86_64")]
pub(crate) struct Fused;

#[cfg(target_arch = "x86_64")]
impl MulAdd for Fused {
    #[inline(always)]
    fn mul_add(a: f32, b: f32, c: f32) -> f32 {
        a.mul_add(b, c)
    }
}

/// `l / √x` from the estimate `y` of `1 / √x`, to f32's precision: [`inverse_sqrt`]'s
/// Newton step `y (3/2 − (x/2) y²)` times `l`, arranged as `(3/2 l) y − ((l x/2) y)(y y)` so
/// that the multiplies by `y` run side by side.
#[inline(always)]
pub(super) fn newton<M: MulAdd>(bone: &Bone, x: f32, y: f32) -> f32 {
    M::mul_add(-((bone.half * x) * y), y * y, bone.three_halves * y)
}

/// A bone's length and the multiples of it every step takes (`l/2` and `3l/2` for the Newton
/// step, `l²` for the next square), worked out once per solve.
#[derive(Clone, Copy, Default)]
pub(super) struct Bone {
    pub(super) length: f32,
    pub(super) half: f32,
    pub(super) three_halves: f32,
    pub(super) square: f32,
}

impl Bone {
    pub(super) fn new(length: f32) -> Self {
        Self {
            length,
            half: 0.5 * length,
            three_halves: 1.5 * length,
            square: length * length,
        }
    }
}

/// The estimate of `1 / √x` (12 bits on x86-64; exact elsewhere).
#[inline(always)]
pub(crate) fn rsqrt_estimate(x: f32) -> f32 {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_cvtss_f32, _mm_rsqrt_ss, _mm_set_ss};
        #[expect(unsafe_code, reason = "SSE intrinsics: x86-64's baseline")]
        // SAFETY: SSE is part of every x86-64 target (the intrinsics only need the feature).
        unsafe {
            _mm_cvtss_f32(_mm_rsqrt_ss(_mm_set_ss(x)))
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        1.0 / x.sqrt()
    }
}

/// `1 / √x` for a positive normal `x`, to f32's precision.
#[inline(always)]
pub(crate) fn inverse_sqrt(x: f32) -> f32 {
    #[cfg(target_arch = "x86_64")]
    {
        // The estimate, then one Newton step.
        let y = rsqrt_estimate(x);
        y * (1.5 - 0.5 * x * y * y)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        1.0 / x.sqrt()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inverse_sqrt_is_f32_exact_to_a_few_ulps() {
        let mut worst = 0.0_f64;
        for k in 0..20_000 {
            let x = 1e-30_f32 * 1.0037_f32.powi(k);
            if !x.is_normal() {
                continue;
            }
            let exact = 1.0 / f64::from(x).sqrt();
            let rel = ((f64::from(inverse_sqrt(x)) - exact) / exact).abs();
            worst = worst.max(rel);
        }
        assert!(worst < 5e-7, "worst relative error {worst}");
    }
}
