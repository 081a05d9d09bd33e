//! The `controller_api` target: arbitrary sequences of playback and bone-control calls, decoded
//! from the fuzzer's bytes with `arbitrary`, on every [`Rig`] at once, with the invariants checked
//! after every call.
//!
//! Invariants (a violation panics, which libFuzzer reports as a crash):
//! - nothing panics, whatever the arguments (NaN, ±inf, negative, huge, out-of-range indices);
//! - every clock time is finite and inside its range after every call, and a controller's time
//!   is finite after every tick;
//! - blend weights stay finite and non-negative, a cross-fade's progress stays in `[0, 1]`;
//! - bone matrices, world matrices and morph weights are finite while every value passed in was
//!   finite and moderate (see [`Rig::sane`]);
//! - a call that returns an error has the kind its arguments call for (an out-of-range index
//!   gets the out-of-range error) and leaves the state it was called on as it was, with nothing
//!   handed to the sink.

use std::sync::Arc;

use arbitrary::Arbitrary;
use skel_anim::glam::Mat4;
use skel_anim::{
    AnimError, AnimationController, AnimationData, AnimationGroup, CrossFade, PlaybackClock,
    PoseHook, PoseSink, WeightedBlend, create_animation_groups, tick_all,
};
use skel_bone_control::{BoneControlAsset, BoneControlError, BoneKey, Skeleton};

use crate::num::{Index, Num, floats, within};
use crate::rig::{code_rig, fixture_rig};

/// One call on one rig.
#[derive(Debug, Arbitrary)]
pub struct Step {
    /// Which rig (modulo the number of rigs).
    pub rig: u8,
    /// The call.
    pub op: Op,
}

/// Every call the target makes.
#[derive(Debug, Arbitrary)]
pub enum Op {
    /// On the rig's single-clip [`AnimationController`].
    Controller(ControllerOp),
    /// On one of the rig's [`AnimationGroup`]s (one per clip).
    Group(Index, GroupOp),
    /// On the rig's [`WeightedBlend`].
    Blend(BlendOp),
    /// On the rig's [`CrossFade`].
    Fade(FadeOp),
    /// On bone `1` of skeleton handle `0`, named by index.
    Bone(Index, Index, BoneOp),
    /// On skeleton handle `0`, naming a bone of another asset's skeleton (always refused).
    ForeignBone(Index, BoneOp),
    /// Drops the rig's `BoneControlAsset`; its skeleton handles and hooks stay in use.
    DropBoneControl,
    /// `tick_all` over a crowd of two controllers, with this many sinks (mod 4).
    TickAll(Num, u8),
}

/// Calls on an [`AnimationController`].
#[derive(Debug, Arbitrary)]
pub enum ControllerOp {
    /// `tick(delta_ms)`.
    Tick(Num),
    /// `set_clip`.
    SetClip(Option<Index>),
    /// Writes the public `time` field.
    SetTime(Num),
    /// Writes the public `speed_ratio` field.
    SetSpeed(Num),
    /// Writes the public `playing` field.
    SetPlaying(bool),
    /// Writes the public `looping` field.
    SetLooping(bool),
    /// `evaluate_at(clip, time)`.
    EvaluateAt(Option<Index>, Num),
    /// Installs the bone-control hook (`BoneControlAsset::install` while the asset lives).
    InstallHook,
    /// Removes the hook.
    RemoveHook,
}

/// Calls on a [`PlaybackClock`].
#[derive(Debug, Arbitrary)]
pub enum ClockOp {
    /// `play`.
    Play,
    /// `pause`.
    Pause,
    /// `stop`.
    Stop,
    /// `restart`.
    Restart,
    /// `seek`.
    Seek(Num),
    /// `go_to_frame(frame, fps)`.
    GoToFrame(Num, Num),
    /// `set_speed_ratio`.
    Speed(Num),
    /// `set_looping`.
    Looping(bool),
    /// `set_range(from, to)`.
    Range(Num, Num),
    /// `advance(delta_ms)`.
    Advance(Num),
}

