//! Mirror pairs from node names: the side word of a name (`Left`, `right`, `L`, `r` as a word
//! of its own) swapped for the other side's, matched against the other nodes' names.

use std::collections::HashMap;

use crate::{AnimError, NodeRest, compute_topo_order};

/// A name split into words: each word's byte range. Words break at characters that are not
/// letters or digits, where a lower-case letter meets an upper-case one (`ShoulderL`,
/// `LeftArm`), before the last capital of a capital run followed by a lower-case letter
/// (`LArm`), and where digits meet letters (`Ring1`).
fn words(name: &str) -> Vec<(usize, usize)> {
    let chars: Vec<(usize, char)> = name.char_indices().collect();
    let mut out = Vec::new();
    let mut start: Option<usize> = None;
    for (i, &(at, c)) in chars.iter().enumerate() {
        if !c.is_alphanumeric() {
            if let Some(s) = start.take() {
                out.push((s, at));
            }
            continue;
        }
        let boundary = match (i.checked_sub(1).map(|p| chars[p].1), start) {
            (Some(p), Some(_)) => {
                let next_lower = chars.get(i + 1).is_some_and(|&(_, n)| n.is_lowercase());
                (p.is_lowercase() && c.is_uppercase())
                    || (p.is_uppercase() && c.is_uppercase() && next_lower)
                    || (p.is_ascii_digit() != c.is_ascii_digit())
            }
            _ => false,
        };
        if boundary && let Some(s) = start {
            out.push((s, at));
            start = Some(at);
        }
        start.get_or_insert(at);
    }
    if let Some(s) = start {
        out.push((s, name.len()));
    }
    out
}

/// The word for the other side, in the same case (`Left` → `Right`, `LEFT` → `RIGHT`,
/// `l` → `r`), and whether the word names the left side; `None` for a word that names no
/// side.
fn swap_side(word: &str) -> Option<(String, bool)> {
    let lower = word.to_lowercase();
    let (other, left) = match lower.as_str() {
        "l" => ("r", true),
        "left" => ("right", true),
        "r" => ("l", false),
        "right" => ("left", false),
        _ => return None,
    };
    let upper_first = word.chars().next().is_some_and(char::is_uppercase);
    let all_upper = word.chars().all(char::is_uppercase);
    let swapped = if all_upper {
        other.to_uppercase()
    } else if upper_first {
        let mut s = other[..1].to_uppercase();
        s.push_str(&other[1..]);
        s
    } else {
        other.to_owned()
    };
    Some((swapped, left))
}

/// `name` with every side word swapped for the other side's, and whether its first side word
/// names the left side; `None` for a name without a side word.
///
/// `mixamorig:LeftArm` → `mixamorig:RightArm`, `upper_arm.L` → `upper_arm.R`,
/// `ShoulderL` → `ShoulderR`, `thigh_l` → `thigh_r`, `L_Hand` → `R_Hand`,
/// `Skeleton_arm_joint_L__4_` → `Skeleton_arm_joint_R__4_`.
#[must_use]
pub fn mirrored_name(name: &str) -> Option<(String, bool)> {
    let mut out = String::with_capacity(name.len() + 1);
    let mut copied = 0;
    let mut side = None;
    for (s, e) in words(name) {
        if let Some((other, left)) = swap_side(&name[s..e]) {
            out.push_str(&name[copied..s]);
            out.push_str(&other);
            copied = e;
            side.get_or_insert(left);
        }
    }
    let left = side?;
    out.push_str(&name[copied..]);
    Some((out, left))
}

/// `name` without a trailing number that follows a separator (`b_LeftLeg01_015` →
/// `b_LeftLeg01`): exporters that number every joint give a pair two numbers.
fn stem(name: &str) -> &str {
    let digits = name.trim_end_matches(|c: char| c.is_ascii_digit());
    match digits.strip_suffix(['_', '.', '-', ' ']) {
        Some(stem) if digits.len() < name.len() && !stem.is_empty() => stem,
        _ => name,
    }
}

