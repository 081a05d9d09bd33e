//! Reads one crate's module tree with `syn`: for every module (file or inline block) the
//! names it defines, the names it imports, and every path in its code that may name an item
//! of the same crate. Resolution happens afterwards (`resolve.rs`), once every module is known.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use proc_macro2::{TokenStream, TokenTree};
use syn::visit::Visit;

/// Index of a module in [`Tree::modules`].
pub(crate) type ModId = usize;

/// A name a module brings into scope with `use`.
#[derive(Debug, Clone)]
pub(crate) struct Import {
    /// The name it is known by here (`use a::B as C` → `C`); `None` for a glob (`use a::*`).
    pub name: Option<String>,
    /// The path it stands for; for a glob, the module whose names it brings.
    pub path: Vec<String>,
}

/// A path in a module that may name an item of this crate, with where it was written.
#[derive(Debug, Clone)]
pub(crate) struct Reference {
    /// The segments, as written (`crate`, `super`, `self` included).
    pub path: Vec<String>,
    /// 1-based line in [`Module::file`].
    pub line: usize,
    /// Whether it came from a `use` glob: the reference is to the module itself.
    pub glob: bool,
}

/// One module: a file (`lib.rs`, `a.rs`, `a/mod.rs`) or an inline `mod a { … }` block.
#[derive(Debug)]
pub(crate) struct Module {
    /// Its path in the crate, empty for the crate root.
    pub path: Vec<String>,
    /// The file it is written in.
    pub file: PathBuf,
    /// Its parent, `None` for the root.
    pub parent: Option<ModId>,
    /// Its child modules by name.
    pub children: BTreeMap<String, ModId>,
    /// Names of the items defined here (functions, types, traits, constants, macros…).
    pub items: BTreeSet<String>,
    /// What its module-level `use` declarations bring into scope.
    pub imports: Vec<Import>,
    /// The paths to resolve into edges.
    pub refs: Vec<Reference>,
}

/// A crate's modules; index 0 is the root.
#[derive(Debug)]
pub(crate) struct Tree {
    /// Every module, the root first.
    pub modules: Vec<Module>,
}

/// Parses the module tree rooted at `root_file` (`src/lib.rs` or `src/main.rs`).
///
/// A `mod` whose file is missing is left out silently (cargo would have failed first);
/// a file that does not parse is an error naming it.
pub(crate) fn parse_tree(root_file: &Path) -> Result<Tree, String> {
    let mut tree = Tree {
        modules: Vec::new(),
    };
    let file = read(root_file)?;
    let dir = root_file.parent().unwrap_or(Path::new(".")).to_path_buf();
    tree.modules.push(new_module(Vec::new(), root_file, None));
    add_items(&mut tree, 0, &file.items, &dir, root_file)?;
    Ok(tree)
}

fn new_module(path: Vec<String>, file: &Path, parent: Option<ModId>) -> Module {
    Module {
        path,
        file: file.to_path_buf(),
        parent,
        children: BTreeMap::new(),
        items: BTreeSet::new(),
        imports: Vec::new(),
        refs: Vec::new(),
    }
}

fn read(file: &Path) -> Result<syn::File, String> {
    let text = std::fs::read_to_string(file)
        .map_err(|e| format!("cannot read {}: {e}", file.display()))?;
    syn::parse_file(&text).map_err(|e| {
        let line = e.span().start().line;
        format!("cannot parse {}:{line}: {e}", file.display())
    })
}

/// Whether `attrs` hold `#[cfg(test)]`: test code may use anything, so it is left out.
fn is_test_only(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| {
        a.path().is_ident("cfg")
            && a.parse_args::<syn::Ident>()
                .is_ok_and(|ident| ident == "test")
    })
}

/// The `#[path = "…"]` of a `mod` declaration, if any.
fn path_attr(attrs: &[syn::Attribute]) -> Option<String> {
    attrs.iter().find_map(|a| match &a.meta {
        syn::Meta::NameValue(nv) if nv.path.is_ident("path") => match &nv.value {
            syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(s),
                ..
            }) => Some(s.value()),
            _ => None,
        },
        _ => None,
    })
}

