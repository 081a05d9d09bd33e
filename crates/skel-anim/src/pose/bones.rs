//! Step 4 of a pose, the skinning matrices: `bone[i] = invMeshWorld · world[joint[i]] ·
//! inverseBind[i]` for every skeleton binding, with the kernels the rig was compiled for
//! ([`Kernels`](crate::rig::kernels::Kernels)): the baseline's products here and the AVX2 +
//! FMA ones in [`avx2`](crate::pose::avx2).

#![allow(
    unsafe_code,
    reason = "calling #[target_feature] functions after run-time detection; every block says why"
)]

use glam::{Mat4, Vec4};

use crate::math::interpolate;
#[cfg(target_arch = "x86_64")]
use crate::pose::avx2;
use crate::pose::steps::MeshInverse;
use crate::rig::kernels::Kernels;
use crate::{AnimationData, PoseScratch, PoseSink};

/// Step 4: `bone[i] = invMeshWorld · world[joint[i]] · inverseBind[i]` for every skeleton
/// binding, handed to `sink` together with every morph binding's weights.
///
/// A mesh node whose world matrix is singular (scaled to zero) uses the identity as its inverse.
/// An identity inverse is skipped and a diagonal one (a mirror or a scale) costs a column scale;
/// affine inverse-bind matrices (all but exotic files) use affine products.
#[inline]
pub fn compute_bone_matrices(
    data: &AnimationData,
    scratch: &mut PoseScratch,
    sink: &mut dyn PoseSink,
) {
    bone_pass(data, scratch, false, sink);
}

/// [`compute_bone_matrices`] from the controller's frame matrices (`frame_world`): the frame
/// cancels in `inverse(meshWorld) · jointWorld`, and the first skinned mesh's own matrix is
/// (within rounding) the identity there, so its bones cost one product.
#[inline(always)]
pub(crate) fn compute_frame_bone_matrices(
    data: &AnimationData,
    scratch: &mut PoseScratch,
    sink: &mut dyn PoseSink,
) {
    bone_pass(data, scratch, true, sink);
}

#[inline(always)]
fn bone_pass(
    data: &AnimationData,
    scratch: &mut PoseScratch,
    frame: bool,
    sink: &mut dyn PoseSink,
) {
    let PoseScratch {
        world,
        frame_world,
        bones,
        plan,
        morph_weights,
        mesh_inverses,
        ..
    } = scratch;
    let world: &[f32] = if frame {
        frame_world
    } else {
        interpolate::floats(world)
    };
    for (bi, (((binding, matrices), bp), cached)) in data
        .skeletons
        .iter()
        .zip(bones.iter_mut())
        .zip(&plan.bindings)
        .zip(mesh_inverses.iter_mut())
        .enumerate()
    {
        let mesh_world = interpolate::load(&interpolate::matrices(world)[binding.mesh_node]);
        if cached.0 != mesh_world {
            *cached = (mesh_world, MeshInverse::of(&mesh_world));
        }
        let inv = &cached.1;
        let bones = bytemuck::cast_slice_mut::<Mat4, [f32; 16]>(matrices);
        let (joints, splats, affine) = (&binding.joints, &bp.ibm_splats, bp.ibm_affine);
        let wide = &bp.ibm_wide;
        // The usual cases (the mesh at rest in the controller's frame, or mirrored): one
        // product per bone, the inverse bind's elements splat at plan time.
        if let MeshInverse::Identity = inv {
            crate::pose::bones::bones(
                plan.kernels,
                world,
                joints,
                splats,
                wide,
                affine,
                bones,
                None,
            );
        } else if let MeshInverse::Diagonal(d) = inv {
            let d = Some(*d);
            crate::pose::bones::bones(plan.kernels, world, joints, splats, wide, affine, bones, d);
        } else {
            let world = interpolate::matrices(world);
            for ((&joint, ibm), out) in binding
                .joints
                .iter()
                .zip(interpolate::matrices(&binding.inverse_bind_matrices))
                .zip(bones.iter_mut())
            {
                let w = interpolate::load(&world[joint]);
                let ibm = interpolate::load(ibm);
                let m = if bp.ibm_affine {
                    interpolate::mul_affine(&w, &ibm)
                } else {
                    interpolate::mul_full(&w, &ibm)
                };
                let m = match inv {
                    MeshInverse::Identity => m,
                    MeshInverse::Diagonal(d) => m.map(|c| c * *d),
                    MeshInverse::General(inv) if bp.ibm_affine => interpolate::mul_affine(inv, &m),
                    MeshInverse::General(inv) => interpolate::mul_full(inv, &m),
                };
                interpolate::store(out, &m);
            }
        }
        sink.bone_matrices(bi, matrices);
    }
    for (mi, weights) in morph_weights.iter().enumerate() {
        sink.morph_weights(mi, weights);
    }
}

