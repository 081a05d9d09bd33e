//! `cargo xtask module-graph` and the module-circle step of `cargo xtask ci`.
//!
//! Modules of one crate should form layers, as the crates do (`ARCHITECTURE.md`): a module
//! that uses an item of another, which uses one of the first, can be understood, tested and
//! moved only together. This reads every crate's `src/` with `syn`, draws an edge A → B for
//! each item A uses that is *defined* in B (through `use crate::…`/`super::…`/`self::…`,
//! brace groups, and paths in code), resolving re-exports to the defining module, and reports
//! every strongly connected set of two or more modules with one reference per arrow. Folders
//! are layers too: a circle among the children of a module, each collapsed with its subtree,
//! is reported as well (`folders.rs`), since two folders whose files use each other's items
//! are one piece however acyclic the files are.

mod cycles;
mod folders;
mod parse;
mod resolve;
#[cfg(test)]
mod tests;

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

/// A closed chain of modules, each referring to the next, the last to the first: files
/// (modules as written) or folders (children of one module, each standing for its subtree).
pub(crate) struct Circle {
    modules: Vec<ModId>,
    /// For each arrow `modules[i] → modules[i + 1]`, the file-level edge that shows it: the
    /// arrow itself for files, one edge between the two subtrees for folders.
    via: Vec<(ModId, ModId)>,
    /// Whether this is a circle of folders.
    folders: bool,
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

    /// Every circle: the file-level ones (for each strongly connected set of two or more
    /// modules, the shortest chain through each of its modules, so that every module of the
    /// set shows how it is caught), then the folder-level ones not already among them.
    pub(crate) fn circles(&self) -> Vec<Circle> {
        let mut out: Vec<Circle> = cycles::circles(&self.edges)
            .into_iter()
            .map(|modules| Circle {
                via: (0..modules.len())
                    .map(|i| (modules[i], modules[(i + 1) % modules.len()]))
                    .collect(),
                modules,
                folders: false,
            })
            .collect();
        out.extend(
            folders::circles(&self.tree, &self.edges)
                .into_iter()
                .map(|c| Circle {
                    modules: c.children,
                    via: c.via,
                    folders: true,
                }),
        );
        out
    }

    /// `crate: a -> b -> a` (with ` (folders)` for a folder circle) and one
    /// `a -> b: file:line` line per arrow; for folders, the modules of the example edge follow
    /// when they are not the two children themselves.
    pub(crate) fn describe(&self, circle: &Circle) -> String {
        let names: Vec<String> = circle
            .modules
            .iter()
            .map(|&m| self.module_name(m))
            .collect();
        let kind = if circle.folders { " (folders)" } else { "" };
        let mut text = format!(
            "{}: {} -> {}{kind}\n",
            self.name,
            names.join(" -> "),
            names[0]
        );
        for (i, &(from, to)) in circle.via.iter().enumerate() {
            let next = &names[(i + 1) % names.len()];
            let _ = write!(text, "    {} -> {next}: {}", names[i], self.site(from, to));
            if (from, to) != (circle.modules[i], circle.modules[(i + 1) % names.len()]) {
                let _ = write!(
                    text,
                    " ({} -> {})",
                    self.module_name(from),
                    self.module_name(to)
                );
            }
            text.push('\n');
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

/// Every crate's graph under `root` (a workspace).
pub(crate) fn workspace_graphs(root: &Path) -> Result<Vec<CrateGraph>, String> {
    let mut graphs = Vec::new();
    for dir in crate::workspace::crate_dirs(root) {
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
        "{count} module circle(s): each module above uses an item defined in the next (for \
         folders, somewhere in the next one's subtree); move the shared piece into the lower \
         module or one of its own"
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