/// Calls on an [`AnimationGroup`].
#[derive(Debug, Arbitrary)]
pub enum GroupOp {
    /// A clock call through the group's shortcuts.
    Clock(ClockOp),
    /// `tick(delta_ms)`.
    Tick(Num),
    /// `evaluate`.
    Evaluate,
    /// Installs (`true`) or removes the bone-control hook.
    Hook(bool),
}

/// Calls on a [`WeightedBlend`].
#[derive(Debug, Arbitrary)]
pub enum BlendOp {
    /// `add_layer(clip, weight)`.
    AddLayer(Index, Num),
    /// `remove_layer`.
    RemoveLayer(Index),
    /// `set_weight(layer, weight)`.
    SetWeight(Index, Num),
    /// A clock call on one layer.
    LayerClock(Index, ClockOp),
    /// `capture_snapshot`.
    Capture,
    /// `set_snapshot_weight`.
    SnapshotWeight(Num),
    /// `clear_snapshot`.
    ClearSnapshot,
    /// `tick(delta_ms)`.
    Tick(Num),
    /// `evaluate`.
    Evaluate,
    /// Installs (`true`) or removes the bone-control hook.
    Hook(bool),
}

/// Calls on a [`CrossFade`].
#[derive(Debug, Arbitrary)]
pub enum FadeOp {
    /// `play(clip)`.
    Play(Index),
    /// `fade_to(clip, duration_s)`.
    FadeTo(Index, Num),
    /// `tick(delta_ms)`.
    Tick(Num),
    /// A clock call on one layer of the blend underneath.
    LayerClock(Index, ClockOp),
}

/// Calls on a bone of a [`Skeleton`] handle.
#[derive(Debug, Arbitrary)]
pub enum BoneOp {
    /// `set_bone_position`.
    Position([Num; 3]),
    /// `set_bone_rotation_quaternion`.
    Rotation([Num; 4]),
    /// `set_bone_scaling`.
    Scaling([Num; 3]),
    /// `set_bone_visible`.
    Visible(bool),
    /// `set_bone_pose_deferred`.
    PoseDeferred([Num; 3], [Num; 4]),
    /// `set_bone_world_pose_deferred`.
    WorldPoseDeferred([Num; 3], [Num; 4]),
    /// `bake_skeleton`.
    Bake,
    /// `clear_bone_override`.
    Clear,
    /// `bone_override`, `is_bone_visible`, `bone_world_pose`, `baked_world_matrix`.
    Read,
}

/// A sink that checks what it receives and remembers whether anything arrived.
#[derive(Debug, Default)]
pub struct CheckSink {
    /// Calls received since the last [`reset`](Self::reset).
    pub calls: usize,
    /// The first non-finite value seen since the last reset, with where it came from.
    pub non_finite: Option<String>,
}

impl CheckSink {
    /// Forgets what was received.
    pub fn reset(&mut self) {
        self.calls = 0;
        self.non_finite = None;
    }

    fn record(&mut self, what: &str, binding: usize, values: &[f32]) {
        self.calls += 1;
        if self.non_finite.is_none()
            && let Some(i) = values.iter().position(|v| !v.is_finite())
        {
            self.non_finite = Some(format!("{what} of binding {binding}[{i}] = {}", values[i]));
        }
    }
}

impl PoseSink for CheckSink {
    fn bone_matrices(&mut self, binding: usize, matrices: &[Mat4]) {
        for m in matrices {
            self.record("bone matrices", binding, &m.to_cols_array());
        }
    }
    fn morph_weights(&mut self, binding: usize, weights: &[f32]) {
        self.record("morph weights", binding, weights);
    }
}

/// Largest translation (and world position) magnitude that counts as moderate.
const MAX_TRANSLATION: f32 = 1e3;
/// Scales count as moderate at 0 or with magnitude in this range: any chain of them stays far
/// from overflow and underflow.
const SCALE_RANGE: (f32, f32) = (0.25, 4.0);

fn moderate_scale(s: &[f32]) -> bool {
    s.iter()
        .all(|&v| v == 0.0 || (v.abs() >= SCALE_RANGE.0 && v.abs() <= SCALE_RANGE.1))
}

