// skel: GPU bounds and frustum culling of a crowd (skel_gpu::CrowdCull). One dispatch per chunk
// of the bone buffer (whole instances, each chunk under the storage binding limit), one thread
// per instance, boxes the instance from the character's bounding spheres under its posed bone
// matrices, tests the box against six frustum planes and appends the instance to the visible
// list; one thread then writes the indirect draw's instance count. skel_cull_boxes_only is the
// same cull for boxes the pose pass already wrote (skel_pose_bounds.wgsl).
//
// The bone buffer holds skinning matrices S (mesh inverse * joint world * inverse bind, as the
// pose pass and the CPU sink write them). A sphere is given in its joint's frame (centre c,
// radius r, as skel_gltf::CharacterBounds keeps it), so its joint's world matrix is rebuilt as
// J = placement * left * S * right (left: the mesh node's world, right: the bind matrix, the
// inverse of the inverse bind), and the sphere's box is J c +- r * (length of each row of J's
// 3x3 part): the same box CharacterBounds::world_box gives on the CPU.

struct SkelCullParams {
    // n.p + d >= 0 inside, one vec4 (n, d) per plane.
    planes: array<vec4<f32>, 6>,
    instances: u32,
    parts: u32,
    bones_per_instance: u32,
    // Threads per row of the 2D dispatch (workgroups in x * 64).
    row_threads: u32,
    // The indirect draw's other fields (DrawIndexedIndirect).
    index_count: u32,
    first_index: u32,
    base_vertex: i32,
    first_instance: u32,
    // This dispatch's chunk of the bone buffer (whole instances): its first instance and
    // instance count. skel_cull_bones starts at the chunk's first instance.
    chunk_first: u32,
    chunk_instances: u32,
    _pad0: u32,
    _pad1: u32,
}

struct SkelCullPart {
    center: vec3<f32>,
    radius: f32,
    bone: u32,
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
}

struct SkelDrawIndexedIndirect {
    index_count: u32,
    instance_count: u32,
    first_index: u32,
    base_vertex: i32,
    first_instance: u32,
}

@group(0) @binding(0) var<uniform> skel_cull: SkelCullParams;
// The chunk's instances' skinning matrices, SKEL_BONE_VEC4S vec4s each: 4, the columns of a
// 4x4 matrix; 3, the top three rows of an affine one (set by the pipeline).
@group(0) @binding(1) var<storage, read> skel_cull_bones: array<vec4<f32>>;
override SKEL_BONE_VEC4S: u32 = 4u;
@group(0) @binding(2) var<storage, read> skel_cull_parts: array<SkelCullPart>;
// Per bone: left, then right.
@group(0) @binding(3) var<storage, read> skel_cull_frames: array<mat4x4<f32>>;
// Per instance: its placement in the world.
@group(0) @binding(4) var<storage, read> skel_cull_placements: array<mat4x4<f32>>;
// Per instance: min, then max (w unused); an instance without a finite part gets min > max.
@group(0) @binding(5) var<storage, read_write> skel_cull_boxes: array<vec4<f32>>;
// [0]: visible instances n; [1 + slot]: an instance (the layout of CrowdBones::instances_buffer).
@group(0) @binding(6) var<storage, read_write> skel_cull_visible: array<atomic<u32>>;
@group(0) @binding(7) var<storage, read_write> skel_cull_draw: SkelDrawIndexedIndirect;

// The largest f32 (written under it: browsers refuse a literal that only rounds to it).
const SKEL_CULL_INF: f32 = 3.4028234e38;

// Skinning matrix `bone` of the chunk, as a 4x4 matrix in either layout.
fn skel_cull_bone(bone: u32) -> mat4x4<f32> {
    let at = bone * SKEL_BONE_VEC4S;
    if SKEL_BONE_VEC4S == 3u {
        return transpose(mat4x4<f32>(skel_cull_bones[at], skel_cull_bones[at + 1u], skel_cull_bones[at + 2u], vec4<f32>(0.0, 0.0, 0.0, 1.0)));
    }
    return mat4x4<f32>(skel_cull_bones[at], skel_cull_bones[at + 1u], skel_cull_bones[at + 2u], skel_cull_bones[at + 3u]);
}

