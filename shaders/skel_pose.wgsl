// skel: the GPU pose pass. Every instance of a crowd plays up to two clips of one asset from a
// GpuClipSet (every clip resampled at a uniform rate of its own: the frame around time t is
// floor(t * rate)); its local transforms go through the node hierarchy and out as skinning
// matrices (mesh inverse * model * inverse bind) into the crowd's bone buffer, which crowd
// compute skinning and the crowd vertex fragment read.
//
// Entry points, in the order a frame runs them:
// - skel_pose_advance: one thread per instance. Moves both clip times by dt * speed (wrapped,
//   clamped or bounced by each clip's loop mode) and samples the morph weights. Only this pass
//   writes instance state, so a steady crowd uploads nothing but the 64-byte uniform per chunk.
// - skel_pose_bones: one thread per (instance, bone), walking from the bone's node up to its
//   root; no barrier and no scratch memory, writes coalesced (bones of an instance are
//   neighbours), ancestors sampled once per bone below them.
// - skel_pose_characters: one thread per instance walking the posed nodes in order (parents
//   first), model transforms in private memory (at most 64 posed nodes); each node sampled once.
// - skel_pose_nodes: one workgroup per group_characters instances (64 / posed nodes), one
//   thread per (instance, node): each node sampled once into workgroup memory, the hierarchy
//   resolved one level per barrier (each node's level from a table after the parents), then the
//   matrices written one 16-byte column per thread, consecutive threads on consecutive columns
//   (coalesced); 3x4 matrices one bone (three rows) per thread.
// The matrices go out as SKEL_BONE_VEC4S vec4s each: 4, the columns of the 4x4 matrix
// (BoneLayout::Mat4), or 3, its top three rows (BoneLayout::Affine3x4: the bottom row of an
// affine matrix is 0 0 0 1, 48 bytes instead of 64).
// - skel_pose_nodes_bounds (skel_pose_bounds.wgsl, appended by GpuCrowdPose when asked for
//   bounds): skel_pose_nodes, then every instance's world box from its model transforms (the
//   boxes CrowdCull's matrix pass would compute), so culling reads 32 bytes an instance.
// - skel_pose_baked (skel_pose_baked.wgsl): one thread per (instance, bone) lerping the
//   bone's skinning matrices baked at the two frames around the time (BakedClips). With
//   bounds, skel_pose_advance_baked_bounds replaces skel_pose_advance and boxes each instance
//   from its baked frames' boxes as it advances it.
// The bone passes skip an instance on frames its pose update rate (LOD) leaves out.

struct SkelPoseParams {
    // Instances in the crowd, and the first instance and instance count of this dispatch's
    // chunk of the bone buffer.
    instances: u32,
    first_instance: u32,
    chunk_instances: u32,
    // Bones per instance and posed nodes.
    bones: u32,
    nodes: u32,
    // Vec4s per frame row, and the first morph vec4 in a row (nodes * 3).
    row_vec4s: u32,
    morph_first: u32,
    morph_vec4s: u32,
    // Frame counter (LOD staggering) and seconds since the last frame.
    frame: u32,
    dt: f32,
    // 1 when some bone has a mesh inverse other than the identity.
    has_mesh_inverse: u32,
    // Threads per row of the 2D dispatches (workgroups in x * 64): the bone pass's, the
    // advance pass's.
    row_threads: u32,
    advance_row_threads: u32,
    // Levels of the node hierarchy (longest parent chain) and instances per workgroup of
    // skel_pose_nodes.
    levels: u32,
    group_characters: u32,
    // Threads per row of the listed bone pass's grid (skel_pose_listed.wgsl).
    listed_row_threads: u32,
}

struct SkelClip {
    offset: u32,
    frames: u32,
    rate: f32,
    duration: f32,
}

// 32 bytes per instance: clip a (low 16 bits) and b (high 16 bits); flags: loop mode of a
// (bits 0-1: 0 repeat, 1 once, 2 ping-pong) and b (bits 2-3), log2 of the pose update rate
// (bits 4-5), the reduced joint set (bit 6); the playheads (ping-pong: a phase over twice the duration); speeds; the weight of
// clip b (0: clip a alone).
struct SkelPoseInstance {
    clips: u32,
    flags: u32,
    time_a: f32,
    time_b: f32,
    speed_a: f32,
    speed_b: f32,
    weight: f32,
    _pad: u32,
}

struct SkelAffine {
    r0: vec4<f32>,
    r1: vec4<f32>,
    r2: vec4<f32>,
}

