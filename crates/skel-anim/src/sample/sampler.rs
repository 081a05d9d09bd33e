//! Evaluating a [`Sampler`] at a time (glTF 2.0 §3.11 and Appendix C): the reference every
//! faster pass is tested against, and the path CUBICSPLINE channels and morph weights take.

use glam::Vec4;
use skel_math::normalize_quat_into;

use crate::data::sampler::Sampler;
use crate::kinds::Interpolation;

/// Remembers the key interval found last time, so that forward playback finds the next one in
/// O(1) instead of a binary search. One per sampler per character.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SamplerCursor {
    key: u32,
}

/// Where `t` falls: before the first key, after the last, or between `k` and `k + 1` at
/// fraction `s`.
enum Segment {
    Clamp(usize),
    Between(usize, f32),
}

#[inline]
fn locate(input: &[f32], t: f32, hint: usize) -> Segment {
    let last = input.len() - 1;
    // NaN clamps to the first key rather than reading garbage.
    if t.is_nan() || t <= input[0] {
        return Segment::Clamp(0);
    }
    if t >= input[last] {
        return Segment::Clamp(last);
    }
    // input[0] < t < input[last]: find k with input[k] <= t < input[k + 1].
    let k = if hint < last && input[hint] <= t && t < input[hint + 1] {
        hint
    } else if hint + 1 < last && input[hint + 1] <= t && t < input[hint + 2] {
        hint + 1
    } else {
        input.partition_point(|&x| x <= t) - 1
    };
    let t0 = input[k];
    let t1 = input[k + 1];
    Segment::Between(k, (t - t0) / (t1 - t0))
}

/// Evaluates `sampler` at time `t` (seconds) and writes `components` floats to
/// `out[offset..]`.
///
/// Times before the first key hold the first value, after the last key the last value (a track
/// shorter than its clip holds its end). STEP holds the previous key; LINEAR interpolates, with
/// shortest-path slerp when `is_quaternion` (a polynomial slerp within 2e-7 of the exact
/// weights, Eberly 2011, for keys up to 51.7° apart; `acos`/`sin` beyond); CUBICSPLINE
/// evaluates the Hermite spline with tangents scaled by the key interval (glTF 2.0,
/// Appendix C). Rotations come out normalised.
/// Key lookup is a binary search; see [`evaluate_sampler_cursor`] for forward playback.
///
/// `components` may be fewer than the sampler stores (the first `components` floats of each
/// value are read); the rotation path (`is_quaternion` with 4 components) normalises the result.
///
/// # Panics
/// When `components` exceeds [`Sampler::components`] or `out` is shorter than
/// `offset + components`.
#[doc(alias = "evaluateSampler")]
#[inline]
pub fn evaluate_sampler(
    sampler: &Sampler,
    t: f32,
    components: usize,
    is_quaternion: bool,
    out: &mut [f32],
    offset: usize,
) {
    let mut cursor = SamplerCursor::default();
    evaluate_sampler_cursor(
        sampler,
        t,
        components,
        is_quaternion,
        out,
        offset,
        &mut cursor,
    );
}

