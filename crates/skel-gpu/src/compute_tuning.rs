//! How compute skinning spreads its work ([`ComputeTuning`]) and lays out its bone cache
//! ([`BoneCacheLayout`]); every choice computes the same result.

/// Invocations per workgroup, and vertices per tile (one per invocation): WebGPU's default
/// `max_compute_invocations_per_workgroup`, so the bone cache is filled by many hands.
pub const COMPUTE_WORKGROUP_SIZE: u32 = 256;

/// Bones kept in workgroup memory by skinned compute variants: 256 × 48 bytes = 12 KiB in the
/// default affine-row layout (256 × 64 = 16 KiB, WebGPU's default
/// `max_compute_workgroup_storage_size`, in the column layout); fewer on a device with less.
pub const COMPUTE_BONE_CACHE_SIZE: u32 = 256;

/// The bind group of the fragment's resources (bone texture, morph) in the compute pipeline;
/// group 0 holds the vertex buffers.
pub const COMPUTE_FRAGMENT_GROUP: u32 = 1;

/// With [`ComputeTuning::tiles_per_workgroup`] left automatic, tiles per workgroup are chosen
/// so that a dispatch has about this many workgroups (never fewer tiles than 1, never more
/// than [`COMPUTE_MAX_AUTO_TILES`]): enough to keep a large GPU busy through the last wave,
/// few enough that each workgroup's bone-cache fill is shared by several tiles.
pub const COMPUTE_AUTO_WORKGROUPS: u32 = 4096;

/// The most tiles per workgroup the automatic choice takes.
pub const COMPUTE_MAX_AUTO_TILES: u32 = 64;

/// How the workgroup bone cache stores a bone.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum BoneCacheLayout {
    /// The 3 rows of the matrix's affine part, 48 bytes (`skel_bone_cache.wgsl`): 3 reads and
    /// 12 multiply-adds per influence, and bones spread over all workgroup-memory banks.
    #[default]
    AffineRows,
    /// The full 4×4 matrix as uploaded, 64 bytes (`skel_bone_cache_columns.wgsl`): the layout
    /// skel used first, kept so benchmarks can show what the affine rows gain.
    Columns,
}

impl BoneCacheLayout {
    /// Bytes of workgroup memory per cached bone.
    #[must_use]
    pub fn bytes_per_bone(self) -> u32 {
        match self {
            Self::AffineRows => 48,
            Self::Columns => 64,
        }
    }
}

/// How the compute pipeline spreads work; every choice computes the same result (the
/// throughput example sweeps them). [`Default`] is what measured fastest on an NVIDIA H200
/// (docs/benchmarks.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ComputeTuning {
    /// The bone cache's layout.
    pub bone_cache: BoneCacheLayout,
    /// Tiles of [`COMPUTE_WORKGROUP_SIZE`] vertices each workgroup skins after filling its
    /// bone cache once; `None` chooses from the vertex count (see
    /// [`COMPUTE_AUTO_WORKGROUPS`]). Rounded up to a multiple of
    /// [`vertices_per_iteration`](Self::vertices_per_iteration).
    pub tiles_per_workgroup: Option<u32>,
    /// Vertices each invocation loads before skinning any of them, one per tile (1 to 4;
    /// values outside are clamped): more loads in flight per invocation, more registers.
    pub vertices_per_iteration: u32,
    /// Whether a zero weight skips its bone read (a branch per influence, as the CPU
    /// reference does) or is accumulated like any other (same result for finite bones).
    pub skip_zero_weights: bool,
}

impl Default for ComputeTuning {
    fn default() -> Self {
        Self {
            bone_cache: BoneCacheLayout::AffineRows,
            tiles_per_workgroup: None,
            vertices_per_iteration: 2,
            skip_zero_weights: true,
        }
    }
}

