//! Where the pose goes: the sink trait the controller writes to.

/// Receives the results of a tick. `skel-gpu` implements it with `Queue::write_texture` and
/// `Queue::write_buffer`; tests and servers can record into vectors ([`RecordingSink`]).
///
/// Slices are only valid during the call; implementations copy what they keep.
pub trait PoseSink {
    /// Bone matrices of skeleton binding `binding`: 16 floats per bone, column-major.
    fn bone_matrices(&mut self, binding: usize, matrices: &[f32]);
    /// Morph weights of morph binding `binding`, one per target.
    fn morph_weights(&mut self, binding: usize, weights: &[f32]);

    /// Whether the caller reads the pose's local transforms (`scratch().trs`, the per-node
    /// TRS record) after a pose into this sink. Default `true`.
    ///
    /// A sink that only needs the matrices (a GPU upload, a crowd) returns `false`, and plain
    /// single-clip playback then skips the record: 16–31 of 150–300 instructions per joint
    /// (`docs/benchmarks.md`, issue 15). Hooks, layers, snapshots and IK are unaffected (they
    /// read and write the record themselves).
    ///
    /// ```
    /// use skel_anim::PoseSink;
    ///
    /// /// Bone matrices to a GPU buffer; nobody reads the local transforms.
    /// struct Upload(Vec<f32>);
    ///
    /// impl PoseSink for Upload {
    ///     fn bone_matrices(&mut self, _binding: usize, m: &[f32]) {
    ///         self.0.clear();
    ///         self.0.extend_from_slice(m);
    ///     }
    ///     fn morph_weights(&mut self, _binding: usize, _weights: &[f32]) {}
    ///     fn wants_local_transforms(&self) -> bool {
    ///         false
    ///     }
    /// }
    /// assert!(!Upload(Vec::new()).wants_local_transforms());
    /// ```
    fn wants_local_transforms(&self) -> bool {
        true
    }
}

/// A sink that discards everything (for measuring the CPU pipeline alone).
#[derive(Debug, Default, Clone, Copy)]
pub struct NullSink;

impl PoseSink for NullSink {
    fn bone_matrices(&mut self, _binding: usize, _matrices: &[f32]) {}
    fn morph_weights(&mut self, _binding: usize, _weights: &[f32]) {}
}

/// A sink that keeps the last matrices and weights per binding. It grows on first use of a
/// binding, so it allocates on the first tick and not after.
#[derive(Debug, Default, Clone)]
pub struct RecordingSink {
    /// Last bone matrices per skeleton binding.
    pub bone_matrices: Vec<Vec<f32>>,
    /// Last morph weights per morph binding.
    pub morph_weights: Vec<Vec<f32>>,
}

fn store(slots: &mut Vec<Vec<f32>>, index: usize, values: &[f32]) {
    if slots.len() <= index {
        slots.resize_with(index + 1, Vec::new);
    }
    let slot = &mut slots[index];
    slot.clear();
    slot.extend_from_slice(values);
}

impl PoseSink for RecordingSink {
    fn bone_matrices(&mut self, binding: usize, matrices: &[f32]) {
        store(&mut self.bone_matrices, binding, matrices);
    }
    fn morph_weights(&mut self, binding: usize, weights: &[f32]) {
        store(&mut self.morph_weights, binding, weights);
    }
}
