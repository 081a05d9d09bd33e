//! Driving a `skel_anim::Player` with a graph: one layer group per graph layer, one member
//! layer per clip of each state, created once; every tick sets their weights, speeds and times
//! from the instance, and the player poses (with its events, root motion, IK and hooks).

use std::sync::Arc;

use skel_anim::{
    AnimationEvent, GroupDesc, IkJob, LayerDesc, LoopMode, Player, PoseSink, Reference,
};

use crate::graph::{Operation, Weight};
use crate::instance::{FROZEN, Item};
use crate::{Graph, GraphError, GraphInstance};

/// A character: a [`GraphInstance`] and the [`Player`] it drives.
///
/// [`GraphPlayer::new`] adds to the player, above the layers and groups it already has, one
/// layer group per graph layer (override or additive, with the layer's mask; the bottom graph
/// layer is an override group of weight 1 over the rest pose and any ungrouped layers) and in
/// each group one member layer per clip of each state, at weight 0. A state that plays the
/// clip of another state still has a layer of its own, so that a fade between two states that
/// share a clip plays it at two times.
///
/// Each [`tick`](Self::tick): the instance ticks; a layer whose fade was interrupted freezes
/// its group's contribution as it was on screen (the player's group snapshot: an override
/// layer's pose, an additive layer's change; then weighted as the frozen part of the fade), so
/// the fade continues from what was shown even when the new destination replays a clip that
/// was frozen; every member layer gets its clip's weight within the layer, its
/// time before the tick and the speed that moves it to its time after the tick (so the
/// player's events and root motion see the motion the graph made); each group gets the graph
/// layer's weight times the share of its clips against empty states; the player advances and
/// poses. Only the leader of a marker-synced blend fires events. Allocates nothing.
///
/// ```
/// use std::sync::Arc;
/// use skel_anim::*;
/// use skel_graph::{Graph, GraphPlayer};
///
/// // One joint: "Idle" holds x at 0, "Walking" moves it from 0 to 2 over one second.
/// let clip = |name: &str, x: f32| -> Result<Clip, AnimError> {
///     let s = Sampler::new(vec![0.0, 1.0], vec![0.0, 0.0, 0.0, x, 0.0, 0.0], Interpolation::Linear)?;
///     Ok(Clip::new(name, vec![s], vec![Channel { sampler: 0, node: 0, path: ChannelPath::Translation }]))
/// };
/// let rig = Rig::new(Arc::new(AnimationData {
///     nodes: vec![NodeRest::new("root", None), NodeRest::new("mesh", None)],
///     clips: vec![clip("Idle", 0.0)?, clip("Walking", 2.0)?],
///     skeletons: vec![SkeletonBinding::new(0, 1, vec![0], vec![])?],
///     morph_bindings: vec![],
///     handedness: Handedness::RightHanded,
/// }))?;
/// let graph = Graph::from_json(r#"{ "parameters": { "walk": {"type": "bool"} },
///   "layers": [ { "name": "base", "entry": "idle",
///     "states": { "idle": {"clip": "Idle"}, "walk": {"clip": "Walking"} },
///     "transitions": [ { "from": "idle", "to": "walk", "when": [{"param": "walk"}], "duration": 0.5 } ] } ] }"#,
///     &rig)?;
/// let mut character = GraphPlayer::new(&graph, Player::new(&rig))?;
/// let mut sink = RecordingSink::default();
/// character.instance_mut().set_bool("walk", true)?;
/// character.tick(0.25, &mut sink); // the fade starts: Idle still shows
/// character.tick(0.25, &mut sink); // half way: Walking at 0.25 s (x = 0.5) at weight ½
/// assert!((sink.bone_matrices[0][0].w_axis.x - 0.25).abs() < 1e-5);
/// assert_eq!(character.instance().state(0), Some("walk"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
pub struct GraphPlayer {
    instance: GraphInstance,
    player: Player,
    /// Per graph layer: the player's group and its first member layer.
    groups: Vec<(usize, usize)>,
    /// Per pose operation of every layer, in order: the player's IK job.
    jobs: Vec<usize>,
}

