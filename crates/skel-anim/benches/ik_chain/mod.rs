//! The chain the `ik` bench and `examples/chain_solves.rs` solve: one definition, so that the
//! instruction counts and the bench's times are of the same chain.

use glam::{Affine3A, Quat, Vec3};

/// Six joints going up and bending a little at each.
pub fn chain() -> [Affine3A; 6] {
    let mut m = [Affine3A::from_translation(Vec3::new(0.1, 0.9, -0.2)); 6];
    for i in 1..6 {
        let bend = Affine3A::from_quat(Quat::from_rotation_z(0.15) * Quat::from_rotation_x(0.05));
        m[i] = m[i - 1] * bend * Affine3A::from_translation(Vec3::new(0.0, 0.3, 0.0));
    }
    m
}