/// [`evaluate_sampler`] with a cursor: the key interval found is remembered, and the next call
/// checks it and its successor before searching, which makes forward playback O(1) per sample.
///
/// # Panics
/// As [`evaluate_sampler`].
#[inline]
pub fn evaluate_sampler_cursor(
    sampler: &Sampler,
    t: f32,
    components: usize,
    is_quaternion: bool,
    out: &mut [f32],
    offset: usize,
    cursor: &mut SamplerCursor,
) {
    let stride = sampler.components();
    assert!(
        components <= stride,
        "evaluate_sampler: {components} components asked of a sampler that stores {stride}"
    );
    let input = sampler.input();
    let output = sampler.output();
    let dst = &mut out[offset..offset + components];
    match sampler.interpolation() {
        Interpolation::Step | Interpolation::Linear => {
            match locate(input, t, cursor.key as usize) {
                Segment::Clamp(k) => {
                    cursor.key = k.min(input.len().saturating_sub(2)) as u32;
                    dst.copy_from_slice(&output[k * stride..k * stride + components]);
                }
                Segment::Between(k, s) => {
                    cursor.key = k as u32;
                    let a = &output[k * stride..k * stride + components];
                    if sampler.interpolation() == Interpolation::Step {
                        dst.copy_from_slice(a);
                    } else {
                        let b = &output[(k + 1) * stride..(k + 1) * stride + components];
                        if is_quaternion && components == 4 {
                            // The same slerp as the pose pipeline's tracks, bit for bit.
                            crate::math::interpolate::slerp(
                                Vec4::from_slice(a),
                                Vec4::from_slice(b),
                                s,
                            )
                            .write_to_slice(dst);
                            return;
                        }
                        for ((d, &x), &y) in dst.iter_mut().zip(a).zip(b) {
                            *d = x + (y - x) * s;
                        }
                    }
                }
            }
        }
        Interpolation::CubicSpline => {
            // Key k occupies output[(3k + j) * stride..] for j = 0 in-tangent, 1 value,
            // 2 out-tangent.
            let value = |k: usize, j: usize| (3 * k + j) * stride;
            match locate(input, t, cursor.key as usize) {
                Segment::Clamp(k) => {
                    cursor.key = k.min(input.len().saturating_sub(2)) as u32;
                    let v = value(k, 1);
                    dst.copy_from_slice(&output[v..v + components]);
                }
                Segment::Between(k, s) => {
                    cursor.key = k as u32;
                    let td = input[k + 1] - input[k];
                    let s2 = s * s;
                    let s3 = s2 * s;
                    let h00 = 2.0 * s3 - 3.0 * s2 + 1.0;
                    let h10 = (s3 - 2.0 * s2 + s) * td;
                    let h01 = -2.0 * s3 + 3.0 * s2;
                    let h11 = (s3 - s2) * td;
                    let v0 = value(k, 1);
                    let b0 = value(k, 2);
                    let v1 = value(k + 1, 1);
                    let a1 = value(k + 1, 0);
                    for (c, d) in dst.iter_mut().enumerate() {
                        *d = h00 * output[v0 + c]
                            + h10 * output[b0 + c]
                            + h01 * output[v1 + c]
                            + h11 * output[a1 + c];
                    }
                }
            }
        }
    }
    if is_quaternion && components == 4 {
        normalize_quat_into(out, offset);
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, reason = "tests")]

    use super::*;

    fn ramp() -> Sampler {
        // value = 10 · key index, keys at 0, 1, 2, 3, 4
        Sampler::new(
            vec![0.0, 1.0, 2.0, 3.0, 4.0],
            vec![0.0, 10.0, 20.0, 30.0, 40.0],
            Interpolation::Linear,
        )
        .unwrap()
    }

    #[test]
    fn the_cursor_follows_forward_playback() {
        let s = ramp();
        let mut cursor = SamplerCursor::default();
        let mut out = [0.0_f32];
        for (t, key, value) in [
            (0.5, 0, 5.0),
            (1.0, 1, 10.0),
            (1.5, 1, 15.0),
            (2.25, 2, 22.5),
            (3.9, 3, 39.0),
        ] {
            evaluate_sampler_cursor(&s, t, 1, false, &mut out, 0, &mut cursor);
            assert_eq!((cursor.key, out[0]), (key, value), "t = {t}");
        }
        // Past the end the cursor parks on the last interval; a jump back searches again.
        evaluate_sampler_cursor(&s, 9.0, 1, false, &mut out, 0, &mut cursor);
        assert_eq!((cursor.key, out[0]), (3, 40.0));
        evaluate_sampler_cursor(&s, 0.25, 1, false, &mut out, 0, &mut cursor);
        assert_eq!((cursor.key, out[0]), (0, 2.5));
    }

    #[test]
    fn a_stale_cursor_from_a_longer_sampler_is_harmless() {
        let s = ramp();
        let mut cursor = SamplerCursor { key: 1000 };
        let mut out = [0.0_f32];
        evaluate_sampler_cursor(&s, 2.5, 1, false, &mut out, 0, &mut cursor);
        assert_eq!((cursor.key, out[0]), (2, 25.0));
    }
}
