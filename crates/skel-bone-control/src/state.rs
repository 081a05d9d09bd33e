//! The state one asset's handles share: its animation data, the override map and the scratch of
//! the eager bake.

use std::sync::{Arc, Mutex, MutexGuard, PoisonError, RwLock, RwLockReadGuard, RwLockWriteGuard};

use skel_anim::{
    AnimationData, PoseScratch, PoseSink, compute_bone_matrices, compute_world_matrices,
    reset_to_rest,
};

use crate::overrides::OverrideTable;

/// Shared by every [`Skeleton`](crate::Skeleton) handle and the pose hook of one asset.
///
/// Locks: the override map is an `RwLock` (ticks of many controllers read it at once; setters
/// write briefly); the bake scratch is a `Mutex` taken before the override read lock, never the
/// other way round. A panic while a lock is held cannot leave a record half-written (every write
/// is a plain copy), so poisoned locks are entered anyway.
#[derive(Debug)]
pub(crate) struct SharedState {
    pub(crate) data: Arc<AnimationData>,
    overrides: RwLock<OverrideTable>,
    bake: Mutex<PoseScratch>,
}

impl SharedState {
    pub(crate) fn new(data: Arc<AnimationData>, scratch: PoseScratch) -> Self {
        let node_count = data.nodes.len();
        let state = Self {
            data,
            overrides: RwLock::new(OverrideTable::new(node_count)),
            bake: Mutex::new(scratch),
        };
        // World matrices of the rest pose, so reads before the first bake see real values.
        {
            let mut scratch = state.scratch();
            reset_to_rest(&state.data, &mut scratch);
            compute_world_matrices(&state.data, &mut scratch);
        }
        state
    }

    pub(crate) fn read(&self) -> RwLockReadGuard<'_, OverrideTable> {
        self.overrides
            .read()
            .unwrap_or_else(PoisonError::into_inner)
    }

    pub(crate) fn write(&self) -> RwLockWriteGuard<'_, OverrideTable> {
        self.overrides
            .write()
            .unwrap_or_else(PoisonError::into_inner)
    }

    pub(crate) fn scratch(&self) -> MutexGuard<'_, PoseScratch> {
        self.bake.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The eager bake: rest pose + transform overrides, then visibility, local → world, and the
    /// bone matrices of **every** skeleton binding of the asset handed to `sink` (so a skin split
    /// across meshes is re-baked on all of them). Morph weights are not sent: a bake must not
    /// reset the weights a clip is driving.
    pub(crate) fn bake(&self, sink: &mut dyn PoseSink) {
        let mut scratch = self.scratch();
        reset_to_rest(&self.data, &mut scratch);
        {
            let table = self.read();
            table.apply_transforms(&mut scratch.trs);
            table.apply_visibility(&mut scratch.trs);
        }
        compute_world_matrices(&self.data, &mut scratch);
        compute_bone_matrices(&self.data, &mut scratch, &mut BonesOnly(sink));
    }

    /// World matrix of `node` from the last bake (the rest pose before the first one).
    pub(crate) fn baked_world(&self, node: usize) -> Option<skel_anim::glam::Mat4> {
        self.scratch().world.get(node).copied()
    }
}

/// Forwards bone matrices and drops morph weights.
struct BonesOnly<'a>(&'a mut dyn PoseSink);

impl PoseSink for BonesOnly<'_> {
    fn bone_matrices(&mut self, binding: usize, matrices: &[skel_anim::glam::Mat4]) {
        self.0.bone_matrices(binding, matrices);
    }
    fn morph_weights(&mut self, _binding: usize, _weights: &[f32]) {}
}
