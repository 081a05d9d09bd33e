
// skel: the baked pose entry point (PoseLayout::Baked), appended to skel_pose.wgsl. The clips
// are baked to skinning matrices (BakedClips: per frame, every bone's top three rows, at a rate
// measured so that a lerp between two frames stays within the clip set's error budget), so an
// instance that plays one clip poses a bone with two 48-byte reads and a lerp: no local
// transforms, no hierarchy, no barrier. An instance that blends two clips walks its bone's
// chain from the local frames, as skel_pose_bones does (blending skinning matrices would shrink
// what the two clips turn differently).

// Per clip: the offset (vec4s) of its first baked row, its frames, rate and duration.
@group(0) @binding(13) var<storage, read> skel_baked_clips: array<SkelClip>;
// Every clip's baked rows, bones * 3 vec4s each.
@group(0) @binding(14) var<storage, read> skel_baked_rows: array<vec4<f32>>;

// skel_pose_baked gathers a workgroup's bone matrices here before they go out. A thread's own
// matrix is 48 (or 64) bytes, so stores straight from each thread leave every warp-wide store
// instruction writing 16 bytes of each 48 (or 64); through workgroup memory each store
// instruction writes 512 consecutive bytes (docs/gpu-posing.md: the pass took two thirds of
// the time on an H100).
const SKEL_BAKED_GROUP: u32 = 64u;
var<workgroup> skel_baked_gather: array<vec4<f32>, 256>;
// Whether each thread of the workgroup posed a bone (a skipped one leaves its matrix as it was).
var<workgroup> skel_baked_posed: array<u32, 64>;

// Keeps local thread `l`'s bone matrix (the top three rows of an affine matrix) for
// skel_baked_flush, laid out as the bone buffer holds it: the three rows, or with 4x4 bones
// the four columns.
fn skel_keep_rows(l: u32, r0: vec4<f32>, r1: vec4<f32>, r2: vec4<f32>) {
    let at = l * SKEL_BONE_VEC4S;
    if SKEL_BONE_VEC4S == 3u {
        skel_baked_gather[at] = r0;
        skel_baked_gather[at + 1u] = r1;
        skel_baked_gather[at + 2u] = r2;
    } else {
        skel_baked_gather[at] = vec4<f32>(r0.x, r1.x, r2.x, 0.0);
        skel_baked_gather[at + 1u] = vec4<f32>(r0.y, r1.y, r2.y, 0.0);
        skel_baked_gather[at + 2u] = vec4<f32>(r0.z, r1.z, r2.z, 0.0);
        skel_baked_gather[at + 3u] = vec4<f32>(r0.w, r1.w, r2.w, 1.0);
    }
}

// Writes the workgroup's gathered matrices (its first thread is `first`), each store
// instruction to consecutive vec4s; called by every thread after a barrier.
fn skel_baked_flush(first: u32, l: u32) {
    for (var k = 0u; k < SKEL_BONE_VEC4S; k++) {
        let j = k * SKEL_BAKED_GROUP + l;
        if skel_baked_posed[j / SKEL_BONE_VEC4S] != 0u {
            skel_bones_out[first * SKEL_BONE_VEC4S + j] = skel_baked_gather[j];
        }
    }
}

// What thread `t` poses: its (instance, bone) and the bone's matrix as three rows.
struct SkelBakedBone {
    // The instance's slot in the chunk, or the chunk's instance count when the thread poses
    // nothing this frame (past the chunk, or an instance its update rate leaves out).
    slot: u32,
    bone: u32,
    r0: vec4<f32>,
    r1: vec4<f32>,
    r2: vec4<f32>,
}

// Poses thread `t`'s (instance, bone).
fn skel_baked_bone(t: u32) -> SkelBakedBone {
    let zero = vec4<f32>(0.0);
    let slot = t / skel_pose.bones;
    if slot >= skel_pose.chunk_instances {
        return SkelBakedBone(skel_pose.chunk_instances, 0u, zero, zero, zero);
    }
    return skel_baked_bone_of(slot, t - slot * skel_pose.bones, skel_instances[skel_pose.first_instance + slot], false);
}

// Poses bone `bone` of the instance in chunk slot `slot`, whose state is `inst`: on the frames
// its update rate poses it, or on any frame when `anyway`.
fn skel_baked_bone_of(slot: u32, bone: u32, inst: SkelPoseInstance, anyway: bool) -> SkelBakedBone {
    let zero = vec4<f32>(0.0);
    let instance = skel_pose.first_instance + slot;
    if !anyway && !skel_updates(instance, inst.flags) {
        return SkelBakedBone(skel_pose.chunk_instances, 0u, zero, zero, zero);
    }
    let source = skel_source_bone(bone, inst.flags);
    if inst.weight > 0.0 {
        let m = transpose(skel_skinning_matrix(skel_walk(skel_instance_frames(inst), source), source));
        return SkelBakedBone(slot, bone, m[0], m[1], m[2]);
    }
    let f = skel_baked_frame(inst);
    let a = (f.frame * skel_pose.bones + source) * 3u;
    let b = a + skel_pose.bones * 3u;
    return SkelBakedBone(
        slot,
        bone,
        mix(skel_baked_rows[a], skel_baked_rows[b], f.k),
        mix(skel_baked_rows[a + 1u], skel_baked_rows[b + 1u], f.k),
        mix(skel_baked_rows[a + 2u], skel_baked_rows[b + 2u], f.k),
    );
}

