//! The error of a lossy pose, as the Animation Compression Library measures it: a virtual
//! shell around each joint. Three points at distance `d` along the joint's local axes are
//! taken to model space by the reference pose's matrix and by the lossy one; the joint's
//! error is the largest distance between the two images of a point (ACL's
//! `qvvf_transform_error_metric`, which keeps the joint's scale in the transform). A shell of
//! 3 cm stands for the skin a joint moves; ACL's default bound is 0.01 cm on it.
//!
//! The shell is in the model's units: `d` along the joint's world axes with the static scale
//! above the joint taken out ([`ClipReference::shell_of`]), so that a scale-100 armature node
//! does not make a 3 cm shell 3 m (animated scale still counts). The reference is the clip as
//! glTF defines it, in f64 ([`ClipReference`]), not skel's own playback: the compressor
//! accepts and reports against it ([`shell_error_f64`]).
//!
//! The one metric of the compressor, `skel compress`, the ACL comparison and the ozz
//! comparison, so that their figures are comparable.

pub use super::clip_reference::{ClipReference, IDENTITY64, Matrix64};

/// ACL's default shell distance, in metres.
pub const SHELL_METRES: f64 = 0.03;

/// ACL's default error bound on that shell, in metres (0.01 cm).
pub const BOUND_METRES: f64 = 0.0001;

/// The shell error of one joint between a `reference` and a `lossy` model matrix (16 floats,
/// column-major), for points at `shell` (model units) along the joint's local x, y and z:
/// `max_k |(R − L)·(shell·e_k) + (R − L)·e_w|`, in model units. Computed in f64 so that the
/// figure is the matrices' difference, not rounding of its own.
#[must_use]
pub fn shell_error(reference: &[f32], lossy: &[f32], shell: f64) -> f64 {
    let d = |i: usize| f64::from(reference[i]) - f64::from(lossy[i]);
    (0..3)
        .map(|axis| {
            (0..3)
                .map(|row| {
                    let e = d(4 * axis + row) * shell + d(12 + row);
                    e * e
                })
                .sum::<f64>()
                .sqrt()
        })
        .fold(0.0, f64::max)
}

/// The shell error of one joint between the clip's f64 world matrix `reference` and a lossy
/// f32 one (16 floats, column-major), for points at `shell` along the joint's world axes (the
/// joint's [`ClipReference::shell_of`]): `max_k |(R − L)·(shell·e_k) + (R − L)·e_w|`, in the
/// model's units, in f64.
#[must_use]
#[inline]
pub fn shell_error_f64(reference: &Matrix64, lossy: &[f32], shell: f64) -> f64 {
    let Some(lossy) = lossy.get(..16) else {
        return f64::INFINITY;
    };
    let d = |i: usize| reference[i] - f64::from(lossy[i]);
    let offset = [d(12), d(13), d(14)];
    // The farthest point's squared distance, one square root at the end (the same figure:
    // the square root is monotonic and correctly rounded).
    let mut worst = 0.0_f64;
    for axis in 0..3 {
        let mut squared = 0.0;
        for (row, o) in offset.iter().enumerate() {
            let e = d(4 * axis + row) * shell + o;
            squared += e * e;
        }
        if squared.is_nan() {
            // A NaN anywhere is no pose at all, not a small error.
            return f64::INFINITY;
        }
        worst = worst.max(squared);
    }
    worst.sqrt()
}

/// Errors of many joints at many times: the figures a table reports.
#[derive(Debug, Clone, Default)]
pub struct Errors {
    values: Vec<f64>,
}

impl Errors {
    /// Adds one joint's error at one time.
    pub fn push(&mut self, e: f64) {
        self.values.push(e);
    }

    /// How many were added.
    #[must_use]
    pub fn len(&self) -> usize {
        self.values.len()
    }

    /// Whether none were added.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// The largest (0 when empty).
    #[must_use]
    pub fn max(&self) -> f64 {
        self.values.iter().copied().fold(0.0, f64::max)
    }

    /// The `p`-th percentile (0 < p ≤ 100), nearest rank: the smallest value that at least p %
    /// of the values do not exceed (0 when empty).
    #[must_use]
    pub fn percentile(&self, p: f64) -> f64 {
        let mut v = self.values.clone();
        v.sort_by(f64::total_cmp);
        if v.is_empty() {
            return 0.0;
        }
        #[expect(
            clippy::cast_possible_truncation,
            clippy::cast_sign_loss,
            clippy::cast_precision_loss,
            reason = "a rank within the vector's length"
        )]
        let rank = ((p / 100.0 * v.len() as f64).ceil() as usize).clamp(1, v.len());
        v[rank - 1]
    }
}