/// One asset with every player over it and its bone control.
pub struct Rig {
    /// For messages.
    pub name: &'static str,
    data: Arc<AnimationData>,
    controller: AnimationController,
    crowd: Vec<AnimationController>,
    groups: Vec<AnimationGroup>,
    blend: WeightedBlend,
    fade: CrossFade,
    bones: Option<BoneControlAsset>,
    skeletons: Vec<Arc<Skeleton>>,
    hook: Arc<dyn PoseHook>,
    /// Whether every value passed to the pose so far was finite and moderate (translations up
    /// to [`MAX_TRANSLATION`], scales 0 or within [`SCALE_RANGE`]); while it holds, every
    /// matrix and weight produced must be finite. Blend weights, speeds, times, ranges and
    /// frame times of any finite size keep it.
    pub sane: bool,
}

fn fail(rig: &str, step: usize, op: &Op, what: impl std::fmt::Display) -> ! {
    panic!("rig {rig}, step {step} ({op:?}): {what}")
}

impl Rig {
    /// Builds every player over `data` and enables bone control.
    ///
    /// # Panics
    /// When `data` does not validate (the rigs are fixed and valid).
    #[must_use]
    pub fn new(name: &'static str, data: Arc<AnimationData>) -> Self {
        let build = || -> Result<Self, String> {
            let controller =
                AnimationController::new(Arc::clone(&data)).map_err(|e| e.to_string())?;
            let groups = create_animation_groups(Arc::clone(&data)).map_err(|e| e.to_string())?;
            let blend = WeightedBlend::new(Arc::clone(&data)).map_err(|e| e.to_string())?;
            let fade = CrossFade::new(Arc::clone(&data)).map_err(|e| e.to_string())?;
            let bones = skel_bone_control::enable_bone_control(&data).map_err(|e| e.to_string())?;
            Ok(Self {
                name,
                crowd: vec![controller.clone(), controller.clone()],
                controller,
                groups,
                blend,
                fade,
                skeletons: bones.skeletons().to_vec(),
                hook: bones.pose_hook(),
                bones: Some(bones),
                data,
                sane: true,
            })
        };
        match build() {
            Ok(rig) => rig,
            Err(e) => panic!("rig {name} does not build: {e}"),
        }
    }

    fn clips(&self) -> usize {
        self.data.clips.len()
    }
}

/// Every rig, and a skeleton of another asset whose bones every rig must refuse.
pub struct World {
    /// The code rig, then the fixture rig when the fixture is available.
    pub rigs: Vec<Rig>,
    foreign: BoneControlAsset,
}

impl World {
    /// A fresh world: nothing shared with any earlier one (override maps are per asset).
    ///
    /// # Panics
    /// When the code rig is wrong.
    #[must_use]
    pub fn new() -> Self {
        let code = match code_rig() {
            Ok(d) => Arc::new(d),
            Err(e) => panic!("the code rig is invalid: {e}"),
        };
        let foreign = match skel_bone_control::enable_bone_control(&code) {
            Ok(b) => b,
            Err(e) => panic!("bone control refused the code rig: {e}"),
        };
        let mut rigs = vec![Rig::new("code", code)];
        if let Some(fixture) = fixture_rig() {
            rigs.push(Rig::new("fixture", fixture));
        }
        Self { rigs, foreign }
    }

    /// Runs `steps`, checking every invariant after each.
    pub fn run(&mut self, steps: &[Step]) {
        let mut sink = CheckSink::default();
        for (i, step) in steps.iter().enumerate() {
            let r = usize::from(step.rig) % self.rigs.len();
            sink.reset();
            let foreign = &self.foreign;
            let rig = &mut self.rigs[r];
            apply(rig, foreign, i, &step.op, &mut sink);
            check_rig(rig, i, &step.op, &sink);
        }
    }
}

impl Default for World {
    fn default() -> Self {
        Self::new()
    }
}

/// Decodes steps from raw bytes and runs them on a fresh [`World`].
pub fn run_bytes(bytes: &[u8]) {
    let u = arbitrary::Unstructured::new(bytes);
    if let Ok(steps) = Vec::<Step>::arbitrary_take_rest(u) {
        World::new().run(&steps);
    }
}

