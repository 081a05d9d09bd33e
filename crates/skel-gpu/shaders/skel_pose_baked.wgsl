
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

// Writes bone matrix `index` of the chunk from the top three rows of an affine matrix.
fn skel_store_rows(index: u32, r0: vec4<f32>, r1: vec4<f32>, r2: vec4<f32>) {
    let at = index * SKEL_BONE_VEC4S;
    if SKEL_BONE_VEC4S == 3u {
        skel_bones_out[at] = r0;
        skel_bones_out[at + 1u] = r1;
        skel_bones_out[at + 2u] = r2;
    } else {
        skel_bones_out[at] = vec4<f32>(r0.x, r1.x, r2.x, 0.0);
        skel_bones_out[at + 1u] = vec4<f32>(r0.y, r1.y, r2.y, 0.0);
        skel_bones_out[at + 2u] = vec4<f32>(r0.z, r1.z, r2.z, 0.0);
        skel_bones_out[at + 3u] = vec4<f32>(r0.w, r1.w, r2.w, 1.0);
    }
}

// Poses thread `t`'s (instance, bone); returns the instance's slot in the chunk when it posed
// this frame as bone 0 (the thread that boxes it), else the chunk's instance count.
fn skel_baked_thread(t: u32) -> u32 {
    let slot = t / skel_pose.bones;
    if slot >= skel_pose.chunk_instances {
        return skel_pose.chunk_instances;
    }
    let bone = t - slot * skel_pose.bones;
    let instance = skel_pose.first_instance + slot;
    let inst = skel_instances[instance];
    if !skel_updates(instance, inst.flags) {
        return skel_pose.chunk_instances;
    }
    let source = skel_source_bone(bone, inst.flags);
    if inst.weight > 0.0 {
        skel_store_bone(t, skel_skinning_matrix(skel_walk(skel_instance_frames(inst), source), source));
    } else {
        let f = skel_baked_frame(inst);
        let row = skel_pose.bones * 3u;
        let a = (f.frame * skel_pose.bones + source) * 3u;
        let b = a + row;
        skel_store_rows(
            t,
            mix(skel_baked_rows[a], skel_baked_rows[b], f.k),
            mix(skel_baked_rows[a + 1u], skel_baked_rows[b + 1u], f.k),
            mix(skel_baked_rows[a + 2u], skel_baked_rows[b + 2u], f.k),
        );
    }
    return select(skel_pose.chunk_instances, slot, bone == 0u);
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
fn skel_pose_baked(@builtin(global_invocation_id) gid: vec3<u32>) {
    skel_baked_thread(skel_thread(gid, skel_pose.row_threads));
}

// Per baked frame, its boxes in the character's frame (BakedClips::bake_boxes): min and max
// with every joint, then with the reduced joint set.
@group(0) @binding(15) var<storage, read> skel_baked_boxes: array<vec4<f32>>;

// skel_pose_baked, and each posed instance's world box into CrowdCull's boxes: the union of the
// boxes of its two frames (a lerp of two frames' skinning matrices keeps every vertex on the
// segment between the two frames' positions of it), placed (the box of the placed box). An
// instance that blends two clips gets a box that holds everything: it is never culled.
@compute @workgroup_size(64)
fn skel_pose_baked_bounds(@builtin(global_invocation_id) gid: vec3<u32>) {
    let slot = skel_baked_thread(skel_thread(gid, skel_pose.row_threads));
    if slot >= skel_pose.chunk_instances {
        return;
    }
    let instance = skel_pose.first_instance + slot;
    let inst = skel_instances[instance];
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
    skel_bounds_boxes[instance * 2u] = vec4<f32>(lo, 0.0);
    skel_bounds_boxes[instance * 2u + 1u] = vec4<f32>(hi, 0.0);
}
