//! A GPU clip set built from a compressed rig (`KeyFormat::Variable`, ACL's 0.01 cm at 3 cm)
//! on real assets, on the CPU side (no device needed): its frames are the compressed rig's
//! local pose, not the asset's keys (which the lossless rig's set holds), and the pose the
//! shader's arithmetic reconstructs from them stays within the set's measured error of the
//! compressed rig's own `Player`.

use std::sync::Arc;

use glam::{Mat4, Quat, Vec3, Vec4};
use skel_anim::{
    Compression, KeyFormat, LayerDesc, Player, PoseScratch, R_OFF, RecordingSink, Rig, RigOptions,
    S_OFF, T_OFF, TRS_STRIDE,
};
use skel_gpu::{GpuClipSet, GpuClipSetOptions, POSE_NODE_VEC4S, bone_error, frame_at};

use crate::pose::load;

/// `rig`'s data compressed with variable bit rates at ACL's defaults in the asset's unit.
fn compressed(rig: &Rig, metres_per_unit: f32) -> Arc<Rig> {
    let options = RigOptions {
        compression: Some(Compression {
            keys: KeyFormat::Variable,
            ..Compression::for_unit(metres_per_unit)
        }),
        ..RigOptions::default()
    };
    Rig::with_options(Arc::clone(rig.data()), &options).unwrap()
}

/// A player of `clip` alone (plain playback, the fused single-clip pass).
fn player(rig: &Arc<Rig>, clip: usize) -> Player {
    let mut p = Player::new(rig);
    p.add_layer(LayerDesc::new(clip)).unwrap();
    p
}

/// The player's bone matrices (every binding) and local TRS records at `time`.
fn played(player: &mut Player, time: f32) -> (Vec<Mat4>, Vec<f32>) {
    let mut sink = RecordingSink::default();
    player.seek(time);
    player.evaluate(&mut sink);
    (sink.bone_matrices.concat(), player.scratch().trs.clone())
}

/// The bone matrices the shader reconstructs from `set`'s frames of `clip` at `time` (frame
/// index, lerp, normalised lerp), computed on the CPU.
fn reconstructed(
    rig: &Rig,
    set: &GpuClipSet,
    (clip, time): (usize, f32),
    scratch: &mut PoseScratch,
) -> Vec<Mat4> {
    let data = rig.data();
    let table = set.clips[clip];
    let (i, s) = frame_at(table.rate, table.frames, time);
    let row = set.row_vec4s as usize;
    let at = table.offset as usize + i as usize * row;
    let (a, b) = (
        &set.frames[at..at + row],
        &set.frames[at + row..at + 2 * row],
    );
    skel_anim::reset_to_rest(data, scratch);
    for (k, &node) in set.nodes.iter().enumerate() {
        let v = k * POSE_NODE_VEC4S as usize;
        let rec = &mut scratch.trs[node * TRS_STRIDE..(node + 1) * TRS_STRIDE];
        rec[T_OFF..T_OFF + 3].copy_from_slice(&a[v].lerp(b[v], s).to_array()[..3]);
        rec[R_OFF..R_OFF + 4].copy_from_slice(&a[v + 1].lerp(b[v + 1], s).normalize().to_array());
        rec[S_OFF..S_OFF + 3].copy_from_slice(&a[v + 2].lerp(b[v + 2], s).to_array()[..3]);
    }
    skel_anim::compute_world_matrices(data, scratch);
    let mut sink = RecordingSink::default();
    skel_anim::compute_bone_matrices(data, scratch, &mut sink);
    sink.bone_matrices.concat()
}

/// The largest difference between frame `k` of `set`'s `clip` and the posed nodes' local
/// transforms in `trs` (rotations up to sign), relative to the larger magnitude and 1.
fn frame_difference(set: &GpuClipSet, clip: usize, k: u32, trs: &[f32]) -> f32 {
    let table = set.clips[clip];
    let row = set.row_vec4s as usize;
    let frame = &set.frames[table.offset as usize + k as usize * row..][..row];
    let mut worst = 0.0f32;
    let mut diff = |a: Vec4, b: Vec4| {
        let d = (a - b).abs().max_element() / a.abs().max(b.abs()).max_element().max(1.0);
        worst = worst.max(d);
    };
    for (i, &node) in set.nodes.iter().enumerate() {
        let rec = &trs[node * TRS_STRIDE..(node + 1) * TRS_STRIDE];
        let v = i * POSE_NODE_VEC4S as usize;
        let t = Vec3::from_slice(&rec[T_OFF..T_OFF + 3]).extend(0.0);
        let r = Quat::from_slice(&rec[R_OFF..R_OFF + 4]);
        let r = Vec4::from(if Vec4::from(r).dot(frame[v + 1]) < 0.0 {
            -r
        } else {
            r
        });
        let s = Vec3::from_slice(&rec[S_OFF..S_OFF + 3]).extend(0.0);
        diff(frame[v], t);
        diff(frame[v + 1], r);
        diff(frame[v + 2], s);
    }
    worst
}

