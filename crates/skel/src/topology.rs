//! glTF primitive modes turned into the three list topologies a renderer draws: strips, fans
//! and loops become lists (glTF 2.0 §3.7.2.1 defines each mode's vertex order).

use skel_gltf::PrimitiveMode;

/// What a [`Primitive`](crate::Primitive)'s indices describe after conversion.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Topology {
    /// Triangle list (from `TRIANGLES`, `TRIANGLE_STRIP`, `TRIANGLE_FAN`).
    Triangles,
    /// Line list (from `LINES`, `LINE_STRIP`, `LINE_LOOP`).
    Lines,
    /// Point list.
    Points,
}

impl Topology {
    /// The matching wgpu topology.
    #[must_use]
    pub fn to_wgpu(self) -> wgpu::PrimitiveTopology {
        match self {
            Self::Triangles => wgpu::PrimitiveTopology::TriangleList,
            Self::Lines => wgpu::PrimitiveTopology::LineList,
            Self::Points => wgpu::PrimitiveTopology::PointList,
        }
    }
}

/// The list topology of `mode`.
#[must_use]
pub fn list_topology(mode: PrimitiveMode) -> Topology {
    match mode {
        PrimitiveMode::Points => Topology::Points,
        PrimitiveMode::Lines | PrimitiveMode::LineLoop | PrimitiveMode::LineStrip => {
            Topology::Lines
        }
        PrimitiveMode::Triangles | PrimitiveMode::TriangleStrip | PrimitiveMode::TriangleFan => {
            Topology::Triangles
        }
    }
}

/// List indices for a primitive of `mode` whose vertex order is `order` (its index buffer, or
/// `0..vertex_count`). `None` when `mode` is already a list and the order can be used as is.
#[must_use]
pub fn list_indices(mode: PrimitiveMode, order: &[u32]) -> Option<Vec<u32>> {
    let n = order.len();
    match mode {
        PrimitiveMode::Points | PrimitiveMode::Lines | PrimitiveMode::Triangles => None,
        PrimitiveMode::LineStrip => Some(order.windows(2).flat_map(|w| [w[0], w[1]]).collect()),
        PrimitiveMode::LineLoop => {
            let mut out: Vec<u32> = order.windows(2).flat_map(|w| [w[0], w[1]]).collect();
            if let (Some(&first), Some(&last)) = (order.first(), order.last())
                && n > 1
            {
                out.extend([last, first]);
            }
            Some(out)
        }
        // Triangle i of a strip: (i, i+1, i+2), with the first two swapped on odd i to keep
        // the winding.
        PrimitiveMode::TriangleStrip => Some(
            (0..n.saturating_sub(2))
                .flat_map(|i| {
                    if i % 2 == 0 {
                        [order[i], order[i + 1], order[i + 2]]
                    } else {
                        [order[i + 1], order[i], order[i + 2]]
                    }
                })
                .collect(),
        ),
        PrimitiveMode::TriangleFan => Some(
            (1..n.saturating_sub(1))
                .flat_map(|i| [order[0], order[i], order[i + 1]])
                .collect(),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strips_fans_and_loops_become_lists_with_gltf_winding() {
        let order = [10, 11, 12, 13, 14];
        assert_eq!(
            list_indices(PrimitiveMode::TriangleStrip, &order),
            Some(vec![10, 11, 12, 12, 11, 13, 12, 13, 14])
        );
        assert_eq!(
            list_indices(PrimitiveMode::TriangleFan, &order),
            Some(vec![10, 11, 12, 10, 12, 13, 10, 13, 14])
        );
        assert_eq!(
            list_indices(PrimitiveMode::LineStrip, &order[..3]),
            Some(vec![10, 11, 11, 12])
        );
        assert_eq!(
            list_indices(PrimitiveMode::LineLoop, &order[..3]),
            Some(vec![10, 11, 11, 12, 12, 10])
        );
        assert_eq!(list_indices(PrimitiveMode::Triangles, &order), None);
        assert_eq!(
            list_indices(PrimitiveMode::TriangleStrip, &order[..2]),
            Some(vec![])
        );
        assert_eq!(list_topology(PrimitiveMode::LineLoop), Topology::Lines);
        assert_eq!(
            list_topology(PrimitiveMode::TriangleFan),
            Topology::Triangles
        );
    }
}