/// The times an error is measured at: every 1/`rate` s from 0 through `duration`, the end,
/// and every key time in between (`keys`), sorted, without repeats.
#[must_use]
pub fn sample_times(duration: f32, rate: f32, keys: impl Iterator<Item = f32>) -> Vec<f32> {
    #[expect(
        clippy::cast_possible_truncation,
        clippy::cast_sign_loss,
        reason = "a few thousand samples"
    )]
    let steps = (duration * rate).floor() as usize;
    #[expect(clippy::cast_precision_loss, reason = "a few thousand samples")]
    let mut times: Vec<f32> = (0..=steps).map(|i| i as f32 / rate).collect();
    times.push(duration);
    times.extend(keys.filter(|t| (0.0..=duration).contains(t)));
    times.sort_by(f32::total_cmp);
    times.dedup();
    times
}

#[cfg(test)]
mod tests {
    use super::*;

    fn translation(x: f32, y: f32, z: f32) -> [f32; 16] {
        let mut m = [0.0; 16];
        m[0] = 1.0;
        m[5] = 1.0;
        m[10] = 1.0;
        m[15] = 1.0;
        m[12] = x;
        m[13] = y;
        m[14] = z;
        m
    }

    #[test]
    fn equal_matrices_have_no_error_and_an_offset_is_its_length() {
        let a = translation(1.0, 2.0, 3.0);
        assert_eq!(shell_error(&a, &a, 0.03), 0.0);
        let b = translation(1.0, 2.0 + 0.003, 3.0 + 0.004);
        assert!((shell_error(&a, &b, 0.03) - 0.005).abs() < 1e-7);
    }

    #[test]
    fn a_rotation_moves_the_shell_by_its_chord() {
        // A turn of θ about z moves the points on x and y by the chord 2·d·sin(θ/2), not the
        // one on z.
        let theta = 0.01_f32;
        let (s, c) = theta.sin_cos();
        let mut r = translation(0.0, 0.0, 0.0);
        r[0] = c;
        r[1] = s;
        r[4] = -s;
        r[5] = c;
        let d = 0.03;
        let chord = 2.0 * d * f64::from(theta / 2.0).sin();
        let e = shell_error(&translation(0.0, 0.0, 0.0), &r, d);
        assert!((e - chord).abs() < 1e-8, "{e} vs {chord}");
        // Twice the shell, twice the error.
        assert!((shell_error(&translation(0.0, 0.0, 0.0), &r, 2.0 * d) - 2.0 * chord).abs() < 1e-8);
    }

    #[test]
    fn the_f64_reference_gives_the_same_error_and_a_nan_is_infinitely_far() {
        let (a, mut b) = (translation(1.0, 2.0, 3.0), translation(1.0, 2.0, 3.0));
        b[0] = 0.999;
        b[13] = 2.001;
        let a64 = a.map(f64::from);
        let e = shell_error_f64(&a64, &b, 0.03);
        assert!((e - shell_error(&a, &b, 0.03)).abs() < 1e-12, "{e}");
        b[5] = f32::NAN;
        assert_eq!(shell_error_f64(&a64, &b, 0.03), f64::INFINITY);
    }

    #[test]
    fn percentiles_by_nearest_rank() {
        let mut e = Errors::default();
        for i in 1..=200 {
            e.push(f64::from(i));
        }
        assert_eq!(e.len(), 200);
        assert_eq!(e.max(), 200.0);
        assert_eq!(e.percentile(99.0), 198.0);
        assert_eq!(e.percentile(50.0), 100.0);
        assert_eq!(e.percentile(100.0), 200.0);
        assert_eq!(Errors::default().percentile(99.0), 0.0);
    }

    #[test]
    fn sample_times_cover_the_clip_and_its_keys() {
        let t = sample_times(0.5, 10.0, [0.25, 0.125, 0.7, 0.125].into_iter());
        assert_eq!(t, vec![0.0, 0.1, 0.125, 0.2, 0.25, 0.3, 0.4, 0.5]);
    }
}
