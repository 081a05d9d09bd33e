//! The transitions of one layer: conditions resolved and type-checked, numbers checked, the
//! lists each state tries in order, and the refusal of zero-duration cycles.

use super::context::{Context, check_range};
use crate::error::known_list;
use crate::file::{
    BlendDef, CompareOp, ConditionDef, DurationModeDef, LayerDef, ParamKind, TransitionDef,
};
use crate::graph::{Condition, State, Test, Transition};
use crate::{GraphError, NameKind};

pub(crate) struct Lists {
    pub(crate) transitions: Vec<Transition>,
    pub(crate) by_state: Vec<u32>,
    pub(crate) state_ranges: Vec<(u32, u32)>,
    pub(crate) from_any: Vec<u32>,
}

#[expect(clippy::cast_possible_truncation, reason = "counts fit u32")]
pub(crate) fn compile_transitions(
    layer_path: &str,
    layer: &LayerDef,
    states: &[State],
    cx: &Context<'_>,
) -> Result<Lists, GraphError> {
    let state = |path: String, name: &str| {
        states
            .iter()
            .position(|s| s.name == name)
            .map(|i| i as u32)
            .ok_or_else(|| GraphError::Unknown {
                path,
                kind: NameKind::State,
                name: name.to_owned(),
                known: known_list(states.iter().map(|s| s.name.as_str())),
            })
    };
    let mut transitions = Vec::with_capacity(layer.transitions.len());
    for (i, t) in layer.transitions.iter().enumerate() {
        let path = format!("{layer_path}.transitions[{i}]");
        let from = if t.from == "any" {
            None
        } else {
            Some(state(format!("{path}.from"), &t.from)?)
        };
        let to = state(format!("{path}.to"), &t.to)?;
        transitions.push(compile_transition(&path, t, from, to, i as u32, cx)?);
    }
    let sorted = |keep: &dyn Fn(&Transition) -> bool| {
        let mut list: Vec<u32> = (0..transitions.len() as u32)
            .filter(|&i| keep(&transitions[i as usize]))
            .collect();
        list.sort_by_key(|&i| transitions[i as usize].key());
        list
    };
    let mut by_state = Vec::new();
    let mut state_ranges = Vec::with_capacity(states.len());
    for s in 0..states.len() as u32 {
        let start = by_state.len() as u32;
        by_state.extend(sorted(&|t| t.from == Some(s)));
        state_ranges.push((start, by_state.len() as u32));
    }
    let from_any = sorted(&|t| t.from.is_none());
    check_zero_cycles(layer_path, states, &transitions)?;
    Ok(Lists {
        transitions,
        by_state,
        state_ranges,
        from_any,
    })
}

fn compile_transition(
    path: &str,
    t: &TransitionDef,
    from: Option<u32>,
    to: u32,
    order: u32,
    cx: &Context<'_>,
) -> Result<Transition, GraphError> {
    let non_negative = |field: &str, v: f32| {
        check_range(
            &format!("{path}.{field}"),
            v,
            |v| v >= 0.0,
            "a finite number ≥ 0",
        )
    };
    let exit_time = match t.exit_time {
        Some(e) => Some(non_negative("exit_time", e)?),
        None => None,
    };
    let mut conditions = Vec::with_capacity(t.when.len());
    for (i, c) in t.when.iter().enumerate() {
        conditions.push(compile_condition(&format!("{path}.when[{i}]"), c, cx)?);
    }
    Ok(Transition {
        from,
        to,
        conditions,
        exit_time,
        duration: non_negative("duration", t.duration)?,
        normalized_duration: t.duration_mode == DurationModeDef::Normalized,
        inertialize: t.blend == BlendDef::Inertialize,
        offset: check_range(
            &format!("{path}.offset"),
            t.offset,
            |_| true,
            "a finite number",
        )?,
        curve: t.curve,
        priority: t.priority,
        order,
        interrupt: t.interrupt,
        ordered: t.ordered,
        sync: t.sync,
        cost: non_negative("cost", t.cost)?,
    })
}

