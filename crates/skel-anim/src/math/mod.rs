//! The arithmetic every stage shares, build time and per frame alike: quaternion interpolation
//! (a polynomial slerp, and its wide-angle weights), TRS → matrix composition and affine
//! products on SIMD registers. Depends on nothing else in the crate.

pub(crate) mod interpolate;
pub(crate) mod mul_add;
pub(crate) mod slerp_wide;
pub(crate) mod unit_arc;
