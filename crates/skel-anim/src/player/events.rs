//! Animation events: markers on a clip fire once each time a layer's playhead passes them.
//!
//! The playhead's motion over one tick is a sweep along its unwrapped loop (offset from the
//! range's start, or the ping-pong phase over twice the range) from where it was to where the
//! clock put it, whole loops included. A marker fires for every place it occupies in that
//! sweep: moving forward over `(previous, current]`, backward over `[current, previous)`. So a
//! tick that spans several loops fires a marker once per loop, a ping-pong turn fires markers
//! in both directions, and a seek (which is not a sweep) fires nothing.

use crate::{LoopMode, PlaybackClock};

/// One fired marker, handed to the caller's callback during
/// [`Player::tick_with_events`](crate::Player::tick_with_events). Borrowed: copy what you keep.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AnimationEvent<'a> {
    /// Index of the layer whose playhead passed the marker (before any layer a finished fade
    /// removes in the same tick is dropped).
    pub layer: usize,
    /// The layer's clip.
    pub clip: usize,
    /// Index of the marker in the clip's [`markers`](crate::Clip::markers).
    pub marker: usize,
    /// The marker's name.
    pub name: &'a str,
    /// The marker's time in the clip, in seconds.
    pub time: f32,
    /// The layer's effective weight after the tick (its weight times its fade), times its
    /// group's weight for a member of a [layer group](crate::LayerGroup): how much of the
    /// layer reaches the pose, before masks. Markers on layers of weight 0 fire too: the
    /// application decides what weight means.
    pub weight: f32,
}

/// The playhead's motion over one advance, in unwrapped loop coordinates.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Sweep {
    mode: LoopMode,
    from: f64,
    len: f64,
    /// Unwrapped position before and after.
    start: f64,
    end: f64,
}

impl Sweep {
    /// The sweep from clock `before` to clock `after` (the same clock, advanced once by
    /// `step` seconds of clip time: the sign says which way the playhead moved).
    pub(crate) fn between(
        before: &PlaybackClock,
        after: &PlaybackClock,
        step: f64,
    ) -> Option<Self> {
        let len = after.range_len();
        if len.is_nan() || len <= 0.0 {
            return None;
        }
        let (start, now) = (before.phase(), after.phase());
        let period = match after.loop_mode() {
            LoopMode::PingPong => 2.0 * len,
            _ => len,
        };
        // Unroll the landing place by the whole periods that bring it nearest to where the step
        // went: the clock snaps landings within a microsecond of an end onto the loop's start,
        // so its loop count can be off by one for a step that only grazes the end.
        let end = match after.loop_mode() {
            LoopMode::Once => now,
            _ => now + ((start + step - now) / period).round() * period,
        };
        if end == start {
            return None;
        }
        Some(Self {
            mode: after.loop_mode(),
            from: f64::from(after.from()),
            len,
            start,
            end,
        })
    }

    /// `(start, end, len, from)`: the unwrapped positions, the range's length and start.
    pub(crate) fn parts(&self) -> (f64, f64, f64, f64) {
        (self.start, self.end, self.len, self.from)
    }

    /// The loop mode swept in.
    pub(crate) fn mode(&self) -> LoopMode {
        self.mode
    }

    /// How many times the sweep passes clip time `time`.
    pub(crate) fn crossings(&self, time: f32) -> u32 {
        let m = f64::from(time) - self.from;
        if !(0.0..=self.len).contains(&m) {
            return 0;
        }
        match self.mode {
            LoopMode::Once => u32::from(self.contains(m)),
            // The loop's end is its start.
            LoopMode::Repeat => self.periodic(if m == self.len { 0.0 } else { m }, self.len),
            LoopMode::PingPong => {
                let period = 2.0 * self.len;
                let there = self.periodic(m, period);
                // The turns (0 and len) are one place each in the phase.
                if m == 0.0 || m == self.len {
                    there
                } else {
                    there + self.periodic(period - m, period)
                }
            }
        }
    }

    /// Forward `(start, end]`, backward `[end, start)`.
    fn contains(&self, m: f64) -> bool {
        if self.end > self.start {
            self.start < m && m <= self.end
        } else {
            self.end <= m && m < self.start
        }
    }

    /// Places `m + k·period` (any integer `k`) the sweep passes.
    fn periodic(&self, m: f64, period: f64) -> u32 {
        let count = if self.end > self.start {
            ((self.end - m) / period).floor() - ((self.start - m) / period).floor()
        } else {
            ((self.start - m) / period).ceil() - ((self.end - m) / period).ceil()
        };
        u32::try_from(whole_count(count)).unwrap_or(u32::MAX)
    }
}

/// A count computed in f64 (a difference of floors or ceilings), as a whole number: 0 below 1,
/// saturated at `u64::MAX` (a tick of absurd length counts as many loops as fit).
pub(crate) fn whole_count(n: f64) -> u64 {
    if n >= 1.8e19 {
        u64::MAX
    } else if n > 0.0 {
        #[expect(
            clippy::cast_possible_truncation,
            clippy::cast_sign_loss,
            reason = "a non-negative whole number in range"
        )]
        let c = n as u64;
        c
    } else {
        0
    }
}
