//! The VRM part of `skel info`: which VRM, its avatar's name, the humanoid map, the spring
//! bones, the node constraints, the expressions and the look-at.

use std::fmt::Write as _;

use skel::gltf::vrm::{ConstraintKind, LookAtType, Vrm, VrmSource};

/// Appends the VRM lines for `vrm` to `out`; `label` names a node.
pub(super) fn describe(out: &mut String, vrm: &Vrm, label: &dyn Fn(usize) -> String) {
    let version = match &vrm.source {
        VrmSource::Vrm1 { spec_version } => format!("VRMC_vrm {spec_version}"),
        VrmSource::Vrm0 { spec_version } => {
            format!(
                "VRM 0.x ({})",
                spec_version.as_deref().unwrap_or("no specVersion")
            )
        }
        other => format!("{other:?}"),
    };
    let _ = writeln!(out, "vrm: {version}, avatar {:?}", vrm.meta.name);
    let _ = writeln!(out, "  humanoid: {} bones", vrm.humanoid.bones.len());
    match &vrm.spring_bones {
        Some(springs) => {
            let d = &springs.desc;
            let joints: usize = d.springs.iter().map(|s| s.joints.len()).sum();
            let centred = d.springs.iter().filter(|s| s.center.is_some()).count();
            let _ = writeln!(
                out,
                "  spring bones: {} springs ({centred} in a center's space), {joints} joints, {} colliders in {} groups",
                d.springs.len(),
                d.colliders.len(),
                d.collider_groups.len()
            );
        }
        None => {
            let _ = writeln!(out, "  spring bones: none");
        }
    }
    for c in &vrm.constraints {
        let (kind, source, weight) = match c.kind {
            ConstraintKind::Roll { source, weight, .. } => ("roll", source, weight),
            ConstraintKind::Aim { source, weight, .. } => ("aim", source, weight),
            ConstraintKind::Rotation { source, weight } => ("rotation", source, weight),
        };
        let _ = writeln!(
            out,
            "  constraint: {} follows {} ({kind}, weight {weight})",
            label(c.node),
            label(source)
        );
    }
    let names: Vec<&str> = vrm.expressions.iter().map(|e| e.name.as_str()).collect();
    let _ = writeln!(
        out,
        "  expressions: {}{}",
        names.len(),
        if names.is_empty() {
            String::new()
        } else {
            format!(" ({})", names.join(", "))
        }
    );
    if let Some(look) = &vrm.look_at {
        let kind = match look.kind {
            LookAtType::Bone => "eye bones",
            LookAtType::Expression => "expressions",
        };
        let _ = writeln!(out, "  look-at: {kind}");
    }
}
