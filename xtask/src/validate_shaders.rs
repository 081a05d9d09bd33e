//! `cargo xtask validate-shaders`: parse and validate every WGSL file in `crates/*/shaders/` and every
//! variant skel-gpu generates from them, with naga (what wgpu runs at pipeline creation).
//!
//! - skel-gpu's own files are templates (they hold `{{PLACEHOLDERS}}`): they are checked
//!   through every generated variant — each [`ShaderFragment`] variant alone, each composed
//!   under a probe vertex shader (its `SkelInfluences` locations and `skel_skin_vertex`), at two
//!   binding configurations, and every [`ComputeSkinningConfig`] (influences × morph × normals ×
//!   joint format × weight format), and each [`ComputeTuning::variants`] code shape over every
//!   skinning variant. A file under `shaders/` that skel-gpu embeds but no variant
//!   uses is an error.
//! - Any other `.wgsl` file is validated on its own, unless its first lines hold
//!   `// skel-validate: compose [0 0m 4 4m 8 8m]`, or it uses the `{{SKEL_INFLUENCES_…}}`
//!   placeholders: then it is composed after the fragment of each listed variant (all six when
//!   none are listed) with [`ShaderFragment::compose`], in the first bind group the file leaves
//!   free, and each result validated.

use std::path::Path;

use skel_gpu::shader::sources;
use skel_gpu::{
    COMPUTE_BONE_CACHE_SIZE, ComputeSkinningConfig, ComputeTuning, FragmentBindings,
    ShaderFragment, SkinningVariant,
};

/// A vertex shader using the fragment the way a renderer does.
const PROBE_VERTEX: &str = r"
struct ProbeOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) normal: vec3<f32>,
}

@vertex
fn probe_vs(@builtin(vertex_index) vi: u32, @location(0) p: vec3<f32>, @location(1) n: vec3<f32>
            {{SKEL_INFLUENCES_PARAM}}) -> ProbeOut {
    let v = skel_skin_vertex(vi, p, n {{SKEL_INFLUENCES_ARG}});
    return ProbeOut(vec4<f32>(v.position, 1.0), v.normal);
}
";

/// Validates everything, printing how many modules were checked.
pub(crate) fn run() -> Result<(), String> {
    let root = crate::workspace_root();
    let mut report = Report::default();

    let binding_sets = [
        FragmentBindings::default(),
        FragmentBindings {
            group: 3,
            first_binding: 5,
            first_location: 9,
        },
    ];
    for variant in SkinningVariant::all() {
        for bindings in binding_sets {
            let fragment = ShaderFragment::new(variant, bindings);
            let label = variant_label(variant);
            report.check(format!("fragment {label} {bindings:?}"), fragment.source());
            report.check(
                format!("probe vertex shader over fragment {label} {bindings:?}"),
                &fragment.compose(PROBE_VERTEX),
            );
        }
    }
    for config in ComputeSkinningConfig::all() {
        report.check(format!("compute skinning {config:?}"), &config.wgsl());
    }
    for tuning in ComputeTuning::variants() {
        for variant in SkinningVariant::all() {
            let config = ComputeSkinningConfig {
                variant,
                ..ComputeSkinningConfig::default()
            };
            report.check(
                format!("compute skinning {config:?} {tuning:?}"),
                &config.wgsl_tuned(&tuning, COMPUTE_BONE_CACHE_SIZE),
            );
        }
    }

    // Shaders live in the crate that embeds them: `crates/<crate>/shaders/*.wgsl`.
    let crates = root.join("crates");
    let mut files = Vec::new();
    let crate_dirs =
        std::fs::read_dir(&crates).map_err(|e| format!("cannot read {}: {e}", crates.display()))?;
    for crate_dir in crate_dirs.filter_map(Result::ok) {
        let dir = crate_dir.path().join("shaders");
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        files.extend(
            entries
                .filter_map(Result::ok)
                .map(|entry| entry.path())
                .filter(|p| p.extension().is_some_and(|e| e == "wgsl")),
        );
    }
    files.sort();
    for path in &files {
        let name = file_name(path);
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        if let Some((_, embedded)) = sources::ALL.iter().find(|(n, _)| *n == name) {
            if *embedded != text {
                report.failures.push(format!(
                    "{name}: differs from the copy skel-gpu embeds (rebuild xtask: `cargo xtask` recompiles it)"
                ));
            }
            continue;
        }
        match compose_directive(&text) {
            None => report.check(name.clone(), &text),
            Some(variants) => {
                let bindings = FragmentBindings {
                    group: first_free_group(&text),
                    ..FragmentBindings::default()
                };
                for variant in variants {
                    let fragment = ShaderFragment::new(variant, bindings);
                    report.check(
                        format!(
                            "{name} over fragment {} {bindings:?}",
                            variant_label(variant)
                        ),
                        &fragment.compose(&text),
                    );
                }
            }
        }
    }
    check_top_level_copies(&root, &files, &mut report.failures);
    for (name, _) in sources::ALL {
        if !files.iter().any(|p| file_name(p) == name) {
            report.failures.push(format!(
                "{name}: embedded by skel-gpu but missing from crates/skel-gpu/shaders/"
            ));
        }
    }

    eprintln!(
        "validate-shaders: {} modules checked, {} problems",
        report.checked,
        report.failures.len()
    );
    if report.failures.is_empty() {
        Ok(())
    } else {
        Err(report.failures.join("\n\n"))
    }
}

