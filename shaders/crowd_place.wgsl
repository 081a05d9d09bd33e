// skel: puts each drawn slot of a crowd where its instance was placed. The crowd's visible list
// ([0]: count n, [1 + slot]: the instance skinned into `slot`) may have been cut on the CPU
// (Crowd::cull, uploaded with the bones) or on the GPU (Crowd::encode_cull, in no particular
// order), so the slot-to-instance map exists only here: one thread per slot copies the
// instance's placement into the per-slot vertex stream the crowd's draw reads at locations
// 12..15, and the first thread writes n into every primitive's indirect draw arguments (five
// u32s each: DrawIndexedIndirectArgs, or DrawIndirectArgs in the first four; the instance
// count is the second either way). Slots past n are left alone: the draws stop at n.

@group(0) @binding(0) var<storage, read> visible: array<u32>;
@group(0) @binding(1) var<storage, read> placements: array<mat4x4<f32>>;
@group(0) @binding(2) var<storage, read_write> by_slot: array<mat4x4<f32>>;
@group(0) @binding(3) var<storage, read_write> draw_args: array<u32>;

@compute @workgroup_size(64)
fn skel_crowd_place(
    @builtin(workgroup_id) group: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) lane: u32,
) {
    let slot = (group.y * groups.x + group.x) * 64u + lane;
    let count = min(visible[0], arrayLength(&by_slot));
    if (slot == 0u) {
        for (var draw = 0u; draw < arrayLength(&draw_args) / 5u; draw += 1u) {
            draw_args[draw * 5u + 1u] = count;
        }
    }
    if (slot >= count) {
        return;
    }
    let instance = visible[1u + slot];
    // An instance past the placements is drawn collapsed to a point (a zero matrix).
    var placement = mat4x4<f32>();
    if (instance < arrayLength(&placements)) {
        placement = placements[instance];
    }
    by_slot[slot] = placement;
}
