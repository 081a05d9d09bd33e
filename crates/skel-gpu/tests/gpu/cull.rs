//! GPU bounds and frustum culling (`CrowdCull`) against the CPU: the GPU's box of every instance
//! equals `CharacterBounds::world_box` of the CPU pose under the instance's placement (within
//! 1e-5 of the box's size), a camera facing away keeps nothing and draws no instance, and a
//! crowd half behind the camera keeps exactly the instances a CPU frustum test of the CPU boxes
//! keeps (no box within 1e-3 of a plane, so rounding cannot flip one).

use std::sync::Arc;

use glam::{Mat4, Vec3, Vec4};
use skel_anim::Rig;
use skel_gltf::{CharacterBounds, CpuPoser, GltfAsset, LoadOptions, rest_world_matrices};
use skel_gpu::{
    CrowdBones, CrowdCull, CrowdCullDescriptor, CullBone, CullInputs, CullPart, GpuClipSet,
    GpuClipSetOptions, GpuClips, GpuContext, GpuCrowdPose, GpuCrowdPoseDescriptor, GpuError,
    PoseInstance, frustum_planes, readback,
};

use crate::common::{assets_dir, ctx, read_u32};

/// An asset, its bounds as `CullPart`s, and per bone its `CullBone` and joint node.
pub(crate) struct Character {
    pub(crate) asset: GltfAsset,
    bounds: CharacterBounds,
    pub(crate) parts: Vec<CullPart>,
    pub(crate) bones: Vec<CullBone>,
    /// Per bone: the joint node and the mesh node's rest world matrix.
    joints: Vec<(usize, Mat4, Mat4)>,
}

impl Character {
    /// The skinning matrices (`mesh⁻¹ · jointWorld · inverseBind`, in f64, one per bone) of a
    /// CPU pose's node world matrices: what a crowd posed on the CPU uploads per instance.
    pub(crate) fn skins<'a>(&'a self, world: &'a [Mat4]) -> impl Iterator<Item = Mat4> + 'a {
        self.joints.iter().map(|&(node, mesh, ibm)| {
            let skin = mesh.as_dmat4().inverse() * world[node].as_dmat4() * ibm.as_dmat4();
            skin.as_mat4()
        })
    }
}

pub(crate) fn character(file: &str) -> Option<Character> {
    Some(character_at(&assets_dir()?.join(file)))
}

/// [`character`] from any path (a fixture of the repository).
pub(crate) fn character_at(path: &std::path::Path) -> Character {
    let file = path.display();
    let options = LoadOptions {
        decode_images: false,
        ..LoadOptions::default()
    };
    let asset = skel_gltf::load_path(path, &options).unwrap();
    let rest = rest_world_matrices(&asset.animation).unwrap();
    // The CPU reference's own list of the bones: joint node, mesh node at rest, inverse bind.
    let mut joints = Vec::new();
    for binding in &asset.animation.skeletons {
        let mesh = rest[binding.mesh_node];
        for (j, &node) in binding.joints.iter().enumerate() {
            let ibm = binding
                .inverse_bind_matrices
                .get(j * 16..j * 16 + 16)
                .map_or(Mat4::IDENTITY, Mat4::from_cols_slice);
            joints.push((node, mesh, ibm));
        }
    }
    let bounds = CharacterBounds::new(&asset);
    let CullInputs { parts, bones } = CullInputs::new(&asset.animation, bounds.parts()).unwrap();
    // CullInputs against that list: a bone per joint, made from its mesh and inverse bind, and
    // every sphere on the bone of its own joint.
    assert_eq!(bones.len(), joints.len(), "{file}");
    for (bone, &(_, mesh, ibm)) in bones.iter().zip(&joints) {
        assert_eq!(*bone, CullBone::new(mesh, ibm), "{file}");
    }
    assert_eq!(
        parts.len(),
        bounds.part_count(),
        "{file}: a sphere without its bone"
    );
    for (part, (node, center, radius)) in parts.iter().zip(bounds.parts()) {
        assert_eq!(joints[part.bone as usize].0, node, "{file}");
        assert_eq!((part.center, part.radius), (center, radius), "{file}");
    }
    Character {
        asset,
        bounds,
        parts,
        bones,
        joints,
    }
}