fn apply(rig: &mut Rig, foreign: &BoneControlAsset, i: usize, op: &Op, sink: &mut CheckSink) {
    match op {
        Op::Controller(c) => controller_op(rig, i, op, c, sink),
        Op::Group(g, gop) => {
            let name = rig.name;
            let groups = rig.groups.len();
            if let Some(group) = rig.groups.get_mut(g.pick(groups)) {
                group_op(group, &rig.hook, gop, sink, |what| fail(name, i, op, what));
            }
        }
        Op::Blend(b) => blend_op(rig, i, op, b, sink),
        Op::Fade(f) => fade_op(rig, i, op, f, sink),
        Op::Bone(s, b, bop) => {
            let Some(skeleton) = rig.skeletons.get(s.pick(rig.skeletons.len())) else {
                return;
            };
            let skeleton = Arc::clone(skeleton);
            let bone = b.pick(skeleton.bone_count());
            let expect_out_of_range = bone >= skeleton.bone_count();
            bone_op(rig, &skeleton, bone, expect_out_of_range, bop, sink, i, op);
        }
        Op::ForeignBone(b, bop) => {
            let Some(skeleton) = rig.skeletons.first().map(Arc::clone) else {
                return;
            };
            let Some(theirs) = foreign.skeletons().first() else {
                return;
            };
            let Some(bone) = theirs.bones().get(b.pick(theirs.bone_count())) else {
                return;
            };
            bone_op(rig, &skeleton, bone, true, bop, sink, i, op);
        }
        Op::DropBoneControl => rig.bones = None,
        Op::TickAll(dt, sinks) => {
            let mut sinks: Vec<CheckSink> = (0..usize::from(*sinks % 4))
                .map(|_| CheckSink::default())
                .collect();
            let before: Vec<f32> = rig.crowd.iter().map(|c| c.time).collect();
            match tick_all(&mut rig.crowd, dt.get(), &mut sinks) {
                Ok(()) => {
                    for (c, s) in rig.crowd.iter().zip(&sinks) {
                        check_time(c.time, "crowd controller", |w| fail(rig.name, i, op, w));
                        if rig.sane
                            && let Some(bad) = &s.non_finite
                        {
                            fail(rig.name, i, op, format!("tick_all produced {bad}"));
                        }
                    }
                }
                Err(e) => {
                    expect_kind(matches!(e, AnimError::LengthMismatch { .. }), &e, || {
                        fail(rig.name, i, op, "tick_all with the wrong sink count")
                    });
                    let after: Vec<f32> = rig.crowd.iter().map(|c| c.time).collect();
                    if before != after || sinks.iter().any(|s| s.calls > 0) {
                        fail(rig.name, i, op, "a failed tick_all ticked something");
                    }
                }
            }
        }
    }
}

fn check_time(t: f32, what: &str, fail: impl FnOnce(String)) {
    if !t.is_finite() {
        fail(format!("{what} time is {t} after a tick"));
    }
}

fn expect_kind<E: std::fmt::Display>(ok: bool, e: &E, fail: impl FnOnce()) {
    // Formatting an error must never panic.
    let text = e.to_string();
    if !ok {
        eprintln!("unexpected error kind: {text}");
        fail();
    }
}

