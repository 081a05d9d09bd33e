//! Keyframe samplers: key times, values and interpolation as a loader hands them over (glTF 2.0
//! §3.11); [`evaluate_sampler`](crate::evaluate_sampler) plays them.

use skel_math::normalize_quat_into;

use crate::{AnimError, Interpolation};

/// Keyframe times and values with one interpolation.
///
/// Built only through [`Sampler::new`], which checks the invariants that evaluation relies on:
/// at least one key, finite strictly increasing times, and an output length that is a whole
/// number of components per key.
#[derive(Debug, Clone, PartialEq)]
pub struct Sampler {
    input: Vec<f32>,
    output: Vec<f32>,
    interpolation: Interpolation,
    components: usize,
}

impl Sampler {
    /// Builds a sampler from key times (`input`) and values (`output`, `components` floats per
    /// element, three elements per key for CUBICSPLINE).
    ///
    /// # Errors
    /// [`AnimError::EmptySampler`] without keys, [`AnimError::KeyTimesNotIncreasing`] when times
    /// are not finite or not strictly increasing, [`AnimError::OutputCountMismatch`] when the
    /// output is not a whole non-zero number of floats per key, [`AnimError::NotFinite`] when a
    /// value is NaN or infinite.
    pub fn new(
        input: Vec<f32>,
        output: Vec<f32>,
        interpolation: Interpolation,
    ) -> Result<Self, AnimError> {
        let Some(&first) = input.first() else {
            return Err(AnimError::EmptySampler);
        };
        // The first key is checked on its own: a NaN there would make every comparison below
        // false and be reported against key 1.
        if !first.is_finite() {
            return Err(AnimError::KeyTimesNotIncreasing {
                key: 0,
                time: first,
            });
        }
        for (key, pair) in input.windows(2).enumerate() {
            let increasing = pair[1] > pair[0] && pair[1].is_finite();
            if !increasing {
                return Err(AnimError::KeyTimesNotIncreasing {
                    key: key + 1,
                    time: pair[1],
                });
            }
        }
        let per_key = interpolation.outputs_per_key();
        let slots = input.len() * per_key;
        if output.is_empty() || !output.len().is_multiple_of(slots) {
            return Err(AnimError::OutputCountMismatch {
                got: output.len(),
                keys: input.len(),
                per_key,
                interpolation,
            });
        }
        if output.iter().any(|v| !v.is_finite()) {
            return Err(AnimError::NotFinite {
                what: "sampler output".into(),
            });
        }
        let components = output.len() / slots;
        Ok(Self {
            input,
            output,
            interpolation,
            components,
        })
    }

    /// Key times in seconds.
    #[must_use]
    pub fn input(&self) -> &[f32] {
        &self.input
    }

    /// Key values (for CUBICSPLINE: in-tangent, value, out-tangent per key).
    #[must_use]
    pub fn output(&self) -> &[f32] {
        &self.output
    }

    /// The key values to overwrite in place (stored keys decoded into the sampler: the count
    /// stays, and the caller keeps every value finite).
    pub(crate) fn output_mut(&mut self) -> &mut [f32] {
        &mut self.output
    }

    /// The interpolation mode.
    #[must_use]
    pub fn interpolation(&self) -> Interpolation {
        self.interpolation
    }

    /// Floats per output element (3 for translation/scale, 4 for rotation, the target count for
    /// morph weights).
    #[must_use]
    pub fn components(&self) -> usize {
        self.components
    }

    /// Time of the last key.
    #[must_use]
    pub fn end_time(&self) -> f32 {
        self.input[self.input.len() - 1]
    }

    /// Time of the first key.
    #[must_use]
    pub fn start_time(&self) -> f32 {
        self.input[0]
    }

    /// Normalises every key value (tangents are left as authored), as glTF requires unit
    /// rotation keys; loaders call it on the samplers of rotation channels. It acts on any
    /// 4-component sampler, so call it on rotation samplers only (a weights sampler of four
    /// targets would be changed too); other component counts are left alone.
    pub fn normalize_rotation_keys(&mut self) {
        if self.components != 4 {
            return;
        }
        let per_key = self.interpolation.outputs_per_key();
        let value_slot = if per_key == 3 { 1 } else { 0 };
        for key in 0..self.input.len() {
            normalize_quat_into(&mut self.output, (key * per_key + value_slot) * 4);
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, reason = "tests")]

    use super::*;

    #[test]
    fn normalize_rotation_keys_touches_values_not_tangents() {
        let mut s = Sampler::new(
            vec![0.0],
            vec![3.0, 0.0, 0.0, 0.0, 0.0, 0.0, 2.0, 0.0, 0.0, 5.0, 0.0, 0.0],
            Interpolation::CubicSpline,
        )
        .unwrap();
        s.normalize_rotation_keys();
        assert_eq!(
            s.output(),
            &[3.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 5.0, 0.0, 0.0]
        );
    }
}
