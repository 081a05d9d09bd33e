//! The playback clock of one clip: the time, range, speed and loop state that
//! [`AnimationGroup`](crate::AnimationGroup)s and [`WeightedBlend`](crate::WeightedBlend) layers
//! advance every tick (Babylon.js `AnimationGroup` and three.js `AnimationAction` semantics).

use crate::AnimError;

/// How close (in seconds) to an end of the range counts as reaching it. Frame times summed in
/// floating point land a hair before or after the exact end (0.4 s + 0.6 s backwards from 1 s
/// leaves 2·10⁻⁸ s); a microsecond is far below a frame, and without it a clamped clip could
/// stop one invisible step short of finishing.
const END_SNAP_S: f64 = 1e-6;

/// What a clock does at the ends of its range (three.js `LoopRepeat` / `LoopOnce` /
/// `LoopPingPong`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum LoopMode {
    /// Wrap around: past `to` the playhead continues from `from` (and backwards, from `to`).
    #[default]
    Repeat,
    /// Stop at the end the clock plays towards and report it finished.
    Once,
    /// Bounce: past `to` the playhead runs back towards `from`, then forwards again. One period
    /// is twice the range.
    PingPong,
}

/// Where a clip's playhead is and how it moves.
///
/// Time is in seconds of clip time and always lies in `[from, to]`. Each
/// [`advance`](Self::advance) moves it by `delta_ms / 1000 × speed_ratio`; a looping clock wraps
/// into `[from, to)` (any number of whole loops in one step, backwards too), a clamped clock stops
/// at the end it runs into and reports [`is_finished`](Self::is_finished). Nothing here
/// allocates or fails: bad inputs (NaN or infinite deltas and speeds) are ignored.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PlaybackClock {
    /// f64, so that hours of summed frame times keep sub-microsecond precision.
    time: f64,
    from: f32,
    to: f32,
    speed_ratio: f32,
    loop_mode: LoopMode,
    /// Ping-pong only: the playhead runs from `to` back towards `from` (against the speed's
    /// sign).
    reversed: bool,
    playing: bool,
    finished: bool,
    finished_this_tick: bool,
    loops_this_tick: u32,
}

impl PlaybackClock {
    /// A clock over `[0, duration]` at time 0: looping, speed 1, not playing (call
    /// [`play`](Self::play)). A negative or non-finite duration counts as 0.
    #[must_use]
    pub fn new(duration: f32) -> Self {
        let to = if duration.is_finite() && duration > 0.0 {
            duration
        } else {
            0.0
        };
        Self {
            time: 0.0,
            from: 0.0,
            to,
            speed_ratio: 1.0,
            loop_mode: LoopMode::Repeat,
            reversed: false,
            playing: false,
            finished: false,
            finished_this_tick: false,
            loops_this_tick: 0,
        }
    }

    /// Current time in seconds, within [`from`](Self::from)..=[`to`](Self::to).
    #[must_use]
    pub fn time(&self) -> f32 {
        self.time as f32
    }

    /// Start of the played range in seconds.
    #[must_use]
    pub fn from(&self) -> f32 {
        self.from
    }

    /// End of the played range in seconds.
    #[must_use]
    pub fn to(&self) -> f32 {
        self.to
    }

    /// Playback speed multiplier (1 by default; negative plays backwards, 0 holds).
    #[must_use]
    pub fn speed_ratio(&self) -> f32 {
        self.speed_ratio
    }

    /// Whether the clock goes on at the ends of its range (wrapping or bouncing, true by
    /// default) or stops there.
    #[must_use]
    pub fn is_looping(&self) -> bool {
        self.loop_mode != LoopMode::Once
    }

    /// What the clock does at the ends of its range.
    #[must_use]
    pub fn loop_mode(&self) -> LoopMode {
        self.loop_mode
    }

    /// Whether a ping-pong clock is on its way back (its playhead moves against the speed).
    #[must_use]
    pub fn is_reversed(&self) -> bool {
        self.reversed
    }

    /// Sets what the clock does at the ends of its range. Leaving [`LoopMode::Once`] clears
    /// [`is_finished`](Self::is_finished); entering ping-pong starts on the forward leg.
    pub fn set_loop_mode(&mut self, mode: LoopMode) {
        self.loop_mode = mode;
        self.reversed = false;
        if mode != LoopMode::Once {
            self.finished = false;
        }
    }

    /// Whether [`advance`](Self::advance) moves the time.
    #[must_use]
    pub fn is_playing(&self) -> bool {
        self.playing
    }

    /// Whether a clamped clock has run into the end of its range (the end it was playing
    /// towards: `to` forwards, `from` backwards) and stopped there. Cleared by
    /// [`play`](Self::play), [`restart`](Self::restart), [`stop`](Self::stop) and
    /// [`seek`](Self::seek).
    #[must_use]
    pub fn is_finished(&self) -> bool {
        self.finished
    }

