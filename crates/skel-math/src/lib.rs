//! Column-major 4×4 matrix and quaternion helpers that read from and write into `&[f32]`
//! buffers at offsets.
//!
//! This is the math layer of skel. Upper layers keep whole skeletons in flat `f32` arrays
//! (16 floats per matrix, column-major, the layout of glTF, glam and WGSL `mat4x4<f32>`), so
//! every function here takes a buffer and an offset instead of a matrix value. Inside, the work
//! is done with [`glam`]'s SIMD types.
//!
//! ```
//! use skel_math::{compose_mat4_into, multiply_mat4_into, IDENTITY};
//!
//! let mut local = [0.0_f32; 16];
//! // translation (1, 2, 3), no rotation, uniform scale 2
//! compose_mat4_into(&mut local, 0, [1.0, 2.0, 3.0], [0.0, 0.0, 0.0, 1.0], [2.0, 2.0, 2.0]);
//! assert_eq!(&local[12..15], &[1.0, 2.0, 3.0]);
//!
//! let mut world = [0.0_f32; 16];
//! multiply_mat4_into(&mut world, 0, &IDENTITY, 0, &local, 0);
//! assert_eq!(world, local);
//! ```
//!
//! Quaternions are `[x, y, z, w]`, as glTF stores them.
//!
//! [`lanes`] holds the four-lane structure-of-arrays types ([`lanes::Vec3x4`],
//! [`lanes::Quatx4`], [`lanes::Affine3x4`]) that the pose passes work on: four nodes per value.

#![forbid(unsafe_code)]

pub mod lanes;
mod mat4;
mod quat;

pub use mat4::{
    IDENTITY, RH_TO_LH, compose_mat4_into, invert_mat4_into, load_mat4, multiply_mat4_into,
    store_mat4,
};
pub use quat::{nlerp_into, normalize_quat_into, slerp_into};
