//! Many characters with the same springs, stepped in one call: one after another, or (feature
//! `rayon`) spread over a thread pool. Each character is stepped by exactly
//! [`SpringBones::step`] on its own state and pose, reading the shared [`SpringBones`] only,
//! so no result depends on the number of threads or on which thread ran which character.

#[cfg(feature = "rayon")]
use rayon::prelude::*;

use glam::Affine3A;

use super::setup::SpringBones;
use super::step::SpringState;

/// One character of a batch: its spring state, its pose this step ([`TRS_STRIDE`] floats a
/// node; the springs' rotations are written into it) and its root's world transform.
///
/// [`TRS_STRIDE`]: crate::TRS_STRIDE
#[derive(Debug)]
pub struct SpringCharacter<'a> {
    /// Its state (from [`SpringBones::new_state`]).
    pub state: &'a mut SpringState,
    /// Its pose this step.
    pub trs: &'a mut [f32],
    /// Its root's world transform this step.
    pub root: Affine3A,
}

impl SpringBones {
    /// [`step`](Self::step) for each character in turn.
    pub fn step_all(&self, characters: &mut [SpringCharacter<'_>], dt: f32) {
        for c in characters {
            self.step(c.state, c.trs, c.root, dt);
        }
    }

    /// [`step_all`](Self::step_all) spread over rayon's thread pool (the global one, or the
    /// pool whose thread calls it): the same bits as stepping them one after another.
    #[cfg(feature = "rayon")]
    pub fn par_step_all(&self, characters: &mut [SpringCharacter<'_>], dt: f32) {
        characters
            .par_iter_mut()
            .for_each(|c| self.step(c.state, c.trs, c.root, dt));
    }
}
