//! A collider of each of four lanes, and three-vrm's collision of each lane's tail with it.

use glam::{BVec4A, Vec4};

use super::lanes::V3;

/// One collider of each lane, placed for the step: three-vrm's capsule (a sphere is a capsule
/// of no length) as its head and axis in world space.
#[derive(Debug, Clone, Copy)]
pub(super) struct Probe {
    pub(super) head: V3,
    pub(super) axis: V3,
    /// `axis · axis`, and whether any lane's is a capsule (not a sphere).
    pub(super) along: Vec4,
    pub(super) capsule: bool,
    pub(super) radius: Vec4,
    pub(super) inside: BVec4A,
    pub(super) active: BVec4A,
}

impl Probe {
    pub(super) const EMPTY: Self = Self {
        head: V3::ZERO,
        axis: V3::ZERO,
        along: Vec4::ZERO,
        capsule: false,
        radius: Vec4::ZERO,
        inside: BVec4A::FALSE,
        active: BVec4A::FALSE,
    };
}

/// One collider against each lane's tail, as three-vrm's joint applies it: the tail pushed
/// out of the overlap, then put back at the bone's length from its head.
#[inline(always)]
pub(super) fn collide(p: &Probe, pos: V3, tail: V3, length: Vec4, r: Vec4) -> V3 {
    let zero = Vec4::ZERO;
    let mut d = tail - p.head;
    if p.capsule {
        // The axis point nearest the tail (a sphere's axis is zero: its dot is too, and
        // nothing moves).
        let dot = p.axis.dot(d);
        let s = Vec4::select(
            dot.cmple(zero),
            zero,
            Vec4::select(p.along.cmple(dot), Vec4::ONE, dot / p.along),
        );
        d = d - p.axis * s;
    }
    let len = d.length();
    let distance = Vec4::select(p.inside, (p.radius - r) - len, (len - r) - p.radius);
    let hit = p.active & distance.cmplt(zero) & len.cmpgt(zero);
    if !hit.any() {
        return tail;
    }
    let out = V3 {
        x: d.x / len,
        y: d.y / len,
        z: d.z / len,
    };
    let push = V3::select(p.inside, -out, out);
    let moved = tail + push * -distance;
    let o = moved - pos;
    let l = o.length();
    let restored = V3::select(l.cmpgt(zero), pos + o * (length / l), moved);
    V3::select(hit, restored, tail)
}