fn controller_op(rig: &mut Rig, i: usize, op: &Op, c: &ControllerOp, sink: &mut CheckSink) {
    let clips = rig.clips();
    let ctl = &mut rig.controller;
    match c {
        ControllerOp::Tick(dt) => {
            let playing = ctl.playing;
            ctl.tick(dt.get(), sink);
            // A paused controller leaves its public `time` as the caller wrote it.
            if !playing {
                return;
            }
            check_time(ctl.time, "controller", |w| fail(rig.name, i, op, w));
            let duration = ctl.duration();
            if ctl.time < 0.0 || ctl.time > duration.max(0.0) {
                fail(
                    rig.name,
                    i,
                    op,
                    format!("controller time {} outside [0, {duration}]", ctl.time),
                );
            }
        }
        ControllerOp::SetClip(clip) => {
            let clip = clip.map(|c| c.pick(clips));
            let before = ctl.clip();
            match ctl.set_clip(clip) {
                Ok(()) => {}
                Err(e) => {
                    expect_kind(
                        matches!(e, AnimError::NoSuchClip { .. })
                            && clip.is_some_and(|c| c >= clips),
                        &e,
                        || fail(rig.name, i, op, "set_clip error"),
                    );
                    if ctl.clip() != before {
                        fail(rig.name, i, op, "a failed set_clip changed the clip");
                    }
                }
            }
        }
        ControllerOp::SetTime(t) => ctl.time = t.get(),
        ControllerOp::SetSpeed(s) => ctl.speed_ratio = s.get(),
        ControllerOp::SetPlaying(p) => ctl.playing = *p,
        ControllerOp::SetLooping(l) => ctl.looping = *l,
        ControllerOp::EvaluateAt(clip, t) => {
            let clip = clip.map(|c| c.pick(clips));
            match ctl.evaluate_at(clip, t.get(), sink) {
                // NaN and infinite times clamp to the first or last key: the pose stays finite.
                Ok(()) => {}
                Err(e) => {
                    expect_kind(
                        matches!(e, AnimError::NoSuchClip { .. })
                            && clip.is_some_and(|c| c >= clips),
                        &e,
                        || fail(rig.name, i, op, "evaluate_at error"),
                    );
                    if sink.calls > 0 {
                        fail(rig.name, i, op, "a failed evaluate_at wrote to the sink");
                    }
                }
            }
        }
        ControllerOp::InstallHook => match &rig.bones {
            Some(bones) => {
                if let Err(e) = bones.install(ctl) {
                    fail(
                        rig.name,
                        i,
                        op,
                        format!("install on the asset's own controller: {e}"),
                    );
                }
            }
            None => ctl.set_pose_hook(Some(Arc::clone(&rig.hook))),
        },
        ControllerOp::RemoveHook => ctl.set_pose_hook(None),
    }
}

/// Applies a clock call; `Err` only from `set_range`, with the clock unchanged.
fn clock_op(clock: &mut PlaybackClock, op: &ClockOp) -> Result<(), AnimError> {
    match op {
        ClockOp::Play => clock.play(),
        ClockOp::Pause => clock.pause(),
        ClockOp::Stop => clock.stop(),
        ClockOp::Restart => clock.restart(),
        ClockOp::Seek(t) => clock.seek(t.get()),
        ClockOp::GoToFrame(f, fps) => clock.go_to_frame(f.get(), fps.get()),
        ClockOp::Speed(s) => clock.set_speed_ratio(s.get()),
        ClockOp::Looping(l) => clock.set_looping(*l),
        ClockOp::Range(from, to) => {
            let before = *clock;
            if let Err(e) = clock.set_range(from.get(), to.get()) {
                if *clock != before {
                    panic!("a failed set_range({from:?}, {to:?}) changed the clock: {e}");
                }
                let valid =
                    from.get().is_finite() && to.get().is_finite() && from.get() <= to.get();
                if valid || !matches!(e, AnimError::BadPlaybackRange { .. }) {
                    panic!("set_range({from:?}, {to:?}) refused a valid range: {e}");
                }
                let _ = e.to_string();
                return Err(e);
            }
        }
        ClockOp::Advance(dt) => clock.advance(dt.get()),
    }
    Ok(())
}

