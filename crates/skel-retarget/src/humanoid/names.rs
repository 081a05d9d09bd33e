//! Joint names in the wild, reduced to a side and a key: `mixamorig:LeftUpLeg` → (left,
//! `upleg`), `thigh_l` → (left, `thigh`), `DEF-upper_arm.L` → (left, `upperarm`),
//! `Skeleton_arm_joint_L__4_` → (left, `arm`, numbered).

/// A body side.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum BodySide {
    /// The character's left.
    Left,
    /// The character's right.
    Right,
}

/// What a name says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct NameParts {
    /// The side named (`L`, `left`, `_l`, `.L`, `Left…`).
    pub side: Option<BodySide>,
    /// The remaining words, lower case, joined (`upleg`, `upperarm`, `spine`).
    pub key: String,
    /// Whether the name carries a number (`spine_01`, `leg_joint_L_1`, `Thumb2.L`).
    pub number: Option<u32>,
    /// Whether it names the end of a chain (`_end`, `_leaf`, `_nub`, `tip`), a joint that only
    /// marks where the last bone ends.
    pub end: bool,
}

/// Words that carry no meaning for the body part.
const FILLER: &[&str] = &[
    "mixamorig",
    "def",
    "org",
    "mch",
    "b",
    "bip01",
    "bip",
    "skeleton",
    "joint",
    "j",
    "bone",
    "jnt",
    "c",
];
const END: &[&str] = &["end", "leaf", "nub", "tip", "top"];

/// Splits a name into lower-case words at separators, case changes and digit runs.
fn words(name: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut cur = String::new();
    let mut prev: Option<char> = None;
    for c in name.chars() {
        if !c.is_alphanumeric() {
            if !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
            prev = None;
            continue;
        }
        let boundary = match prev {
            Some(p) => {
                (p.is_lowercase() && c.is_uppercase()) || (p.is_ascii_digit() != c.is_ascii_digit())
            }
            None => false,
        };
        if boundary && !cur.is_empty() {
            out.push(std::mem::take(&mut cur));
        }
        cur.extend(c.to_lowercase());
        prev = Some(c);
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// Reads a joint name.
pub(crate) fn parse(name: &str) -> NameParts {
    let mut side = None;
    let mut number = None;
    let mut end = false;
    let mut key = String::new();
    for w in words(name) {
        match w.as_str() {
            "l" | "left" => side = Some(BodySide::Left),
            "r" | "right" => side = Some(BodySide::Right),
            w if END.contains(&w) => end = true,
            w if FILLER.contains(&w) => {}
            w if w.chars().all(|c| c.is_ascii_digit()) => {
                number = w.parse().ok();
            }
            w => key.push_str(w),
        }
    }
    NameParts {
        side,
        key,
        number,
        end,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conventions_reduce_to_side_and_key() {
        let p = parse("mixamorig:LeftUpLeg");
        assert_eq!((p.side, p.key.as_str()), (Some(BodySide::Left), "upleg"));
        let p = parse("thigh_r");
        assert_eq!((p.side, p.key.as_str()), (Some(BodySide::Right), "thigh"));
        let p = parse("DEF-upper_arm.L");
        assert_eq!((p.side, p.key.as_str()), (Some(BodySide::Left), "upperarm"));
        let p = parse("Skeleton_arm_joint_L__4_");
        assert_eq!(
            (p.side, p.key.as_str(), p.number),
            (Some(BodySide::Left), "arm", Some(4))
        );
        assert!(parse("index_04_leaf_l").end);
        assert!(parse("Foot.L_end").end);
        let p = parse("spine_01");
        assert_eq!((p.side, p.key.as_str(), p.number), (None, "spine", Some(1)));
        let p = parse("rightHand");
        assert_eq!((p.side, p.key.as_str()), (Some(BodySide::Right), "hand"));
    }
}
