//! Bone control is opt-in and sits above the crates it hooks into: `skel-math`, `skel-anim`,
//! `skel-gpu` and `skel-gltf` must not depend on `skel-bone-control`, directly or through
//! another crate, and the facade `skel` may only name it as an optional dependency. Checked on
//! the real workspace's manifests with `cargo metadata --no-deps`: only workspace crates can
//! name `skel-bone-control`, so the walk over their declared dependencies is the whole graph,
//! and it needs no registry, no network and nothing a previous build left in the cargo cache.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use std::collections::{BTreeSet, HashMap};
use std::process::Command;

use serde_json::Value;

const LOWER: [&str; 4] = ["skel-math", "skel-anim", "skel-gpu", "skel-gltf"];
const THIS: &str = "skel-bone-control";

fn metadata() -> Value {
    let manifest = concat!(env!("CARGO_MANIFEST_DIR"), "/../../Cargo.toml");
    let out = Command::new(env!("CARGO"))
        .args([
            "metadata",
            "--format-version",
            "1",
            "--no-deps",
            "--manifest-path",
            manifest,
        ])
        .output()
        .expect("cargo metadata runs");
    assert!(
        out.status.success(),
        "cargo metadata failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// Every workspace package `root` reaches through normal and build dependencies (optional ones
/// included: a feature could switch them on). Registry crates cannot name a workspace crate, so
/// following only the workspace's own manifests finds every path to one.
fn reachable(meta: &Value, root: &str) -> BTreeSet<String> {
    let workspace: HashMap<&str, &Value> = meta["packages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p["name"].as_str().unwrap(), p))
        .collect();
    assert!(
        workspace.contains_key(root),
        "{root} is a workspace package"
    );
    let mut seen = BTreeSet::new();
    let mut stack = vec![root.to_owned()];
    while let Some(name) = stack.pop() {
        for dep in workspace[name.as_str()]["dependencies"].as_array().unwrap() {
            let dep_name = dep["name"].as_str().unwrap();
            let not_dev = dep["kind"].as_str() != Some("dev");
            if not_dev && workspace.contains_key(dep_name) && seen.insert(dep_name.to_owned()) {
                stack.push(dep_name.to_owned());
            }
        }
    }
    seen
}

fn declared(meta: &Value, package: &str) -> Vec<Value> {
    meta["packages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == package)
        .unwrap()["dependencies"]
        .as_array()
        .unwrap()
        .clone()
}

#[test]
fn lower_crates_do_not_depend_on_bone_control() {
    let meta = metadata();
    for lower in LOWER {
        let deps = reachable(&meta, lower);
        assert!(!deps.contains(THIS), "{lower} reaches {THIS}: {deps:?}");
        // Not even as a dev-dependency: the layers stay one-way in tests too.
        let direct: Vec<Value> = declared(&meta, lower);
        assert!(
            direct.iter().all(|d| d["name"] != THIS),
            "{lower} declares {THIS}"
        );
    }
    // Positive control: the walk does find the crate where it is used (the CLI enables the
    // facade's `bone-control` feature), so the check above is not vacuous.
    assert!(reachable(&meta, "skel-cli").contains(THIS));
}

#[test]
fn bone_control_depends_only_on_the_layers_below_it() {
    let meta = metadata();
    let deps = reachable(&meta, THIS);
    for upper in ["skel", "skel-cli", "skel-gpu", "skel-gltf"] {
        assert!(!deps.contains(upper), "{THIS} reaches {upper}");
    }
    let normal: BTreeSet<String> = declared(&meta, THIS)
        .iter()
        .filter(|d| d["kind"].is_null())
        .map(|d| d["name"].as_str().unwrap().to_owned())
        .collect();
    let want: BTreeSet<String> = ["skel-anim", "skel-math", "thiserror"]
        .into_iter()
        .map(str::to_owned)
        .collect();
    assert_eq!(normal, want);
}

#[test]
fn the_facade_names_bone_control_only_as_an_optional_dependency() {
    let meta = metadata();
    for dep in declared(&meta, "skel") {
        if dep["name"] == THIS {
            assert_eq!(dep["optional"], true, "skel must make {THIS} opt-in");
        }
    }
}
