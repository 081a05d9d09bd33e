//! Planted trees under the temporary directory: circles found with their arrows, none where
//! there are none, re-exports and brace groups followed, test code left out.

#![allow(clippy::unwrap_used, reason = "tests")]

use std::path::PathBuf;

use super::*;

/// A crate `name` under a fresh temporary directory with `files` (path under `src/`, text);
/// removed on drop.
struct Planted {
    base: PathBuf,
    dir: PathBuf,
}

impl Planted {
    fn new(name: &str, files: &[(&str, &str)]) -> Self {
        let base =
            std::env::temp_dir().join(format!("skel-module-graph-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&base);
        let dir = base.join("crates").join(name);
        for (path, text) in files {
            let file = dir.join("src").join(path);
            std::fs::create_dir_all(file.parent().unwrap()).unwrap();
            std::fs::write(file, text).unwrap();
        }
        std::fs::write(dir.join("Cargo.toml"), "[package]\n").unwrap();
        Self { base, dir }
    }

    fn graph(&self) -> CrateGraph {
        CrateGraph::read(&self.dir, &self.base).unwrap().unwrap()
    }

    fn circles(&self) -> Vec<String> {
        let graph = self.graph();
        graph.circles().iter().map(|c| graph.describe(c)).collect()
    }
}

impl Drop for Planted {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.base);
    }
}

fn edges_of(graph: &CrateGraph) -> Vec<String> {
    let mut out = Vec::new();
    for from in 0..graph.edges.len() {
        for to in graph.edges[from].keys() {
            out.push(format!(
                "{} -> {}",
                graph.module_name(from),
                graph.module_name(*to)
            ));
        }
    }
    out
}

#[test]
fn a_planted_circle_is_reported_with_a_site_per_arrow() {
    let tree = Planted::new(
        "circle",
        &[
            ("lib.rs", "mod a;\nmod b;\nmod c;\n"),
            (
                "a.rs",
                "use crate::b::B;\npub struct A(B);\npub fn size() -> usize { 0 }\n",
            ),
            (
                "b.rs",
                "pub struct B;\nfn f() -> usize {\n    crate::a::size()\n}\n",
            ),
            ("c.rs", "pub fn lonely() {}\n"),
        ],
    );
    let circles = tree.circles();
    assert_eq!(circles.len(), 1, "{circles:?}");
    let text = &circles[0];
    assert!(text.starts_with("circle: a -> b -> a\n"), "{text}");
    assert!(text.contains("a -> b: crates/circle/src/a.rs:1"), "{text}");
    assert!(text.contains("b -> a: crates/circle/src/b.rs:3"), "{text}");
}

#[test]
fn a_tree_without_a_circle_passes() {
    let tree = Planted::new(
        "layers",
        &[
            ("lib.rs", "mod low;\nmod high;\npub use high::H;\n"),
            ("low.rs", "pub struct L;\n"),
            ("high/mod.rs", "mod part;\npub use part::H;\n"),
            ("high/part.rs", "use crate::low::L;\npub struct H(L);\n"),
        ],
    );
    assert!(tree.circles().is_empty(), "{:?}", tree.circles());
    assert_eq!(edges_of(&tree.graph()), ["high::part -> low"]);
    assert!(check(&tree.base).is_ok());
}

#[test]
fn re_exports_and_brace_groups_resolve_to_the_defining_module() {
    let tree = Planted::new(
        "reexport",
        &[
            (
                "lib.rs",
                "mod deep;\nmod user;\nmod middle;\npub use middle::Thing;\npub use deep::*;\n",
            ),
            ("middle.rs", "pub use crate::deep::inner::Thing;\n"),
            (
                "deep/mod.rs",
                "pub mod inner;\npub(crate) use inner::Other;\npub use inner::g;\n",
            ),
            (
                "deep/inner.rs",
                "pub struct Thing;\npub struct Other;\npub fn g() {}\n",
            ),
            (
                "user.rs",
                "use crate::{Thing, deep::{Other as O}};\nfn f() { crate::g(); }\n",
            ),
        ],
    );
    let graph = tree.graph();
    // The re-exports in lib.rs and deep/mod.rs are no edges; middle.rs's is (not a hub), and
    // user.rs reaches deep::inner through two chains and a glob.
    assert_eq!(
        edges_of(&graph),
        ["user -> deep::inner", "middle -> deep::inner"]
    );
}