@group(0) @binding(0) var<uniform> skel_pose: SkelPoseParams;
@group(0) @binding(1) var<storage, read> skel_clips: array<SkelClip>;
@group(0) @binding(2) var<storage, read> skel_frames: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read> skel_parents: array<u32>;
// Per bone: its posed node, and the bone whose matrix it takes in the reduced joint set.
@group(0) @binding(4) var<storage, read> skel_bone_nodes: array<vec2<u32>>;
// Per bone: the mesh inverse, then the inverse bind matrix.
@group(0) @binding(5) var<storage, read> skel_bone_matrices: array<mat4x4<f32>>;
@group(0) @binding(6) var<storage, read_write> skel_instances: array<SkelPoseInstance>;
// This chunk's instances' bone matrices, instance-major, SKEL_BONE_VEC4S vec4s each.
@group(0) @binding(7) var<storage, read_write> skel_bones_out: array<vec4<f32>>;
// Every instance's morph weights, morph_vec4s each.
@group(0) @binding(8) var<storage, read_write> skel_morph_out: array<vec4<f32>>;

// 4: bone matrices out as 4x4 columns; 3: as the top three rows (set by the pipeline).
override SKEL_BONE_VEC4S: u32 = 4u;

const SKEL_NO_PARENT: u32 = 0xffffffffu;
const SKEL_MAX_CHARACTER_NODES: u32 = 64u;

// Where a playhead stands in its clip: repeat and once keep it in range already; ping-pong
// folds the phase back.
fn skel_clip_time(phase: f32, mode: u32, duration: f32) -> f32 {
    if mode == 2u {
        return duration - abs(phase - duration);
    }
    return phase;
}

fn skel_advance(t: f32, step: f32, mode: u32, duration: f32) -> f32 {
    if duration <= 0.0 {
        return 0.0;
    }
    let moved = t + step;
    if mode == 1u {
        return clamp(moved, 0.0, duration);
    }
    let period = select(duration, 2.0 * duration, mode == 2u);
    let wrapped = moved - floor(moved / period) * period;
    return select(wrapped, 0.0, wrapped >= period);
}

// Frame row of `clip` before time `t`, and the fraction towards the next row.
fn skel_frame(clip: u32, t: f32) -> vec2<f32> {
    let c = skel_clips[clip];
    let f = max(t * c.rate, 0.0);
    let i = min(floor(f), f32(c.frames - 2u));
    return vec2<f32>(f32(c.offset) + i * f32(skel_pose.row_vec4s), clamp(f - i, 0.0, 1.0));
}

struct SkelTrs {
    t: vec3<f32>,
    r: vec4<f32>,
    s: vec3<f32>,
}

fn skel_sample(frame: vec2<f32>, node: u32) -> SkelTrs {
    let a = u32(frame.x) + node * 3u;
    let b = a + skel_pose.row_vec4s;
    let k = frame.y;
    return SkelTrs(
        mix(skel_frames[a].xyz, skel_frames[b].xyz, k),
        mix(skel_frames[a + 1u], skel_frames[b + 1u], k),
        mix(skel_frames[a + 2u].xyz, skel_frames[b + 2u].xyz, k),
    );
}

// The local transform of `node` for one instance: clip a alone, or blended with clip b by
// `weight` (translation and scale lerped, rotations summed in the hemisphere of a's and
// normalised, as the CPU player blends two layers).
fn skel_local(fa: vec2<f32>, fb: vec2<f32>, weight: f32, node: u32) -> SkelAffine {
    var trs = skel_sample(fa, node);
    if weight > 0.0 {
        // Each clip's rotation normalised first: a lerp between frames is a little shorter
        // than unit length, and unequal lengths would skew the weights.
        let b = skel_sample(fb, node);
        let ra = normalize(trs.r);
        let rb = normalize(b.r);
        let sign = select(1.0, -1.0, dot(ra, rb) < 0.0);
        trs = SkelTrs(
            mix(trs.t, b.t, weight),
            ra * (1.0 - weight) + rb * (sign * weight),
            mix(trs.s, b.s, weight),
        );
    }
    let q = normalize(trs.r);
    let x2 = q.x + q.x;
    let y2 = q.y + q.y;
    let z2 = q.z + q.z;
    let xx = q.x * x2;
    let xy = q.x * y2;
    let xz = q.x * z2;
    let yy = q.y * y2;
    let yz = q.y * z2;
    let zz = q.z * z2;
    let wx = q.w * x2;
    let wy = q.w * y2;
    let wz = q.w * z2;
    let s = trs.s;
    return SkelAffine(
        vec4<f32>((1.0 - (yy + zz)) * s.x, (xy - wz) * s.y, (xz + wy) * s.z, trs.t.x),
        vec4<f32>((xy + wz) * s.x, (1.0 - (xx + zz)) * s.y, (yz - wx) * s.z, trs.t.y),
        vec4<f32>((xz - wy) * s.x, (yz + wx) * s.y, (1.0 - (xx + yy)) * s.z, trs.t.z),
    );
}

