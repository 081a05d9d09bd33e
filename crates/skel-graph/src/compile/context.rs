//! What compiling resolves names against (the rig, the parameters, the marker names met so
//! far) and the range check every number goes through.

use skel_anim::Rig;

use crate::error::known_list;
use crate::file::ParamKind;
use crate::graph::Param;
use crate::{GraphError, NameKind};

/// Names and values being resolved: the rig, the parameters so far, the marker names met.
pub(crate) struct Context<'a> {
    pub(crate) rig: &'a Rig,
    pub(crate) params: &'a [Param],
    pub(crate) marker_names: Vec<String>,
}

impl Context<'_> {
    /// The parameter `name` used at `path`, which must be of one of `kinds`.
    pub(crate) fn param(
        &self,
        path: &str,
        name: &str,
        kinds: &[ParamKind],
    ) -> Result<u32, GraphError> {
        let Some(index) = self.params.iter().position(|p| p.name == name) else {
            return Err(GraphError::Unknown {
                path: path.to_owned(),
                kind: NameKind::Parameter,
                name: name.to_owned(),
                known: known_list(self.params.iter().map(|p| p.name.as_str())),
            });
        };
        let kind = self.params[index].kind;
        if !kinds.contains(&kind) {
            return Err(GraphError::WrongType {
                path: path.to_owned(),
                message: format!("parameter {name:?} is a {kind:?}, expected one of {kinds:?}"),
            });
        }
        #[expect(clippy::cast_possible_truncation, reason = "counts fit u32")]
        Ok(index as u32)
    }

    /// The clip `name` used at `path`.
    pub(crate) fn clip(&self, path: &str, name: &str) -> Result<usize, GraphError> {
        self.rig
            .clip_index(name)
            .ok_or_else(|| GraphError::Unknown {
                path: path.to_owned(),
                kind: NameKind::Clip,
                name: name.to_owned(),
                known: known_list(self.rig.data().clips.iter().map(|c| c.name.as_str())),
            })
    }

    /// The clip `name` used at `path`, or with `mirror` its mirror image (the rig's clip
    /// `"<name>.mirror"`, which must have been appended before the rig was built).
    pub(crate) fn clip_mirrored(
        &self,
        path: &str,
        name: &str,
        mirror: bool,
    ) -> Result<usize, GraphError> {
        if !mirror {
            return self.clip(path, name);
        }
        self.clip(path, name)?;
        let mirrored = format!("{name}{}", skel_anim::MIRROR_SUFFIX);
        self.rig.clip_index(&mirrored).ok_or_else(|| GraphError::Invalid {
            path: path.to_owned(),
            message: format!(
                "clip {name:?} is played mirrored, and the rig has no clip {mirrored:?}: append \
                 it with AnimationData::append_mirrored_clips before building the rig \
                 (GraphDef::mirrored_clips lists what the graph needs)"
            ),
        })
    }

    /// The id of marker name `name` (interned).
    pub(crate) fn marker_id(&mut self, name: &str) -> u32 {
        let at = match self.marker_names.iter().position(|m| m == name) {
            Some(i) => i,
            None => {
                self.marker_names.push(name.to_owned());
                self.marker_names.len() - 1
            }
        };
        #[expect(clippy::cast_possible_truncation, reason = "counts fit u32")]
        let id = at as u32;
        id
    }
}

/// A finite number within `range`, or [`GraphError::OutOfRange`] naming `path` and `rule`.
pub(crate) fn check_range(
    path: &str,
    value: f32,
    ok: impl Fn(f32) -> bool,
    rule: &'static str,
) -> Result<f32, GraphError> {
    if value.is_finite() && ok(value) {
        Ok(value)
    } else {
        Err(GraphError::OutOfRange {
            path: path.to_owned(),
            value: f64::from(value),
            rule,
        })
    }
}
