//! The crowd's vertex-shader fragment, for renderers that skin in their own vertex shader or
//! draw what crowd compute skinning wrote: the bones of instance `list[1 + slot]` at
//! `instance * bone_stride + bone_offset` in a [`CrowdBones`](crate::CrowdBones) buffer.
//!
//! It does not morph: its bind group layout is the same five entries for every mesh, and a
//! morph step would need three more bindings (deltas, per-instance weights, their layout) and a
//! call the caller's vertex shader makes with the vertex index. Renderers that draw morphing
//! meshes read the compute output (`skel_crowd_skinned`), which crowd compute skinning morphs.

use crate::bind_entries::{READ, UNIFORM, buffer_entry};

/// The vertex-shader fragment as shipped, bindings in group 1 (see [`crowd_vertex_wgsl`]):
/// `skel_crowd_vertex.wgsl` followed by the shared `skel_crowd_skin.wgsl`.
pub const CROWD_VERTEX_WGSL: &str = concat!(
    include_str!("../shaders/skel_crowd_vertex.wgsl"),
    "\n",
    include_str!("../shaders/skel_crowd_skin.wgsl"),
);

/// The crowd vertex fragment with its bindings in `group` (binding 0: draw parameters, 1:
/// bones, 2: visible list, 3/4: compute output). Prepend it to a vertex shader that calls
/// `skel_crowd_skin4`/`skel_crowd_skin8(instance_index, position, normal, joints…, weights…)`
/// or `skel_crowd_skinned(instance_index, vertex_index)`.
#[must_use]
pub fn crowd_vertex_wgsl(group: u32) -> String {
    CROWD_VERTEX_WGSL.replace("@group(1)", &format!("@group({group})"))
}

/// Layout entries of [`crowd_vertex_wgsl`]'s group, visible to `stages`.
#[must_use]
pub fn crowd_vertex_layout_entries(stages: wgpu::ShaderStages) -> [wgpu::BindGroupLayoutEntry; 5] {
    let entry = |binding, ty| buffer_entry(binding, stages, ty);
    let read = READ;
    [
        entry(0, UNIFORM),
        entry(1, read),
        entry(2, read),
        entry(3, read),
        entry(4, read),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::CROWD_COMPUTE_WGSL;

    /// Parses and validates `source` as naga (what wgpu runs at pipeline creation) does.
    fn validate(name: &str, source: &str) {
        let module = naga::front::wgsl::parse_str(source)
            .unwrap_or_else(|e| panic!("{name}: {}", e.emit_to_string(source)));
        naga::valid::Validator::new(
            naga::valid::ValidationFlags::all(),
            naga::valid::Capabilities::default(),
        )
        .validate(&module)
        .unwrap_or_else(|e| panic!("{name}: {}", e.emit_to_string(source)));
    }

    #[test]
    fn both_crowd_modules_are_valid_with_the_shared_skinning() {
        // `cargo xtask validate-shaders` checks the three files are the embedded copies; the
        // assembled modules are checked here (and compiled by the GPU tests).
        validate("CROWD_COMPUTE_WGSL", CROWD_COMPUTE_WGSL);
        validate("CROWD_VERTEX_WGSL", CROWD_VERTEX_WGSL);
        validate("crowd_vertex_wgsl(3)", &crowd_vertex_wgsl(3));
        // The shared piece is in both, defined once.
        let skin = crate::shader::sources::CROWD_SKIN;
        for module in [CROWD_COMPUTE_WGSL, CROWD_VERTEX_WGSL] {
            assert!(module.ends_with(skin));
            assert_eq!(module.matches("fn skel_crowd_add_influences(").count(), 1);
            assert_eq!(module.matches("fn skel_dual_quat(").count(), 1);
            assert_eq!(module.matches("fn skel_crowd_skin_sets(").count(), 1);
        }
    }
}