// Whether every lane is finite (from the bits: fast-math may fold x - x == 0).
fn skel_cull_finite(v: vec3<f32>) -> bool {
    let e = bitcast<vec3<u32>>(v) & vec3<u32>(0x7f800000u);
    return all(e != vec3<u32>(0x7f800000u));
}

@compute @workgroup_size(64)
fn skel_cull_instances(@builtin(global_invocation_id) gid: vec3<u32>) {
    let local = gid.x + gid.y * skel_cull.row_threads;
    if local >= skel_cull.chunk_instances {
        return;
    }
    let instance = skel_cull.chunk_first + local;
    let placement = skel_cull_placements[instance];
    let base = local * skel_cull.bones_per_instance;
    var lo = vec3<f32>(SKEL_CULL_INF);
    var hi = vec3<f32>(-SKEL_CULL_INF);
    var boxed = false;
    for (var p = 0u; p < skel_cull.parts; p += 1u) {
        let part = skel_cull_parts[p];
        let skin = skel_cull_bone(base + part.bone);
        let m = placement * (skel_cull_frames[part.bone * 2u] * skin) * skel_cull_frames[part.bone * 2u + 1u];
        let center = (m * vec4<f32>(part.center, 1.0)).xyz;
        let rows = m[0].xyz * m[0].xyz + m[1].xyz * m[1].xyz + m[2].xyz * m[2].xyz;
        let half = sqrt(rows) * part.radius;
        let a = center - half;
        let b = center + half;
        if skel_cull_finite(a + b) {
            lo = min(lo, a);
            hi = max(hi, b);
            boxed = true;
        }
    }
    skel_cull_boxes[instance * 2u] = vec4<f32>(lo, 0.0);
    skel_cull_boxes[instance * 2u + 1u] = vec4<f32>(hi, 0.0);
    if boxed {
        skel_cull_keep(instance, lo, hi);
    }
}

// Appends `instance` to the visible list unless its box is outside one of the planes; returns
// whether it did.
fn skel_cull_keep(instance: u32, lo: vec3<f32>, hi: vec3<f32>) -> bool {
    for (var k = 0u; k < 6u; k += 1u) {
        let plane = skel_cull.planes[k];
        // The corner farthest along the plane's normal: outside it, the whole box is.
        let corner = select(lo, hi, plane.xyz >= vec3<f32>(0.0));
        if dot(plane.xyz, corner) + plane.w < 0.0 {
            return false;
        }
    }
    let slot = atomicAdd(&skel_cull_visible[0], 1u);
    atomicStore(&skel_cull_visible[1u + slot], instance);
    return true;
}

// The cull of a crowd whose boxes the pose pass wrote (skel_pose_nodes_bounds,
// skel_pose_advance_baked_bounds): one thread per instance reads its box (32 bytes) and tests
// it. A box with min > max (no finite part) is culled, as skel_cull_instances culls it.
// min.w says what the cull saw, for a baked bone pass that poses only the kept
// (skel_pose_baked_listed): 0 left out, 1 kept, 2 kept on a frame after one that left it out
// (the bone pass poses it whatever its update rate says). The advance pass writes 0 on the
// frames it boxes the instance, which are frames the instance poses anyway.
@compute @workgroup_size(64)
fn skel_cull_boxes_only(@builtin(global_invocation_id) gid: vec3<u32>) {
    let local = gid.x + gid.y * skel_cull.row_threads;
    if local >= skel_cull.chunk_instances {
        return;
    }
    let instance = skel_cull.chunk_first + local;
    let low = skel_cull_boxes[instance * 2u];
    let lo = low.xyz;
    let hi = skel_cull_boxes[instance * 2u + 1u].xyz;
    let kept = all(lo <= hi) && skel_cull_keep(instance, lo, hi);
    // Written only where it changes.
    let seen = select(0.0, select(1.0, 2.0, low.w == 0.0), kept);
    if low.w != seen {
        skel_cull_boxes[instance * 2u].w = seen;
    }
}

// One thread, after skel_cull_instances: the indirect draw's arguments.
@compute @workgroup_size(1)
fn skel_cull_draw_args() {
    skel_cull_draw.index_count = skel_cull.index_count;
    skel_cull_draw.instance_count = atomicLoad(&skel_cull_visible[0]);
    skel_cull_draw.first_index = skel_cull.first_index;
    skel_cull_draw.base_vertex = skel_cull.base_vertex;
    skel_cull_draw.first_instance = skel_cull.first_instance;
}
