//! A layer mask by node names, resolved to the player's [`Mask`] and checked to select some
//! node (the player would refuse it later, after other layers were built).

use skel_anim::{Mask, Rig};

use crate::error::known_list;
use crate::file::MaskDef;
use crate::{GraphError, NameKind};

pub(crate) fn compile_mask(path: &str, def: &MaskDef, rig: &Rig) -> Result<Mask, GraphError> {
    let node = |at: String, name: &str| {
        rig.node_index(name).ok_or_else(|| GraphError::Unknown {
            path: at,
            kind: NameKind::Node,
            name: name.to_owned(),
            known: known_list(rig.data().nodes.iter().map(|n| n.name.as_str())),
        })
    };
    let mut mask = Mask::default();
    for (i, name) in def.include.iter().enumerate() {
        mask.include
            .push(node(format!("{path}.include[{i}]"), name)?);
    }
    for (i, name) in def.exclude.iter().enumerate() {
        mask.exclude
            .push(node(format!("{path}.exclude[{i}]"), name)?);
    }
    for (name, &w) in def.joint_weights.iter() {
        let at = format!("{path}.joint_weights.{name}");
        let n = node(at.clone(), name)?;
        let w = super::context::check_range(&at, w, |w| (0.0..=1.0).contains(&w), "0..=1")?;
        mask.joint_weights.push((n, w));
    }
    // The player's rule: include's subtrees (all nodes when empty) minus exclude's, then the
    // single-node weights.
    let nodes = &rig.data().nodes;
    let under = |n: usize, roots: &[usize]| {
        let mut at = Some(n);
        let mut steps = 0;
        while let Some(a) = at {
            if roots.contains(&a) {
                return true;
            }
            at = nodes[a].parent;
            steps += 1;
            if steps > nodes.len() {
                break;
            }
        }
        false
    };
    let selects = (0..nodes.len()).any(|n| {
        let mut w = if mask.include.is_empty() || under(n, &mask.include) {
            1.0
        } else {
            0.0
        };
        if under(n, &mask.exclude) {
            w = 0.0;
        }
        if let Some(&(_, jw)) = mask.joint_weights.iter().rev().find(|(j, _)| *j == n) {
            w = jw;
        }
        w > 0.0
    });
    if !selects {
        return Err(GraphError::Invalid {
            path: path.to_owned(),
            message: "the mask selects no node".into(),
        });
    }
    Ok(mask)
}