/// Runs the pass over `crowd` with `placements` and `planes` (the bone buffer bound in chunks of
/// at most `max_chunk_bytes`); returns the boxes, the visible
/// instances (sorted) and the indirect arguments.
pub(crate) fn cull(
    ctx: &GpuContext,
    ch: &Character,
    crowd: &CrowdBones,
    placements: &[Mat4],
    planes: &[Vec4; 6],
    max_chunk_bytes: Option<u64>,
) -> (Vec<(Vec3, Vec3)>, Vec<u32>, [u32; 5]) {
    let desc = CrowdCullDescriptor {
        parts: &ch.parts,
        bones: &ch.bones,
        index_count: 1234,
        first_index: 7,
        base_vertex: -3,
        max_chunk_bytes,
    };
    let pass = CrowdCull::new(ctx, crowd, &desc).unwrap();
    pass.set_placements(ctx, placements).unwrap();
    let mut encoder = ctx.device.create_command_encoder(&Default::default());
    pass.encode(ctx, &mut encoder, planes).unwrap();
    ctx.queue.submit([encoder.finish()]);
    let n = placements.len();
    let boxes: Vec<Vec4> = readback::read_buffer_as(ctx, pass.boxes_buffer(), 0, 2 * n).unwrap();
    let boxes = boxes
        .chunks_exact(2)
        .map(|b| (b[0].truncate(), b[1].truncate()))
        .collect();
    let list = read_u32(ctx, pass.visible_buffer(), (n as u64 + 1) * 4);
    let mut visible = list[1..=list[0] as usize].to_vec();
    visible.sort_unstable();
    let args = read_u32(ctx, pass.indirect_buffer(), 20);
    (boxes, visible, args.try_into().unwrap())
}

/// The planes (`n·p + d ≥ 0` inside) of a 90° camera at the origin looking at `target`.
pub(crate) fn frustum(target: Vec3) -> [Vec4; 6] {
    let view = Mat4::look_at_rh(Vec3::ZERO, target, Vec3::Y);
    frustum_planes(Mat4::perspective_rh(std::f32::consts::FRAC_PI_2, 1.0, 0.1, 100.0) * view)
}

/// Whether a box is inside every plane by its most-positive corner, and that corner's
/// smallest distance to any plane it is tested against.
pub(crate) fn cpu_visible(planes: &[Vec4; 6], (lo, hi): (Vec3, Vec3)) -> (bool, f32) {
    let mut closest = f32::INFINITY;
    for p in planes {
        let n = p.truncate();
        let corner = Vec3::select(n.cmpge(Vec3::ZERO), hi, lo);
        let s = (n.dot(corner) + p.w) / n.length();
        closest = closest.min(s.abs());
        if s < 0.0 {
            return (false, closest);
        }
    }
    (true, closest)
}

/// Instance `i` of `n`: even ones ahead of a camera looking down -z, odd ones behind it, on a
/// grid wider than the field of view near the camera; each turned and stretched.
pub(crate) fn placements(n: usize) -> Vec<Mat4> {
    (0..n)
        .map(|i| {
            let (col, row) = ((i / 2) % 8, (i / 2) / 8);
            let z = 6.0 + 4.0 * row as f32;
            let side = if i % 2 == 0 { -1.0 } else { 1.0 };
            // A scale that is not uniform, so that a row's length differs from a column's.
            Mat4::from_scale_rotation_translation(
                Vec3::new(1.0, 1.25, 0.8),
                glam::Quat::from_rotation_y(0.3 * i as f32),
                Vec3::new((col as f32 - 3.5) * 4.0, 0.4 * (col % 3) as f32, side * z),
            )
        })
        .collect()
}

fn assert_boxes_near(what: &str, gpu: &[(Vec3, Vec3)], cpu: &[Option<(Vec3, Vec3)>]) {
    for (i, (g, c)) in gpu.iter().zip(cpu).enumerate() {
        let c = c.unwrap_or_else(|| panic!("{what}: instance {i} has no CPU box"));
        let tolerance = 1e-5 * (c.1 - c.0).max_element();
        let err = (g.0 - c.0).abs().max((g.1 - c.1).abs()).max_element();
        assert!(
            err <= tolerance,
            "{what}: instance {i}: GPU box {g:?}, CPU {c:?}, error {err:e} over {tolerance:e}"
        );
    }
}