/// Modules checked and problems found.
#[derive(Default)]
struct Report {
    checked: usize,
    failures: Vec<String>,
}

impl Report {
    fn check(&mut self, name: String, source: &str) {
        self.checked += 1;
        if let Err(e) = validate(&name, source) {
            self.failures.push(e);
        }
    }
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// `0`, `4m`, … as the directive spells variants.
fn variant_label(variant: SkinningVariant) -> String {
    format!(
        "{}{}",
        variant.influences.count(),
        if variant.morph { "m" } else { "" }
    )
}

/// The variants a file is composed over: those a `// skel-validate: compose …` line (within
/// the first 10 lines) lists, all six for a bare directive or for a file that uses the
/// `{{SKEL_…}}` placeholders without one; `None` for a standalone file.
fn compose_directive(text: &str) -> Option<Vec<SkinningVariant>> {
    let all = SkinningVariant::all();
    let Some(line) = text
        .lines()
        .take(10)
        .find_map(|l| l.trim().strip_prefix("// skel-validate: compose"))
    else {
        return text.contains("{{SKEL_").then(|| all.to_vec());
    };
    let wanted: Vec<&str> = line.split_whitespace().collect();
    if wanted.is_empty() {
        return Some(all.to_vec());
    }
    Some(
        all.into_iter()
            .filter(|v| wanted.contains(&variant_label(*v).as_str()))
            .collect(),
    )
}

/// One past the highest `@group(N)` the file declares, so the fragment's group never collides.
fn first_free_group(text: &str) -> u32 {
    text.split("@group(")
        .skip(1)
        .filter_map(|rest| rest.split(')').next()?.trim().parse::<u32>().ok())
        .max()
        .map_or(0, |g| g + 1)
}

/// Parses and validates one module with naga's default (WebGPU) capabilities.
fn validate(name: &str, source: &str) -> Result<(), String> {
    let module = naga::front::wgsl::parse_str(source).map_err(|e| {
        format!(
            "{name}: parse error\n{}",
            e.emit_to_string_with_path(source, name)
        )
    })?;
    naga::valid::Validator::new(
        naga::valid::ValidationFlags::all(),
        naga::valid::Capabilities::default(),
    )
    .validate(&module)
    .map_err(|e| {
        format!(
            "{name}: validation error\n{}",
            e.emit_to_string_with_path(source, name)
        )
    })?;
    Ok(())
}

/// The top-level `shaders/` folder mirrors every crate's `shaders/*.wgsl` byte for byte (the crates
/// embed their own copies so that they can be packaged; the top level is where people read them).
fn check_top_level_copies(
    root: &std::path::Path,
    crate_files: &[std::path::PathBuf],
    failures: &mut Vec<String>,
) {
    let top = root.join("shaders");
    let mut top_names = Vec::new();
    if let Ok(entries) = std::fs::read_dir(&top) {
        for path in entries.filter_map(Result::ok).map(|e| e.path()) {
            if path.extension().is_some_and(|e| e == "wgsl") {
                top_names.push(file_name(&path));
            }
        }
    }
    for path in crate_files {
        let name = file_name(path);
        let copy = top.join(&name);
        match (std::fs::read(path), std::fs::read(&copy)) {
            (Ok(a), Ok(b)) if a == b => {}
            (Ok(_), Ok(_)) => failures.push(format!(
                "shaders/{name} differs from {} (cp crates/*/shaders/*.wgsl shaders/)",
                path.display()
            )),
            _ => failures.push(format!(
                "shaders/{name} is missing: copy {}",
                path.display()
            )),
        }
    }
    for name in top_names {
        if !crate_files.iter().any(|p| file_name(p) == name) {
            failures.push(format!(
                "shaders/{name} belongs to no crate: move it into crates/<crate>/shaders/"
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, reason = "tests")]
    use super::*;
    use skel_gpu::Influences;

    #[test]
    fn directive_selects_variants() {
        assert_eq!(compose_directive("fn f() {}"), None);
        assert_eq!(
            compose_directive("fn f(a: u32 {{SKEL_INFLUENCES_PARAM}}) {}").map(|v| v.len()),
            Some(SkinningVariant::all().len())
        );
        assert_eq!(
            first_free_group("@group(0) @binding(1) var x: u32; @group( 2 ) var y"),
            3
        );
        assert_eq!(first_free_group("fn f() {}"), 0);
        assert_eq!(
            compose_directive("// skel-validate: compose\n").map(|v| v.len()),
            Some(SkinningVariant::all().len())
        );
        let picked =
            compose_directive("// header\n// skel-validate: compose 4 8m\n").unwrap_or_default();
        assert_eq!(picked.len(), 2);
        assert_eq!(picked[0].influences, Influences::Four);
        assert!(picked[1].morph);
    }

    #[test]
    fn broken_wgsl_is_reported_with_its_name() {
        // Parses, but the validator rejects it: a runtime-sized array cannot live in a uniform.
        let e = validate(
            "broken.wgsl",
            "@group(0) @binding(0) var<uniform> u: array<f32>;\n@compute @workgroup_size(1) fn main() { _ = u[0]; }",
        )
        .unwrap_err();
        assert!(e.starts_with("broken.wgsl: validation error"), "{e}");
        let e = validate("bad.wgsl", "fn (").unwrap_err();
        assert!(e.contains("parse error"), "{e}");
    }
}