struct SkelBakedFrame {
    // The baked frame before the time, counted over every clip's frames, and the fraction
    // towards the next.
    frame: u32,
    k: f32,
}

// Where clip a of `inst` stands in the baked frames (clip b plays no part in a baked pose).
fn skel_baked_frame(inst: SkelPoseInstance) -> SkelBakedFrame {
    let c = skel_baked_clips[inst.clips & 0xffffu];
    let time = skel_clip_time(inst.time_a, inst.flags & 3u, c.duration);
    let f = max(time * c.rate, 0.0);
    let i = min(floor(f), f32(c.frames - 2u));
    return SkelBakedFrame(c.offset / (skel_pose.bones * 3u) + u32(i), clamp(f - i, 0.0, 1.0));
}

@compute @workgroup_size(64)
fn skel_pose_baked(
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(local_invocation_index) l: u32,
) {
    let t = skel_thread(gid, skel_pose.row_threads);
    skel_baked_group(t, l);
}

// Poses thread `t`'s bone (local index `l`) and writes the workgroup's posed matrices out
// together. Every thread of the workgroup calls it (it holds a barrier).
fn skel_baked_group(t: u32, l: u32) {
    let b = skel_baked_bone(t);
    let posed = b.slot < skel_pose.chunk_instances;
    skel_baked_posed[l] = select(0u, 1u, posed);
    if posed {
        skel_keep_rows(l, b.r0, b.r1, b.r2);
    }
    workgroupBarrier();
    skel_baked_flush(t - l, l);
}

// Per baked frame, its boxes in the character's frame (BakedClips::bake_boxes): min and max
// with every joint, then with the reduced joint set.
@group(0) @binding(15) var<storage, read> skel_baked_boxes: array<vec4<f32>>;

// skel_pose_advance, and each instance that poses this frame boxed in the world into
// CrowdCull's boxes, for the bounds of a baked pose (PoseOptions::bounds): the union of the
// boxes of its two frames (a lerp of two frames' skinning matrices keeps every vertex on the
// segment between the two frames' positions of it), placed (the box of the placed box). An
// instance that blends two clips gets a box that holds everything: it is never culled.
//
// A baked box needs the instance's time, not its bones, so one thread per instance makes it
// here and the bone pass stays skel_pose_baked with its gathered stores. Boxing in the bone
// pass (its bone-0 thread, stores straight) took 0.547 ms for 1 000 000 CesiumMan on an H100
// against 0.503 for the gathered pass alone; gathered, the boxing thread held its workgroup's
// stores back (0.67-0.72 ms).
@compute @workgroup_size(64)
fn skel_pose_advance_baked_bounds(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = skel_thread(gid, skel_pose.advance_row_threads);
    if i >= skel_pose.instances {
        return;
    }
    let inst = skel_advance_instance(i);
    if skel_updates(i, inst.flags) {
        skel_baked_box(i, inst);
    }
}

// Writes `instance`'s world box into CrowdCull's boxes (see skel_pose_advance_baked_bounds).
fn skel_baked_box(instance: u32, inst: SkelPoseInstance) {
    var lo = vec3<f32>(-SKEL_BOUNDS_INF);
    var hi = vec3<f32>(SKEL_BOUNDS_INF);
    if !(inst.weight > 0.0) {
        let f = skel_baked_frame(inst);
        let at = f.frame * 4u + select(0u, 2u, ((inst.flags >> 6u) & 1u) != 0u);
        let model_lo = min(skel_baked_boxes[at].xyz, skel_baked_boxes[at + 4u].xyz);
        let model_hi = max(skel_baked_boxes[at + 1u].xyz, skel_baked_boxes[at + 5u].xyz);
        lo = model_lo;
        hi = model_hi;
        if all(model_lo <= model_hi) {
            let p = skel_bounds_placements[instance];
            let center = (p * vec4<f32>(0.5 * (model_lo + model_hi), 1.0)).xyz;
            let e = 0.5 * (model_hi - model_lo);
            let half = abs(p[0].xyz) * e.x + abs(p[1].xyz) * e.y + abs(p[2].xyz) * e.z;
            lo = center - half;
            hi = center + half;
        }
    }
    // min.w is the cull's mark for the listed bone pass (skel_cull_boxes_only): 0 reads as
    // left out last frame, so a kept instance counts as coming into view. This pass boxes an
    // instance only on the frames it poses, where that changes nothing; between them the
    // cull's mark stays.
    skel_bounds_boxes[instance * 2u] = vec4<f32>(lo, 0.0);
    skel_bounds_boxes[instance * 2u + 1u] = vec4<f32>(hi, 0.0);
}