#[test]
fn boxes_match_the_cpu_pose() {
    let Some(ctx) = ctx() else { return };
    for file in ["CesiumMan/CesiumMan.glb", "Fox/Fox.glb"] {
        let Some(ch) = character(file) else { return };
        let mut poser = CpuPoser::new(&ch.asset).unwrap();
        let n = 24;
        let placements = placements(n);
        let mut bones = Vec::new();
        let mut cpu = Vec::new();
        for (i, p) in placements.iter().enumerate() {
            let clip = i % ch.asset.animation.clips.len();
            let time = 0.137 * i as f32;
            poser.pose(&ch.asset, Some(clip), time).unwrap();
            let world = poser.node_world_matrices();
            bones.extend(ch.skins(world));
            let placed: Vec<Mat4> = world.iter().map(|w| *p * *w).collect();
            cpu.push(ch.bounds.world_box(&placed));
        }
        let crowd = CrowdBones::new_gpu_posed(ctx, n as u32, ch.bones.len() as u32).unwrap();
        ctx.queue
            .write_buffer(crowd.bones_buffer(), 0, bytemuck::cast_slice(&bones));
        let planes = frustum(Vec3::NEG_Z);
        let (gpu, ..) = cull(ctx, &ch, &crowd, &placements, &planes, None);
        assert_boxes_near(file, &gpu, &cpu);
        eprintln!(
            "{file}: {n} GPU boxes match the CPU pose's ({} parts)",
            ch.parts.len()
        );
    }
}

/// A GPU-posed CesiumMan crowd of `n`, posed once; its bones read back.
pub(crate) fn gpu_posed(ctx: &GpuContext, ch: &Character, n: u32) -> (CrowdBones, Vec<Mat4>) {
    let rig = Rig::new(Arc::new(ch.asset.animation.clone())).unwrap();
    let set = GpuClipSet::new(&rig, &GpuClipSetOptions::default()).unwrap();
    let clips = GpuClips::new(ctx, &set).unwrap();
    let crowd = CrowdBones::new_gpu_posed(ctx, n, set.bone_count()).unwrap();
    let instances: Vec<PoseInstance> = (0..n)
        .map(|i| PoseInstance::new(0, 0.21 * i as f32))
        .collect();
    let mut pose = GpuCrowdPose::new(
        ctx,
        &clips,
        &crowd,
        &instances,
        &GpuCrowdPoseDescriptor::default(),
    )
    .unwrap();
    pose.prepare(ctx, 0.0);
    let mut encoder = ctx.device.create_command_encoder(&Default::default());
    {
        let mut pass = encoder.begin_compute_pass(&Default::default());
        pose.record(&mut pass);
    }
    ctx.queue.submit([encoder.finish()]);
    let bones = (n * set.bone_count()) as usize;
    let read = readback::read_buffer_as(ctx, crowd.bones_buffer(), 0, bones).unwrap();
    (crowd, read)
}

/// The CPU boxes of a crowd whose skinning matrices are `skins`: each joint's world matrix
/// rebuilt as `placement · mesh · skin · ibm⁻¹`, then `CharacterBounds::world_box`.
pub(crate) fn cpu_boxes(
    ch: &Character,
    skins: &[Mat4],
    placements: &[Mat4],
) -> Vec<Option<(Vec3, Vec3)>> {
    let per = ch.bones.len();
    let mut world = vec![Mat4::NAN; ch.asset.animation.nodes.len()];
    placements
        .iter()
        .enumerate()
        .map(|(i, p)| {
            for (b, (bone, &(node, ..))) in ch.bones.iter().zip(&ch.joints).enumerate() {
                world[node] = *p * (bone.left * skins[i * per + b]) * bone.right;
            }
            ch.bounds.world_box(&world)
        })
        .collect()
}

#[test]
fn a_camera_facing_away_draws_nothing() {
    let Some(ctx) = ctx() else { return };
    let Some(ch) = character("CesiumMan/CesiumMan.glb") else {
        return;
    };
    let n = 64;
    let (crowd, _) = gpu_posed(ctx, &ch, n);
    // Everyone ahead of a camera looking down -z, which looks down +z instead.
    let ahead: Vec<Mat4> = placements(2 * n as usize).into_iter().step_by(2).collect();
    let (_, visible, args) = cull(ctx, &ch, &crowd, &ahead, &frustum(Vec3::Z), None);
    assert_eq!(visible, Vec::<u32>::new());
    assert_eq!(args, [1234, 0, 7, (-3i32).cast_unsigned(), 0]);
}