    /// Whether the last [`advance`](Self::advance) is the one that finished the clock: true for
    /// exactly one tick, so a caller can react once without registering a callback (Babylon's
    /// `onAnimationGroupEndObservable`).
    #[must_use]
    pub fn finished_this_tick(&self) -> bool {
        self.finished_this_tick
    }

    /// How many times the last [`advance`](Self::advance) wrapped around a looping range (0 or
    /// 1 at normal frame rates; more after a long hitch).
    #[must_use]
    pub fn loops_this_tick(&self) -> u32 {
        self.loops_this_tick
    }

    /// Sets the speed multiplier; a NaN or infinite value is ignored.
    pub fn set_speed_ratio(&mut self, speed_ratio: f32) {
        if speed_ratio.is_finite() {
            self.speed_ratio = speed_ratio;
        }
    }

    /// Chooses looping (wrap at the ends) or clamped (stop at the end) playback. Turning looping
    /// on clears [`is_finished`](Self::is_finished).
    pub fn set_looping(&mut self, looping: bool) {
        self.set_loop_mode(if looping {
            LoopMode::Repeat
        } else {
            LoopMode::Once
        });
    }

    /// Restricts playback to `[from, to]` seconds of the clip (Babylon's `from`/`to`) and moves
    /// the time into it. Times outside the clip's keys hold its first or last key.
    ///
    /// # Errors
    /// [`AnimError::BadPlaybackRange`] when either end is not finite or `from > to`.
    pub fn set_range(&mut self, from: f32, to: f32) -> Result<(), AnimError> {
        if !(from.is_finite() && to.is_finite() && from <= to) {
            return Err(AnimError::BadPlaybackRange { from, to });
        }
        self.from = from;
        self.to = to;
        self.time = self.time.clamp(f64::from(from), f64::from(to));
        Ok(())
    }

    /// Starts or resumes playback. A clamped clock that is finished, or that sits at the end it
    /// would play towards, first rewinds to the start of its direction (`from` forwards, `to`
    /// backwards), so `play` after the end plays again.
    pub fn play(&mut self) {
        if self.loop_mode == LoopMode::Once {
            let at_end = if self.speed_ratio < 0.0 {
                self.time <= f64::from(self.from)
            } else {
                self.time >= f64::from(self.to)
            };
            if self.finished || at_end {
                self.rewind();
            }
        }
        self.finished = false;
        self.playing = true;
    }

    /// Stops advancing, keeping the time.
    pub fn pause(&mut self) {
        self.playing = false;
    }

    /// Stops playback and goes back to `from` (Babylon's `stop`).
    pub fn stop(&mut self) {
        self.time = f64::from(self.from);
        self.playing = false;
        self.finished = false;
    }

    /// Goes back to the start of the playing direction (`from`, or `to` at a negative speed)
    /// and plays.
    pub fn restart(&mut self) {
        self.rewind();
        self.finished = false;
        self.playing = true;
    }

    /// Moves the playhead to `time` seconds, clamped to the range; playing or paused stays as
    /// it was. A NaN or infinite time is ignored.
    #[doc(alias = "goToFrame")]
    pub fn seek(&mut self, time: f32) {
        if time.is_finite() {
            self.time = f64::from(time.clamp(self.from, self.to));
            self.finished = false;
        }
    }

    /// Moves the playhead to `frame` at `fps` frames per second (Babylon's `goToFrame`; its
    /// glTF loader uses 60 fps). Ignored when the resulting time is not finite.
    pub fn go_to_frame(&mut self, frame: f32, fps: f32) {
        self.seek(frame / fps);
    }

    /// Advances the time by `delta_ms` milliseconds × the speed ratio when playing: wraps a
    /// looping clock (landing exactly on `to` wraps to `from`), clamps a clamped one and marks it
    /// finished when it reaches the end it plays towards (landing exactly on it counts). "Exactly"
    /// is within a microsecond, so that rounding in summed frame times cannot miss an end. A step
    /// of 0 or a step that is not finite leaves the time alone. A zero-length range holds its
    /// only frame; clamped, its first non-zero step finishes it.
    pub fn advance(&mut self, delta_ms: f32) {
        self.advance_seconds(f64::from(delta_ms) / 1000.0);
    }

