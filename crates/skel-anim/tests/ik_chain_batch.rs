//! `ChainIk::solve_batch` against `ChainIk::solve_from_rest` job by job: random batches of
//! jobs on three random chains (so that equal lengths sit together and apart), FABRIK with
//! and without a tolerance, CCD, limits, a NaN target and a wrong corrections length mixed
//! in. The four-lane passes round differently from one chain's (which works each square out a
//! step ahead: the same passes to about 1e-6 of the chain), and ten iterations on a chain
//! near its reach can grow that (seen: 2.5e-5 apart after a pole turn); a bone's direction
//! then differs by that over its length (seen: 2e-4 at a bone of 1 % of its chain). So the
//! corrections agree to 1e-4 plus 4e-6 of the chain over its shortest bone, the distances to
//! 1e-4 of the chain, as `ik_chain.rs` holds both to the f64 reference, and the iterations
//! are the same; every other job is what it gives alone.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

mod ik_chain_support;

use glam::{Quat, Vec3};
use ik_chain_support::{chain, models_f32, target};
use proptest::prelude::*;
use skel_anim::AnimError;
use skel_anim::ik::{ChainIk, ChainJob, ChainSolution, ChainSolver, JointLimit};

/// What a job is: 0–3 FABRIK (1 with a loose tolerance, 2 with a pole, 3 few iterations),
/// 4 CCD, 5 FABRIK with cone limits, 6 a NaN target, 7 a corrections slice one too short.
type Kind = u8;

fn job_ik(kind: Kind, target: Vec3, pole: Vec3) -> ChainIk {
    let base = ChainIk {
        target,
        iterations: 10,
        tolerance: 0.0,
        ..ChainIk::default()
    };
    match kind {
        1 => ChainIk {
            tolerance: 1e-3,
            iterations: 30,
            ..base
        },
        2 => ChainIk {
            pole: Some(pole),
            ..base
        },
        3 => ChainIk {
            iterations: 2,
            weight: 0.6,
            ..base
        },
        4 => ChainIk {
            solver: ChainSolver::Ccd,
            ..base
        },
        6 => ChainIk {
            target: Vec3::NAN,
            ..base
        },
        _ => base,
    }
}

fn same_rotation(a: Quat, b: Quat, tol: f32) -> bool {
    (a - b).length().min((a + b).length()) <= tol
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    #[test]
    fn a_batch_solves_each_job_as_it_is_solved_alone(
        chains in prop::array::uniform3(chain()),
        jobs in prop::collection::vec(
            (0usize..3, prop::array::uniform3(-1.0..1.0f64), 0.2..1.2f64,
             prop::array::uniform3(-1.0..1.0f32), 0u8..8),
            1..14,
        ),
    ) {
        let models: Vec<_> = chains.iter().map(models_f32).collect();
        let cone = JointLimit::cone(Vec3::Y, 0.8, 0.4);
        let limits: Vec<Vec<JointLimit>> = chains.iter().map(|c| vec![cone; c.n]).collect();
        let spec: Vec<(usize, ChainIk, Kind)> = jobs
            .iter()
            .map(|&(c, dir, reach, pole, kind)| {
                (c, job_ik(kind, target(&chains[c], dir, reach), Vec3::from_array(pole)), kind)
            })
            .collect();
        // Alone.
        let mut alone_out: Vec<Vec<Quat>> = Vec::new();
        let mut alone: Vec<Result<ChainSolution, AnimError>> = Vec::new();
        for &(c, ik, kind) in &spec {
            let n = chains[c].n - usize::from(kind == 7);
            let mut out = vec![Quat::IDENTITY; n];
            let lim: &[JointLimit] = if kind == 5 { &limits[c] } else { &[] };
            alone.push(ik.solve_from_rest(&models[c], lim, &[], &mut out));
            alone_out.push(out);
        }
        // Together.
        let mut batch_out: Vec<Vec<Quat>> =
            alone_out.iter().map(|o| vec![Quat::IDENTITY; o.len()]).collect();
        let mut batch: Vec<ChainJob> = spec
            .iter()
            .zip(&mut batch_out)
            .map(|(&(c, ik, kind), out)| ChainJob {
                ik,
                models: &models[c],
                limits: if kind == 5 { &limits[c] } else { &[] },
                from_rest: &[],
                corrections: out,
            })
            .collect();
        let mut together: Vec<Result<ChainSolution, AnimError>> =
            (0..batch.len()).map(|_| Ok(ChainSolution::default())).collect();
        ChainIk::solve_batch(&mut batch, &mut together).unwrap();
        drop(batch);
        for (j, (a, b)) in alone.iter().zip(&together).enumerate() {
            match (a, b) {
                (Ok(a), Ok(b)) => {
                    let size = chains[spec[j].0].total() as f32;
                    // A tip that lands within its tolerance (exactly, for a tolerance of 0)
                    // stops the iterations, and rounding picks which iteration lands: then
                    // both must have landed (to f32 rounding), and the rotations may differ
                    // by the tolerance. Under a weight below 1 the distance is the weighted
                    // tip's: both landed, so both weighted tips are as far from the target.
                    if a.iterations != b.iterations {
                        let landed = spec[j].1.tolerance + 2e-5 * size;
                        let both = if spec[j].1.weight < 1.0 {
                            (a.distance - b.distance).abs() <= landed
                        } else {
                            a.distance <= landed && b.distance <= landed
                        };
                        prop_assert!(both, "job {} kind {}: {:?} against {:?}", j, spec[j].2, a, b);
                        continue;
                    }
                    prop_assert!((a.distance - b.distance).abs() <= 1e-4 * size,
                        "job {}: distance {} against {}", j, a.distance, b.distance);
                    let shortest = chains[spec[j].0].lengths.iter().copied().fold(f64::INFINITY, f64::min);
                    // The two paths round in other orders (the four-lane steps against one
                    // chain's squares a step ahead): their joints part by rounding of the
                    // chain's size, which turns a bone by that over its length. An 8-joint chain
                    // with bones from 2.4 to 0.053 (a regression case) parted by 1e-5 of its
                    // size on the shortest.
                    let turn = 1e-4 + 1.2e-5 * size / shortest as f32;
                    for (i, (qa, qb)) in alone_out[j].iter().zip(&batch_out[j]).enumerate() {
                        prop_assert!(same_rotation(*qa, *qb, turn),
                            "job {} joint {}: {:?} against {:?}", j, i, qa, qb);
                    }
                }
                (Err(a), Err(b)) => {
                    prop_assert_eq!(a.to_string(), b.to_string());
                    prop_assert!(batch_out[j].iter().all(|q| *q == Quat::IDENTITY),
                        "job {}: an error leaves the corrections", j);
                }
                _ => prop_assert!(false, "job {}: {:?} against {:?}", j, a, b),
            }
        }
    }
}

#[test]
fn solutions_of_another_length_are_refused() {
    let mut jobs: [ChainJob; 0] = [];
    let mut solutions = [Ok(ChainSolution::default())];
    assert!(matches!(
        ChainIk::solve_batch(&mut jobs, &mut solutions),
        Err(AnimError::LengthMismatch { .. })
    ));
}