#[test]
fn half_behind_the_camera_keeps_what_the_cpu_keeps() {
    let Some(ctx) = ctx() else { return };
    let Some(ch) = character("CesiumMan/CesiumMan.glb") else {
        return;
    };
    let n = 160;
    let (crowd, skins) = gpu_posed(ctx, &ch, n);
    let placements = placements(n as usize);
    let planes = frustum(Vec3::NEG_Z);
    let (gpu, visible, args) = cull(ctx, &ch, &crowd, &placements, &planes, None);
    let cpu = cpu_boxes(&ch, &skins, &placements);
    assert_boxes_near("GPU-posed CesiumMan", &gpu, &cpu);
    let mut expected = Vec::new();
    for (i, b) in cpu.iter().enumerate() {
        let (inside, closest) = cpu_visible(&planes, b.unwrap());
        assert!(
            closest > 1e-3,
            "instance {i}'s box is {closest} from a plane"
        );
        if inside {
            expected.push(i as u32);
        }
    }
    assert!(
        !expected.is_empty() && expected.len() < n as usize / 2,
        "the layout should keep some of the half ahead: {}",
        expected.len()
    );
    assert!(expected.iter().all(|i| i % 2 == 0), "none behind is kept");
    assert_eq!(visible, expected);
    assert_eq!(args[1] as usize, expected.len());
    // The bone buffer bound 12 instances at a time (14 chunks, the last of 4): the same result.
    let chunk = Some(12 * ch.bones.len() as u64 * 64);
    let (chunked, chunked_visible, _) = cull(ctx, &ch, &crowd, &placements, &planes, chunk);
    assert_eq!(chunked, gpu);
    assert_eq!(chunked_visible, expected);
    eprintln!("GPU culling: {} of {n} CesiumMan visible", expected.len());
}

#[test]
fn bad_input_is_a_typed_error() {
    let Some(ctx) = ctx() else { return };
    let Some(ch) = character("CesiumMan/CesiumMan.glb") else {
        return;
    };
    let crowd = CrowdBones::new_gpu_posed(ctx, 4, ch.bones.len() as u32).unwrap();
    let desc = |parts, bones| CrowdCullDescriptor {
        parts,
        bones,
        index_count: 3,
        first_index: 0,
        base_vertex: 0,
        max_chunk_bytes: None,
    };
    let err = |d: &CrowdCullDescriptor<'_>| CrowdCull::new(ctx, &crowd, d).unwrap_err();
    assert!(matches!(
        err(&desc(&[], &ch.bones)),
        GpuError::LengthMismatch { got: 0, .. }
    ));
    assert!(matches!(
        err(&desc(&ch.parts, &ch.bones[1..])),
        GpuError::LengthMismatch { .. }
    ));
    let past = [CullPart {
        bone: ch.bones.len() as u32,
        ..ch.parts[0]
    }];
    assert!(matches!(
        err(&desc(&past, &ch.bones)),
        GpuError::OutOfRange { .. }
    ));
    let nan = [CullPart {
        radius: f32::NAN,
        ..ch.parts[0]
    }];
    assert!(matches!(
        err(&desc(&nan, &ch.bones)),
        GpuError::NotFinite { index: 0, .. }
    ));
    let pass = CrowdCull::new(ctx, &crowd, &desc(&ch.parts, &ch.bones)).unwrap();
    assert!(matches!(
        pass.set_placements(ctx, &[Mat4::IDENTITY; 3]),
        Err(GpuError::LengthMismatch {
            expected: 4,
            got: 3,
            ..
        })
    ));
    let mut planes = frustum(Vec3::NEG_Z);
    planes[3].y = f32::NAN;
    let mut encoder = ctx.device.create_command_encoder(&Default::default());
    assert!(matches!(
        pass.encode(ctx, &mut encoder, &planes),
        Err(GpuError::NotFinite { index: 13, .. })
    ));
}