/// `bones[i] = post(world[joints[i]] · inverseBind[i])` with `kernels`' product: the
/// baseline's `pose::bones::splat_bones` (the inverse binds from `splats`), or the AVX2 + FMA one
/// (from `wide`, which must then be `rig::kernels::wide_splats`' layout of the same matrices). `post` is a
/// diagonal mesh inverse's column scale, `None` for the identity.
#[inline(always)]
#[expect(
    clippy::too_many_arguments,
    reason = "the bone pass's buffers, borrowed apart"
)]
pub(crate) fn bones(
    kernels: Kernels,
    world: &[f32],
    joints: &[usize],
    splats: &[[glam::Vec4; 16]],
    #[cfg_attr(
        not(target_arch = "x86_64"),
        expect(unused_variables, reason = "read by the x86_64 kernels only")
    )]
    wide: &[[[f32; 8]; 8]],
    affine: bool,
    bones: &mut [[f32; 16]],
    post: Option<glam::Vec4>,
) {
    match (kernels, post) {
        (Kernels::Baseline, None) => {
            splat_bones(world, joints, splats, affine, bones, |c| c);
        }
        (Kernels::Baseline, Some(d)) => {
            splat_bones(world, joints, splats, affine, bones, |c| c * d);
        }
        #[cfg(target_arch = "x86_64")]
        // SAFETY: `Avx2Fma` is only ever chosen by `Kernels::detect`, after
        // `is_x86_feature_detected!` found both AVX2 and FMA on this CPU.
        (Kernels::Avx2Fma, _) => unsafe {
            avx2::splat_bones(world, joints, wide, affine, bones, post);
        },
    }
}

/// `bones[i] = post(world[joints[i]] · inverseBind[i])` column by column, the inverse binds
/// given as splats (`BindingPlan::ibm_splats`): the same operations in the same order as
/// `mul_affine` (`affine`) or `mul_full`, without broadcasting the inverse bind's elements.
#[inline(always)]
fn splat_bones(
    world: &[f32],
    joints: &[usize],
    splats: &[[Vec4; 16]],
    affine: bool,
    bones: &mut [[f32; 16]],
    post: impl Fn(Vec4) -> Vec4,
) {
    use crate::math::interpolate::{load, matrices, store};
    let world = matrices(world);
    let pairs = joints.iter().zip(splats).zip(bones);
    if affine {
        for ((&joint, b), out) in pairs {
            let w = load(&world[joint]);
            let col = |c: usize| w[0] * b[4 * c] + w[1] * b[4 * c + 1] + w[2] * b[4 * c + 2];
            let m = [col(0), col(1), col(2), col(3) + w[3]].map(&post);
            store(out, &m);
        }
    } else {
        for ((&joint, b), out) in pairs {
            let w = load(&world[joint]);
            let col = |c: usize| {
                w[0] * b[4 * c] + w[1] * b[4 * c + 1] + w[2] * b[4 * c + 2] + w[3] * b[4 * c + 3]
            };
            let m = [col(0), col(1), col(2), col(3)].map(&post);
            store(out, &m);
        }
    }
}
