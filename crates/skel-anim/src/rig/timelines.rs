//! Key-time arrays shared by samplers, found once per clip at build time.
//!
//! glTF exporters write one input accessor per clip or per joint and point every channel of it
//! there (CesiumMan: 57 channels, one key-time array; Fox: 21 channels, one array). A loader
//! hands each sampler its own copy, so the plan built for a clip compares them once, by
//! contents, and every channel with the same times shares one
//! [`TimeCursor`](crate::sample::cursor::TimeCursor): one key search per array per frame
//! instead of one per channel.

use crate::Clip;

/// The distinct key-time arrays of one clip: `of_sampler[s]` is the timeline of sampler `s`,
/// `representative[i]` a sampler whose input is timeline `i`.
#[derive(Debug, Clone, Default)]
pub(crate) struct Timelines {
    pub(crate) of_sampler: Vec<u32>,
    pub(crate) representative: Vec<u32>,
}

impl Timelines {
    /// Groups the samplers of `clip` by identical key times (bit for bit). STEP samplers are
    /// grouped with linear ones of the same times: the segment is the same, only how it is
    /// used differs. CUBICSPLINE samplers are grouped too (their evaluation keeps its own
    /// cursor; the timeline is simply unused for them).
    pub(crate) fn new(clip: &Clip) -> Self {
        let mut of_sampler = Vec::with_capacity(clip.samplers.len());
        let mut representative: Vec<u32> = Vec::new();
        // Buckets by (length, first, last) keep the comparison count small on big clips.
        let mut buckets: std::collections::HashMap<(usize, u32, u32), Vec<u32>> =
            std::collections::HashMap::new();
        for (si, sampler) in clip.samplers.iter().enumerate() {
            let input = sampler.input();
            let key = (
                input.len(),
                input[0].to_bits(),
                input[input.len() - 1].to_bits(),
            );
            let bucket = buckets.entry(key).or_default();
            let found = bucket.iter().copied().find(|&tl| {
                let other = clip.samplers[representative[tl as usize] as usize].input();
                other.len() == input.len()
                    && other
                        .iter()
                        .zip(input)
                        .all(|(x, y)| x.to_bits() == y.to_bits())
            });
            let tl = found.unwrap_or_else(|| {
                #[expect(
                    clippy::cast_possible_truncation,
                    reason = "sampler counts fit u32 (checked at plan build)"
                )]
                let id = representative.len() as u32;
                #[expect(
                    clippy::cast_possible_truncation,
                    reason = "sampler counts fit u32 (checked at plan build)"
                )]
                representative.push(si as u32);
                bucket.push(id);
                id
            });
            of_sampler.push(tl);
        }
        Self {
            of_sampler,
            representative,
        }
    }

    /// Number of distinct key-time arrays.
    pub(crate) fn len(&self) -> usize {
        self.representative.len()
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, reason = "tests")]

    use super::*;
    use crate::{Channel, ChannelPath, Interpolation, Sampler};

    #[test]
    fn samplers_with_equal_times_share_a_timeline() {
        let s = |times: Vec<f32>| {
            let n = times.len();
            Sampler::new(times, vec![0.0; n * 3], Interpolation::Linear).unwrap()
        };
        let samplers = vec![
            s(vec![0.0, 1.0, 2.0]),
            s(vec![0.0, 1.5, 2.0]),
            s(vec![0.0, 1.0, 2.0]),
            s(vec![0.0, 2.0]),
            s(vec![0.0, 1.5, 2.0]),
        ];
        let channels = (0..5)
            .map(|i| Channel {
                sampler: i,
                node: i,
                path: ChannelPath::Translation,
            })
            .collect();
        let t = Timelines::new(&Clip::new("c", samplers, channels));
        assert_eq!(t.of_sampler, vec![0, 1, 0, 2, 1]);
        assert_eq!(t.representative, vec![0, 1, 3]);
        assert_eq!(t.len(), 3);
    }
}
