//! `--graph FILE.json` with `--set T:NAME=VALUE` and `--travel T:LAYER=STATE`: an animation
//! graph (`skel::graph`) chooses what plays, and parameter changes and travels are scheduled
//! on the timeline. Shared by `skel play`, `skel pose`, `skel render` and `skel view`.

use std::path::PathBuf;
use std::sync::Arc;

use clap::Args;
use skel::anim::{AnimationData, Player, Rig, RootMotion};
use skel::graph::{Graph, GraphPlayer};

use crate::layer_file::{NameOrIndex, node_index};

/// The graph arguments.
#[derive(Debug, Clone, Default, PartialEq, Args)]
pub struct GraphArgs {
    /// Drive the character with an animation graph (see `graphs/` and `docs/graph.md`):
    /// parameters choose states, blend spaces and fades; the graph decides what plays.
    #[arg(long, value_name = "FILE.json")]
    pub graph: Option<PathBuf>,
    /// Set a graph parameter before the first tick starting at or after T seconds:
    /// `T:NAME=VALUE` (`0.5:speed=3`, `1:waving=true`), or `T:NAME` to fire a trigger.
    /// Repeatable.
    #[arg(long = "set", value_name = "T:NAME=VALUE", requires = "graph")]
    pub set: Vec<String>,
    /// Travel a graph layer to a state along the cheapest chain of transitions (teleporting
    /// when there is none) before the first tick starting at or after T seconds:
    /// `T:LAYER=STATE`. Repeatable.
    #[arg(long = "travel", value_name = "T:LAYER=STATE", requires = "graph")]
    pub travel: Vec<String>,
    /// Extract the root motion of NODE (a name, or `#index`) on the ground plane with yaw, as
    /// a layers file's `"root_motion": {"node": NODE}` does: the node animates in place and
    /// `skel play` reports how far the character moved each frame.
    #[arg(long = "root-motion", value_name = "NODE", requires = "graph")]
    pub root_motion: Option<String>,
    /// The ground the graph's foot placement stands on: `plane:NX,NY,NZ,D` (the plane
    /// N·p + D = 0, binding the graph's ground "plane") or `mesh:FILE.glb` (the triangles of
    /// that file's meshes at rest, binding "mesh"), in the character's world space. Without a
    /// graph, or with one that places no feet, the feet and pelvis are the ones the humanoid
    /// map finds (an asset without humanoid legs is refused).
    #[arg(long, value_name = "plane:NX,NY,NZ,D|mesh:FILE.glb")]
    pub terrain: Option<String>,
}

/// A scheduled change.
#[derive(Debug, Clone, PartialEq)]
enum Action {
    /// A parameter set from text (`None`: a trigger fired).
    Set(String, Option<String>),
    /// A layer sent to a state.
    Travel(String, String),
}

/// A command-line value that cannot be used, naming the item as written.
#[derive(Debug, thiserror::Error)]
#[error("{flag} {item:?}: {reason}")]
pub struct ScheduleError {
    flag: &'static str,
    item: String,
    reason: &'static str,
}

/// `T:REST` split into a finite, non-negative time and the rest.
fn timed<'a>(flag: &'static str, item: &'a str) -> Result<(f64, &'a str), ScheduleError> {
    let err = |reason| ScheduleError {
        flag,
        item: item.to_owned(),
        reason,
    };
    let (t, rest) = item
        .split_once(':')
        .ok_or_else(|| err("expected T:… (a time in seconds, a colon)"))?;
    let t: f64 = t
        .trim()
        .parse()
        .map_err(|_| err("the time before ':' is not a number"))?;
    if !(t.is_finite() && t >= 0.0) {
        return Err(err("the time must be a finite number of seconds from 0 up"));
    }
    if rest.trim().is_empty() {
        return Err(err("nothing after the time"));
    }
    Ok((t, rest.trim()))
}

/// A graph player built from `--graph` with its schedule of `--set` and `--travel`.
#[derive(Debug, Clone)]
pub struct GraphDriver {
    /// The graph and the player it drives.
    pub player: GraphPlayer,
    /// Actions by time (command-line order within a time), and how many have been applied.
    schedule: Vec<(f64, Action)>,
    applied: usize,
}