fn compile_condition(
    path: &str,
    c: &ConditionDef,
    cx: &Context<'_>,
) -> Result<Condition, GraphError> {
    let invalid = |message: &str| GraphError::Invalid {
        path: path.to_owned(),
        message: message.to_owned(),
    };
    match (&c.trigger, &c.param) {
        (Some(name), None) => {
            if c.op.is_some() || c.value.is_some() {
                return Err(invalid("a trigger condition takes no \"op\" or \"value\""));
            }
            let param = cx.param(&format!("{path}.trigger"), name, &[ParamKind::Trigger])?;
            Ok(Condition {
                param,
                test: Test::Trigger,
            })
        }
        (None, Some(name)) => {
            let kinds = [ParamKind::Float, ParamKind::Int, ParamKind::Bool];
            let param = cx.param(&format!("{path}.param"), name, &kinds)?;
            let kind = cx.params[param as usize].kind;
            let test = match (c.op, &c.value) {
                (None, None) if kind == ParamKind::Bool => Test::True,
                (None, _) => {
                    return Err(invalid(
                        "a comparison needs \"op\" and \"value\" (only a bool stands bare)",
                    ));
                }
                (Some(_), None) => return Err(invalid("a comparison needs a \"value\"")),
                (Some(op), Some(v)) => {
                    let at = format!("{path}.value");
                    let wrong = |m: &str| GraphError::WrongType {
                        path: at.clone(),
                        message: format!("parameter {name:?} is a {kind:?}: {m}"),
                    };
                    let value = if kind == ParamKind::Bool {
                        if !matches!(op, CompareOp::Equal | CompareOp::NotEqual) {
                            return Err(wrong("a bool compares with == or != only"));
                        }
                        f64::from(u8::from(
                            v.as_bool()
                                .ok_or_else(|| wrong("compare with true or false"))?,
                        ))
                    } else {
                        let x = v.as_f64().ok_or_else(|| wrong("compare with a number"))?;
                        if !x.is_finite() {
                            return Err(wrong("compare with a finite number"));
                        }
                        x
                    };
                    Test::Compare(op, value)
                }
            };
            Ok(Condition { param, test })
        }
        _ => Err(invalid(
            "a condition is {\"trigger\": NAME} or {\"param\": NAME, …}, exactly one of the two",
        )),
    }
}

/// Refuses a cycle of transitions that could all fire within one tick: zero duration and no
/// exit time (an exit time needs the state to advance first). `any` counts as an edge from
/// every state but its destination.
fn check_zero_cycles(
    layer_path: &str,
    states: &[State],
    transitions: &[Transition],
) -> Result<(), GraphError> {
    let n = states.len();
    let instant = |t: &Transition| t.duration == 0.0 && t.exit_time.is_none();
    let mut next: Vec<Vec<usize>> = vec![Vec::new(); n];
    for t in transitions.iter().filter(|t| instant(t)) {
        let to = t.to as usize;
        match t.from {
            Some(f) => next[f as usize].push(to),
            None => (0..n).filter(|&s| s != to).for_each(|s| next[s].push(to)),
        }
    }
    for list in &mut next {
        list.sort_unstable();
        list.dedup();
    }
    // Depth-first search with colours: 0 new, 1 on the stack, 2 done.
    let mut colour = vec![0_u8; n];
    let mut stack: Vec<(usize, usize)> = Vec::new();
    for root in 0..n {
        if colour[root] != 0 {
            continue;
        }
        colour[root] = 1;
        stack.push((root, 0));
        while let Some(&mut (s, ref mut k)) = stack.last_mut() {
            if let Some(&t) = next[s].get(*k) {
                *k += 1;
                match colour[t] {
                    0 => {
                        colour[t] = 1;
                        stack.push((t, 0));
                    }
                    1 => {
                        let from = stack.iter().position(|&(x, _)| x == t).unwrap_or(0);
                        let mut names: Vec<&str> = stack[from..]
                            .iter()
                            .map(|&(x, _)| states[x].name.as_str())
                            .collect();
                        names.push(&states[t].name);
                        return Err(GraphError::ZeroDurationCycle {
                            path: format!("{layer_path}.transitions"),
                            cycle: names.join(" -> "),
                        });
                    }
                    _ => {}
                }
            } else {
                colour[s] = 2;
                stack.pop();
            }
        }
    }
    Ok(())
}