    /// [`advance`](Self::advance) by `delta_s` seconds (times the speed ratio).
    // Always inlined (with `wrap`): a clock step is a few instructions per layer and frame,
    // and whether LLVM inlines it otherwise changes with how the crate's files fall into
    // codegen units (measured: up to 13 instructions per character-frame).
    #[inline(always)]
    pub fn advance_seconds(&mut self, delta_s: f64) {
        self.finished_this_tick = false;
        self.loops_this_tick = 0;
        if !self.playing {
            return;
        }
        // f64 keeps the wrap exact enough after very long deltas (hours of clip time in one
        // step still land within the range, to f32 precision).
        let step = delta_s * f64::from(self.speed_ratio);
        if step == 0.0 || !step.is_finite() {
            return;
        }
        let from = f64::from(self.from);
        let to = f64::from(self.to);
        let t = self.time + step;
        if self.loop_mode == LoopMode::PingPong {
            self.bounce(step, from, to);
        } else if self.loop_mode == LoopMode::Repeat {
            self.time = self.wrap(t, from, to);
        } else if step > 0.0 && t >= to - END_SNAP_S {
            self.time = to;
            self.finish();
        } else if step < 0.0 && t <= from + END_SNAP_S {
            self.time = from;
            self.finish();
        } else {
            self.time = t.clamp(from, to);
        }
    }

    #[inline(always)]
    fn wrap(&mut self, t: f64, from: f64, to: f64) -> f64 {
        let len = to - from;
        if len <= END_SNAP_S {
            return from;
        }
        // Most frames stay inside the loop, clear of both ends: the general path below gives
        // exactly this there (no cycle, nothing snapped), without its division and floor.
        let offset = t - from;
        if offset >= END_SNAP_S && offset < len - END_SNAP_S {
            return (from + offset).clamp(from, to);
        }
        let cycles = ((t - from) / len).floor();
        let mut wrapped = (t - from - cycles * len).clamp(0.0, len);
        let mut loops = cycles.abs();
        if wrapped >= len - END_SNAP_S {
            // At the end, give or take rounding: the start of the next loop forwards; backwards,
            // still the start of this one.
            wrapped = 0.0;
            loops = if cycles >= 0.0 {
                loops + 1.0
            } else {
                loops - 1.0
            };
        } else if wrapped < END_SNAP_S {
            wrapped = 0.0;
        }
        self.loops_this_tick = if loops >= f64::from(u32::MAX) {
            u32::MAX
        } else {
            loops as u32
        };
        (from + wrapped).clamp(from, to)
    }

    /// Sets time, speed, loop mode and playing state as they are, without `play`'s rewind or
    /// `seek`'s clamping to a range (the controller adapter keeps these in public fields and
    /// hands them over every tick).
    #[inline]
    pub(crate) fn set_state(
        &mut self,
        time: f32,
        speed_ratio: f32,
        loop_mode: LoopMode,
        playing: bool,
    ) {
        self.time = f64::from(time);
        if speed_ratio.is_finite() {
            self.speed_ratio = speed_ratio;
        }
        if self.loop_mode != loop_mode {
            self.loop_mode = loop_mode;
            self.reversed = false;
        }
        self.playing = playing;
        self.finished = false;
    }

    /// Where the playhead is along its loop: the offset from `from` (repeat, once), or the
    /// ping-pong phase in `[0, 2·len)` (the return leg is `2·len − offset`).
    #[inline]
    pub(crate) fn phase(&self) -> f64 {
        let offset = self.time - f64::from(self.from);
        if self.loop_mode == LoopMode::PingPong && self.reversed {
            2.0 * self.range_len() - offset
        } else {
            offset
        }
    }

    /// `to − from`, in f64.
    #[inline]
    pub(crate) fn range_len(&self) -> f64 {
        f64::from(self.to) - f64::from(self.from)
    }

    /// Ping-pong: the phase runs over `[0, 2·len)`; its first half is the forward leg.
    fn bounce(&mut self, step: f64, from: f64, to: f64) {
        let len = to - from;
        if len <= END_SNAP_S {
            self.time = from;
            return;
        }
        let offset = self.time - from;
        let phase = if self.reversed {
            2.0 * len - offset
        } else {
            offset
        };
        let period = 2.0 * len;
        let t = phase + step;
        let cycles = (t / period).floor();
        let mut wrapped = (t - cycles * period).clamp(0.0, period);
        if wrapped >= period - END_SNAP_S || wrapped < END_SNAP_S {
            wrapped = 0.0;
        }
        let loops = cycles.abs();
        self.loops_this_tick = if loops >= f64::from(u32::MAX) {
            u32::MAX
        } else {
            loops as u32
        };
        // Exactly at the turn (`len`) the leg counts as the return one, so that the next
        // forward step moves back down.
        self.reversed = wrapped >= len;
        let offset = if self.reversed {
            period - wrapped
        } else {
            wrapped
        };
        self.time = (from + offset).clamp(from, to);
    }

    fn finish(&mut self) {
        self.playing = false;
        self.finished = true;
        self.finished_this_tick = true;
    }

    fn rewind(&mut self) {
        self.time = f64::from(if self.speed_ratio < 0.0 {
            self.to
        } else {
            self.from
        });
    }
}