// a * b for affine transforms stored as their top three rows.
fn skel_affine_mul(a: SkelAffine, b: SkelAffine) -> SkelAffine {
    let bt = vec3<f32>(b.r0.w, b.r1.w, b.r2.w);
    return SkelAffine(
        vec4<f32>(a.r0.x * b.r0.xyz + a.r0.y * b.r1.xyz + a.r0.z * b.r2.xyz, dot(a.r0.xyz, bt) + a.r0.w),
        vec4<f32>(a.r1.x * b.r0.xyz + a.r1.y * b.r1.xyz + a.r1.z * b.r2.xyz, dot(a.r1.xyz, bt) + a.r1.w),
        vec4<f32>(a.r2.x * b.r0.xyz + a.r2.y * b.r1.xyz + a.r2.z * b.r2.xyz, dot(a.r2.xyz, bt) + a.r2.w),
    );
}

// mesh inverse * model * inverse bind, column-major.
fn skel_skinning_matrix(model: SkelAffine, bone: u32) -> mat4x4<f32> {
    let ibm = skel_bone_matrices[bone * 2u + 1u];
    var out = mat4x4<f32>();
    for (var c = 0u; c < 4u; c += 1u) {
        let col = ibm[c];
        out[c] = vec4<f32>(dot(model.r0, col), dot(model.r1, col), dot(model.r2, col), col.w);
    }
    if skel_pose.has_mesh_inverse != 0u {
        out = skel_bone_matrices[bone * 2u] * out;
    }
    return out;
}

// Writes bone matrix `index` of the chunk in the output's layout.
fn skel_store_bone(index: u32, m: mat4x4<f32>) {
    let at = index * SKEL_BONE_VEC4S;
    if SKEL_BONE_VEC4S == 3u {
        let t = transpose(m);
        skel_bones_out[at] = t[0];
        skel_bones_out[at + 1u] = t[1];
        skel_bones_out[at + 2u] = t[2];
    } else {
        skel_bones_out[at] = m[0];
        skel_bones_out[at + 1u] = m[1];
        skel_bones_out[at + 2u] = m[2];
        skel_bones_out[at + 3u] = m[3];
    }
}

fn skel_thread(gid: vec3<u32>, row_threads: u32) -> u32 {
    return gid.x + gid.y * row_threads;
}

// The bone whose skinning matrix bone `bone` gets: itself, or in the reduced joint set its
// nearest kept ancestor bone.
fn skel_source_bone(bone: u32, flags: u32) -> u32 {
    if ((flags >> 6u) & 1u) != 0u {
        return skel_bone_nodes[bone].y;
    }
    return bone;
}

// Whether `instance` poses this frame: every 2^k-th frame, staggered by blocks of 64
// instances (a block's threads skip together, so a skipped frame saves whole warps; staggering
// single instances left every warp busy with a quarter of its threads).
fn skel_updates(instance: u32, flags: u32) -> bool {
    let rate_mask = (1u << ((flags >> 4u) & 3u)) - 1u;
    return ((skel_pose.frame + (instance >> 6u)) & rate_mask) == 0u;
}

struct SkelFrames {
    fa: vec2<f32>,
    fb: vec2<f32>,
    weight: f32,
}

fn skel_instance_frames(inst: SkelPoseInstance) -> SkelFrames {
    let clip_a = inst.clips & 0xffffu;
    let clip_b = inst.clips >> 16u;
    let ta = skel_clip_time(inst.time_a, inst.flags & 3u, skel_clips[clip_a].duration);
    let tb = skel_clip_time(inst.time_b, (inst.flags >> 2u) & 3u, skel_clips[clip_b].duration);
    return SkelFrames(skel_frame(clip_a, ta), skel_frame(clip_b, tb), clamp(inst.weight, 0.0, 1.0));
}

@compute @workgroup_size(64)
fn skel_pose_advance(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = skel_thread(gid, skel_pose.advance_row_threads);
    if i < skel_pose.instances {
        skel_advance_instance(i);
    }
}