fn group_op(
    group: &mut AnimationGroup,
    hook: &Arc<dyn PoseHook>,
    op: &GroupOp,
    sink: &mut CheckSink,
    fail: impl FnOnce(String),
) {
    match op {
        // The group's shortcuts forward to its clock; `clock_mut` covers the rest.
        GroupOp::Clock(ClockOp::Play) => group.play(),
        GroupOp::Clock(ClockOp::Pause) => group.pause(),
        GroupOp::Clock(ClockOp::Stop) => group.stop(),
        GroupOp::Clock(ClockOp::Restart) => group.restart(),
        GroupOp::Clock(ClockOp::Seek(t)) => group.seek(t.get()),
        GroupOp::Clock(ClockOp::GoToFrame(f, fps)) => group.go_to_frame(f.get(), fps.get()),
        GroupOp::Clock(ClockOp::Speed(s)) => group.set_speed_ratio(s.get()),
        GroupOp::Clock(ClockOp::Looping(l)) => group.set_looping(*l),
        GroupOp::Clock(ClockOp::Range(from, to)) => {
            let before = *group.clock();
            if let Err(e) = group.set_range(from.get(), to.get()) {
                let _ = e.to_string();
                if *group.clock() != before {
                    fail(format!("a failed set_range changed the group's clock: {e}"));
                }
            }
        }
        GroupOp::Clock(c @ ClockOp::Advance(_)) => {
            let _ = clock_op(group.clock_mut(), c);
        }
        GroupOp::Tick(dt) => group.tick(dt.get(), sink),
        GroupOp::Evaluate => group.evaluate(sink),
        GroupOp::Hook(on) => group.set_pose_hook(on.then(|| Arc::clone(hook))),
    }
}

fn blend_op(rig: &mut Rig, i: usize, op: &Op, b: &BlendOp, sink: &mut CheckSink) {
    let clips = rig.clips();
    let blend = &mut rig.blend;
    let layers = blend.layers().len();
    match b {
        BlendOp::AddLayer(clip, w) => {
            let clip = clip.pick(clips);
            if let Err(e) = blend.add_layer(clip, w.get()) {
                expect_kind(
                    matches!(e, AnimError::NoSuchClip { .. }) && clip >= clips,
                    &e,
                    || fail(rig.name, i, op, "add_layer error"),
                );
                if blend.layers().len() != layers {
                    fail(rig.name, i, op, "a failed add_layer added a layer");
                }
            }
        }
        BlendOp::RemoveLayer(l) => {
            let l = l.pick(layers);
            if let Err(e) = blend.remove_layer(l) {
                expect_kind(
                    matches!(e, AnimError::NoSuchLayer { .. }) && l >= layers,
                    &e,
                    || fail(rig.name, i, op, "remove_layer error"),
                );
                if blend.layers().len() != layers {
                    fail(rig.name, i, op, "a failed remove_layer removed a layer");
                }
            }
        }
        BlendOp::SetWeight(l, w) => {
            let l = l.pick(layers);
            let before: Vec<f32> = blend.layers().iter().map(|x| x.weight()).collect();
            if let Err(e) = blend.set_weight(l, w.get()) {
                expect_kind(
                    matches!(e, AnimError::NoSuchLayer { .. }) && l >= layers,
                    &e,
                    || fail(rig.name, i, op, "set_weight error"),
                );
                let after: Vec<f32> = blend.layers().iter().map(|x| x.weight()).collect();
                if before != after {
                    fail(rig.name, i, op, "a failed set_weight changed a weight");
                }
            }
        }
        BlendOp::LayerClock(l, c) => {
            if let Some(layer) = blend.layers_mut().get_mut(l.pick(layers)) {
                let _ = clock_op(layer.clock_mut(), c);
            }
        }
        BlendOp::Capture => blend.capture_snapshot(),
        BlendOp::SnapshotWeight(w) => blend.set_snapshot_weight(w.get()),
        BlendOp::ClearSnapshot => blend.clear_snapshot(),
        BlendOp::Tick(dt) => blend.tick(dt.get(), sink),
        BlendOp::Evaluate => blend.evaluate(sink),
        BlendOp::Hook(on) => blend.set_pose_hook(on.then(|| Arc::clone(&rig.hook))),
    }
}