#[test]
fn parent_and_child_using_each_other_is_a_circle_but_mod_is_not_an_edge() {
    let tree = Planted::new(
        "family",
        &[
            ("lib.rs", "mod player;\npub use player::Player;\n"),
            (
                "player/mod.rs",
                "mod mix;\npub struct Player;\nfn f() { mix::blend(); }\n",
            ),
            ("player/mix.rs", "use super::Player;\npub fn blend() {}\n"),
        ],
    );
    let circles = tree.circles();
    assert_eq!(circles.len(), 1, "{circles:?}");
    assert!(
        circles[0].starts_with("family: player -> player::mix -> player\n"),
        "{circles:?}"
    );
}

#[test]
fn test_code_is_left_out() {
    let tree = Planted::new(
        "tests",
        &[
            ("lib.rs", "mod a;\nmod b;\n"),
            ("a.rs", "use crate::b::B;\npub struct A(B);\n"),
            (
                "b.rs",
                "pub struct B;\n#[cfg(test)]\nmod tests {\n    use crate::a::A;\n}\n\
                 #[cfg(test)]\nfn helper() -> crate::a::A { todo!() }\n",
            ),
        ],
    );
    assert!(tree.circles().is_empty(), "{:?}", tree.circles());
}

#[test]
fn paths_inside_macros_count() {
    let tree = Planted::new(
        "macros",
        &[
            ("lib.rs", "mod a;\nmod b;\n"),
            ("a.rs", "pub fn one() -> u8 { crate::b::TWO - 1 }\n"),
            (
                "b.rs",
                "pub const TWO: u8 = 2;\nfn f() { println!(\"{}\", crate::a::one()); }\n",
            ),
        ],
    );
    assert_eq!(tree.circles().len(), 1);
}

#[test]
fn the_check_covers_every_crate_of_this_workspace() {
    let graphs = workspace_graphs(&crate::workspace_root()).unwrap();
    let names: Vec<&str> = graphs.iter().map(|g| g.name.as_str()).collect();
    assert!(
        names.contains(&"skel-gltf") && names.contains(&"xtask"),
        "{names:?}"
    );
}

#[test]
fn folders_using_each_other_are_a_circle_without_any_file_loop() {
    let tree = Planted::new(
        "folders",
        &[
            ("lib.rs", "mod rig;\nmod pose;\n"),
            ("rig/mod.rs", "pub mod a;\npub mod c;\n"),
            ("rig/a.rs", "pub fn a() {\n    crate::pose::b::b();\n}\n"),
            ("rig/c.rs", "pub fn c() {}\n"),
            ("pose/mod.rs", "pub mod b;\n"),
            ("pose/b.rs", "pub fn b() {\n    crate::rig::c::c();\n}\n"),
        ],
    );
    // The files form a line: rig::a -> pose::b -> rig::c.
    assert_eq!(
        edges_of(&tree.graph()),
        ["rig::a -> pose::b", "pose::b -> rig::c"]
    );
    let circles = tree.circles();
    assert_eq!(circles.len(), 1, "{circles:?}");
    assert_eq!(
        circles[0],
        "folders: rig -> pose -> rig (folders)\n\
         \x20   rig -> pose: crates/folders/src/rig/a.rs:2 (rig::a -> pose::b)\n\
         \x20   pose -> rig: crates/folders/src/pose/b.rs:2 (pose::b -> rig::c)\n"
    );
    assert!(check(&tree.base).is_err());
}

#[test]
fn a_folder_circle_below_the_root_names_its_full_paths() {
    let tree = Planted::new(
        "nested",
        &[
            ("lib.rs", "mod player;\n"),
            ("player/mod.rs", "mod lanes;\nmod mix;\n"),
            ("player/lanes/mod.rs", "pub mod rules;\npub struct Lane;\n"),
            (
                "player/lanes/rules.rs",
                "pub fn rule() -> usize {\n    super::super::mix::WIDTH\n}\n",
            ),
            (
                "player/mix.rs",
                "pub const WIDTH: usize = 4;\npub struct M(crate::player::lanes::Lane);\n",
            ),
        ],
    );
    let circles = tree.circles();
    assert_eq!(circles.len(), 1, "{circles:?}");
    assert!(
        circles[0].starts_with("nested: player::lanes -> player::mix -> player::lanes (folders)\n"),
        "{circles:?}"
    );
}

