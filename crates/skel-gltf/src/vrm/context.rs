//! What the VRM readers need from the rest of the file (node and mesh counts, children lists)
//! and where they put warnings; with the spec-version rule they all share.

use crate::nodes::NodeInfo;
use crate::{LoadWarning, MeshInfo};

/// What the readers need from the rest of the file, and where they put warnings.
pub(crate) struct LoadCtx<'a> {
    /// How many nodes the file has.
    pub(crate) node_count: usize,
    /// Every node (children lists for 0.x chains, meshes for expression binds).
    pub(crate) nodes: &'a [NodeInfo],
    /// Every mesh (morph target counts).
    pub(crate) meshes: &'a [MeshInfo],
    /// Warnings found so far.
    pub(crate) warnings: Vec<LoadWarning>,
}

impl LoadCtx<'_> {
    /// Records a warning at `path`.
    pub(crate) fn warn(&mut self, path: &str, message: impl Into<String>) {
        self.warnings.push(LoadWarning::new(path, message));
    }

    /// Whether `spec_version` (at `path`, of extension `name`) is one skel reads: `1.0`
    /// silently, a `1.0-…` pre-release with a warning; otherwise a warning and `false`.
    pub(crate) fn accept_version(&mut self, name: &str, path: &str, spec_version: &str) -> bool {
        if spec_version == "1.0" {
            return true;
        }
        if spec_version.starts_with("1.0-") {
            self.warn(
                path,
                format!(
                    "{name} specVersion {spec_version:?} is a pre-release: read as 1.0 (three-vrm reads only \"1.0\" and \"1.0-beta\")"
                ),
            );
            return true;
        }
        self.warn(
            path,
            format!(
                "{name} specVersion {spec_version:?} is not supported: the extension is skipped"
            ),
        );
        false
    }
}
