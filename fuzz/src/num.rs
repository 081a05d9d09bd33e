//! Floats and indices as a fuzzer should pick them: mostly ordinary values (so that clips
//! actually play and overrides actually move bones), often the values that break naive code
//! (NaN, ±inf, ±0, `f32::MAX`, subnormals), and sometimes any bit pattern at all.

use arbitrary::{Arbitrary, Unstructured};

/// Values that have broken animation code somewhere: non-finite, extreme, tiny, a frame time.
const SPECIAL: [f32; 20] = [
    0.0,
    -0.0,
    1.0,
    -1.0,
    0.5,
    f32::NAN,
    f32::INFINITY,
    f32::NEG_INFINITY,
    f32::MAX,
    f32::MIN,
    f32::MIN_POSITIVE,
    1e-45,
    f32::EPSILON,
    16.666_666,
    1000.0,
    -16.666_666,
    1e6,
    -1e6,
    1e30,
    3.0e38,
];

/// An `f32` drawn from ordinary, special and raw values.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Num(pub f32);

impl<'a> Arbitrary<'a> for Num {
    fn arbitrary(u: &mut Unstructured<'a>) -> arbitrary::Result<Self> {
        let value = match u.int_in_range(0u8..=3)? {
            // Ordinary: multiples of 1/64 in ±512 (frame times, seconds, unit-ish vectors).
            0 => f32::from(i16::arbitrary(u)?) / 64.0,
            1 => f32::from(i8::arbitrary(u)?),
            2 => SPECIAL[u.choose_index(SPECIAL.len())?],
            // Any bit pattern: NaN payloads, subnormals, everything.
            _ => f32::from_bits(u32::arbitrary(u)?),
        };
        Ok(Self(value))
    }

    fn size_hint(_depth: usize) -> (usize, Option<usize>) {
        (1, Some(5))
    }
}

impl Num {
    /// The value.
    #[must_use]
    pub fn get(self) -> f32 {
        self.0
    }
}

/// An index into a list of `len` items, as a caller might pass it: in range most of the time,
/// exactly one past the end sometimes, and `usize::MAX` when the byte is 255.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Arbitrary)]
pub struct Index(pub u8);

impl Index {
    /// The index for a list of `len` items (`len` itself and `usize::MAX` are out of range).
    #[must_use]
    pub fn pick(self, len: usize) -> usize {
        if self.0 == u8::MAX {
            usize::MAX
        } else {
            usize::from(self.0) % (len + 1)
        }
    }
}

/// Whether `values` are finite and no larger than `bound` in magnitude.
#[must_use]
pub fn within(values: &[f32], bound: f32) -> bool {
    values.iter().all(|v| v.is_finite() && v.abs() <= bound)
}

/// Unwraps an array of [`Num`]s.
#[must_use]
pub fn floats<const N: usize>(values: [Num; N]) -> [f32; N] {
    values.map(Num::get)
}
