//! Setting and reading parameters, by name or by a [`ParamId`] resolved once.

use super::GraphInstance;
use crate::error::known_list;
use crate::file::ParamKind;
use crate::{GraphError, ParamId};

/// A parameter's value.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ParamValue {
    /// A float parameter.
    Float(f32),
    /// An int parameter.
    Int(i32),
    /// A bool parameter.
    Bool(bool),
    /// A trigger: whether it is set (and not yet consumed).
    Trigger(bool),
    /// A vec3 parameter.
    Vec3(glam::Vec3),
}

impl ParamValue {
    /// The kind of parameter this value is for.
    #[must_use]
    pub fn kind(self) -> ParamKind {
        match self {
            Self::Float(_) => ParamKind::Float,
            Self::Int(_) => ParamKind::Int,
            Self::Bool(_) => ParamKind::Bool,
            Self::Trigger(_) => ParamKind::Trigger,
            Self::Vec3(_) => ParamKind::Vec3,
        }
    }

    /// Reads `text` as a value of `kind`: a number for float (`1.5`) and int (`3`), `true` /
    /// `false` (or `1` / `0`) for bool, three numbers separated by commas for vec3
    /// (`0.2,1.1,-0.5`); a trigger takes no text (or `true`) to set it.
    ///
    /// # Errors
    /// [`GraphError::Request`] when the text is not a value of that kind.
    pub fn parse(kind: ParamKind, text: Option<&str>) -> Result<Self, GraphError> {
        let bad =
            || GraphError::Request(format!("{text:?} is not a value for a {kind:?} parameter"));
        let bool_of = |t: &str| match t {
            "true" | "1" => Ok(true),
            "false" | "0" => Ok(false),
            _ => Err(bad()),
        };
        Ok(match (kind, text) {
            (ParamKind::Float, Some(t)) => Self::Float(t.trim().parse::<f32>().map_err(|_| bad())?),
            (ParamKind::Int, Some(t)) => Self::Int(t.trim().parse::<i32>().map_err(|_| bad())?),
            (ParamKind::Bool, Some(t)) => Self::Bool(bool_of(t.trim())?),
            (ParamKind::Trigger, None) => Self::Trigger(true),
            (ParamKind::Trigger, Some(t)) => Self::Trigger(bool_of(t.trim())?),
            (ParamKind::Vec3, Some(t)) => {
                let xs: Vec<f32> = t
                    .split(',')
                    .map(|x| x.trim().parse::<f32>())
                    .collect::<Result<_, _>>()
                    .map_err(|_| bad())?;
                match xs.as_slice() {
                    [x, y, z] => Self::Vec3(glam::Vec3::new(*x, *y, *z)),
                    _ => return Err(bad()),
                }
            }
            (_, None) => return Err(bad()),
        })
    }
}

impl GraphInstance {
    /// The parameter named `name`.
    ///
    /// # Errors
    /// [`GraphError::Request`] listing the parameters when there is none of that name.
    pub fn param_id(&self, name: &str) -> Result<ParamId, GraphError> {
        self.graph.param_id(name).ok_or_else(|| {
            GraphError::Request(format!(
                "no parameter {name:?} (parameters: {})",
                known_list(self.graph.params.iter().map(|p| p.name.as_str()))
            ))
        })
    }

    /// Sets parameter `id` to `value`, which must be of its kind. A float or vec3 must be
    /// finite.
    /// Nothing changes on error. Allocates nothing on success.
    ///
    /// # Errors
    /// [`GraphError::Request`] for an id of another graph, a value of another kind or a
    /// float that is not finite.
    pub fn set(&mut self, id: ParamId, value: ParamValue) -> Result<(), GraphError> {
        let Some(p) = self.graph.params.get(id.index()) else {
            return Err(GraphError::Request(format!(
                "parameter id {} past the {} parameters",
                id.index(),
                self.graph.params.len()
            )));
        };
        if p.kind != value.kind() {
            return Err(GraphError::Request(format!(
                "parameter {:?} is a {:?}, not a {:?}",
                p.name,
                p.kind,
                value.kind()
            )));
        }
        self.params[id.index()] = match value {
            ParamValue::Float(v) if v.is_finite() => f64::from(v),
            ParamValue::Float(v) => {
                return Err(GraphError::Request(format!(
                    "parameter {:?}: {v} is not finite",
                    p.name
                )));
            }
            ParamValue::Int(v) => f64::from(v),
            ParamValue::Vec3(v) if v.is_finite() => {
                self.vectors[id.index()] = v;
                0.0
            }
            ParamValue::Vec3(v) => {
                return Err(GraphError::Request(format!(
                    "parameter {:?}: {v} is not finite",
                    p.name
                )));
            }
            ParamValue::Bool(v) | ParamValue::Trigger(v) => f64::from(u8::from(v)),
        };
        Ok(())
    }

