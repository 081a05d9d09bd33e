//! The page's animation graph: a [`GraphPlayer`] drives the character, and the page gets one
//! control per graph parameter (a slider for a float, a number box for an int, a checkbox for
//! a bool, a button for a trigger). Controls are read once per frame, so no JavaScript
//! callback reaches into Rust; the current states (and fades) are shown on the page and in
//! `<body data-skel-state>`.

use std::sync::Arc;

use skel::anim::{Player, Rig};
use skel::graph::{Graph, GraphPlayer, ParamKind, ParamValue};
use wasm_bindgen::JsCast as _;

use crate::WebError;
use crate::page::Page;

/// The range of a float parameter's slider: the graph file gives none, and 0–5 covers the
/// speeds and blend weights of the graphs shipped with skel.
const FLOAT_RANGE: (f64, f64, f64) = (0.0, 5.0, 0.05);

/// One parameter's control.
struct Control {
    name: String,
    kind: ParamKind,
    input: web_sys::HtmlInputElement,
}

/// The graph, its player and the page's controls.
pub(crate) struct GraphControls {
    player: GraphPlayer,
    controls: Vec<Control>,
    state_line: Option<web_sys::Element>,
    /// The text last shown, so that the DOM is written only when it changes.
    shown: String,
}

impl GraphControls {
    /// Compiles `json` against `rig` and adds one control per parameter to `#controls`, but
    /// for the parameters named in `driven` (the page sets those itself: the slope scene's
    /// look-at target and weight), which get no control and are not overwritten.
    ///
    /// # Errors
    /// [`WebError::Graph`] for a graph that does not compile against the rig;
    /// [`WebError::Page`] when the page cannot make its controls.
    pub(crate) fn new(
        page: &Page,
        json: &str,
        rig: &Arc<Rig>,
        driven: &[&str],
    ) -> Result<Self, WebError> {
        let graph = Graph::from_json(json, rig).map_err(|e| WebError::Graph(e.to_string()))?;
        let player = GraphPlayer::new(&graph, Player::new(rig))
            .map_err(|e| WebError::Graph(e.to_string()))?;
        let document = page
            .window()
            .document()
            .ok_or(WebError::Page { what: "document" })?;
        let panel = document
            .get_element_by_id("controls")
            .ok_or(WebError::Page {
                what: "<div id=\"controls\">",
            })?;
        let no_control = || WebError::Page {
            what: "a parameter control",
        };
        let mut controls = Vec::new();
        for (id, name, kind) in graph.params() {
            if driven.contains(&name) {
                continue;
            }
            let value = player.instance().get(id);
            let label = document.create_element("label").map_err(|_| no_control())?;
            let input: web_sys::HtmlInputElement = document
                .create_element("input")
                .map_err(|_| no_control())?
                .dyn_into()
                .map_err(|_| no_control())?;
            input.set_id(&format!("param-{name}"));
            input.set_name(name);
            match kind {
                ParamKind::Float => {
                    input.set_type("range");
                    input.set_min(&FLOAT_RANGE.0.to_string());
                    input.set_max(&FLOAT_RANGE.1.to_string());
                    input.set_step(&FLOAT_RANGE.2.to_string());
                    if let Some(ParamValue::Float(v)) = value {
                        input.set_value_as_number(f64::from(v));
                    }
                }
                ParamKind::Int => {
                    input.set_type("number");
                    input.set_step("1");
                    if let Some(ParamValue::Int(v)) = value {
                        input.set_value_as_number(f64::from(v));
                    }
                }
                ParamKind::Bool => {
                    input.set_type("checkbox");
                    input.set_checked(matches!(value, Some(ParamValue::Bool(true))));
                }
                ParamKind::Vec3 => {
                    // Three numbers, "x,y,z", as `--set` takes them.
                    input.set_type("text");
                    if let Some(ParamValue::Vec3(v)) = value {
                        input.set_value(&format!("{},{},{}", v.x, v.y, v.z));
                    }
                }
                ParamKind::Trigger => {
                    input.set_type("button");
                    input.set_value(name);
                    // Marks the click; the next frame fires the trigger and clears the mark.
                    let _ = input.set_attribute("onclick", "this.dataset.fired = '1'");
                }
            }
            label.set_text_content(Some(&format!("{name} ")));
            label.append_child(&input).map_err(|_| no_control())?;
            panel.append_child(&label).map_err(|_| no_control())?;
            controls.push(Control {
                name: name.to_owned(),
                kind,
                input,
            });
        }
        Ok(Self {
            player,
            controls,
            state_line: document.get_element_by_id("graph-state"),
            shown: String::new(),
        })
    }

    /// Reads the controls into the parameters, before the facade's frame advances the graph
    /// ([`skel::Frame::advance`] over [`player_mut`](Self::player_mut)).
    ///
    /// # Errors
    /// [`WebError::Graph`] when a parameter is refused (the graph changed under the page).
    pub(crate) fn read_controls(&mut self) -> Result<(), WebError> {
        let refused = |e: skel::graph::GraphError| WebError::Graph(e.to_string());
        let params = self.player.instance_mut();
        for c in &self.controls {
            match c.kind {
                #[expect(clippy::cast_possible_truncation, reason = "a slider's value")]
                ParamKind::Float => params
                    .set_float(&c.name, c.input.value_as_number() as f32)
                    .map_err(refused)?,
                #[expect(clippy::cast_possible_truncation, reason = "a whole number box")]
                ParamKind::Int => {
                    let v = c.input.value_as_number();
                    if v.is_finite() {
                        params.set_int(&c.name, v as i32).map_err(refused)?;
                    }
                }
                ParamKind::Bool => params
                    .set_bool(&c.name, c.input.checked())
                    .map_err(refused)?,
                ParamKind::Vec3 => {
                    // A half-typed vector is left for the next frame.
                    let _ = params.set_from_text(&c.name, Some(&c.input.value()));
                }
                ParamKind::Trigger => {
                    if c.input.get_attribute("data-fired").is_some() {
                        let _ = c.input.remove_attribute("data-fired");
                        params.set_trigger(&c.name).map_err(refused)?;
                    }
                }
            }
        }
        Ok(())
    }

    /// Shows the states the last frame left, on the page and in `<body data-skel-state>`
    /// (the DOM is written only when they change).
    pub(crate) fn show_states(&mut self, page: &Page) {
        let text = self.states();
        if text != self.shown {
            if let Some(line) = &self.state_line {
                line.set_text_content(Some(&text));
            }
            page.set_state(&text);
            self.shown = text;
        }
    }

    /// The graph's player: its parameters, its ground, its foot placement.
    pub(crate) fn player_mut(&mut self) -> &mut GraphPlayer {
        &mut self.player
    }

    /// The world matrices of the last pose, by node.
    pub(crate) fn world_matrices(&mut self) -> &[glam::Mat4] {
        self.player.player_mut().world_matrices()
    }

    /// `layer: state (from -> to NN %)` for each layer, `; `-separated.
    fn states(&self) -> String {
        let inst = self.player.instance();
        let graph = inst.graph();
        let mut parts = Vec::with_capacity(graph.layer_count());
        for l in 0..graph.layer_count() {
            let mut s = format!(
                "{}: {}",
                graph.layer_name(l).unwrap_or("?"),
                inst.state(l).unwrap_or("?")
            );
            if let Some(t) = inst.transition(l) {
                s += &format!(" ({} -> {} {:.0} %)", t.from, t.to, 100.0 * t.progress);
            }
            parts.push(s);
        }
        parts.join("; ")
    }
}
