//! The per-character cursor that finds the key interval of the current time once per key-time
//! array per frame ([`Timelines`](crate::rig::timelines::Timelines) says which channels
//! share an array).

/// The key interval a time falls in: values are `a + (b − a) · s` of keys `a` and `b`
/// (`a == b`, `s == 0` before the first key, after the last, and for STEP).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(crate) struct Segment {
    pub(crate) a: u32,
    pub(crate) b: u32,
    pub(crate) s: f32,
}

/// Where the last lookup landed: key `key` and its interval's times `[t0, t1)`. A time inside
/// the interval is resolved with two comparisons and no search.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct TimeCursor {
    key: u32,
    t0: f32,
    t1: f32,
}

impl Default for TimeCursor {
    /// An empty interval: the first lookup searches.
    fn default() -> Self {
        Self {
            key: 0,
            t0: f32::INFINITY,
            t1: f32::NEG_INFINITY,
        }
    }
}

impl TimeCursor {
    /// The segment of `t` in `input` (finite, strictly increasing, non-empty: [`Sampler::new`]
    /// checks it) for linear keys. Inside the remembered interval this is two comparisons; the
    /// next interval is tried before a binary search (forward playback crosses one key at a
    /// time). Times before the first key (NaN included) clamp to it, after the last to the last.
    ///
    /// [`Sampler::new`]: crate::Sampler::new
    #[inline]
    pub(crate) fn locate(&mut self, input: &[f32], t: f32) -> Segment {
        if t >= self.t0 && t < self.t1 {
            return Segment {
                a: self.key,
                b: self.key + 1,
                s: (t - self.t0) / (self.t1 - self.t0),
            };
        }
        self.search(input, t)
    }

    #[inline(never)]
    fn search(&mut self, input: &[f32], t: f32) -> Segment {
        let last = input.len() - 1;
        if t.is_nan() || t <= input[0] {
            return Segment::default();
        }
        if t >= input[last] {
            #[expect(
                clippy::cast_possible_truncation,
                reason = "key counts fit u32 (checked at plan build)"
            )]
            let k = last as u32;
            return Segment { a: k, b: k, s: 0.0 };
        }
        // input[0] < t < input[last]: find k with input[k] <= t < input[k + 1].
        let next = self.key as usize + 1;
        let k = if next < last && input[next] <= t && t < input[next + 1] {
            next
        } else {
            input.partition_point(|&x| x <= t) - 1
        };
        let (t0, t1) = (input[k], input[k + 1]);
        #[expect(
            clippy::cast_possible_truncation,
            reason = "key counts fit u32 (checked at plan build)"
        )]
        let key = k as u32;
        *self = Self { key, t0, t1 };
        Segment {
            a: key,
            b: key + 1,
            s: (t - t0) / (t1 - t0),
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, reason = "tests")]

    use super::*;

    #[test]
    fn the_cursor_follows_forward_playback_and_clamps() {
        let input = [0.0, 1.0, 2.0, 4.0];
        let mut c = TimeCursor::default();
        assert_eq!(c.locate(&input, -1.0), Segment::default());
        assert_eq!(c.locate(&input, f32::NAN), Segment::default());
        assert_eq!(c.locate(&input, 0.5), Segment { a: 0, b: 1, s: 0.5 });
        assert_eq!(
            c.locate(&input, 0.75),
            Segment {
                a: 0,
                b: 1,
                s: 0.75
            }
        );
        assert_eq!(c.locate(&input, 1.0), Segment { a: 1, b: 2, s: 0.0 });
        assert_eq!(c.locate(&input, 3.0), Segment { a: 2, b: 3, s: 0.5 });
        assert_eq!(c.locate(&input, 4.0), Segment { a: 3, b: 3, s: 0.0 });
        assert_eq!(c.locate(&input, 9.0), Segment { a: 3, b: 3, s: 0.0 });
        // A jump back searches.
        assert_eq!(
            c.locate(&input, 0.25),
            Segment {
                a: 0,
                b: 1,
                s: 0.25
            }
        );
        let single = [2.0];
        let mut c = TimeCursor::default();
        assert_eq!(c.locate(&single, 1.0), Segment::default());
        assert_eq!(c.locate(&single, 3.0), Segment::default());
    }
}