impl GraphArgs {
    /// The clips the graph file plays mirrored (`"mirror": true`), read from the file; none
    /// without `--graph`.
    ///
    /// # Errors
    /// An unreadable or invalid graph file.
    pub fn mirrored_clips(&self) -> Result<Vec<String>, Box<dyn std::error::Error>> {
        let Some(path) = &self.graph else {
            return Ok(Vec::new());
        };
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read graph {}: {e}", path.display()))?;
        let def = skel::graph::GraphDef::from_json(&text)
            .map_err(|e| format!("graph {}: {e}", path.display()))?;
        Ok(def
            .mirrored_clips()
            .into_iter()
            .map(str::to_owned)
            .collect())
    }

    /// What the facade's loader bakes for `--mirror` (`mirror`) and for this graph: every
    /// clip replaced by its mirror with `--mirror`, every clip's mirror appended when the
    /// graph plays some mirrored (an unreadable graph file is reported when the graph is
    /// built).
    #[must_use]
    pub fn clip_mirroring(&self, mirror: bool) -> skel::ClipMirroring {
        if mirror {
            skel::ClipMirroring::Replace
        } else if self.mirrored_clips().is_ok_and(|c| !c.is_empty()) {
            skel::ClipMirroring::Append
        } else {
            skel::ClipMirroring::None
        }
    }

    /// Bakes into `data` the mirrored clips the graph plays (`"<clip>.mirror"`, pairs from
    /// the joint names, sided morph targets swapped by the names in `morph_names`, the
    /// asset's), before the rig it compiles against is built. Clips the graph does not know
    /// are left for its compilation to report.
    ///
    /// # Errors
    /// An unreadable graph file; no left/right pairs in the joint names.
    pub fn bake_mirrored_clips(
        &self,
        data: &mut AnimationData,
        morph_names: &[skel::gltf::MorphNames],
    ) -> Result<(), Box<dyn std::error::Error>> {
        let wanted: Vec<usize> = self
            .mirrored_clips()?
            .iter()
            .filter(|name| {
                let baked = format!("{name}{}", skel::anim::MIRROR_SUFFIX);
                !data.clips.iter().any(|c| c.name == baked)
            })
            .filter_map(|name| data.clips.iter().position(|c| c.name == *name))
            .collect();
        if !wanted.is_empty() {
            let map = skel::anim::MirrorMap::from_names(data)
                .map_err(|e| format!("the graph mirrors clips: {e}"))?
                .with_morph_target_names(skel::morph_target_names(data, morph_names));
            data.append_mirrored_clips(&map, &wanted)?;
        }
        Ok(())
    }

    /// Parses the schedule, then compiles the graph against `rig` and builds its player, with
    /// `motion` (a VRM's springs and node constraints) attached: they run after the graph and
    /// IK, before skinning. `None` without `--graph`.
    ///
    /// # Errors
    /// A malformed `--set` / `--travel`, an unreadable or invalid graph file (its error names
    /// the JSON path), an unknown parameter, layer or state (found before the first tick).
    pub fn driver(
        &self,
        rig: &Arc<Rig>,
        motion: &skel::SecondaryMotion,
    ) -> Result<Option<GraphDriver>, Box<dyn std::error::Error>> {
        let Some(path) = &self.graph else {
            return Ok(None);
        };
        let mut schedule = Vec::new();
        for item in &self.set {
            let (t, rest) = timed("--set", item)?;
            let action = match rest.split_once('=') {
                Some((name, value)) => {
                    Action::Set(name.trim().to_owned(), Some(value.trim().to_owned()))
                }
                None => Action::Set(rest.to_owned(), None),
            };
            schedule.push((t, action));
        }
        for item in &self.travel {
            let (t, rest) = timed("--travel", item)?;
            let (layer, state) = rest.split_once('=').ok_or_else(|| ScheduleError {
                flag: "--travel",
                item: item.clone(),
                reason: "expected T:LAYER=STATE",
            })?;
            schedule.push((t, Action::Travel(layer.trim().into(), state.trim().into())));
        }
        // Stable: within one time, the order of the command line (sets before travels).
        schedule.sort_by(|a, b| a.0.total_cmp(&b.0));
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read graph {}: {e}", path.display()))?;
        let graph =
            Graph::from_json(&text, rig).map_err(|e| format!("graph {}: {e}", path.display()))?;
        let mut inner = Player::new(rig);
        motion.attach(&mut inner)?;
        let mut player = GraphPlayer::new(&graph, inner)?;
        if let Some(spec) = &self.terrain {
            let terrain = crate::terrain::Terrain::parse(spec, rig.data().handedness)?;
            let (name, ground) = (terrain.name(), terrain.ground());
            if let Some(other) = player.ground_name().map(str::to_owned) {
                if !player.set_ground(name, ground) {
                    return Err(format!(
                        "--terrain {spec:?} binds the ground \"{name}\"; the graph's foot \
                         placement stands on \"{other}\""
                    )
                    .into());
                }
            } else {
                // A graph that places no feet: the humanoid's.
                let job = crate::terrain::humanoid_feet(rig, ground)?;
                player.player_mut().set_foot_placement(Some(job));
            }
        }
        if let Some(node) = &self.root_motion {
            let config =
                ground_root_motion(rig.data(), node).map_err(|e| format!("--root-motion: {e}"))?;
            player.player_mut().set_root_motion(Some(config))?;
        }
        // Every name is checked now, on a copy, so that a typo fails before any output.
        let mut check = player.instance().clone();
        for (_, action) in &schedule {
            apply(&mut check, action)?;
        }
        Ok(Some(GraphDriver {
            player,
            schedule,
            applied: 0,
        }))
    }
}

