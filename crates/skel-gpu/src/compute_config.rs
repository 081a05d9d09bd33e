//! [`ComputeSkinningConfig`]: what a compute skinning pipeline reads and writes, and the WGSL
//! generated for it.

use crate::shader::{fill, sources};
use crate::{
    BoneCacheLayout, COMPUTE_BONE_CACHE_SIZE, COMPUTE_FRAGMENT_GROUP, COMPUTE_WORKGROUP_SIZE,
    ComputeTuning, FragmentBindings, Influences, JointFormat, ShaderFragment, SkinningVariant,
    WeightFormat,
};

/// What a [`ComputeSkinning`](crate::ComputeSkinning) pipeline reads and writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ComputeSkinningConfig {
    /// Influences and morph targets.
    pub variant: SkinningVariant,
    /// Whether normals are skinned too (rest normals in, skinned normals out).
    pub normals: bool,
    /// Joint storage format.
    pub joint_format: JointFormat,
    /// Weight storage format.
    pub weight_format: WeightFormat,
}

impl Default for ComputeSkinningConfig {
    /// 4 influences, no morph, with normals, the skeleton's own `u32`/`f32` buffers.
    fn default() -> Self {
        Self {
            variant: SkinningVariant::default(),
            normals: true,
            joint_format: JointFormat::U32,
            weight_format: WeightFormat::F32,
        }
    }
}

impl ComputeSkinningConfig {
    /// Storage buffers bound in the compute stage: positions in/out, normals in/out, a joints
    /// and a weights buffer per set, morph deltas.
    #[must_use]
    pub fn storage_buffer_count(&self) -> u32 {
        2 + 2 * u32::from(self.normals)
            + 2 * self.variant.influences.sets()
            + u32::from(self.variant.morph)
    }

    /// Bytes read and written per vertex from vertex buffers (excluding bone and morph
    /// fetches, which mostly hit caches): the figure throughput is judged against.
    #[must_use]
    pub fn bytes_per_vertex(&self) -> u64 {
        let streams = if self.normals { 4 } else { 2 };
        let sets = u64::from(self.variant.influences.sets());
        streams * 12
            + sets * (self.joint_format.bytes_per_vertex() + self.weight_format.bytes_per_vertex())
    }

    /// The full WGSL of the pipeline: the fragment (group 1) followed by the compute template,
    /// with a [`COMPUTE_BONE_CACHE_SIZE`]-bone workgroup cache and the default
    /// [`ComputeTuning`].
    #[must_use]
    pub fn wgsl(&self) -> String {
        self.wgsl_with_cache(COMPUTE_BONE_CACHE_SIZE)
    }

    /// [`wgsl`](Self::wgsl) with a bone cache of `cache_size` bones (at least 1).
    #[must_use]
    pub fn wgsl_with_cache(&self, cache_size: u32) -> String {
        self.wgsl_tuned(&ComputeTuning::default(), cache_size)
    }

