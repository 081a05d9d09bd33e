//! A file's spring bones as the loader hands them on: skel-anim's description plus what it
//! leaves out (the extension's version, the collider groups' names).

use skel_anim::spring::SpringBonesDesc;

/// A file's spring bones in the form skel-anim simulates, plus what that form leaves out.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct SpringBones {
    /// `specVersion` of `VRMC_springBone` (`None` for VRM 0.x).
    pub spec_version: Option<String>,
    /// Springs, colliders and collider groups. A 1.0 spring of `k` listed nodes is `k − 1`
    /// joints (each node with the next as its tail, the last node only a tail); a 0.x bone
    /// group root is one spring holding every node below it (see `docs/vrm.md`).
    pub desc: SpringBonesDesc,
    /// Each collider group's `name` (1.0; `None` for 0.x groups and unnamed ones).
    pub collider_group_names: Vec<Option<String>>,
}