/// Records `items` as the contents of module `id`. `dir` is where its `mod x;` children live.
fn add_items(
    tree: &mut Tree,
    id: ModId,
    items: &[syn::Item],
    dir: &Path,
    file: &Path,
) -> Result<(), String> {
    for item in items {
        if is_test_only(item_attrs(item)) {
            continue;
        }
        match item {
            syn::Item::Mod(m) => add_child(tree, id, m, dir, file)?,
            syn::Item::Use(u) => {
                let mut leaves = Vec::new();
                use_leaves(&u.tree, &mut Vec::new(), &mut leaves);
                let reexport = !matches!(u.vis, syn::Visibility::Inherited);
                let module = &mut tree.modules[id];
                for (path, name, line) in leaves {
                    let glob = name.is_none();
                    module.imports.push(Import {
                        name: name.clone(),
                        path: path.clone(),
                    });
                    // A re-export in a root or mod.rs only passes names on; one in any other
                    // file is also what that file's own code uses.
                    if !(reexport && is_hub(file)) {
                        module.refs.push(Reference { path, line, glob });
                    }
                }
            }
            other => {
                if let Some(name) = item_name(other) {
                    tree.modules[id].items.insert(name);
                }
                let mut collector = PathCollector { refs: Vec::new() };
                collector.visit_item(other);
                tree.modules[id].refs.extend(collector.refs);
            }
        }
    }
    Ok(())
}

/// Whether module `id` is an inline `mod a { … }` block (written in its parent's file).
fn is_inline(tree: &Tree, id: ModId) -> bool {
    tree.modules[id]
        .parent
        .is_some_and(|p| tree.modules[p].file == tree.modules[id].file)
}

/// Whether `file` is a crate root or a `mod.rs`: the files whose `pub use` are re-exports only.
fn is_hub(file: &Path) -> bool {
    file.file_name()
        .is_some_and(|n| n == "lib.rs" || n == "main.rs" || n == "mod.rs")
}

fn add_child(
    tree: &mut Tree,
    parent: ModId,
    m: &syn::ItemMod,
    dir: &Path,
    file: &Path,
) -> Result<(), String> {
    let name = m.ident.to_string();
    let mut path = tree.modules[parent].path.clone();
    path.push(name.clone());
    let child_dir = dir.join(&name);
    let (child_file, items, next_dir) = match &m.content {
        Some((_, items)) => (file.to_path_buf(), items.clone(), child_dir),
        None => {
            let candidates = match path_attr(&m.attrs) {
                // Rust reads `#[path]` in a file's own scope from that file's directory
                // (`pose/four_node.rs` → `pose/four_node_tests.rs`), inside an inline
                // module from that module's directory.
                Some(p) if !is_inline(tree, parent) => {
                    vec![file.parent().unwrap_or(dir).join(p)]
                }
                Some(p) => vec![dir.join(p)],
                None => vec![dir.join(format!("{name}.rs")), child_dir.join("mod.rs")],
            };
            let Some(found) = candidates.into_iter().find(|c| c.is_file()) else {
                return Ok(());
            };
            let parsed = read(&found)?;
            let next = if is_hub(&found) {
                found.parent().unwrap_or(dir).to_path_buf()
            } else {
                child_dir
            };
            (found, parsed.items, next)
        }
    };
    let id = tree.modules.len();
    tree.modules
        .push(new_module(path, &child_file, Some(parent)));
    tree.modules[parent].children.insert(name, id);
    add_items(tree, id, &items, &next_dir, &child_file)
}

/// Every leaf of a `use` tree: (path to it, the name it binds or `None` for a glob, line).
/// `use a::{b::C, d::{E, F as G}}` gives `a::b::C`→C, `a::d::E`→E, `a::d::F`→G.
fn use_leaves(
    tree: &syn::UseTree,
    prefix: &mut Vec<String>,
    out: &mut Vec<(Vec<String>, Option<String>, usize)>,
) {
    match tree {
        syn::UseTree::Path(p) => {
            prefix.push(p.ident.to_string());
            use_leaves(&p.tree, prefix, out);
            prefix.pop();
        }
        syn::UseTree::Name(n) => {
            // `use a::{self}` binds `a` itself.
            let mut path = prefix.clone();
            if n.ident != "self" {
                path.push(n.ident.to_string());
            }
            let name = path.last().cloned();
            out.push((path, name, n.ident.span().start().line));
        }
        syn::UseTree::Rename(r) => {
            let mut path = prefix.clone();
            path.push(r.ident.to_string());
            out.push((
                path,
                Some(r.rename.to_string()),
                r.ident.span().start().line,
            ));
        }
        syn::UseTree::Glob(g) => {
            out.push((prefix.clone(), None, g.star_token.spans[0].start().line));
        }
        syn::UseTree::Group(g) => {
            for t in &g.items {
                use_leaves(t, prefix, out);
            }
        }
    }
}