fn fade_op(rig: &mut Rig, i: usize, op: &Op, f: &FadeOp, sink: &mut CheckSink) {
    let clips = rig.clips();
    let fade = &mut rig.fade;
    match f {
        FadeOp::Play(c) => {
            let c = c.pick(clips);
            if let Err(e) = fade.play(c) {
                expect_kind(
                    matches!(e, AnimError::NoSuchClip { .. }) && c >= clips,
                    &e,
                    || fail(rig.name, i, op, "play error"),
                );
            }
        }
        FadeOp::FadeTo(c, d) => {
            let c = c.pick(clips);
            let before = fade.fade_progress();
            if let Err(e) = fade.fade_to(c, d.get()) {
                expect_kind(
                    matches!(e, AnimError::NoSuchClip { .. }) && c >= clips,
                    &e,
                    || fail(rig.name, i, op, "fade_to error"),
                );
                if fade.fade_progress() != before {
                    fail(rig.name, i, op, "a failed fade_to changed the fade");
                }
            }
        }
        FadeOp::Tick(dt) => fade.tick(dt.get(), sink),
        FadeOp::LayerClock(l, c) => {
            let layers = fade.blend().layers().len();
            if let Some(layer) = fade.blend_mut().layers_mut().get_mut(l.pick(layers)) {
                let _ = clock_op(layer.clock_mut(), c);
            }
        }
    }
}

/// Every bone's override state on every handle of the rig (they share one map).
fn override_snapshot(rig: &Rig) -> Vec<String> {
    rig.skeletons
        .iter()
        .flat_map(|s| (0..s.bone_count()).map(move |b| format!("{:?}", s.bone_override(b))))
        .collect()
}

#[expect(
    clippy::too_many_arguments,
    reason = "one dispatch helper of the harness"
)]
fn bone_op<K: BoneKey + Copy + std::fmt::Debug>(
    rig: &mut Rig,
    skeleton: &Skeleton,
    bone: K,
    expect_bad_bone: bool,
    op: &BoneOp,
    sink: &mut CheckSink,
    i: usize,
    whole: &Op,
) {
    let before = override_snapshot(rig);
    let result: Result<(), BoneControlError> = match op {
        BoneOp::Position(p) => {
            let p = floats(*p);
            let r = skeleton.set_bone_position(bone, p, sink);
            if r.is_ok() && !within(&p, MAX_TRANSLATION) {
                rig.sane = false;
            }
            r
        }
        BoneOp::Rotation(q) => skeleton.set_bone_rotation_quaternion(bone, floats(*q), sink),
        BoneOp::Scaling(s) => {
            let s = floats(*s);
            let r = skeleton.set_bone_scaling(bone, s, sink);
            if r.is_ok() && !moderate_scale(&s) {
                rig.sane = false;
            }
            r
        }
        BoneOp::Visible(v) => skeleton.set_bone_visible(bone, *v, sink),
        BoneOp::PoseDeferred(p, q) => {
            let p = floats(*p);
            let r = skeleton.set_bone_pose_deferred(bone, p, floats(*q));
            if r.is_ok() && !within(&p, MAX_TRANSLATION) {
                rig.sane = false;
            }
            r
        }
        BoneOp::WorldPoseDeferred(p, q) => {
            let p = floats(*p);
            let r = skeleton.set_bone_world_pose_deferred(bone, p, floats(*q));
            if r.is_ok() && !within(&p, MAX_TRANSLATION) {
                rig.sane = false;
            }
            r
        }
        BoneOp::Bake => {
            skeleton.bake_skeleton(sink);
            Ok(())
        }
        BoneOp::Clear => skeleton.clear_bone_override(bone, sink),
        BoneOp::Read => {
            let state = skeleton.bone_override(bone);
            let visible = skeleton.is_bone_visible(bone);
            if let (true, Ok(pose)) = (rig.sane, skeleton.bone_world_pose(bone))
                && pose
                    .position
                    .iter()
                    .chain(&pose.rotation)
                    .any(|v| !v.is_finite())
            {
                fail(rig.name, i, whole, format!("world pose {pose:?}"));
            }
            let world = skeleton.baked_world_matrix(bone);
            if let (true, Ok(m)) = (rig.sane, &world)
                && !m.is_finite()
            {
                fail(rig.name, i, whole, format!("baked world matrix {m:?}"));
            }
            match (state, visible, world) {
                (Ok(_), Ok(_), Ok(_)) => Ok(()),
                (Err(e), _, _) | (_, Err(e), _) | (_, _, Err(e)) => Err(e),
            }
        }
    };
    let Err(e) = result else {
        // Whatever finite values were accepted, the stored override must be finite: a
        // non-finite translation or rotation would turn every later pose into NaN.
        if let Ok(state) = skeleton.bone_override(bone) {
            let values = state
                .translation
                .iter()
                .flatten()
                .chain(state.rotation.iter().flatten())
                .chain(state.scaling.iter().flatten());
            if let Some(v) = values.into_iter().find(|v| !v.is_finite()) {
                fail(
                    rig.name,
                    i,
                    whole,
                    format!("an accepted call stored a non-finite override ({v}): {state:?}"),
                );
            }
        }
        if expect_bad_bone && !matches!(op, BoneOp::Bake) {
            fail(
                rig.name,
                i,
                whole,
                format!("bone {bone:?} is not a bone of this skeleton, yet the call succeeded"),
            );
        }
        return;
    };
    let bad_bone = matches!(
        e,
        BoneControlError::BoneOutOfRange { .. } | BoneControlError::ForeignBone { .. }
    );
    expect_kind(bad_bone == expect_bad_bone, &e, || {
        fail(rig.name, i, whole, "bone error of the wrong kind")
    });
    if override_snapshot(rig) != before {
        fail(
            rig.name,
            i,
            whole,
            format!("a failed call changed the overrides: {e}"),
        );
    }
    if sink.calls > 0 {
        fail(
            rig.name,
            i,
            whole,
            format!("a failed call uploaded bone matrices: {e}"),
        );
    }
}