impl ComputeTuning {
    /// The tuning of skel's first compute pipeline: 4×4 columns, one tile per workgroup, one
    /// vertex per invocation, zero weights skipped (a baseline for benchmarks).
    #[must_use]
    pub fn baseline() -> Self {
        Self {
            bone_cache: BoneCacheLayout::Columns,
            tiles_per_workgroup: Some(1),
            vertices_per_iteration: 1,
            skip_zero_weights: true,
        }
    }

    /// One tuning per distinct shader shape (layout × zero-weight skipping × vertices per
    /// iteration; tiles only change a uniform), for `cargo xtask validate-shaders` and tests.
    #[must_use]
    pub fn variants() -> Vec<Self> {
        let mut all = Vec::new();
        for bone_cache in [BoneCacheLayout::AffineRows, BoneCacheLayout::Columns] {
            for skip_zero_weights in [false, true] {
                for vertices_per_iteration in 1..=4 {
                    all.push(Self {
                        bone_cache,
                        tiles_per_workgroup: None,
                        vertices_per_iteration,
                        skip_zero_weights,
                    });
                }
            }
        }
        all
    }

    /// [`vertices_per_iteration`](Self::vertices_per_iteration) clamped to 1..=4.
    #[must_use]
    pub fn vertices_per_iteration(&self) -> u32 {
        self.vertices_per_iteration.clamp(1, 4)
    }

    /// Tiles per workgroup for `vertex_count` vertices: the fixed choice, or the automatic
    /// one; a multiple of [`vertices_per_iteration`](Self::vertices_per_iteration).
    #[must_use]
    pub fn tiles_for(&self, vertex_count: u32) -> u32 {
        let tiles = self.tiles_per_workgroup.unwrap_or_else(|| {
            vertex_count
                .div_ceil(COMPUTE_WORKGROUP_SIZE)
                .div_ceil(COMPUTE_AUTO_WORKGROUPS)
                .clamp(1, COMPUTE_MAX_AUTO_TILES)
        });
        let k = self.vertices_per_iteration();
        tiles.clamp(1, u32::MAX / 2).div_ceil(k) * k
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn automatic_tiles_aim_at_a_fixed_workgroup_count() {
        let auto = ComputeTuning {
            vertices_per_iteration: 1,
            ..ComputeTuning::default()
        };
        let tile = COMPUTE_WORKGROUP_SIZE;
        // Up to COMPUTE_AUTO_WORKGROUPS tiles: one tile per workgroup.
        assert_eq!(auto.tiles_for(0), 1);
        assert_eq!(auto.tiles_for(1), 1);
        assert_eq!(auto.tiles_for(COMPUTE_AUTO_WORKGROUPS * tile), 1);
        // One vertex more: two tiles per workgroup.
        assert_eq!(auto.tiles_for(COMPUTE_AUTO_WORKGROUPS * tile + 1), 2);
        // 16.7M vertices = 65 536 tiles: 16 per workgroup.
        assert_eq!(
            auto.tiles_for(1 << 24),
            (1 << 24) / tile / COMPUTE_AUTO_WORKGROUPS
        );
        // Capped for the largest meshes.
        assert_eq!(auto.tiles_for(u32::MAX), COMPUTE_MAX_AUTO_TILES);
        // The default loads 2 vertices per iteration, so tiles come in pairs.
        assert_eq!(ComputeTuning::default().tiles_for(1), 2);
    }

    #[test]
    fn tiles_are_a_multiple_of_the_vertices_per_iteration() {
        let t = |tiles, k| ComputeTuning {
            tiles_per_workgroup: Some(tiles),
            vertices_per_iteration: k,
            ..ComputeTuning::default()
        };
        assert_eq!(t(3, 1).tiles_for(1000), 3);
        assert_eq!(t(3, 2).tiles_for(1000), 4);
        assert_eq!(t(5, 4).tiles_for(1000), 8);
        assert_eq!(t(0, 1).tiles_for(1000), 1);
        // Out-of-range vertices per iteration are clamped to 1..=4.
        assert_eq!(t(1, 9).vertices_per_iteration(), 4);
        assert_eq!(t(1, 0).vertices_per_iteration(), 1);
    }
}