impl GraphPlayer {
    /// Takes `player` and builds in it the groups and member layers of `graph` (see the
    /// type's docs), with a [`GraphInstance`] at its entry states. Allocates; ticking does
    /// not. The player keeps what it had: ungrouped layers below the graph, root motion, IK,
    /// a pose hook.
    ///
    /// # Errors
    /// [`GraphError::Request`] when the player's clips are not the ones the graph was compiled
    /// against, [`GraphError::Player`] for what the player refuses (no group or layer is
    /// half-built: the player is dropped with the error).
    pub fn new(graph: &Arc<Graph>, mut player: Player) -> Result<Self, GraphError> {
        let data = player.data();
        if data.clips.len() != graph.clip_names.len()
            || data
                .clips
                .iter()
                .zip(&graph.clip_names)
                .any(|(c, n)| c.name != *n)
        {
            return Err(GraphError::Request(format!(
                "the player's clips {:?} are not the ones the graph was compiled against {:?}",
                data.clips
                    .iter()
                    .map(|c| c.name.as_str())
                    .collect::<Vec<_>>(),
                graph.clip_names
            )));
        }
        let mut groups = Vec::with_capacity(graph.layers.len());
        for gl in &graph.layers {
            let mut desc = GroupDesc::new().weight(gl.weight);
            if gl.additive {
                desc = desc.additive();
            }
            if let Some(mask) = &gl.mask {
                desc = desc.mask(mask.clone());
            }
            let group = player.add_group(desc)?;
            let first = player.layers().len();
            for st in &gl.states {
                // The graph moves ping-pong playheads itself: the layer only follows.
                let loop_mode = match st.loop_mode {
                    LoopMode::PingPong => LoopMode::Repeat,
                    m => m,
                };
                for m in &st.members {
                    let mut layer = LayerDesc::new(m.clip as usize)
                        .weight(0.0)
                        .speed(0.0)
                        .loop_mode(loop_mode)
                        .group(group);
                    if gl.additive {
                        layer = layer.additive(Reference::default());
                    }
                    player.add_layer(layer)?;
                }
            }
            groups.push((group, first));
        }
        if graph
            .layers
            .iter()
            .any(|gl| gl.transitions.iter().any(|t| t.inertialize))
        {
            // Inertialized switches happen inside ticks, which allocate nothing.
            player.reserve_inertialization();
        }
        let mut jobs = Vec::new();
        for op in graph.layers.iter().flat_map(|gl| &gl.operations) {
            jobs.push(player.add_ik(op.job)?);
        }
        let mut me = Self {
            instance: GraphInstance::new(graph),
            player,
            groups,
            jobs,
        };
        me.apply(0.0);
        Ok(me)
    }

    /// The graph's state for this character (parameters, states, clips).
    #[must_use]
    pub fn instance(&self) -> &GraphInstance {
        &self.instance
    }

    /// The instance, to set parameters and travel.
    pub fn instance_mut(&mut self) -> &mut GraphInstance {
        &mut self.instance
    }

    /// The player (bone matrices, world matrices, root motion).
    #[must_use]
    pub fn player(&self) -> &Player {
        &self.player
    }

    /// The player, for root motion, IK and hooks. Changing the graph's groups or member
    /// layers (their weights, clocks, order) is undone or confused by the next tick.
    pub fn player_mut(&mut self) -> &mut Player {
        &mut self.player
    }

    /// The player group of graph layer `layer`, and the index of its first member layer
    /// (member `i` of state `s` follows the members of the states declared before `s`).
    #[must_use]
    pub fn group_of(&self, layer: usize) -> Option<(usize, usize)> {
        self.groups.get(layer).copied()
    }

