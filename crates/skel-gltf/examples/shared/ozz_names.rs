//! Node and clip names as ozz's `gltf2ozz` renames them, for the programs that run beside
//! ozz-animation (`pose_frames skin`, `shell_error ozz`).

use std::fmt::Write as _;

/// Names as ozz's `gltf2ozz` renames them (`FixupNames` in its gltf2ozz.cc): an empty name
/// becomes `PREFIX<i>`, and a name already taken gets `_<i>` appended until it is unique.
pub fn ozz_names<'a>(names: impl Iterator<Item = &'a str>, prefix: &str) -> Vec<String> {
    let mut taken = std::collections::HashSet::new();
    names
        .enumerate()
        .map(|(i, n)| {
            let mut name = if n.is_empty() {
                format!("{prefix}{i}")
            } else {
                n.to_owned()
            };
            while taken.contains(&name) {
                let _ = write!(name, "_{i}");
            }
            taken.insert(name.clone());
            name
        })
        .collect()
}