/// Checks one asset (see the module docs); `metres_per_unit` is its unit (Fox's exporter wrote
/// centimetres).
fn check(file: &str, metres_per_unit: f32) {
    let Some((lossless, diagonal, radius)) = load(file) else {
        return;
    };
    let rig = compressed(&lossless, metres_per_unit);
    let options = GpuClipSetOptions {
        radius,
        ..GpuClipSetOptions::for_diagonal(diagonal, 1e-4)
    };
    let set = GpuClipSet::new(&rig, &options).unwrap();
    let raw = GpuClipSet::new(&lossless, &options).unwrap();
    assert_eq!((&set.nodes, set.row_vec4s), (&raw.nodes, raw.row_vec4s));
    let mut scratch = PoseScratch::for_rig(&rig);
    for (c, table) in set.clips.iter().enumerate() {
        let compression = rig.clip_compression(c);
        assert!(compression.is_some(), "{file} clip {c}: not compressed");
        assert!(
            table.max_error <= options.max_error,
            "{file} clip {c}: resampling error {} over {} against the compressed playback",
            table.max_error,
            options.max_error
        );
        let (mut own, mut lossless_player) = (player(&rig, c), player(&lossless, c));
        // Every frame is the compressed rig's pose at its time, and not the asset's: the keys
        // differ by more than f32 rounding, and the lossless set's frames are the asset's.
        let (mut to_own, mut to_asset) = (0.0f32, 0.0f32);
        for k in 0..table.frames {
            let t = table.duration * k as f32 / (table.frames - 1) as f32;
            let (_, trs) = played(&mut own, t);
            let (_, asset) = played(&mut lossless_player, t);
            to_own = to_own.max(frame_difference(&set, c, k, &trs));
            to_asset = to_asset.max(frame_difference(&set, c, k, &asset));
            if raw.clips[c].frames == table.frames {
                assert!(
                    frame_difference(&raw, c, k, &asset) <= 1e-5,
                    "{file} clip {c}"
                );
            }
        }
        assert!(
            to_own <= 1e-5,
            "{file} clip {c}: frames {to_own:.1e} off the compressed pose"
        );
        assert!(
            to_asset >= 100.0 * to_own.max(1e-7),
            "{file} clip {c}: frames only {to_asset:.1e} off the asset's keys \
             ({to_own:.1e} off the compressed pose): not the compressed keys"
        );
        // The pose reconstructed from the frames, against the compressed rig's player: within
        // the set's measured error where the set measured it (a quarter, half and three
        // quarters between frames; plus the f32 rounding of the player's own bone path, 2e-7
        // of the diagonal), within the budget anywhere (frame times, off the grid). And the
        // compression's own error alone exceeds that budget: a set measured against the
        // asset's keys could never meet it.
        let (mut worst, mut worst_asset) = (0.0f32, 0.0f32);
        let quarters = 4 * (table.frames - 1);
        for q in 0..=quarters + 37 {
            let (t, measured) = if q <= quarters {
                (table.duration * q as f32 / quarters as f32, q % 4 != 0)
            } else {
                let f = ((q - quarters) as f32 * 0.618_034).fract();
                (table.duration * f, false)
            };
            let gpu = reconstructed(&rig, &set, (c, t), &mut scratch);
            let (cpu, _) = played(&mut own, t);
            let (asset, _) = played(&mut lossless_player, t);
            assert_eq!(gpu.len(), cpu.len());
            let error = |to: &[Mat4]| {
                gpu.iter()
                    .zip(to)
                    .map(|(g, p)| bone_error(g, p, radius))
                    .fold(0.0, f32::max)
            };
            let e = error(&cpu);
            let bound = if measured {
                table.max_error + 2e-7 * diagonal
            } else {
                options.max_error
            };
            assert!(
                e <= bound,
                "{file} clip {c} at {t}: {e:.2e} from the compressed pose, over {bound:.2e}"
            );
            worst = worst.max(e);
            worst_asset = worst_asset.max(error(&asset));
        }
        assert!(
            worst_asset > options.max_error,
            "{file} clip {c}: the compressed set within {worst_asset:.2e} of the asset's pose"
        );
        eprintln!(
            "{file} clip {c}: {} frames at {:.1} fps; frames {to_own:.1e} off the compressed \
             pose, {to_asset:.1e} off the asset's; bones {worst:.2e} from the compressed pose \
             (set's max_error {:.2e}, budget {:.2e}), {worst_asset:.2e} from the asset's; \
             lossless set {} frames",
            table.frames, table.rate, table.max_error, options.max_error, raw.clips[c].frames,
        );
    }
    assert_ne!(
        set.frames, raw.frames,
        "{file}: the same frames from both rigs"
    );
}

#[test]
fn a_gpu_clip_set_of_a_compressed_rig_holds_its_compressed_pose_on_cesium_man() {
    check("CesiumMan/CesiumMan.glb", 1.0);
}

#[test]
fn a_gpu_clip_set_of_a_compressed_rig_holds_its_compressed_pose_on_fox() {
    check("Fox/Fox.glb", 0.01);
}
