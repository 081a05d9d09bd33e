//! The seed's test list item 8: the morph weight upload writes the weights vec4 — 16 bytes at
//! offset 0 — and nothing else; and more than 4 targets.

use skel_anim::MorphTargets;
use skel_gpu::{
    GpuError, MAX_MORPH_TARGETS, MORPH_COUNTS_OFFSET, MORPH_PARAMS_SIZE, create_morph,
    update_morph_weights,
};

use crate::common::{ctx, read_f32, read_u32};

fn targets(count: usize, vertices: usize, normals: bool) -> MorphTargets {
    let deltas: Vec<f32> = (0..count * vertices * 3).map(|i| i as f32 * 0.01).collect();
    MorphTargets {
        target_count: count,
        positions: deltas.clone(),
        normals: if normals { deltas } else { Vec::new() },
    }
}

#[test]
fn weight_upload_is_the_seed_16_byte_vec4_at_offset_0() {
    let Some(ctx) = ctx() else { return };
    let mut morph = create_morph(ctx, &targets(3, 5, true), 5, &[0.0; 3]).unwrap();
    assert_eq!(morph.weight_upload_len(), 16);
    // Sentinels right after the first 16 bytes: a longer write would overwrite them.
    ctx.queue.write_buffer(
        morph.params_buffer(),
        16,
        bytemuck::cast_slice(&[7.0f32; 4]),
    );
    update_morph_weights(ctx, &mut morph, &[0.25, 0.5, 0.75]).unwrap();
    let params = read_f32(ctx, morph.params_buffer(), MORPH_PARAMS_SIZE);
    assert_eq!(&params[..4], &[0.25, 0.5, 0.75, 0.0]);
    assert_eq!(&params[4..8], &[7.0; 4], "the upload wrote past 16 bytes");
    assert!(params[8..MAX_MORPH_TARGETS].iter().all(|&w| w == 0.0));
    // The counts after the weights are written once, at creation, and left alone.
    let counts = read_u32(ctx, morph.params_buffer(), MORPH_PARAMS_SIZE);
    let c = MORPH_COUNTS_OFFSET as usize / 4;
    assert_eq!(&counts[c..c + 3], &[3, 5, 3 * 5 * 3]);
}

#[test]
fn more_than_four_targets_upload_in_whole_vec4s() {
    let Some(ctx) = ctx() else { return };
    let weights: Vec<f32> = (0..9).map(|t| t as f32 / 10.0 + 0.05).collect();
    let mut morph = create_morph(ctx, &targets(9, 2, false), 2, &[0.0; 9]).unwrap();
    assert_eq!(morph.weight_upload_len(), 48);
    update_morph_weights(ctx, &mut morph, &weights).unwrap();
    let params = read_f32(ctx, morph.params_buffer(), MORPH_PARAMS_SIZE);
    assert_eq!(&params[..9], weights.as_slice());
    assert_eq!(&params[9..12], &[0.0; 3]);
    let counts = read_u32(ctx, morph.params_buffer(), MORPH_PARAMS_SIZE);
    let c = MORPH_COUNTS_OFFSET as usize / 4;
    assert_eq!(
        &counts[c..c + 3],
        &[9, 2, 0],
        "no normal deltas: normal_offset 0"
    );
    // The deltas buffer holds every target's positions.
    let deltas = read_f32(ctx, morph.deltas_buffer().unwrap(), 9 * 2 * 12);
    assert_eq!(deltas, targets(9, 2, false).positions);
}

#[test]
fn target_count_limits_are_typed_errors() {
    let Some(ctx) = ctx() else { return };
    assert_eq!(
        create_morph(ctx, &targets(0, 2, false), 2, &[]).unwrap_err(),
        GpuError::NoMorphTargets
    );
    let many = MAX_MORPH_TARGETS + 1;
    assert_eq!(
        create_morph(ctx, &targets(many, 1, false), 1, &vec![0.0; many]).unwrap_err(),
        GpuError::TooManyMorphTargets {
            got: many,
            max: MAX_MORPH_TARGETS
        }
    );
    assert!(
        create_morph(
            ctx,
            &targets(MAX_MORPH_TARGETS, 1, false),
            1,
            &vec![0.0; MAX_MORPH_TARGETS]
        )
        .is_ok()
    );
    assert!(matches!(
        create_morph(ctx, &targets(2, 3, false), 4, &[0.0; 2]),
        Err(GpuError::LengthMismatch {
            expected: 24,
            got: 18,
            ..
        })
    ));
}
