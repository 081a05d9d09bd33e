//! What the format refuses that a file could say: written from a real compressed plan, then
//! the plan changed where bytes could be corrupt.

#![allow(clippy::unwrap_used, reason = "tests")]

use std::sync::Arc;

use crate::compile::test_chain::chain;
use crate::sample::packed::Width;
use crate::{AnimError, Compression, KeyFormat, Rig, RigOptions};

fn compressed() -> Arc<Rig> {
    let options = RigOptions {
        compression: Some(Compression {
            bound: 1e-3,
            keys: KeyFormat::Variable,
            ..Compression::default()
        }),
        ..RigOptions::default()
    };
    Rig::with_options(Arc::new(chain()), &options).unwrap()
}

/// A keyed rotation whose decoded keys are far from unit length (a clip minimum of 10²⁰,
/// written consistently with its segments' decoding) is refused when attached.
#[test]
fn a_rotation_far_from_unit_length_is_refused() {
    let rig = compressed();
    let mut plan = rig.plan.clips[0].quads.clone().unwrap();
    let packed = plan.packed.as_mut().unwrap();
    let g = packed.quads[0][2];
    assert_eq!(
        g.width,
        Width::Lanes,
        "the chain's rotations are bit-packed"
    );
    let group = packed.lanes.groups[g.first as usize];
    let lane = (0..4).find(|&l| !group.held.test(l)).unwrap();
    packed.lanes.clip_ranges[g.first as usize].min[0][lane] = 1e20;
    let first = group.first_segment as usize;
    for s in first..first + super::layout::segment_count(9, group.shift) {
        packed.lanes.segments[s].low[0][lane] = 1e20;
    }
    let report = rig.clip_compression(0).copied().unwrap();
    let keys = super::store(0, &plan, &report, &rig.data.nodes).unwrap();
    let mut data = (*rig.data).clone();
    let e = data.attach_stored_keys(0, keys).unwrap_err();
    assert!(
        matches!(&e, AnimError::BadStoredKeys { reason, .. } if reason.contains("unit length")),
        "{e}"
    );
    assert_eq!(data, *rig.data);
}
