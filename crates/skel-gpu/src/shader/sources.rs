//! The WGSL sources in the workspace's `shaders/` directory, by file name.

/// `SkelVertex`, `skel_normalize_or_zero`, `skel_apply`.
pub const COMMON: &str = include_str!("../../shaders/skel_common.wgsl");
/// The bone texture binding and `skel_bone_matrix`.
pub const BONES: &str = include_str!("../../shaders/skel_bones.wgsl");
/// `skel_skin` for 4 influences.
pub const SKIN4: &str = include_str!("../../shaders/skel_skin4.wgsl");
/// `skel_skin` for 8 influences.
pub const SKIN8: &str = include_str!("../../shaders/skel_skin8.wgsl");
/// `skel_skin` for 16 influences (sets 2 and 3 from storage buffers).
pub const SKIN16: &str = include_str!("../../shaders/skel_skin16.wgsl");
/// `skel_skin` without a skin (morph only).
pub const SKIN0: &str = include_str!("../../shaders/skel_skin0.wgsl");
/// Morph target bindings and `skel_morph`.
pub const MORPH: &str = include_str!("../../shaders/skel_morph.wgsl");
/// Morph target bindings and `skel_morph` reading the deltas from a texture (WebGL2).
pub const MORPH_TEXTURE: &str = include_str!("../../shaders/skel_morph_texture.wgsl");
/// The identity `skel_morph` of variants without morph targets.
pub const MORPH_NONE: &str = include_str!("../../shaders/skel_morph_none.wgsl");
/// `skel_fetch_bone` reading the bone texture (the vertex-shader fragment's).
pub const BONE_FETCH_TEXTURE: &str = include_str!("../../shaders/skel_bone_fetch_texture.wgsl");
/// Compute skinning's workgroup bone cache (affine rows, the default layout).
pub const BONE_CACHE: &str = include_str!("../../shaders/skel_bone_cache.wgsl");
/// Compute skinning's workgroup bone cache holding full 4×4 columns (for comparison).
pub const BONE_CACHE_COLUMNS: &str = include_str!("../../shaders/skel_bone_cache_columns.wgsl");
/// Compute skinning's affine skin matrix and its application.
pub const COMPUTE_AFFINE: &str = include_str!("../../shaders/skel_compute_affine.wgsl");
/// The compute skinning entry point template.
pub const COMPUTE: &str = include_str!("../../shaders/skel_compute_skinning.wgsl");
/// Crowd compute skinning's bindings and entry points (assembled into
/// [`CROWD_COMPUTE_WGSL`](crate::CROWD_COMPUTE_WGSL)).
pub const CROWD_COMPUTE: &str = include_str!("../../shaders/skel_crowd_compute.wgsl");
/// The crowd vertex fragment's bindings and functions (assembled into
/// [`CROWD_VERTEX_WGSL`](crate::CROWD_VERTEX_WGSL)).
pub const CROWD_VERTEX: &str = include_str!("../../shaders/skel_crowd_vertex.wgsl");
/// The skinning both crowd modules share (linear and dual-quaternion blends).
pub const CROWD_SKIN: &str = include_str!("../../shaders/skel_crowd_skin.wgsl");
/// The pose pass's bounds entry point (`skel_pose_nodes_bounds`), appended to
/// `skel_pose.wgsl` in [`POSE_WGSL`](crate::POSE_WGSL): not a module on its own, so it is
/// listed here, where `cargo xtask validate-shaders` compares it instead of validating it
/// alone (skel-gpu's unit tests validate the whole of `POSE_WGSL`).
pub const POSE_BOUNDS: &str = include_str!("../../shaders/skel_pose_bounds.wgsl");
/// The pose pass's baked entry points (`skel_pose_baked`, `skel_pose_advance_baked_bounds`), appended
/// after the bounds file in [`POSE_WGSL`](crate::POSE_WGSL): listed here for the same reason.
pub const POSE_BAKED: &str = include_str!("../../shaders/skel_pose_baked.wgsl");
/// The baked bone pass over the cull's visible list (`skel_pose_baked_listed`,
/// `skel_pose_listed_args`), appended after the baked file: listed here for the same reason.
pub const POSE_LISTED: &str = include_str!("../../shaders/skel_pose_listed.wgsl");

/// Every file, with its name: what `cargo xtask validate-shaders` checks is used.
pub const ALL: [(&str, &str); 20] = [
    ("skel_common.wgsl", COMMON),
    ("skel_bones.wgsl", BONES),
    ("skel_skin4.wgsl", SKIN4),
    ("skel_skin8.wgsl", SKIN8),
    ("skel_skin16.wgsl", SKIN16),
    ("skel_skin0.wgsl", SKIN0),
    ("skel_morph.wgsl", MORPH),
    ("skel_morph_texture.wgsl", MORPH_TEXTURE),
    ("skel_morph_none.wgsl", MORPH_NONE),
    ("skel_bone_fetch_texture.wgsl", BONE_FETCH_TEXTURE),
    ("skel_bone_cache.wgsl", BONE_CACHE),
    ("skel_bone_cache_columns.wgsl", BONE_CACHE_COLUMNS),
    ("skel_compute_affine.wgsl", COMPUTE_AFFINE),
    ("skel_compute_skinning.wgsl", COMPUTE),
    ("skel_crowd_compute.wgsl", CROWD_COMPUTE),
    ("skel_crowd_vertex.wgsl", CROWD_VERTEX),
    ("skel_crowd_skin.wgsl", CROWD_SKIN),
    ("skel_pose_bounds.wgsl", POSE_BOUNDS),
    ("skel_pose_baked.wgsl", POSE_BAKED),
    ("skel_pose_listed.wgsl", POSE_LISTED),
];