// Advances instance `i`'s playheads and samples its morph weights; returns its new state.
fn skel_advance_instance(i: u32) -> SkelPoseInstance {
    var inst = skel_instances[i];
    let clip_a = inst.clips & 0xffffu;
    let clip_b = inst.clips >> 16u;
    let dt = skel_pose.dt;
    if dt != 0.0 {
        inst.time_a = skel_advance(inst.time_a, dt * inst.speed_a, inst.flags & 3u, skel_clips[clip_a].duration);
        inst.time_b = skel_advance(inst.time_b, dt * inst.speed_b, (inst.flags >> 2u) & 3u, skel_clips[clip_b].duration);
        skel_instances[i] = inst;
    }
    if skel_pose.morph_vec4s == 0u {
        return inst;
    }
    let f = skel_instance_frames(inst);
    let row = skel_pose.row_vec4s;
    for (var k = 0u; k < skel_pose.morph_vec4s; k += 1u) {
        let a = u32(f.fa.x) + skel_pose.morph_first + k;
        var w = mix(skel_frames[a], skel_frames[a + row], f.fa.y);
        if f.weight > 0.0 {
            let b = u32(f.fb.x) + skel_pose.morph_first + k;
            w = mix(w, mix(skel_frames[b], skel_frames[b + row], f.fb.y), f.weight);
        }
        skel_morph_out[i * skel_pose.morph_vec4s + k] = w;
    }
    return inst;
}

@compute @workgroup_size(64)
fn skel_pose_bones(@builtin(global_invocation_id) gid: vec3<u32>) {
    let t = skel_thread(gid, skel_pose.row_threads);
    let slot = t / skel_pose.bones;
    if slot >= skel_pose.chunk_instances {
        return;
    }
    let bone = t - slot * skel_pose.bones;
    let instance = skel_pose.first_instance + slot;
    let inst = skel_instances[instance];
    if !skel_updates(instance, inst.flags) {
        return;
    }
    let source = skel_source_bone(bone, inst.flags);
    skel_store_bone(t, skel_skinning_matrix(skel_walk(skel_instance_frames(inst), source), source));
}

// The model transform of bone `source`'s node for one instance: its local transform composed
// with each ancestor's, walking up to its root (skel_pose_bones, and skel_pose_baked for a
// blend).
fn skel_walk(f: SkelFrames, source: u32) -> SkelAffine {
    var node = skel_bone_nodes[source].x;
    var model = skel_local(f.fa, f.fb, f.weight, node);
    node = skel_parents[node];
    while node != SKEL_NO_PARENT {
        model = skel_affine_mul(skel_local(f.fa, f.fb, f.weight, node), model);
        node = skel_parents[node];
    }
    return model;
}

@compute @workgroup_size(64)
fn skel_pose_characters(@builtin(global_invocation_id) gid: vec3<u32>) {
    let slot = skel_thread(gid, skel_pose.row_threads);
    if slot >= skel_pose.chunk_instances {
        return;
    }
    let instance = skel_pose.first_instance + slot;
    let inst = skel_instances[instance];
    if !skel_updates(instance, inst.flags) {
        return;
    }
    let f = skel_instance_frames(inst);
    var model: array<SkelAffine, SKEL_MAX_CHARACTER_NODES>;
    let nodes = min(skel_pose.nodes, SKEL_MAX_CHARACTER_NODES);
    for (var n = 0u; n < nodes; n += 1u) {
        let local = skel_local(f.fa, f.fb, f.weight, n);
        let parent = skel_parents[n];
        if parent == SKEL_NO_PARENT {
            model[n] = local;
        } else {
            model[n] = skel_affine_mul(model[parent], local);
        }
    }
    let first = slot * skel_pose.bones;
    for (var b = 0u; b < skel_pose.bones; b += 1u) {
        let source = skel_source_bone(b, inst.flags);
        skel_store_bone(first + b, skel_skinning_matrix(model[min(skel_bone_nodes[source].x, nodes - 1u)], source));
    }
}

// Threads per workgroup of skel_pose_nodes and skel_pose_nodes_bounds (64, 128 or 256:
// PoseTuning::group_threads, set by the pipeline), and so the length of their workgroup arrays:
// a larger group holds more instances (group_characters = SKEL_POSE_GROUP / posed nodes), so
// fewer of its threads are left idle by the division.
override SKEL_POSE_GROUP: u32 = 64u;

// skel_pose_nodes: the model transforms of a workgroup's instances (posed nodes each, in
// order), and per instance its flags with SKEL_SKIP set when it does not pose this frame.
// skel_pose_nodes_bounds reuses skel_group_model for the per-node boxes once the bones are out.
var<workgroup> skel_group_model: array<SkelAffine, SKEL_POSE_GROUP>;
var<workgroup> skel_group_flags: array<u32, SKEL_POSE_GROUP>;
const SKEL_SKIP: u32 = 0x80000000u;

