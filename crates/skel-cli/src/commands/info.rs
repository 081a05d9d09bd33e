//! `skel info <asset>`: what an asset holds — skins, skinned meshes, morph targets, clips.

use std::fmt::Write as _;

use clap::Args;
use skel::anim::{ChannelPath, Interpolation};
use skel::gltf::{GPU_MAX_INFLUENCES, GltfAsset, extension_support, reduced_vertex_count};

use super::asset_args::AssetArgs;

/// Arguments of `skel info`.
#[derive(Debug, Clone, Args)]
pub struct InfoArgs {
    #[command(flatten)]
    asset: AssetArgs,
}

/// Prints the summary of the asset to stdout.
///
/// # Errors
/// When the asset cannot be loaded.
pub fn run(args: &InfoArgs) -> Result<(), Box<dyn std::error::Error>> {
    let asset = args.asset.load()?;
    print!(
        "{}",
        describe(&asset, &args.asset.asset.display().to_string())
    );
    Ok(())
}

fn interpolation_name(i: Interpolation) -> &'static str {
    match i {
        Interpolation::Step => "STEP",
        Interpolation::Linear => "LINEAR",
        Interpolation::CubicSpline => "CUBICSPLINE",
    }
}

fn path_name(p: ChannelPath) -> &'static str {
    match p {
        ChannelPath::Translation => "translation",
        ChannelPath::Rotation => "rotation",
        ChannelPath::Scale => "scale",
        ChannelPath::Weights => "weights",
    }
}

fn node_label(asset: &GltfAsset, node: usize) -> String {
    match asset.nodes.get(node).map(|n| n.name.as_str()) {
        Some("") | None => format!("node {node}"),
        Some(name) => format!("node {node} {name:?}"),
    }
}

/// The text `skel info` prints.
#[must_use]
pub fn describe(asset: &GltfAsset, name: &str) -> String {
    let mut out = String::new();
    let skinned = asset.primitives.iter().filter(|p| p.is_skinned()).count();
    let _ = writeln!(
        out,
        "{name}: {} nodes, {} skins, {} mesh primitives in the scene ({skinned} skinned), {} clips",
        asset.nodes.len(),
        asset.skins.len(),
        asset.primitives.len(),
        asset.animation.clips.len()
    );

    let _ = writeln!(out, "skins:");
    if asset.skins.is_empty() {
        let _ = writeln!(out, "  (none)");
    }
    for (i, skin) in asset.skins.iter().enumerate() {
        let mut roots: Vec<String> = skin
            .root_joints
            .iter()
            .take(3)
            .map(|&r| node_label(asset, r))
            .collect();
        if skin.root_joints.len() > 3 {
            roots.push(format!("{} more", skin.root_joints.len() - 3));
        }
        let hint = skin
            .skeleton
            .map(|s| format!(", skeleton hint {}", node_label(asset, s)))
            .unwrap_or_default();
        let users = asset
            .animation
            .skeletons
            .iter()
            .filter(|b| b.skin == i)
            .count();
        let _ = writeln!(
            out,
            "  skin {i} {:?}: {} joints, root {}{hint}, bound by {users} mesh node(s)",
            skin.name,
            skin.joint_count(),
            roots.join(" + "),
        );
    }

    let _ = writeln!(out, "meshes:");
    for p in &asset.primitives {
        let mesh_name = asset.meshes.get(p.mesh).map_or("", |m| m.name.as_str());
        let mut line = format!(
            "  {} mesh {} {mesh_name:?}: {} vertices",
            p.key,
            p.mesh,
            p.vertex_count()
        );
        match (&p.influences, p.skin) {
            (Some(inf), Some(skin)) => {
                let gpu = match inf.per_vertex {
                    0..=4 => 4,
                    5..=8 => 8,
                    _ => GPU_MAX_INFLUENCES,
                };
                let _ = write!(
                    line,
                    ", skinned by skin {skin}, {} influences per vertex ({} set(s)), GPU path {gpu}",
                    inf.per_vertex, p.influence_sets
                );
                if inf.per_vertex > GPU_MAX_INFLUENCES {
                    let reduced = reduced_vertex_count(inf);
                    let _ = write!(
                        line,
                        "\n    {reduced} of {} vertices have more than {GPU_MAX_INFLUENCES} non-zero weights: the GPU keeps their {GPU_MAX_INFLUENCES} largest, renormalised",
                        p.vertex_count()
                    );
                }
            }
            _ => line.push_str(", rigid"),
        }
        if let Some(t) = &p.morph_targets {
            let _ = write!(line, ", {} morph targets", t.target_count);
            if !t.normals.is_empty() {
                line.push_str(" (with normals)");
            }
        }
        let _ = writeln!(out, "{line}");
    }

    let _ = writeln!(out, "clips:");
    if asset.animation.clips.is_empty() {
        let _ = writeln!(out, "  (none: `skel pose` shows the rest pose)");
    }
    for (i, clip) in asset.animation.clips.iter().enumerate() {
        let mut interps: Vec<&str> = clip
            .samplers
            .iter()
            .map(|s| interpolation_name(s.interpolation()))
            .collect();
        interps.sort_unstable();
        interps.dedup();
        let mut paths: Vec<&str> = clip.channels.iter().map(|c| path_name(c.path)).collect();
        paths.sort_unstable();
        paths.dedup();
        let _ = writeln!(
            out,
            "  clip {i} {:?}: {:.4} s, {} channels ({}), {}",
            clip.name,
            clip.duration(),
            clip.channels.len(),
            paths.join(", "),
            interps.join(", ")
        );
        for track in &clip.properties {
            let target = asset
                .properties
                .get(track.slot)
                .map_or_else(|| format!("slot {}", track.slot), |t| format!("{t:?}"));
            let _ = writeln!(out, "    property track: {target} ({:?})", track.kind);
        }
    }

    let _ = writeln!(out, "extensions:");
    if asset.extensions_used.is_empty() && asset.extensions_required.is_empty() {
        let _ = writeln!(out, "  (none)");
    }
    let mut names: Vec<&String> = asset
        .extensions_used
        .iter()
        .chain(&asset.extensions_required)
        .collect();
    names.sort_unstable();
    names.dedup();
    for name in names {
        let support = extension_support(name);
        let required = if asset.extensions_required.contains(name) {
            " (required)"
        } else {
            ""
        };
        let _ = writeln!(
            out,
            "  {name}{required}: {}, {}",
            support.kind(),
            support.detail()
        );
    }
    if let Some(vrm) = asset.vrm() {
        super::info_vrm::describe(&mut out, vrm, &|node| node_label(asset, node));
    }
    if !asset.warnings.is_empty() {
        let _ = writeln!(out, "skipped:");
        for w in &asset.warnings {
            let _ = writeln!(out, "  {w}");
        }
    }
    out
}
