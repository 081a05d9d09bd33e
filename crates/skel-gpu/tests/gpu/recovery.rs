//! Device-loss recovery: a skeleton and morph targets rebuilt on a new device from their CPU
//! mirrors, with the association beside them untouched.

use std::any::Any;
use std::sync::Arc;

use skel_anim::MorphTargets;
use skel_gpu::{
    JointIndices, create_morph, create_skeleton, update_morph_weights,
    update_skeleton_bone_matrices,
};

use crate::common::{floats, own_ctx, read_f32, read_u32, tagged_bone_matrices};

#[test]
fn recreate_rebuilds_gpu_fields_from_the_mirror_and_keeps_the_handle() {
    let Some(lost) = own_ctx() else { return };
    let joints: [u16; 8] = [0, 1, 2, 3, 3, 2, 1, 0];
    let joints1: [u16; 8] = [1, 1, 1, 1, 2, 2, 2, 2];
    let weights = [0.25f32; 8];
    let weights1 = [0.0f32; 8];
    let mut skeleton = create_skeleton(
        &lost,
        JointIndices::U16(&joints),
        &weights,
        4,
        &tagged_bone_matrices(4),
        Some(JointIndices::U16(&joints1)),
        Some(&weights1),
    )
    .unwrap();
    let handle: Arc<dyn Any + Send + Sync> = Arc::new(String::from("bone control's Skeleton"));
    skeleton.handle = Some(Arc::clone(&handle));
    let posed: Vec<glam::Mat4> = tagged_bone_matrices(4).iter().map(|m| *m * 2.0).collect();
    update_skeleton_bone_matrices(&lost, &mut skeleton, &posed).unwrap();
    let targets = MorphTargets {
        target_count: 2,
        positions: vec![0.5; 12],
        normals: vec![0.25; 12],
    };
    let mut morph = create_morph(&lost, &targets, 2, &[0.0, 0.0]).unwrap();
    morph.handle = Some(Arc::clone(&handle));
    update_morph_weights(&lost, &mut morph, &[0.3, 0.6]).unwrap();

    // WebGPU's destroy() reports the loss once the queue is empty, and creation submits its
    // initial copies: let them finish first, so that the loss is reported at the next poll.
    let _ = lost.device.poll(wgpu::PollType::wait_indefinitely());
    lost.device.destroy();
    let _ = lost.device.poll(wgpu::PollType::Poll);
    assert!(lost.is_lost(), "destroying the device reports it lost");

    let Some(fresh) = own_ctx() else { return };
    skeleton.recreate(&fresh).unwrap();
    morph.recreate(&fresh).unwrap();

    assert!(
        Arc::ptr_eq(skeleton.handle.as_ref().unwrap(), &handle),
        "association replaced"
    );
    assert!(
        Arc::ptr_eq(morph.handle.as_ref().unwrap(), &handle),
        "association replaced"
    );
    assert_eq!(
        skeleton.read_bone_texture(&fresh).unwrap(),
        floats(&posed),
        "last pose restored"
    );
    assert_eq!(
        read_u32(&fresh, skeleton.joints_buffer(), 32),
        joints.map(u32::from)
    );
    assert_eq!(read_f32(&fresh, skeleton.weights_buffer(), 32), weights);
    assert_eq!(
        read_u32(&fresh, skeleton.joints1_buffer().unwrap(), 32),
        joints1.map(u32::from)
    );
    assert_eq!(
        read_f32(&fresh, skeleton.weights1_buffer().unwrap(), 32),
        weights1
    );
    assert_eq!(
        &read_f32(&fresh, morph.params_buffer(), 16),
        &[0.3, 0.6, 0.0, 0.0]
    );
    assert_eq!(
        read_f32(&fresh, morph.deltas_buffer().unwrap(), 96),
        [vec![0.5; 12], vec![0.25; 12]].concat()
    );
    // And it keeps working on the new device.
    update_skeleton_bone_matrices(&fresh, &mut skeleton, &tagged_bone_matrices(4)).unwrap();
    assert_eq!(
        skeleton.read_bone_texture(&fresh).unwrap(),
        floats(&tagged_bone_matrices(4))
    );
}