    /// Sets float parameter `name`.
    ///
    /// # Errors
    /// As [`param_id`](Self::param_id) and [`set`](Self::set).
    pub fn set_float(&mut self, name: &str, value: f32) -> Result<(), GraphError> {
        let id = self.param_id(name)?;
        self.set(id, ParamValue::Float(value))
    }

    /// Sets int parameter `name`.
    ///
    /// # Errors
    /// As [`param_id`](Self::param_id) and [`set`](Self::set).
    pub fn set_int(&mut self, name: &str, value: i32) -> Result<(), GraphError> {
        let id = self.param_id(name)?;
        self.set(id, ParamValue::Int(value))
    }

    /// Sets bool parameter `name`.
    ///
    /// # Errors
    /// As [`param_id`](Self::param_id) and [`set`](Self::set).
    pub fn set_bool(&mut self, name: &str, value: bool) -> Result<(), GraphError> {
        let id = self.param_id(name)?;
        self.set(id, ParamValue::Bool(value))
    }

    /// Sets vec3 parameter `name` (an IK target, a point to look at).
    ///
    /// # Errors
    /// As [`param_id`](Self::param_id) and [`set`](Self::set).
    pub fn set_vec3(&mut self, name: &str, value: glam::Vec3) -> Result<(), GraphError> {
        let id = self.param_id(name)?;
        self.set(id, ParamValue::Vec3(value))
    }

    /// Sets trigger `name`: it stays set until a transition that uses it fires (Unity's rule)
    /// or [`reset_trigger`](Self::reset_trigger) clears it.
    ///
    /// # Errors
    /// As [`param_id`](Self::param_id) and [`set`](Self::set).
    pub fn set_trigger(&mut self, name: &str) -> Result<(), GraphError> {
        let id = self.param_id(name)?;
        self.set(id, ParamValue::Trigger(true))
    }

    /// Clears trigger `name`.
    ///
    /// # Errors
    /// As [`param_id`](Self::param_id) and [`set`](Self::set).
    pub fn reset_trigger(&mut self, name: &str) -> Result<(), GraphError> {
        let id = self.param_id(name)?;
        self.set(id, ParamValue::Trigger(false))
    }

    /// Sets parameter `name` from text, as [`ParamValue::parse`] reads it for its kind (what
    /// a command line's `--set NAME=VALUE` gives).
    ///
    /// # Errors
    /// As [`param_id`](Self::param_id), [`ParamValue::parse`] and [`set`](Self::set).
    pub fn set_from_text(&mut self, name: &str, text: Option<&str>) -> Result<(), GraphError> {
        let id = self.param_id(name)?;
        let kind = self.graph.params[id.index()].kind;
        let value = ParamValue::parse(kind, text).map_err(|e| match e {
            GraphError::Request(why) => GraphError::Request(format!("parameter {name:?}: {why}")),
            other => other,
        })?;
        self.set(id, value)
    }

    /// The value of parameter `id` (`None` past the end).
    #[must_use]
    pub fn get(&self, id: ParamId) -> Option<ParamValue> {
        let p = self.graph.params.get(id.index())?;
        let v = self.params[id.index()];
        #[expect(clippy::cast_possible_truncation, reason = "stored from f32 and i32")]
        Some(match p.kind {
            ParamKind::Float => ParamValue::Float(v as f32),
            ParamKind::Int => ParamValue::Int(v as i32),
            ParamKind::Bool => ParamValue::Bool(v != 0.0),
            ParamKind::Trigger => ParamValue::Trigger(v != 0.0),
            ParamKind::Vec3 => ParamValue::Vec3(self.vectors[id.index()]),
        })
    }
}
