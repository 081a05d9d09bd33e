//! From the file to the compiled graph: names resolved against the rig and the graph, numbers
//! checked, blend spaces built, zero-duration cycles refused. Runs once per graph and rig;
//! nothing here runs per tick.

mod context;
mod full_body;
mod mask;
mod operations;
mod resolve;
mod states;
mod transitions;

use std::sync::Arc;

use skel_anim::Rig;

use crate::error::known_list;
use crate::file::{GraphDef, LayerModeDef, ParamKind};
use crate::graph::{Graph, GraphLayer, Param};
use crate::{GraphError, NameKind};
use context::{Context, check_range};

impl Graph {
    /// Compiles `def` against `rig`: every clip, node, state and parameter name resolved, every
    /// number checked, blend spaces triangulated. The result is immutable: share it by `Arc`
    /// and give each character a [`GraphInstance`](crate::GraphInstance).
    ///
    /// # Errors
    /// The first problem found, naming its JSON path (see [`GraphError`]); nothing is built.
    pub fn compile(def: &GraphDef, rig: &Rig) -> Result<Arc<Self>, GraphError> {
        let params = compile_params(def)?;
        let mut cx = Context {
            rig,
            params: &params,
            marker_names: Vec::new(),
        };
        if def.layers.is_empty() {
            return Err(GraphError::Invalid {
                path: "layers".into(),
                message: "a graph needs at least one layer".into(),
            });
        }
        let mut layers: Vec<GraphLayer> = Vec::with_capacity(def.layers.len());
        for (i, layer) in def.layers.iter().enumerate() {
            let path = format!("layers[{i}]");
            if layers.iter().any(|l| l.name == layer.name) {
                return Err(GraphError::Duplicate {
                    path: format!("{path}.name"),
                    kind: NameKind::Layer,
                    name: layer.name.clone(),
                });
            }
            let weight = check_range(
                &format!("{path}.weight"),
                layer.weight,
                |w| (0.0..=1.0).contains(&w),
                "a layer weight lies in 0..=1",
            )?;
            let mask = match &layer.mask {
                Some(m) => Some(mask::compile_mask(&format!("{path}.mask"), m, rig)?),
                None => None,
            };
            let states = states::compile_states(&path, layer, &mut cx)?;
            let entry = states
                .iter()
                .position(|s| s.name == layer.entry)
                .ok_or_else(|| GraphError::Unknown {
                    path: format!("{path}.entry"),
                    kind: NameKind::State,
                    name: layer.entry.clone(),
                    known: known_list(states.iter().map(|s| s.name.as_str())),
                })?;
            let lists = transitions::compile_transitions(&path, layer, &states, &cx)?;
            let (operations, foot) = operations::compile_operations(&path, &layer.operations, &cx)?;
            if foot.is_some() && layers.iter().any(|l| l.foot.is_some()) {
                return Err(GraphError::Invalid {
                    path: format!("{path}.operations"),
                    message: "a graph places its feet once (one layer's foot_placement)".into(),
                });
            }
            let max_members = states.iter().map(|s| s.members.len()).max().unwrap_or(0);
            let slot_count = states.iter().map(|s| s.members.len()).sum();
            #[expect(clippy::cast_possible_truncation, reason = "counts fit u32")]
            layers.push(GraphLayer {
                name: layer.name.clone(),
                additive: layer.mode == LayerModeDef::Additive,
                weight,
                mask,
                entry: entry as u32,
                states,
                transitions: lists.transitions,
                by_state: lists.by_state,
                state_ranges: lists.state_ranges,
                from_any: lists.from_any,
                max_members,
                slot_count,
                operations,
                foot,
            });
        }
        let marker_names = cx.marker_names;
        Ok(Arc::new(Self {
            params,
            layers,
            clip_names: rig.data().clips.iter().map(|c| c.name.clone()).collect(),
            marker_names,
        }))
    }

    /// Reads a graph file and compiles it against `rig` ([`GraphDef::from_json`], then
    /// [`compile`](Self::compile)).
    ///
    /// # Errors
    /// As those two.
    pub fn from_json(text: &str, rig: &Rig) -> Result<Arc<Self>, GraphError> {
        Self::compile(&GraphDef::from_json(text)?, rig)
    }
}

/// The parameters with their defaults checked against their types.
fn compile_params(def: &GraphDef) -> Result<Vec<Param>, GraphError> {
    let mut params = Vec::with_capacity(def.parameters.len());
    for (name, p) in def.parameters.iter() {
        let path = format!("parameters.{name}.default");
        let wrong = |expected: &str| GraphError::WrongType {
            path: path.clone(),
            message: format!("a {:?} parameter takes {expected}", p.kind),
        };
        let mut vector = glam::Vec3::ZERO;
        let default = match (p.kind, &p.default) {
            (_, None) => 0.0,
            (ParamKind::Vec3, Some(v)) => {
                let xs = v
                    .as_array()
                    .filter(|a| a.len() == 3)
                    .and_then(|a| {
                        a.iter()
                            .map(serde_json::Value::as_f64)
                            .collect::<Option<Vec<_>>>()
                    })
                    .ok_or_else(|| wrong("an array of three numbers"))?;
                #[expect(clippy::cast_possible_truncation, reason = "vectors are f32")]
                let xs: Vec<f32> = xs.iter().map(|&x| x as f32).collect();
                for x in &xs {
                    check_range(&path, *x, |_| true, "finite numbers")?;
                }
                vector = glam::Vec3::new(xs[0], xs[1], xs[2]);
                0.0
            }
            (ParamKind::Float, Some(v)) => {
                let x = v.as_f64().ok_or_else(|| wrong("a number"))?;
                #[expect(clippy::cast_possible_truncation, reason = "floats are f32")]
                let x32 = x as f32;
                f64::from(check_range(&path, x32, |_| true, "a finite number")?)
            }
            (ParamKind::Int, Some(v)) => {
                let x = v
                    .as_i64()
                    .and_then(|i| i32::try_from(i).ok())
                    .ok_or_else(|| wrong("a whole number within i32"))?;
                f64::from(x)
            }
            (ParamKind::Bool, Some(v)) => {
                f64::from(u8::from(v.as_bool().ok_or_else(|| wrong("true or false"))?))
            }
            (ParamKind::Trigger, Some(_)) => return Err(wrong("no default (it starts unset)")),
        };
        params.push(Param {
            name: name.to_owned(),
            kind: p.kind,
            default,
            vector,
        });
    }
    Ok(params)
}
