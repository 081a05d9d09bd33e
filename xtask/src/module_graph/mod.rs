//! `cargo xtask module-graph` and the module-circle step of `cargo xtask ci`.
//!
//! Modules of one crate should form layers, as the crates do (`ARCHITECTURE.md`): a module
//! that uses an item of another, which uses one of the first, can be understood, tested and
//! moved only together. This reads every crate's `src/` with `syn`, draws an edge A → B for
//! each item A uses that is *defined* in B (through `use crate::…`/`super::…`/`self::…`,
//! brace groups, and paths in code), resolving re-exports to the defining module, and reports
//! every strongly connected set of two or more modules with one reference per arrow.

mod parse;
mod resolve;
#[cfg(test)]
mod tests;

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use parse::{ModId, Tree};
use resolve::Edges;

/// One crate target's module graph.
pub(crate) struct CrateGraph {
    /// The crate's directory name (`skel-gltf`, `xtask`).
    pub name: String,
    tree: Tree,
    edges: Edges,
    /// What the crate root is called in output: `lib` or `main`.
    root_name: &'static str,
    /// The workspace root, so printed files are relative to it.
    base: PathBuf,
}

/// A closed chain of modules, each referring to the next, the last to the first.
pub(crate) struct Circle {
    modules: Vec<ModId>,
}

impl CrateGraph {
    /// Reads the crate at `dir`: `src/lib.rs` when it has one, else `src/main.rs`. Printed
    /// paths are relative to `base`.
    pub(crate) fn read(dir: &Path, base: &Path) -> Result<Option<Self>, String> {
        let Some((root_file, root_name)) = [("lib.rs", "lib"), ("main.rs", "main")]
            .into_iter()
            .map(|(file, name)| (dir.join("src").join(file), name))
            .find(|(file, _)| file.is_file())
        else {
            return Ok(None);
        };
        let tree = parse::parse_tree(&root_file)?;
        let edges = resolve::edges(&tree);
        let name = dir
            .file_name()
            .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
        Ok(Some(Self {
            name,
            tree,
            edges,
            root_name,
            base: base.to_path_buf(),
        }))
    }

    /// A module's name in output: its path (`player::mix`), `lib`/`main` for the root.
    fn module_name(&self, id: ModId) -> String {
        let path = &self.tree.modules[id].path;
        if path.is_empty() {
            self.root_name.to_owned()
        } else {
            path.join("::")
        }
    }

    /// `file:line` of the reference behind edge `from → to`.
    fn site(&self, from: ModId, to: ModId) -> String {
        self.edges[from].get(&to).map_or_else(String::new, |s| {
            let file = s.file.strip_prefix(&self.base).unwrap_or(&s.file);
            format!("{}:{}", file.display(), s.line)
        })
    }

    /// Every circle: for each strongly connected set of two or more modules, the shortest
    /// chain through each of its modules (duplicates removed), so that every module of the
    /// set shows how it is caught.
    pub(crate) fn circles(&self) -> Vec<Circle> {
        let mut out: Vec<Vec<ModId>> = Vec::new();
        for component in strongly_connected(&self.edges) {
            if component.len() < 2 {
                continue;
            }
            let inside: BTreeSet<ModId> = component.iter().copied().collect();
            for &start in &component {
                let Some(mut chain) = shortest_cycle(&self.edges, &inside, start) else {
                    continue;
                };
                // One rotation per circle: start at its smallest module.
                let min = chain
                    .iter()
                    .enumerate()
                    .min_by_key(|(_, m)| **m)
                    .map_or(0, |(i, _)| i);
                chain.rotate_left(min);
                if !out.contains(&chain) {
                    out.push(chain);
                }
            }
        }
        out.into_iter().map(|modules| Circle { modules }).collect()
    }

    /// `crate: a -> b -> a` and one `a -> b: file:line` line per arrow.
    pub(crate) fn describe(&self, circle: &Circle) -> String {
        let names: Vec<String> = circle
            .modules
            .iter()
            .map(|&m| self.module_name(m))
            .collect();
        let mut text = format!("{}: {} -> {}\n", self.name, names.join(" -> "), names[0]);
        for (i, &from) in circle.modules.iter().enumerate() {
            let to = circle.modules[(i + 1) % circle.modules.len()];
            let _ = writeln!(
                text,
                "    {} -> {}: {}",
                names[i],
                self.module_name(to),
                self.site(from, to)
            );
        }
        text
    }

    /// Every module and what it uses, one line per edge with its first reference.
    pub(crate) fn listing(&self) -> String {
        let mut text = format!("{}\n", self.name);
        for from in 0..self.tree.modules.len() {
            let _ = writeln!(text, "  {}", self.module_name(from));
            for &to in self.edges[from].keys() {
                let _ = writeln!(
                    text,
                    "    -> {}  ({})",
                    self.module_name(to),
                    self.site(from, to)
                );
            }
        }
        text
    }