/// The invariants that hold after every call.
fn check_rig(rig: &Rig, i: usize, op: &Op, sink: &CheckSink) {
    let fail = |what: String| fail(rig.name, i, op, what);
    if rig.sane
        && let Some(bad) = &sink.non_finite
    {
        fail(format!(
            "with finite, moderate inputs the sink received {bad}"
        ));
    }
    let check_clock = |what: &str, c: &PlaybackClock| {
        let t = c.time();
        if !(t.is_finite() && t >= c.from() && t <= c.to()) {
            fail(format!(
                "{what}: time {t} outside [{}, {}]",
                c.from(),
                c.to()
            ));
        }
        if !c.speed_ratio().is_finite() {
            fail(format!("{what}: speed ratio {}", c.speed_ratio()));
        }
    };
    for (g, group) in rig.groups.iter().enumerate() {
        check_clock(&format!("group {g}"), group.clock());
    }
    for (name, blend) in [("blend", &rig.blend), ("cross-fade", rig.fade.blend())] {
        for (l, layer) in blend.layers().iter().enumerate() {
            check_clock(&format!("{name} layer {l}"), layer.clock());
            let w = layer.weight();
            if !(w.is_finite() && w >= 0.0) {
                fail(format!("{name} layer {l} has weight {w}"));
            }
        }
        let w = blend.snapshot_weight();
        if !(w.is_finite() && w >= 0.0) {
            fail(format!("{name} snapshot weight {w}"));
        }
    }
    if let Some((clip, progress)) = rig.fade.fade_progress()
        && !(clip < rig.clips() && (0.0..=1.0).contains(&progress))
    {
        fail(format!("fade to clip {clip} at progress {progress}"));
    }
    if rig.sane {
        let players: [(&str, &skel_anim::PoseScratch); 3] = [
            ("controller", rig.controller.scratch()),
            ("blend", rig.blend.scratch()),
            ("cross-fade", rig.fade.blend().scratch()),
        ];
        let groups = rig.groups.iter().map(|g| ("group", g.player().scratch()));
        for (what, scratch) in players.into_iter().chain(groups) {
            let values = scratch
                .world
                .iter()
                .chain(scratch.bones.iter().flatten())
                .flat_map(Mat4::to_cols_array)
                .chain(scratch.morph_weights.iter().flatten().copied());
            if let Some(v) = values.into_iter().find(|v| !v.is_finite()) {
                fail(format!(
                    "{what}: a non-finite matrix or weight ({v}) from finite, moderate inputs"
                ));
            }
        }
    }
}