    /// The WGSL for `tuning`, with a bone cache of `cache_size` bones (at least 1).
    #[must_use]
    pub fn wgsl_tuned(&self, tuning: &ComputeTuning, cache_size: u32) -> String {
        let skinned = self.variant.influences != Influences::None;
        let fragment = ShaderFragment::generate(
            self.variant,
            FragmentBindings {
                group: COMPUTE_FRAGMENT_GROUP,
                first_binding: 0,
                first_location: 0,
            },
            !skinned,
            crate::MorphDeltaStorage::Buffer,
        );
        let cache_size = cache_size.max(1).to_string();
        let (bone_cache, bone_cache_load) = if skinned {
            let cache = match tuning.bone_cache {
                BoneCacheLayout::AffineRows => sources::BONE_CACHE,
                BoneCacheLayout::Columns => sources::BONE_CACHE_COLUMNS,
            };
            let skip = if tuning.skip_zero_weights {
                "if (weight == 0.0) {\n        return m;\n    }"
            } else {
                ""
            };
            (
                format!(
                    "{}\n{}",
                    fill(cache, &[("BONE_CACHE_SIZE", cache_size.clone())]),
                    fill(
                        sources::COMPUTE_AFFINE,
                        &[("SKIP_ZERO_WEIGHT", skip.to_owned())]
                    )
                ),
                "skel_fill_bone_cache(lane);".to_owned(),
            )
        } else {
            (String::new(), String::new())
        };
        let normal_bindings = if self.normals {
            "@group(0) @binding(3) var<storage, read> skel_rest_normals: array<f32>;\n\
             @group(0) @binding(4) var<storage, read_write> skel_out_normals: array<f32>;\n\
             fn skel_load_normal(v: u32) -> vec3<f32> {\n    \
             return vec3<f32>(skel_rest_normals[v * 3u], skel_rest_normals[v * 3u + 1u], skel_rest_normals[v * 3u + 2u]);\n}\n\
             fn skel_store_normal(v: u32, n: vec3<f32>) {\n    \
             skel_out_normals[v * 3u] = n.x;\n    skel_out_normals[v * 3u + 1u] = n.y;\n    skel_out_normals[v * 3u + 2u] = n.z;\n}"
                .to_owned()
        } else {
            "fn skel_load_normal(v: u32) -> vec3<f32> {\n    return vec3<f32>(0.0);\n}\n\
             fn skel_store_normal(v: u32, n: vec3<f32>) {}"
                .to_owned()
        };
        let mut influence_bindings = String::new();
        let mut input_fields = String::new();
        let mut input_loads = String::new();
        let mut skin_sets = String::new();
        for set in 0..self.variant.influences.sets() {
            let (jb, wb) = (5 + 2 * set, 6 + 2 * set);
            let (jt, wt) = (
                self.joint_format.wgsl_element(),
                self.weight_format.wgsl_element(),
            );
            let (jn, wn) = (format!("skel_joints{set}"), format!("skel_weights{set}"));
            influence_bindings.push_str(&format!(
                "@group(0) @binding({jb}) var<storage, read> {jn}: array<{jt}>;\n\
                 @group(0) @binding({wb}) var<storage, read> {wn}: array<{wt}>;\n\
                 fn skel_load_joints{set}(v: u32) -> vec4<u32> {{\n    {}\n}}\n\
                 fn skel_load_weights{set}(v: u32) -> vec4<f32> {{\n    {}\n}}\n",
                self.joint_format.wgsl_unpack(&jn),
                self.weight_format.wgsl_unpack(&wn),
            ));
            input_fields.push_str(&format!(
                "    joints{set}: vec4<u32>,\n    weights{set}: vec4<f32>,\n"
            ));
            input_loads.push_str(&format!(
                ", skel_load_joints{set}(v), skel_load_weights{set}(v)"
            ));
            skin_sets.push_str(&format!(
                "    m = skel_add_affine_set(m, input.joints{set}, input.weights{set});\n"
            ));
        }
        let skin_input = if skinned {
            format!(
                "fn skel_skin_input(v: u32, input: SkelComputeInput) -> SkelVertex {{\n    \
                 var m = SKEL_ZERO_AFFINE;\n{skin_sets}    \
                 return skel_apply_affine(m, skel_morph(v, input.position, input.normal));\n}}"
            )
        } else {
            "fn skel_skin_input(v: u32, input: SkelComputeInput) -> SkelVertex {\n    \
             return skel_skin(v, input.position, input.normal);\n}"
                .to_owned()
        };
        let per_iteration = tuning.vertices_per_iteration();
        let mut iteration = String::new();
        for k in 1..per_iteration {
            iteration.push_str(&format!(
                "        let v{k} = v0 + {k}u * SKEL_WORKGROUP_SIZE;\n        \
                 let at{k} = min(v{k}, last);\n"
            ));
        }
        iteration.push_str("        let input0 = skel_load_input(v0);\n");
        for k in 1..per_iteration {
            iteration.push_str(&format!("        let input{k} = skel_load_input(at{k});\n"));
        }
        iteration.push_str("        let skinned0 = skel_skin_input(v0, input0);\n");
        for k in 1..per_iteration {
            iteration.push_str(&format!(
                "        let skinned{k} = skel_skin_input(at{k}, input{k});\n"
            ));
        }
        iteration.push_str("        skel_store(v0, skinned0);\n");
        for k in 1..per_iteration {
            iteration.push_str(&format!(
                "        if (v{k} < count) {{\n            skel_store(v{k}, skinned{k});\n        }}\n"
            ));
        }
        let compute = fill(
            sources::COMPUTE,
            &[
                ("FRAGMENT_GROUP", COMPUTE_FRAGMENT_GROUP.to_string()),
                ("NORMAL_BINDINGS", normal_bindings),
                ("INFLUENCE_BINDINGS", influence_bindings),
                ("INPUT_FIELDS", input_fields),
                ("INPUT_LOADS", input_loads),
                ("SKIN_INPUT", skin_input),
                ("ITERATION", iteration),
                ("WORKGROUP_SIZE", COMPUTE_WORKGROUP_SIZE.to_string()),
                ("VERTICES_PER_ITERATION", per_iteration.to_string()),
                ("BONE_CACHE", bone_cache),
                ("BONE_CACHE_LOAD", bone_cache_load),
            ],
        );
        format!("{}\n{compute}", fragment.source())
    }

    /// Every combination this crate can generate (for `cargo xtask validate-shaders`).
    #[must_use]
    pub fn all() -> Vec<Self> {
        let mut all = Vec::new();
        for variant in SkinningVariant::all() {
            for normals in [false, true] {
                for joint_format in [JointFormat::U8, JointFormat::U16, JointFormat::U32] {
                    for weight_format in [
                        WeightFormat::Unorm8,
                        WeightFormat::Unorm16,
                        WeightFormat::F32,
                    ] {
                        all.push(Self {
                            variant,
                            normals,
                            joint_format,
                            weight_format,
                        });
                    }
                }
            }
        }
        all
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_tuning_shape_generates_its_own_shader() {
        let config = ComputeSkinningConfig::default();
        let sources: std::collections::HashSet<String> = ComputeTuning::variants()
            .iter()
            .map(|t| config.wgsl_tuned(t, COMPUTE_BONE_CACHE_SIZE))
            .collect();
        assert_eq!(sources.len(), ComputeTuning::variants().len());
        assert!(config.wgsl().contains("array<mat3x4<f32>, 256>"));
    }
}
