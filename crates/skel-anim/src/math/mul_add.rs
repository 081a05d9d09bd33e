//! How four lanes' multiply-adds round, chosen once per pass: twice ([`Separate`], every
//! CPU) or once ([`Fused`], inside passes compiled with FMA and called after run-time
//! detection). Code written once over [`MulAdd4`] compiles to both; the inertialization's
//! offsets and FABRIK's four-chain passes use it.

use glam::Vec4;

/// How the lanes' multiply-adds round: twice ([`Separate`], every CPU) or once ([`Fused`],
/// inside the passes compiled with FMA).
pub(crate) trait MulAdd4: Copy {
    /// `a · b + c`, lane by lane.
    fn mul_add(self, a: Vec4, b: Vec4, c: Vec4) -> Vec4;

    /// `1 / √x`, lane by lane, for positive normal `x` (other lanes: anything). The baseline
    /// takes the square root and divides (its bits as they were); with FMA it is SSE's
    /// estimate and one Newton step (about 2e-7 relative, f32's own rounding), about half the
    /// latency, for chains where that waits.
    #[inline(always)]
    fn inverse_sqrt(self, x: Vec4) -> Vec4 {
        Vec4::ONE / x.map(f32::sqrt)
    }
}

/// A multiply, then an add: the baseline's rounding.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Separate;

impl MulAdd4 for Separate {
    #[inline(always)]
    fn mul_add(self, a: Vec4, b: Vec4, c: Vec4) -> Vec4 {
        a * b + c
    }
}

/// One fused multiply-add per lane. Made only by [`Fused::new`], whose callers promise that
/// the CPU has FMA: holding one proves it.
#[cfg(target_arch = "x86_64")]
#[derive(Debug, Clone, Copy)]
pub(crate) struct Fused(());

#[cfg(target_arch = "x86_64")]
#[expect(unsafe_code, reason = "the token's constructor carries FMA's contract")]
impl Fused {
    /// The token.
    ///
    /// # Safety
    /// Only where FMA is known to be present (inside a function compiled with it that is
    /// only called after run-time detection found it).
    #[inline(always)]
    pub(crate) unsafe fn new() -> Self {
        Self(())
    }
}

#[cfg(target_arch = "x86_64")]
impl MulAdd4 for Fused {
    #[inline(always)]
    fn mul_add(self, a: Vec4, b: Vec4, c: Vec4) -> Vec4 {
        #[expect(unsafe_code, reason = "the FMA intrinsic, behind the token")]
        // SAFETY: a `Fused` exists only where `Fused::new`'s contract holds: the CPU has FMA.
        unsafe {
            std::arch::x86_64::_mm_fmadd_ps(a.into(), b.into(), c.into()).into()
        }
    }

    #[inline(always)]
    fn inverse_sqrt(self, x: Vec4) -> Vec4 {
        #[expect(unsafe_code, reason = "SSE's estimate: x86-64's baseline")]
        // SAFETY: SSE is part of every x86-64 target.
        let y: Vec4 = unsafe { std::arch::x86_64::_mm_rsqrt_ps(x.into()).into() };
        // y (3/2 − (x/2) y²), the multiplies by `y` side by side.
        self.mul_add(-(x * Vec4::splat(0.5) * y), y * y, y * Vec4::splat(1.5))
    }
}