fn item_attrs(item: &syn::Item) -> &[syn::Attribute] {
    match item {
        syn::Item::Const(i) => &i.attrs,
        syn::Item::Enum(i) => &i.attrs,
        syn::Item::ExternCrate(i) => &i.attrs,
        syn::Item::Fn(i) => &i.attrs,
        syn::Item::ForeignMod(i) => &i.attrs,
        syn::Item::Impl(i) => &i.attrs,
        syn::Item::Macro(i) => &i.attrs,
        syn::Item::Mod(i) => &i.attrs,
        syn::Item::Static(i) => &i.attrs,
        syn::Item::Struct(i) => &i.attrs,
        syn::Item::Trait(i) => &i.attrs,
        syn::Item::TraitAlias(i) => &i.attrs,
        syn::Item::Type(i) => &i.attrs,
        syn::Item::Union(i) => &i.attrs,
        syn::Item::Use(i) => &i.attrs,
        _ => &[],
    }
}

/// The name an item defines in its module's namespace, if any (impls define none).
fn item_name(item: &syn::Item) -> Option<String> {
    let ident = match item {
        syn::Item::Const(i) => &i.ident,
        syn::Item::Enum(i) => &i.ident,
        syn::Item::Fn(i) => &i.sig.ident,
        syn::Item::Macro(i) => i.ident.as_ref()?,
        syn::Item::Static(i) => &i.ident,
        syn::Item::Struct(i) => &i.ident,
        syn::Item::Trait(i) => &i.ident,
        syn::Item::TraitAlias(i) => &i.ident,
        syn::Item::Type(i) => &i.ident,
        syn::Item::Union(i) => &i.ident,
        _ => return None,
    };
    Some(ident.to_string())
}

/// Collects the paths inside one item: in types, expressions, patterns, attributes, `use`
/// declarations inside function bodies, and `crate::…`/`super::…`/`self::…` sequences inside
/// macro invocations (whose tokens syn does not parse).
struct PathCollector {
    refs: Vec<Reference>,
}

impl<'ast> Visit<'ast> for PathCollector {
    fn visit_path(&mut self, path: &'ast syn::Path) {
        let segments: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
        // A single name is either local or came in through a `use`, already counted there.
        if segments.len() > 1 && path.leading_colon.is_none() {
            let line = path
                .segments
                .first()
                .map_or(0, |s| s.ident.span().start().line);
            self.refs.push(Reference {
                path: segments,
                line,
                glob: false,
            });
        }
        syn::visit::visit_path(self, path);
    }

    fn visit_item_use(&mut self, u: &'ast syn::ItemUse) {
        let mut leaves = Vec::new();
        use_leaves(&u.tree, &mut Vec::new(), &mut leaves);
        for (path, name, line) in leaves {
            self.refs.push(Reference {
                path,
                line,
                glob: name.is_none(),
            });
        }
    }

    fn visit_item_mod(&mut self, _: &'ast syn::ItemMod) {
        // A module nested in a function body is rare and not part of the module tree.
    }

    fn visit_attribute(&mut self, attr: &'ast syn::Attribute) {
        if !is_test_only(std::slice::from_ref(attr)) {
            syn::visit::visit_attribute(self, attr);
        }
    }

    fn visit_impl_item_fn(&mut self, f: &'ast syn::ImplItemFn) {
        if !is_test_only(&f.attrs) {
            syn::visit::visit_impl_item_fn(self, f);
        }
    }

    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        self.visit_path(&mac.path);
        macro_paths(mac.tokens.clone(), &mut self.refs);
    }
}

/// `crate::a::B`, `super::B`, `self::a::B` (and `$crate::…`) sequences in macro tokens.
fn macro_paths(tokens: TokenStream, out: &mut Vec<Reference>) {
    let tokens: Vec<TokenTree> = tokens.into_iter().collect();
    let mut i = 0;
    while i < tokens.len() {
        if let TokenTree::Group(g) = &tokens[i] {
            macro_paths(g.stream(), out);
        }
        let starts = matches!(&tokens[i], TokenTree::Ident(id)
            if id == "crate" || id == "super" || id == "self");
        if starts {
            let line = tokens[i].span().start().line;
            let mut path = vec![tokens[i].to_string()];
            let mut j = i + 1;
            while let (
                Some(TokenTree::Punct(a)),
                Some(TokenTree::Punct(b)),
                Some(TokenTree::Ident(id)),
            ) = (tokens.get(j), tokens.get(j + 1), tokens.get(j + 2))
            {
                if a.as_char() != ':' || b.as_char() != ':' {
                    break;
                }
                path.push(id.to_string());
                j += 3;
            }
            if path.len() > 1 {
                out.push(Reference {
                    path,
                    line,
                    glob: false,
                });
            }
            i = j;
        } else {
            i += 1;
        }
    }
}