// What a thread of the per-node entry points knows once the hierarchy is resolved.
struct SkelNodeThread {
    // The workgroup's first slot of the chunk.
    first_slot: u32,
    // The thread's instance (in the crowd) and posed node.
    instance: u32,
    node: u32,
    // The instance's flags; whether the thread is an (instance, node) that poses this frame.
    flags: u32,
    posing: bool,
}

// Samples every (instance, node) of the workgroup into skel_group_model and resolves the
// hierarchy there, one level per barrier; ends after a barrier, every model final.
fn skel_nodes_resolve(wid: vec3<u32>, lid: u32) -> SkelNodeThread {
    let nodes = skel_pose.nodes;
    let per_group = skel_pose.group_characters;
    let first_slot = (wid.x + wid.y * (skel_pose.row_threads / SKEL_POSE_GROUP)) * per_group;
    // Each thread samples its node's local transform once.
    let c = lid / nodes;
    let node = lid - c * nodes;
    let slot = first_slot + c;
    let instance = skel_pose.first_instance + slot;
    // Independent of the instance: loaded first, so that they overlap its load.
    let parent = skel_parents[node];
    var depth = skel_parents[nodes + node];
    var flags = 0u;
    var posing = false;
    if c < per_group && slot < skel_pose.chunk_instances {
        let inst = skel_instances[instance];
        flags = inst.flags;
        posing = skel_updates(instance, inst.flags);
        if node == 0u {
            skel_group_flags[c] = select(inst.flags | SKEL_SKIP, inst.flags, posing);
        }
        if posing {
            let f = skel_instance_frames(inst);
            skel_group_model[lid] = skel_local(f.fa, f.fb, f.weight, node);
        } else {
            depth = 0u;
        }
    } else {
        depth = 0u;
    }
    // Parents come before children, so level by level every parent is final when read.
    for (var level = 1u; level < skel_pose.levels; level += 1u) {
        workgroupBarrier();
        if depth == level {
            skel_group_model[lid] = skel_affine_mul(skel_group_model[lid - node + parent], skel_group_model[lid]);
        }
    }
    workgroupBarrier();
    return SkelNodeThread(first_slot, instance, node, flags, posing);
}

// Writes the workgroup's bone matrices from skel_group_model. 4x4: every thread writes one
// column of one matrix; 3x4: one bone (its three rows). The group's matrices are contiguous.
fn skel_nodes_write(first_slot: u32, lid: u32) {
    let nodes = skel_pose.nodes;
    let per_group = skel_pose.group_characters;
    let characters = min(per_group, skel_pose.chunk_instances - min(first_slot, skel_pose.chunk_instances));
    let bones = skel_pose.bones;
    let per_bone = SKEL_BONE_VEC4S;
    let first_bone = first_slot * bones;
    if per_bone == 3u {
        // One thread per bone, its three rows (48 contiguous bytes). One row per thread, as
        // the columns below, was 8 % slower on an H100 (docs/bench-gpu.md).
        for (var m = lid; m < characters * bones; m += SKEL_POSE_GROUP) {
            let ch = m / bones;
            let flags = skel_group_flags[ch];
            if (flags & SKEL_SKIP) != 0u {
                continue;
            }
            let source = skel_source_bone(m - ch * bones, flags);
            let model = skel_group_model[ch * nodes + skel_bone_nodes[source].x];
            skel_store_bone(first_bone + m, skel_skinning_matrix(model, source));
        }
        return;
    }
    let words = characters * bones * per_bone;
    for (var w = lid; w < words; w += SKEL_POSE_GROUP) {
        let m = w / per_bone;
        let k = w - m * per_bone;
        let ch = m / bones;
        let flags = skel_group_flags[ch];
        if (flags & SKEL_SKIP) != 0u {
            continue;
        }
        let source = skel_source_bone(m - ch * bones, flags);
        let model = skel_group_model[ch * nodes + skel_bone_nodes[source].x];
        // Column k.
        let ibm = skel_bone_matrices[source * 2u + 1u][k];
        var v = vec4<f32>(dot(model.r0, ibm), dot(model.r1, ibm), dot(model.r2, ibm), ibm.w);
        if skel_pose.has_mesh_inverse != 0u {
            v = skel_bone_matrices[source * 2u] * v;
        }
        skel_bones_out[(first_bone + m) * per_bone + k] = v;
    }
}

@compute @workgroup_size(SKEL_POSE_GROUP)
fn skel_pose_nodes(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
) {
    let t = skel_nodes_resolve(wid, lid);
    skel_nodes_write(t.first_slot, lid);
}
