//! `skel view --graph`: an animation graph drives the character live. ↑ / ↓ step the first
//! float parameter, → / ← the second, Space fires the first trigger, 1–9 toggle the bool
//! parameters in declared order; `--set` and `--travel` run on the viewer's clock. Tab and a
//! Shift (or right-button) drag move the IK and look-at targets ([`targets`](super::targets)).
//! The title bar and stdout show each layer's state, every parameter and the selected target.

use std::sync::Arc;

use skel::AssetContainer;
use skel::graph::{ParamKind, ParamValue};
use winit::keyboard::{Key, NamedKey};

use super::targets::Targets;
use crate::graph_args::{GraphArgs, GraphDriver};

/// How far one arrow key moves a float parameter.
const STEP: f32 = 0.5;

/// The graph, its clock and the parameters the keys reach.
#[derive(Debug)]
pub(super) struct LiveGraph {
    driver: GraphDriver,
    /// Seconds since the viewer started (what `--set` times refer to).
    time: f64,
    floats: Vec<String>,
    trigger: Option<String>,
    bools: Vec<String>,
    /// The targets the mouse moves.
    targets: Targets,
}

impl LiveGraph {
    /// The graph of `args` over the character's rig; `None` without `--graph`.
    pub(super) fn new(
        args: &GraphArgs,
        character: &AssetContainer,
    ) -> Result<Option<Self>, String> {
        let Some(driver) = args
            .driver(&Arc::clone(&character.rig), &character.secondary)
            .map_err(|e| e.to_string())?
        else {
            return Ok(None);
        };
        let graph = Arc::clone(driver.player.instance().graph());
        let named = |kind: ParamKind| -> Vec<String> {
            graph
                .params()
                .filter(|&(_, _, k)| k == kind)
                .map(|(_, name, _)| name.to_owned())
                .collect()
        };
        let mut floats = named(ParamKind::Float);
        floats.truncate(2);
        let mut bools = named(ParamKind::Bool);
        bools.truncate(9);
        Ok(Some(Self {
            driver,
            time: 0.0,
            floats,
            trigger: named(ParamKind::Trigger).into_iter().next(),
            bools,
            targets: Targets::new(&graph),
        }))
    }

    /// Handles a key the graph owns; `false` leaves it to the viewer.
    pub(super) fn key(&mut self, key: &Key) -> bool {
        let inst = self.driver.player.instance_mut();
        let step = |inst: &mut skel::graph::GraphInstance, name: Option<&String>, by: f32| {
            let Some(name) = name else { return };
            let Ok(id) = inst.param_id(name) else { return };
            if let Some(ParamValue::Float(v)) = inst.get(id) {
                let _ = inst.set(id, ParamValue::Float(v + by));
            }
        };
        match key.as_ref() {
            Key::Named(NamedKey::Tab) => match self.targets.cycle(inst) {
                Some(line) => println!("{line}"),
                None => return false,
            },
            Key::Named(NamedKey::ArrowUp) => step(inst, self.floats.first(), STEP),
            Key::Named(NamedKey::ArrowDown) => step(inst, self.floats.first(), -STEP),
            Key::Named(NamedKey::ArrowRight) => step(inst, self.floats.get(1), STEP),
            Key::Named(NamedKey::ArrowLeft) => step(inst, self.floats.get(1), -STEP),
            Key::Named(NamedKey::Space) => {
                if let Some(t) = &self.trigger {
                    let _ = inst.set_trigger(t);
                }
            }
            Key::Character(c) => {
                let Some(digit) = c.chars().next().and_then(|d| d.to_digit(10)) else {
                    return false;
                };
                let Some(name) = (digit as usize)
                    .checked_sub(1)
                    .and_then(|i| self.bools.get(i))
                else {
                    return false;
                };
                let Ok(id) = inst.param_id(name) else {
                    return false;
                };
                if let Some(ParamValue::Bool(b)) = inst.get(id) {
                    let _ = inst.set(id, ParamValue::Bool(!b));
                }
            }
            _ => return false,
        }
        true
    }

    /// The targets the mouse moves.
    pub(super) fn targets(&self) -> &Targets {
        &self.targets
    }

    /// Where the selected target is now (none without targets).
    pub(super) fn selected_target_at(&self) -> Option<glam::Vec3> {
        self.targets.selected_at(self.driver.player.instance())
    }

    /// The targets the mouse moves, to start and end a drag.
    pub(super) fn targets_mut(&mut self) -> &mut Targets {
        &mut self.targets
    }

    /// While a target drag is on, moves the selected target under `cursor` and prints its
    /// new place; `true` when it moved.
    pub(super) fn drag_target(
        &mut self,
        camera: &skel::render::Camera,
        cursor: glam::Vec2,
        size: glam::Vec2,
    ) -> bool {
        let inst = self.driver.player.instance_mut();
        match self.targets.drag(inst, camera, cursor, size) {
            Some(line) => {
                println!("{line}");
                true
            }
            None => false,
        }
    }

    /// Each layer's state, every parameter and the selected target, on one line.
    pub(super) fn summary(&self) -> String {
        match self.targets.selected() {
            Some(name) => format!(
                "{} | target {name} (Tab next, Shift+drag moves)",
                self.driver.summary()
            ),
            None => self.driver.summary(),
        }
    }
}

impl skel::Animate for LiveGraph {
    /// Applies the scheduled `--set` / `--travel` changes due at the time played so far, then
    /// advances the graph by `dt` seconds.
    fn animate(
        &mut self,
        dt: f32,
        sink: &mut dyn skel::anim::PoseSink,
        on_event: &mut dyn FnMut(&skel::anim::AnimationEvent<'_>),
    ) {
        // Names were checked when the graph was built.
        let _ = self.driver.apply_due(self.time);
        self.driver.player.tick_with_events(dt, sink, on_event);
        self.time += f64::from(dt);
    }

    fn player(&self) -> &skel::anim::Player {
        self.driver.player.player()
    }

    fn resolve_world_matrices(&mut self) {
        self.driver.player.player_mut().resolve_world_matrices();
    }

    fn foot_placement_mut(&mut self) -> Option<&mut skel::anim::FootPlacementJob> {
        self.driver.player.player_mut().foot_placement_mut()
    }
}
