// The indirect dispatch arguments of a GPU-culled crowd's skinning: one thread a chunk (a mesh,
// or a part of one, skinning slots first_slot..first_slot + slots) writes the workgroups
// (x, y, z) that cover the slots of the visible list that fall in its chunk, so that skinning
// runs over the visible instances only, with no count read back to the CPU. The grid is the
// one CrowdSkinning::workgroups_for gives on the CPU: x over vertices, y·z ≥ the slots, y at
// most the device's limit per dimension; no slot: (0, 0, 0), a dispatch of nothing.

struct SkelDispatchChunk {
    // Workgroups over the chunk's vertices (0 for a mesh without vertices).
    groups_x: u32,
    first_slot: u32,
    slots: u32,
    max_per_dimension: u32,
}

@group(0) @binding(0) var<storage, read> skel_dispatch_chunks: array<SkelDispatchChunk>;
// [0]: visible instances n; then the list (unread here).
@group(0) @binding(1) var<storage, read> skel_dispatch_list: array<u32>;
@group(0) @binding(2) var<storage, read_write> skel_dispatch_args: array<u32>;

@compute @workgroup_size(64)
fn skel_crowd_dispatch(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x;
    if (i >= arrayLength(&skel_dispatch_chunks)) {
        return;
    }
    let c = skel_dispatch_chunks[i];
    let visible = skel_dispatch_list[0];
    let n = min(visible - min(visible, c.first_slot), c.slots);
    var x = 0u;
    var y = 0u;
    var z = 0u;
    if (n > 0u && c.groups_x > 0u) {
        x = c.groups_x;
        y = min(n, max(c.max_per_dimension, 1u));
        z = (n + y - 1u) / y;
    }
    skel_dispatch_args[i * 3u] = x;
    skel_dispatch_args[i * 3u + 1u] = y;
    skel_dispatch_args[i * 3u + 2u] = z;
}
