
// skel: the baked bone pass over the cull's visible list (PoseOptions::skip_unseen), appended
// to skel_pose_baked.wgsl. The cull runs between the advance pass, which boxes every instance,
// and this pass; skel_pose_listed_args turns its count into this pass's workgroups, so the
// pass launches threads for the instances in view only and an instance out of view costs it
// nothing (its matrices stay as they were). Posing every (instance, bone) and skipping the
// unseen after a read of the box cost 0.26 ms per 1 000 000 unseen CesiumMan on an H100, more
// than half of what posing them takes (docs/bench-gpu.md).

// CrowdCull's visible list: [0] the count, then the instances kept, in the order the cull
// appended them.
@group(0) @binding(16) var<storage, read> skel_listed: array<u32>;
// The listed pass's workgroups (x, y, z), which every chunk's dispatch reads (bound only to
// skel_pose_listed_args: a buffer read as indirect arguments cannot be bound for writing in
// the same dispatch).
@group(0) @binding(17) var<storage, read_write> skel_listed_args: array<u32>;

// One thread: the listed pass's grid, x at most listed_row_threads / 64, as groups_2d lays
// out a direct dispatch. What it reads (instances, bones, listed_row_threads, the list) is the
// same in every chunk's parameters.
@compute @workgroup_size(1)
fn skel_pose_listed_args() {
    let n = min(skel_listed[0], skel_pose.instances);
    let groups = (n * skel_pose.bones + 63u) / 64u;
    let x = max(skel_pose.listed_row_threads / 64u, 1u);
    skel_listed_args[0] = min(groups, x);
    skel_listed_args[1] = (groups + x - 1u) / x;
    skel_listed_args[2] = 1u;
}

// skel_pose_baked over the visible list: thread t poses bone t % bones of list entry
// t / bones, when that instance is in this dispatch's chunk (with several chunks, each
// chunk's dispatch walks the whole list). An instance that poses every few frames (its update
// rate) and comes into view on a frame between poses poses at once.
@compute @workgroup_size(64)
fn skel_pose_baked_listed(
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(local_invocation_index) l: u32,
) {
    let t = skel_thread(gid, skel_pose.listed_row_threads);
    let entry = t / skel_pose.bones;
    let zero = vec4<f32>(0.0);
    var b = SkelBakedBone(skel_pose.chunk_instances, 0u, zero, zero, zero);
    if entry < min(skel_listed[0], skel_pose.instances) {
        let instance = skel_listed[1u + entry];
        // Wraps past the chunk's end for an instance before its first.
        let slot = instance - skel_pose.first_instance;
        if slot < skel_pose.chunk_instances {
            // An instance that came into view this frame poses whatever its update rate says:
            // its matrices are from its last frame in view, however long ago.
            let inst = skel_instances[instance];
            let came_into_view = skel_bounds_boxes[instance * 2u].w == SKEL_CAME_INTO_VIEW;
            b = skel_baked_bone_of(slot, t - entry * skel_pose.bones, inst, came_into_view);
        }
    }
    // Each thread's matrix goes to its own instance's bone, not to slot t.
    skel_baked_dest[l] = select(SKEL_BAKED_NONE, b.slot * skel_pose.bones + b.bone, b.slot < skel_pose.chunk_instances);
    if b.slot < skel_pose.chunk_instances {
        skel_keep_rows(l, b.r0, b.r1, b.r2);
    }
    workgroupBarrier();
    for (var k = 0u; k < SKEL_BONE_VEC4S; k++) {
        let j = k * SKEL_BAKED_GROUP + l;
        let d = skel_baked_dest[j / SKEL_BONE_VEC4S];
        if d != SKEL_BAKED_NONE {
            skel_bones_out[d * SKEL_BONE_VEC4S + j % SKEL_BONE_VEC4S] = skel_baked_gather[j];
        }
    }
}

const SKEL_BAKED_NONE: u32 = 0xffffffffu;
// A box's min.w once the cull has kept it on a frame after one that left it out
// (skel_cull_boxes_only).
const SKEL_CAME_INTO_VIEW: f32 = 2.0;
// Per thread of the workgroup: the bone (slot * bones + bone) its gathered matrix goes to, or
// SKEL_BAKED_NONE.
var<workgroup> skel_baked_dest: array<u32, 64>;