    /// The graph as a Graphviz `subgraph cluster` (one per crate).
    pub(crate) fn dot(&self) -> String {
        let node = |m: ModId| format!("\"{}/{}\"", self.name, self.module_name(m));
        let mut text = format!(
            "  subgraph \"cluster_{}\" {{\n    label=\"{}\";\n",
            self.name, self.name
        );
        for from in 0..self.tree.modules.len() {
            let _ = writeln!(
                text,
                "    {} [label=\"{}\"];",
                node(from),
                self.module_name(from)
            );
            for &to in self.edges[from].keys() {
                let _ = writeln!(text, "    {} -> {};", node(from), node(to));
            }
        }
        text.push_str("  }\n");
        text
    }
}

/// Every crate directory the check covers: each of `crates/*` and `xtask` itself.
fn crate_dirs(root: &Path) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(root.join("crates"))
        .into_iter()
        .flatten()
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.join("Cargo.toml").is_file())
        .collect();
    dirs.sort();
    dirs.push(root.join("xtask"));
    dirs
}

/// Every crate's graph under `root` (a workspace).
pub(crate) fn workspace_graphs(root: &Path) -> Result<Vec<CrateGraph>, String> {
    let mut graphs = Vec::new();
    for dir in crate_dirs(root) {
        graphs.extend(CrateGraph::read(&dir, root)?);
    }
    Ok(graphs)
}

/// The `xtask ci` step: prints every circle of every crate and fails when there is one.
pub(crate) fn check(root: &Path) -> Result<(), String> {
    let mut report = String::new();
    let mut count = 0;
    for graph in workspace_graphs(root)? {
        for circle in graph.circles() {
            count += 1;
            report.push_str(&graph.describe(&circle));
        }
    }
    if count == 0 {
        return Ok(());
    }
    eprint!("{report}");
    Err(format!(
        "{count} module circle(s): each module above uses an item defined in the next; move \
         the shared piece into the lower module or one of its own"
    ))
}

/// `cargo xtask module-graph [--dot]`: every crate's modules and their edges.
pub(crate) fn run(dot: bool) -> Result<(), String> {
    let graphs = workspace_graphs(&crate::workspace_root())?;
    if dot {
        println!("digraph modules {{\n  rankdir=LR;");
        for graph in &graphs {
            print!("{}", graph.dot());
        }
        println!("}}");
    } else {
        for graph in &graphs {
            print!("{}", graph.listing());
            for circle in graph.circles() {
                print!("  circle: {}", graph.describe(&circle));
            }
        }
    }
    Ok(())
}

/// Tarjan's strongly connected components, each sorted, in a stable order.
fn strongly_connected(edges: &Edges) -> Vec<Vec<ModId>> {
    struct State<'a> {
        edges: &'a Edges,
        index: Vec<Option<usize>>,
        low: Vec<usize>,
        on_stack: Vec<bool>,
        stack: Vec<ModId>,
        next: usize,
        out: Vec<Vec<ModId>>,
    }
    fn visit(s: &mut State<'_>, v: ModId) {
        s.index[v] = Some(s.next);
        s.low[v] = s.next;
        s.next += 1;
        s.stack.push(v);
        s.on_stack[v] = true;
        for &w in s.edges[v].keys() {
            match s.index[w] {
                None => {
                    visit(s, w);
                    s.low[v] = s.low[v].min(s.low[w]);
                }
                Some(iw) if s.on_stack[w] => s.low[v] = s.low[v].min(iw),
                Some(_) => {}
            }
        }
        if Some(s.low[v]) == s.index[v] {
            let mut component = Vec::new();
            while let Some(w) = s.stack.pop() {
                s.on_stack[w] = false;
                component.push(w);
                if w == v {
                    break;
                }
            }
            component.sort_unstable();
            s.out.push(component);
        }
    }
    let n = edges.len();
    let mut state = State {
        edges,
        index: vec![None; n],
        low: vec![0; n],
        on_stack: vec![false; n],
        stack: Vec::new(),
        next: 0,
        out: Vec::new(),
    };
    for v in 0..n {
        if state.index[v].is_none() {
            visit(&mut state, v);
        }
    }
    state.out.sort();
    state.out
}

/// The shortest chain `start → … → start` that stays inside `inside` (breadth first).
fn shortest_cycle(edges: &Edges, inside: &BTreeSet<ModId>, start: ModId) -> Option<Vec<ModId>> {
    let mut came_from: BTreeMap<ModId, ModId> = BTreeMap::new();
    let mut queue = VecDeque::from([start]);
    while let Some(v) = queue.pop_front() {
        for &w in edges[v].keys().filter(|w| inside.contains(w)) {
            if w == start {
                let mut chain = vec![v];
                let mut at = v;
                while at != start {
                    at = came_from[&at];
                    chain.push(at);
                }
                chain.reverse();
                return Some(chain);
            }
            if let std::collections::btree_map::Entry::Vacant(e) = came_from.entry(w) {
                e.insert(v);
                queue.push_back(w);
            }
        }
    }
    None
}