    /// Ticks the graph by `dt` seconds, then the player: its clocks and fades advance and,
    /// when visible, the pose goes to `sink`.
    pub fn tick(&mut self, dt: f32, sink: &mut dyn PoseSink) {
        self.instance.tick(dt);
        self.inertialize();
        self.apply(dt);
        self.player.advance(dt);
        self.settle();
        if self.player.visible() {
            self.player.evaluate(sink);
        }
    }

    /// [`tick`](Self::tick), calling `on_event` for each marker a clip's playhead passes
    /// (the leader's only, in a marker-synced blend).
    pub fn tick_with_events(
        &mut self,
        dt: f32,
        sink: &mut dyn PoseSink,
        on_event: &mut dyn FnMut(&AnimationEvent<'_>),
    ) {
        self.advance_with_events(dt, on_event);
        if self.player.visible() {
            self.player.evaluate(sink);
        }
    }

    /// The first half of [`tick_with_events`](Self::tick_with_events): the graph, the
    /// player's clocks and fades, the markers passed and the root-motion delta, without
    /// posing. A caller that needs the delta before the pose (IK targets in a frame moved by
    /// root motion) advances, then sets the targets, then calls the player's
    /// [`evaluate`](Player::evaluate).
    pub fn advance_with_events(&mut self, dt: f32, on_event: &mut dyn FnMut(&AnimationEvent<'_>)) {
        self.instance.tick(dt);
        self.inertialize();
        self.apply(dt);
        self.player.advance_with_events(dt, on_event);
        self.settle();
    }

    /// Binds ground `name` (the `"ground"` of the graph's foot placement) to `ground`: from
    /// the next pose the player places the feet on it ([`Player::set_foot_placement`]).
    /// Returns whether the graph places feet on a ground of that name (nothing changes
    /// otherwise). Allocates the placement's state the first time.
    pub fn set_ground(&mut self, name: &str, ground: Arc<dyn skel_anim::GroundQuery>) -> bool {
        let graph = Arc::clone(self.instance.graph());
        let Some((placement, _)) = graph
            .layers
            .iter()
            .filter_map(|l| l.foot.as_ref())
            .find(|(_, g)| g == name)
        else {
            return false;
        };
        match self.player.foot_placement_mut() {
            Some(job) => job.ground = ground,
            None => self
                .player
                .set_foot_placement(Some(skel_anim::FootPlacementJob::new(
                    placement.clone(),
                    ground,
                ))),
        }
        true
    }

    /// The name of the ground the graph's foot placement queries, if it places feet.
    #[must_use]
    pub fn ground_name(&self) -> Option<&str> {
        self.instance
            .graph()
            .layers
            .iter()
            .find_map(|l| l.foot.as_ref().map(|(_, g)| g.as_str()))
    }

    /// Sets the pose operations' targets, poles and weights from the parameters as they are
    /// now. A tick does it before the player advances; call it after changing a vec3
    /// parameter between advancing and posing (a target followed in the frame root motion
    /// moved the character to, as skel-bevy does) so the pose sees the new value.
    pub fn drive_operations(&mut self) {
        let graph = Arc::clone(self.instance.graph());
        drive_operations(&graph, &self.instance, &mut self.player, &self.jobs);
    }

    /// When a layer took an inertialized switch this tick, hands the player the pose on
    /// screen (its layers are still as the last tick set them) before the new weights go in:
    /// the player blends from it over the longest such blend time.
    fn inertialize(&mut self) {
        let longest = self
            .instance
            .runs()
            .iter()
            .filter_map(|r| r.inertialized)
            .fold(None, |m: Option<f64>, d| Some(m.map_or(d, |m| m.max(d))));
        if let Some(d) = longest {
            #[expect(clippy::cast_possible_truncation, reason = "a blend time in seconds")]
            let _ = self.player.inertialize(d as f32);
        }
    }

    /// Sets every member layer and group from the instance, before the player advances.
    fn apply(&mut self, dt: f32) {
        let Self {
            instance,
            player,
            groups,
            jobs,
        } = self;
        let graph = Arc::clone(instance.graph());
        drive_operations(&graph, instance, player, jobs);
        for ((run, gl), &(group, first)) in
            instance.runs().iter().zip(&graph.layers).zip(groups.iter())
        {
            if run.interrupted {
                // The pose as the last tick left it: no member has moved yet.
                let _ = player.capture_group_snapshot(group);
            }
            let layers = &mut player.layers_mut()[first..first + gl.slot_count];
            for layer in layers.iter_mut() {
                layer.set_weight(0.0);
                layer.clock_mut().set_speed_ratio(0.0);
                layer.set_fires_events(false);
            }
            let mut frozen = 0.0;
            for it in &run.out {
                if it.slot == FROZEN {
                    frozen += it.weight;
                    continue;
                }
                drive(&mut layers[it.slot as usize], it, dt);
            }
            let _ = player.set_group_snapshot_weight(group, frozen);
            let _ = player.set_group_weight(group, run.weight * run.share);
        }
    }

    /// Puts every playing member exactly at the graph's time (the player's clock summed the
    /// same step in another order).
    fn settle(&mut self) {
        let Self {
            instance,
            player,
            groups,
            ..
        } = self;
        for (run, &(_, first)) in instance.runs().iter().zip(groups.iter()) {
            for it in run.out.iter().filter(|i| i.slot != FROZEN) {
                player.layers_mut()[first + it.slot as usize]
                    .clock_mut()
                    .seek(it.time);
            }
        }
    }
}

/// Every operation's job set from the parameters.
fn drive_operations(graph: &Graph, instance: &GraphInstance, player: &mut Player, jobs: &[usize]) {
    let operations = graph.layers.iter().flat_map(|gl| &gl.operations);
    for (op, &job) in operations.zip(jobs.iter()) {
        if let Ok(job) = player.ik_target_mut(job) {
            drive_ik(job, op, instance);
        }
    }
}

/// Sets an IK job's targets, poles and weights from the parameters (targets and poles are in
/// the character's world space, as the player takes them).
fn drive_ik(job: &mut IkJob, op: &Operation, instance: &GraphInstance) {
    for goal in &op.goals {
        let target = instance.vector(goal.target);
        let pole = goal.pole.map(|p| instance.vector(p));
        #[expect(clippy::cast_possible_truncation, reason = "weights are f32")]
        let weight = match goal.weight {
            Weight::Constant(w) => w,
            Weight::Param(p) => instance.number(p) as f32,
        };
        match job {
            IkJob::TwoBone { ik, .. } => {
                ik.target = target;
                ik.pole = pole.unwrap_or(ik.pole);
                ik.weight = weight;
            }
            IkJob::Aim { ik, .. } => {
                ik.target = target;
                ik.pole = pole.unwrap_or(ik.pole);
                ik.weight = weight;
            }
            IkJob::Chain { ik, .. } => {
                ik.target = target;
                ik.pole = pole.or(ik.pole);
                ik.weight = weight;
            }
            IkJob::LookAt { ik, .. } => {
                ik.target = target;
                ik.weight = weight;
            }
            IkJob::FullBody { ik, .. } => {
                if let Some(g) = ik.goals.get_mut(goal.slot) {
                    g.target = target;
                    g.pole = pole.unwrap_or(g.pole);
                    g.weight = weight;
                }
            }
        }
    }
}

/// Sets member layer `layer` to play `it` over the next `dt` seconds: from its time before
/// the tick, at the speed that covers the graph's step.
fn drive(layer: &mut skel_anim::Layer, it: &Item, dt: f32) {
    layer.set_weight(it.weight);
    layer.set_fires_events(it.fires);
    let clock = layer.clock_mut();
    clock.seek(it.prev_time);
    #[expect(clippy::cast_possible_truncation, reason = "a speed")]
    let speed = if dt > 0.0 && it.step != 0.0 {
        (it.step / f64::from(dt)) as f32
    } else {
        0.0
    };
    clock.set_speed_ratio(speed);
    if speed != 0.0 && !clock.is_playing() {
        clock.play();
    }
}