/// Mirror pairs `(left, right)` found from node names: each node whose name has a side word
/// ([`mirrored_name`]) pairs with a node of the mirrored name, or failing that of the same
/// name without its trailing number (the Fox's `b_LeftUpperArm_09` and
/// `b_RightUpperArm_06`). When several nodes have that
/// name (a mesh node named after its joint), the one whose parent is the partner of the
/// node's parent wins, so that the pairs follow the hierarchy where the names allow it.
/// Nodes without a side word, or whose mirrored name no node has, are centre nodes (left out
/// of the list). Pairs come in node order of their first node.
///
/// The pairs are not checked against the hierarchy here: [`MirrorMap::from_pairs`] does, and
/// names a node whose pair breaks it (CesiumMan's arm joints are numbered from the hand on
/// one side and from the shoulder on the other: give its pairs).
///
/// # Errors
/// [`AnimError::BadParent`] or [`AnimError::Cycle`] for a broken hierarchy.
///
/// [`MirrorMap::from_pairs`]: crate::MirrorMap::from_pairs
pub fn pairs_by_name(nodes: &[NodeRest]) -> Result<Vec<(usize, usize)>, AnimError> {
    let order = compute_topo_order(nodes)?;
    let mut by_name: HashMap<&str, Vec<usize>> = HashMap::new();
    let mut by_stem: HashMap<&str, Vec<usize>> = HashMap::new();
    for (i, n) in nodes.iter().enumerate() {
        by_name.entry(n.name.as_str()).or_default().push(i);
        by_stem.entry(stem(&n.name)).or_default().push(i);
    }
    let mut partner: Vec<Option<usize>> = vec![None; nodes.len()];
    let mut pairs = Vec::new();
    for &j in &order {
        if partner[j].is_some() {
            continue;
        }
        let Some((other, left)) = mirrored_name(&nodes[j].name) else {
            continue;
        };
        let Some(candidates) = by_name
            .get(other.as_str())
            .or_else(|| by_stem.get(stem(&other)))
        else {
            continue;
        };
        let free = || {
            candidates
                .iter()
                .copied()
                .filter(|&c| c != j && partner[c].is_none())
        };
        let want = nodes[j].parent.map(|p| partner[p].unwrap_or(p));
        let Some(c) = free()
            .find(|&c| nodes[c].parent == want)
            .or_else(|| free().next())
        else {
            continue;
        };
        partner[j] = Some(c);
        partner[c] = Some(j);
        pairs.push(if left { (j, c) } else { (c, j) });
    }
    pairs.sort_unstable_by_key(|&(a, b)| a.min(b));
    Ok(pairs)
}

/// `chosen` pairs and those of `fallback` that share no node with them: explicit pairs (a
/// file, a humanoid map) laid over [`pairs_by_name`] for the nodes they do not cover.
#[must_use]
pub fn merge_pairs(chosen: &[(usize, usize)], fallback: &[(usize, usize)]) -> Vec<(usize, usize)> {
    let taken = |n: usize| chosen.iter().any(|&(a, b)| a == n || b == n);
    let mut out = chosen.to_vec();
    out.extend(
        fallback
            .iter()
            .copied()
            .filter(|&(a, b)| !taken(a) && !taken(b)),
    );
    out
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, reason = "tests")]

    use super::*;

    fn mirrored(name: &str) -> Option<String> {
        mirrored_name(name).map(|(n, _)| n)
    }

    #[test]
    fn side_words_swap_in_every_convention() {
        for (a, b) in [
            ("mixamorig:LeftArm", "mixamorig:RightArm"),
            ("upper_arm.L", "upper_arm.R"),
            ("DEF-upper_arm.L", "DEF-upper_arm.R"),
            ("ShoulderL", "ShoulderR"),
            ("Shoulder.L", "Shoulder.R"),
            ("PoleTarget.L_end", "PoleTarget.R_end"),
            ("thigh_l", "thigh_r"),
            ("index_04_leaf_l", "index_04_leaf_r"),
            ("L_Hand", "R_Hand"),
            ("LArm", "RArm"),
            ("foot-L", "foot-R"),
            ("b_LeftUpperArm_09", "b_RightUpperArm_09"),
            ("rightHand", "leftHand"),
            ("LEFT_EYE", "RIGHT_EYE"),
            ("Skeleton_arm_joint_L__4_", "Skeleton_arm_joint_R__4_"),
        ] {
            assert_eq!(mirrored(a).as_deref(), Some(b), "{a}");
            assert_eq!(mirrored(b).as_deref(), Some(a), "{b}");
        }
        assert!(!mirrored_name("Hand.R").unwrap().1);
        assert!(mirrored_name("LeftHand").unwrap().1);
        for centre in [
            "Hips", "spine_01", "Root", "Ring1", "Head_end", "Armature", "Leg",
        ] {
            assert_eq!(mirrored(centre), None, "{centre}");
        }
    }

    #[test]
    fn duplicate_names_pair_along_the_hierarchy() {
        // Joints "Foot.L"/"Foot.R" with mesh nodes of the same names below them.
        let mut nodes = vec![NodeRest::new("root", None)];
        for name in ["Foot.R", "Foot.L"] {
            nodes.push(NodeRest::new(name, Some(0)));
        }
        nodes.push(NodeRest::new("Foot.L", Some(2)));
        nodes.push(NodeRest::new("Foot.R", Some(1)));
        assert_eq!(pairs_by_name(&nodes).unwrap(), vec![(2, 1), (3, 4)]);
    }

    #[test]
    fn trailing_numbers_give_way() {
        let mut nodes = vec![NodeRest::new("b_Spine01_02", None)];
        for name in [
            "b_LeftLeg01_015",
            "b_RightLeg01_019",
            "Leg_7",
            "Ring1.L",
            "Ring2.R",
        ] {
            nodes.push(NodeRest::new(name, Some(0)));
        }
        assert_eq!(pairs_by_name(&nodes).unwrap(), vec![(1, 2)]);
        assert_eq!(stem("b_Hip_01"), "b_Hip");
        assert_eq!(stem("Ring1"), "Ring1");
        assert_eq!(stem("_01"), "_01");
    }

    #[test]
    fn chosen_pairs_win() {
        assert_eq!(
            merge_pairs(&[(1, 5)], &[(1, 2), (3, 4), (6, 5)]),
            vec![(1, 5), (3, 4)]
        );
    }
}