#[test]
fn the_parent_file_is_not_part_of_a_folder_circle() {
    // a -> player (mod.rs) -> b -> ... nothing back into a: the parent's own items are the
    // file-level check's business, so a and b are no folder circle.
    let tree = Planted::new(
        "parent",
        &[
            ("lib.rs", "mod player;\n"),
            (
                "player/mod.rs",
                "mod a;\nmod b;\npub struct P;\npub struct Q(b::B);\n",
            ),
            ("player/a.rs", "pub struct A(super::P);\n"),
            ("player/b.rs", "pub struct B;\n"),
        ],
    );
    assert!(tree.circles().is_empty(), "{:?}", tree.circles());
}

#[test]
fn a_file_circle_between_siblings_is_printed_once() {
    let tree = Planted::new(
        "once",
        &[
            ("lib.rs", "mod a;\nmod b;\n"),
            ("a.rs", "pub struct A(crate::b::B);\n"),
            ("b.rs", "pub struct B;\nfn f(_: crate::a::A) {}\n"),
        ],
    );
    let circles = tree.circles();
    assert_eq!(circles.len(), 1, "{circles:?}");
    assert!(!circles[0].contains("(folders)"), "{circles:?}");
}

#[test]
fn test_modules_in_their_own_files_are_left_out() {
    let tree = Planted::new(
        "test_files",
        &[
            ("lib.rs", "mod a;\nmod b;\n"),
            (
                "a.rs",
                "pub struct A;\n#[cfg(test)]\n#[path = \"a_tests.rs\"]\nmod tests;\n",
            ),
            ("a_tests.rs", "use crate::b::B;\n"),
            (
                "b.rs",
                "pub struct B(crate::a::A);\n#[cfg(test)]\nmod helpers;\n",
            ),
            (
                "b/helpers.rs",
                "pub fn h() -> crate::a::A { crate::a::A }\n",
            ),
        ],
    );
    assert!(tree.circles().is_empty(), "{:?}", tree.circles());
    let graph = tree.graph();
    let names: Vec<String> = (0..graph.tree.modules.len())
        .map(|m| graph.module_name(m))
        .collect();
    assert_eq!(names, ["lib", "a", "b"]);
}

#[test]
fn skel_anim_has_no_circle_of_files_or_folders() {
    let root = crate::workspace_root();
    let graph = CrateGraph::read(&root.join("crates/skel-anim"), &root)
        .unwrap()
        .unwrap();
    let circles: Vec<String> = graph.circles().iter().map(|c| graph.describe(c)).collect();
    assert!(circles.is_empty(), "{}", circles.concat());
    // Its `#[cfg(test)] #[path = "…_tests.rs"] mod tests;` files are not modules here.
    let names: Vec<String> = (0..graph.tree.modules.len())
        .map(|m| graph.module_name(m))
        .collect();
    for declaring in ["pose::four_node", "math::interpolate"] {
        assert!(names.iter().any(|n| n == declaring), "{names:?}");
    }
    assert!(
        !names.iter().any(|n| n.ends_with("tests")),
        "test modules in the graph: {names:?}"
    );
}

#[test]
fn a_path_attribute_is_read_from_the_declaring_file_s_directory() {
    let tree = Planted::new(
        "path_attr",
        &[
            ("lib.rs", "mod pose;\n"),
            ("pose/mod.rs", "mod four_node;\n"),
            (
                "pose/four_node.rs",
                "#[path = \"four_node_extra.rs\"]\nmod extra;\n",
            ),
            ("pose/four_node_extra.rs", "pub struct E;\n"),
        ],
    );
    let graph = tree.graph();
    let extra = graph.tree.modules.last().unwrap();
    assert_eq!(extra.path, ["pose", "four_node", "extra"]);
    assert!(extra.file.ends_with("src/pose/four_node_extra.rs"));
}
