//! The states of one layer: each a clip, a 1D or 2D blend space, or empty, with its members
//! (one per clip it plays), speed, loop mode and sync.

use glam::Vec2;
use skel_anim::LoopMode;

use super::context::{Context, check_range};
use crate::file::{LayerDef, LoopDef, Mode2dDef, ParamKind, StateDef, SyncDef};
use crate::graph::{Member, Motion, State};
use crate::{BlendSpace1d, BlendSpace2d, GraphError, Mode2d};

const NUMBERS: &[ParamKind] = &[ParamKind::Float, ParamKind::Int];

pub(crate) fn compile_states(
    layer_path: &str,
    layer: &LayerDef,
    cx: &mut Context<'_>,
) -> Result<Vec<State>, GraphError> {
    if layer.states.is_empty() {
        return Err(GraphError::Invalid {
            path: format!("{layer_path}.states"),
            message: "a layer needs at least one state".into(),
        });
    }
    let mut states = Vec::with_capacity(layer.states.len());
    let mut first_slot = 0_u32;
    for (name, def) in layer.states.iter() {
        if name == "any" {
            return Err(GraphError::Invalid {
                path: format!("{layer_path}.states.any"),
                message: "\"any\" is the pseudo-state of transitions from anywhere".into(),
            });
        }
        let path = format!("{layer_path}.states.{name}");
        let state = compile_state(&path, name, def, first_slot, cx)?;
        #[expect(clippy::cast_possible_truncation, reason = "counts fit u32")]
        {
            first_slot += state.members.len() as u32;
        }
        states.push(state);
    }
    Ok(states)
}

fn compile_state(
    path: &str,
    name: &str,
    def: &StateDef,
    first_slot: u32,
    cx: &mut Context<'_>,
) -> Result<State, GraphError> {
    let kinds = usize::from(def.clip.is_some())
        + usize::from(def.blend_1d.is_some())
        + usize::from(def.blend_2d.is_some())
        + usize::from(def.empty.is_some());
    if kinds != 1 {
        return Err(GraphError::Invalid {
            path: path.to_owned(),
            message: format!(
                "a state is exactly one of \"clip\", \"blend_1d\", \"blend_2d\" or \"empty\": true ({kinds} given)"
            ),
        });
    }
    let mut clips: Vec<(String, usize)> = Vec::new();
    if def.mirror && def.clip.is_none() {
        return Err(GraphError::Invalid {
            path: format!("{path}.mirror"),
            message: "\"mirror\" goes with \"clip\" (a blend space's points each say it)".into(),
        });
    }
    let (motion, sync) = if let Some(clip) = &def.clip {
        let at = format!("{path}.clip");
        clips.push((at.clone(), cx.clip_mirrored(&at, clip, def.mirror)?));
        (Motion::Clip, SyncDef::None)
    } else if let Some(b) = &def.blend_1d {
        let param = cx.param(&format!("{path}.blend_1d.parameter"), &b.parameter, NUMBERS)?;
        let mut positions = Vec::with_capacity(b.points.len());
        for (i, p) in b.points.iter().enumerate() {
            let at = format!("{path}.blend_1d.points[{i}].clip");
            clips.push((at.clone(), cx.clip_mirrored(&at, &p.clip, p.mirror)?));
            positions.push(p.at);
        }
        let space = BlendSpace1d::new(&positions).map_err(|source| GraphError::BlendSpace {
            path: format!("{path}.blend_1d.points"),
            source,
        })?;
        (Motion::Blend1d { param, space }, b.sync)
    } else if let Some(b) = &def.blend_2d {
        let px = cx.param(
            &format!("{path}.blend_2d.parameters[0]"),
            &b.parameters[0],
            NUMBERS,
        )?;
        let py = cx.param(
            &format!("{path}.blend_2d.parameters[1]"),
            &b.parameters[1],
            NUMBERS,
        )?;
        let mut points = Vec::with_capacity(b.points.len());
        for (i, p) in b.points.iter().enumerate() {
            let at = format!("{path}.blend_2d.points[{i}].clip");
            clips.push((at.clone(), cx.clip_mirrored(&at, &p.clip, p.mirror)?));
            points.push(Vec2::from_array(p.at));
        }
        let mode = match b.mode {
            Mode2dDef::Triangles => Mode2d::Triangles,
            Mode2dDef::Cartesian => Mode2d::Cartesian,
            Mode2dDef::Directional => Mode2d::Directional,
        };
        let space = BlendSpace2d::new(mode, &points).map_err(|source| GraphError::BlendSpace {
            path: format!("{path}.blend_2d.points"),
            source,
        })?;
        (
            Motion::Blend2d {
                params: [px, py],
                space,
            },
            b.sync,
        )
    } else {
        if def.empty != Some(true) {
            return Err(GraphError::Invalid {
                path: format!("{path}.empty"),
                message: "write \"empty\": true for a state that plays nothing".into(),
            });
        }
        (Motion::Empty, SyncDef::None)
    };
    let speed = check_range(
        &format!("{path}.speed"),
        def.speed,
        |_| true,
        "a finite number",
    )?;
    let speed_param = match &def.speed_parameter {
        Some(p) => Some(cx.param(&format!("{path}.speed_parameter"), p, NUMBERS)?),
        None => None,
    };
    let members = clips
        .iter()
        .map(|(_, clip)| member(*clip, cx))
        .collect::<Vec<_>>();
    let shared_markers = if sync == SyncDef::Markers {
        let shared: Vec<u32> = members[0]
            .markers
            .iter()
            .map(|&(_, id)| id)
            .filter(|id| {
                members
                    .iter()
                    .all(|m| m.markers.iter().any(|(_, n)| n == id))
            })
            .collect();
        if shared.is_empty() {
            let names: Vec<&str> = clips
                .iter()
                .map(|(_, c)| cx.rig.data().clips[*c].name.as_str())
                .collect();
            return Err(GraphError::NoSharedMarkers {
                path: path.to_owned(),
                clips: names.join(", "),
            });
        }
        let mut shared = shared;
        shared.sort_unstable();
        shared.dedup();
        shared
    } else {
        Vec::new()
    };
    Ok(State {
        name: name.to_owned(),
        motion,
        members,
        speed,
        speed_param,
        loop_mode: match def.loop_mode {
            LoopDef::Repeat => LoopMode::Repeat,
            LoopDef::Once => LoopMode::Once,
            LoopDef::PingPong => LoopMode::PingPong,
        },
        sync,
        first_slot,
        shared_markers,
    })
}

fn member(clip: usize, cx: &mut Context<'_>) -> Member {
    let rig = cx.rig;
    let length = rig.clip_duration(clip).unwrap_or(0.0);
    let mut markers: Vec<(f32, u32)> = rig.data().clips[clip]
        .markers
        .iter()
        .filter(|m| m.time.is_finite() && (0.0..=length).contains(&m.time))
        .map(|m| (m.time, cx.marker_id(&m.name)))
        .collect();
    markers.sort_by(|a, b| a.0.total_cmp(&b.0));
    #[expect(clippy::cast_possible_truncation, reason = "counts fit u32")]
    Member {
        clip: clip as u32,
        length,
        markers,
    }
}