/// Timings of the pass for docs/bounds.md (`cargo test -p skel-gpu --test gpu --
/// --ignored cull_timing --nocapture`): CesiumMan's 19 spheres, rest-pose bones.
#[test]
#[ignore = "a measurement, not a check"]
fn cull_timing() {
    let Some(ctx) = ctx() else { return };
    let Some(ch) = character("CesiumMan/CesiumMan.glb") else {
        return;
    };
    // Other sizes through `SKEL_CULL_SIZES=1000,1000000` (a real GPU holds more).
    let sizes: Vec<u32> = std::env::var("SKEL_CULL_SIZES")
        .unwrap_or_else(|_| "1000,100000".into())
        .split(',')
        .filter_map(|s| s.trim().parse().ok())
        .collect();
    for n in sizes {
        let crowd = CrowdBones::new_gpu_posed(ctx, n, ch.bones.len() as u32).unwrap();
        let skins: Vec<Mat4> = ch.bones.iter().map(|b| b.right.inverse()).collect();
        let all: Vec<Mat4> = (0..n).flat_map(|_| skins.iter().copied()).collect();
        ctx.queue
            .write_buffer(crowd.bones_buffer(), 0, bytemuck::cast_slice(&all));
        let desc = CrowdCullDescriptor {
            parts: &ch.parts,
            bones: &ch.bones,
            index_count: 3,
            first_index: 0,
            base_vertex: 0,
            max_chunk_bytes: None,
        };
        let pass = CrowdCull::new(ctx, &crowd, &desc).unwrap();
        pass.set_placements(ctx, &placements(n as usize)).unwrap();
        let planes = frustum(Vec3::NEG_Z);
        let mut times = Vec::new();
        for _ in 0..6 {
            let start = std::time::Instant::now();
            let mut encoder = ctx.device.create_command_encoder(&Default::default());
            pass.encode(ctx, &mut encoder, &planes).unwrap();
            ctx.queue.submit([encoder.finish()]);
            ctx.device
                .poll(wgpu::PollType::wait_indefinitely())
                .unwrap();
            times.push(start.elapsed().as_secs_f64() * 1e3);
        }
        let mut warm = times[1..].to_vec();
        warm.sort_by(f64::total_cmp);
        eprintln!(
            "cull_timing: {n} instances x {} parts: median {:.2} ms (min {:.2}, max {:.2}; first {:.2})",
            ch.parts.len(),
            warm[2],
            warm[0],
            warm[4],
            times[0]
        );
    }
}

#[test]
fn bones_not_finite_are_left_out_of_the_box() {
    let Some(ctx) = ctx() else { return };
    let Some(ch) = character("CesiumMan/CesiumMan.glb") else {
        return;
    };
    let n = 4;
    let crowd = CrowdBones::new_gpu_posed(ctx, n, ch.bones.len() as u32).unwrap();
    // Skinning matrices that put each joint at the mesh's origin frame (finite, in view).
    let mut skins: Vec<Mat4> = (0..n)
        .flat_map(|_| ch.bones.iter().map(|b| b.right.inverse()))
        .collect();
    skins[2 * ch.bones.len()..3 * ch.bones.len()].fill(Mat4::NAN);
    // One bone of instance 1 so far out that its box's lo + hi overflows: its spheres are left
    // out, as world_box leaves them (infinite or NaN matrices end up the same way).
    skins[ch.bones.len()] = Mat4::from_translation(Vec3::new(3.0e38, 0.0, 0.0));
    ctx.queue
        .write_buffer(crowd.bones_buffer(), 0, bytemuck::cast_slice(&skins));
    let ahead: Vec<Mat4> = (0..n)
        .map(|i| Mat4::from_translation(Vec3::new(i as f32 - 1.5, -0.5, -10.0)))
        .collect();
    let (boxes, visible, args) = cull(ctx, &ch, &crowd, &ahead, &frustum(Vec3::NEG_Z), None);
    assert_eq!(visible, [0, 1, 3]);
    assert_eq!(args[1], 3);
    assert!(boxes[2].0.cmpgt(boxes[2].1).all(), "{:?}", boxes[2]);
    assert!(boxes[1].0.cmplt(boxes[1].1).all(), "{:?}", boxes[1]);
    assert!(
        (boxes[1].1 - boxes[1].0).max_element() < 1e3,
        "{:?}",
        boxes[1]
    );
    let cpu = cpu_boxes(&ch, &skins, &ahead);
    assert_eq!(cpu[2], None);
    assert_boxes_near("finite spheres only", &boxes[..2], &cpu[..2]);
}