fn apply(
    instance: &mut skel::graph::GraphInstance,
    action: &Action,
) -> Result<(), skel::graph::GraphError> {
    match action {
        Action::Set(name, value) => instance.set_from_text(name, value.as_deref()),
        Action::Travel(layer, state) => instance.travel(layer, state),
    }
}

impl GraphDriver {
    /// Applies every scheduled action due at a tick starting at `t` seconds (those at or
    /// before `t` not yet applied).
    ///
    /// # Errors
    /// None after [`GraphArgs::driver`] checked the names; kept for what the graph reports.
    pub fn apply_due(&mut self, t: f64) -> Result<(), skel::graph::GraphError> {
        while let Some((at, action)) = self.schedule.get(self.applied) {
            if *at > t + 1e-9 {
                break;
            }
            apply(self.player.instance_mut(), action)?;
            self.applied += 1;
        }
        Ok(())
    }

    /// The time of the last scheduled change, if any.
    #[must_use]
    pub fn last_scheduled(&self) -> Option<f64> {
        self.schedule.last().map(|(t, _)| *t)
    }

    /// The graph layer that player layer `layer` belongs to (its events' layer).
    #[must_use]
    pub fn graph_layer_of(&self, layer: usize) -> Option<usize> {
        let count = self.player.instance().graph().layer_count();
        (0..count).rev().find(|&l| {
            self.player
                .group_of(l)
                .is_some_and(|(_, first)| first <= layer)
        })
    }

    /// One line of the graph's state: each layer's state (and fade), then the parameters.
    #[must_use]
    pub fn summary(&self) -> String {
        let inst = self.player.instance();
        let graph = inst.graph();
        let mut parts = Vec::new();
        for l in 0..graph.layer_count() {
            let name = graph.layer_name(l).unwrap_or("?");
            let mut s = format!("{name}: {}", inst.state(l).unwrap_or("?"));
            if let Some(t) = inst.transition(l) {
                s += &format!(" ({} -> {} {:.0}%)", t.from, t.to, 100.0 * t.progress);
            }
            parts.push(s);
        }
        let params: Vec<String> = graph
            .params()
            .map(|(id, name, _)| match inst.get(id) {
                Some(v) => format!("{name}={}", param_text(v)),
                None => format!("{name}=?"),
            })
            .collect();
        format!("{} | {}", parts.join("; "), params.join(" "))
    }
}

/// A parameter's value as `--set` writes it.
fn param_text(v: skel::graph::ParamValue) -> String {
    use skel::graph::ParamValue as V;
    match v {
        V::Float(x) => format!("{x:.2}"),
        V::Int(i) => i.to_string(),
        V::Bool(b) => b.to_string(),
        V::Trigger(set) => if set { "set" } else { "-" }.to_owned(),
        V::Vec3(v) => format!("{:.2},{:.2},{:.2}", v.x, v.y, v.z),
    }
}

/// Root motion of `node` (a name, or `#index`) on the ground plane with yaw: what a layers
/// file's `"root_motion": {"node": …}` means with its defaults.
fn ground_root_motion(data: &AnimationData, node: &str) -> Result<RootMotion, String> {
    Ok(RootMotion {
        node: node_index(data, &NameOrIndex::Name(node.to_owned()))?,
        translation: [true, false, true],
        yaw: true,
    })
}
