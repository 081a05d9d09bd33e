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
