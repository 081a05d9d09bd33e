//! The JavaScript exports (wasm32 only): `SkelAsset`, `SkelGraph` and `SkelPlayer`, thin
//! wrappers over [`Asset`], [`CompiledGraph`] and [`Animator`]. Errors become JavaScript `Error`s carrying
//! [`JsApiError`]'s message; the pose comes out as `Float32Array` views over the module's
//! memory, made here with safe calls (`wasm_bindgen::memory()` and a byte offset), never copied.

use js_sys::{Array, ArrayBuffer, Float32Array, Map, Object, Uint8Array, WebAssembly};
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;

use skel_anim::glam::Vec3;

use crate::{Animator, Asset, CompiledGraph, FileMap, Handedness, JsApiError};

fn js_error(e: JsApiError) -> JsError {
    JsError::new(&e.to_string())
}

fn handedness(left_handed: Option<bool>) -> Handedness {
    if left_handed == Some(true) {
        Handedness::LeftHanded
    } else {
        Handedness::RightHanded
    }
}

/// A `.gltf`'s sibling files from a `Map` or a plain object whose keys are URIs and whose
/// values are `Uint8Array`s or `ArrayBuffer`s (`undefined` or `null`: none).
fn file_map(files: &JsValue) -> Result<FileMap, JsApiError> {
    let mut map = FileMap::new();
    if files.is_undefined() || files.is_null() {
        return Ok(map);
    }
    let pairs = if let Some(m) = files.dyn_ref::<Map>() {
        Array::from(&m.entries())
    } else if let Some(o) = files.dyn_ref::<Object>() {
        Object::entries(o)
    } else {
        return Err(JsApiError::NotAFileMap);
    };
    for pair in pairs.iter() {
        let pair: Array = pair.dyn_into().map_err(|_| JsApiError::NotAFileMap)?;
        let uri = pair.get(0).as_string().ok_or(JsApiError::NotAFileMap)?;
        let value = pair.get(1);
        let bytes = if let Some(a) = value.dyn_ref::<Uint8Array>() {
            a.to_vec()
        } else if let Some(b) = value.dyn_ref::<ArrayBuffer>() {
            Uint8Array::new(b).to_vec()
        } else {
            return Err(JsApiError::FileNotBytes { uri });
        };
        map.insert(&uri, bytes);
    }
    Ok(map)
}

/// A view of `values` in the module's memory. It stays valid until the memory grows (any
/// allocation may grow it: loading an asset, making a player); the buffer it views is then
/// detached and the view's `length` reads 0, so the caller asks again.
fn view(values: &[f32]) -> Float32Array {
    let memory: WebAssembly::Memory = wasm_bindgen::memory().unchecked_into();
    let offset = values.as_ptr() as usize;
    #[expect(
        clippy::cast_possible_truncation,
        reason = "wasm32 addresses and lengths are 32-bit"
    )]
    Float32Array::new_with_byte_offset_and_length(
        &memory.buffer(),
        offset as u32,
        values.len() as u32,
    )
}

#[expect(
    clippy::cast_possible_truncation,
    reason = "wasm32 indices are 32-bit (usize is u32 there)"
)]
fn to_u32(n: usize) -> u32 {
    n as u32
}

/// A glTF character read from bytes: its clips, nodes, skins and morph bindings.
#[wasm_bindgen]
#[derive(Debug)]
pub struct SkelAsset {
    inner: Asset,
}

#[wasm_bindgen]
impl SkelAsset {
    /// Reads a `.glb` (or a `.gltf` with embedded buffers). Node transforms stay in glTF's
    /// right-handed space unless `leftHanded` is true (skel's and the seed's mirrored space).
    /// Throws an `Error` saying what is wrong with a bad file.
    #[wasm_bindgen(js_name = fromBytes)]
    pub fn from_bytes(bytes: &[u8], left_handed: Option<bool>) -> Result<SkelAsset, JsError> {
        Asset::from_bytes(bytes, handedness(left_handed))
            .map(|inner| Self { inner })
            .map_err(js_error)
    }

    /// Reads a `.gltf` (or `.glb`) whose external buffers are given in `files`: a `Map` or an
    /// object from each buffer's URI, as the JSON writes it, to its bytes (`Uint8Array` or
    /// `ArrayBuffer`). Throws an `Error` naming the URI of a buffer that is not there.
    #[wasm_bindgen(js_name = fromGltf)]
    pub fn from_gltf(
        bytes: &[u8],
        #[wasm_bindgen(
            unchecked_param_type = "Map<string, Uint8Array | ArrayBuffer> | Record<string, Uint8Array | ArrayBuffer>"
        )]
        files: &JsValue,
        left_handed: Option<bool>,
    ) -> Result<SkelAsset, JsError> {
        let files = file_map(files).map_err(js_error)?;
        Asset::from_gltf(bytes, files, handedness(left_handed))
            .map(|inner| Self { inner })
            .map_err(js_error)
    }

    /// Every clip's name, in the file's order (the clip index is the place in this list).
    #[wasm_bindgen(getter, js_name = clipNames)]
    pub fn clip_names(&self) -> Vec<String> {
        self.inner.clip_names()
    }

    /// The index of the clip called `name`; throws when there is none.
    #[wasm_bindgen(js_name = clipIndex)]
    pub fn clip_index(&self, name: &str) -> Result<u32, JsError> {
        self.inner.clip_named(name).map(to_u32).map_err(js_error)
    }

    /// Clip `clip`'s length in seconds; throws for an index past the end.
    #[wasm_bindgen(js_name = clipDuration)]
    pub fn clip_duration(&self, clip: u32) -> Result<f32, JsError> {
        self.inner.clip_duration(clip as usize).map_err(js_error)
    }

    /// How many nodes the asset has (`SkelPlayer.worldMatrices()` holds 16 floats per node).
    #[wasm_bindgen(getter, js_name = nodeCount)]
    pub fn node_count(&self) -> u32 {
        to_u32(self.inner.node_count())
    }

    /// Node `node`'s parent, `undefined` for a root.
    #[wasm_bindgen(js_name = nodeParent)]
    pub fn node_parent(&self, node: u32) -> Option<u32> {
        self.inner.node_parent(node as usize).map(to_u32)
    }

    /// How many skinned mesh nodes (skeleton bindings) the asset has.
    #[wasm_bindgen(getter, js_name = skeletonCount)]
    pub fn skeleton_count(&self) -> u32 {
        to_u32(self.inner.skeleton_count())
    }

    /// The joint nodes of skeleton binding `binding`, in the skin's joint order.
    #[wasm_bindgen(js_name = skeletonJoints)]
    pub fn skeleton_joints(&self, binding: u32) -> Result<Vec<u32>, JsError> {
        self.inner
            .skeleton_joints(binding as usize)
            .map(|joints| joints.iter().copied().map(to_u32).collect())
            .map_err(js_error)
    }

    /// The node holding skeleton binding `binding`'s mesh.
    #[wasm_bindgen(js_name = skeletonMeshNode)]
    pub fn skeleton_mesh_node(&self, binding: u32) -> Result<u32, JsError> {
        self.inner
            .skeleton_mesh_node(binding as usize)
            .map(to_u32)
            .map_err(js_error)
    }

    /// How many morph bindings (morphed mesh primitives) the asset has.
    #[wasm_bindgen(getter, js_name = morphBindingCount)]
    pub fn morph_binding_count(&self) -> u32 {
        to_u32(self.inner.morph_binding_count())
    }

    /// The node holding morph binding `binding`'s mesh.
    #[wasm_bindgen(js_name = morphBindingNode)]
    pub fn morph_binding_node(&self, binding: u32) -> Result<u32, JsError> {
        self.inner
            .morph_binding_node(binding as usize)
            .map(to_u32)
            .map_err(js_error)
    }

    /// A new character over this asset, at rest. Allocates: make players at setup, and get
    /// views from them afterwards.
    #[wasm_bindgen(js_name = createPlayer)]
    pub fn create_player(&self) -> SkelPlayer {
        SkelPlayer {
            inner: self.inner.animator(),
        }
    }

    /// Compiles an animation graph file (skel's graph JSON: parameters, state machines,
    /// blend spaces, pose operations) against this asset's clips and joints, once for every
    /// character it drives. Throws an `Error` naming the JSON path of what is wrong.
    #[wasm_bindgen(js_name = compileGraph)]
    pub fn compile_graph(&self, json: &str) -> Result<SkelGraph, JsError> {
        self.inner
            .compile_graph(json)
            .map(|inner| SkelGraph { inner })
            .map_err(js_error)
    }
}

/// An animation graph compiled against an asset: make a player per character from it.
#[wasm_bindgen]
#[derive(Debug)]
pub struct SkelGraph {
    inner: CompiledGraph,
}

#[wasm_bindgen]
impl SkelGraph {
    /// A new character this graph drives, at its entry states: set its parameters, `tick`,
    /// read the pose as from any player. Throws when the player refuses one of the graph's
    /// layers or operations.
    #[wasm_bindgen(js_name = createPlayer)]
    pub fn create_player(&self) -> Result<SkelPlayer, JsError> {
        self.inner
            .animator()
            .map(|inner| SkelPlayer { inner })
            .map_err(js_error)
    }

    /// The parameters' names, in the file's order.
    #[wasm_bindgen(getter, js_name = parameterNames)]
    pub fn parameter_names(&self) -> Vec<String> {
        self.inner
            .parameters()
            .into_iter()
            .map(|(n, _)| n)
            .collect()
    }

    /// The parameters' kinds (`"float"`, `"int"`, `"bool"`, `"trigger"` or `"vec3"`), in the
    /// order of `parameterNames`.
    #[wasm_bindgen(getter, js_name = parameterKinds)]
    pub fn parameter_kinds(&self) -> Vec<String> {
        self.inner
            .parameters()
            .into_iter()
            .map(|(_, k)| k)
            .collect()
    }
}

/// One character's playback: play a clip, `tick(dt)` in seconds, read the pose through views.
#[wasm_bindgen]
#[derive(Debug)]
pub struct SkelPlayer {
    inner: Animator,
}

#[wasm_bindgen]
impl SkelPlayer {
    /// Plays clip `clip` alone from its start, looping unless `looping` is false; throws for
    /// an index past the end, or on a player a graph drives. The pose changes at the next
    /// `tick`.
    pub fn play(&mut self, clip: u32, looping: Option<bool>) -> Result<(), JsError> {
        self.inner
            .play(clip as usize, looping != Some(false))
            .map_err(js_error)
    }

    /// `play` by the clip's name; throws when no clip has it.
    #[wasm_bindgen(js_name = playNamed)]
    pub fn play_named(&mut self, name: &str, looping: Option<bool>) -> Result<(), JsError> {
        if self.inner.graph().is_some() {
            return Err(js_error(JsApiError::GraphDriven));
        }
        let clip = self.inner.player().rig().clip_index(name).ok_or_else(|| {
            js_error(JsApiError::NoClipNamed {
                name: name.to_owned(),
                names: self
                    .inner
                    .player()
                    .data()
                    .clips
                    .iter()
                    .map(|c| c.name.clone())
                    .collect(),
            })
        })?;
        self.inner
            .play(clip, looping != Some(false))
            .map_err(js_error)
    }

    /// Back to the rest pose at the next `tick`; throws for a player a graph drives.
    pub fn stop(&mut self) -> Result<(), JsError> {
        self.inner.stop().map_err(js_error)
    }

    /// Moves the playhead to `time` seconds; the pose follows at the next `tick` (`tick(0)`
    /// for now).
    pub fn seek(&mut self, time: f32) {
        self.inner.seek(time);
    }

    /// Advances by `dt` seconds and poses: every view of this player holds the new pose.
    /// Allocates nothing, so views taken before stay valid.
    pub fn tick(&mut self, dt: f32) {
        self.inner.tick(dt);
    }

    /// Sets float parameter `name` of the graph driving this player. Throws for a player
    /// that plays clips, a name the graph does not have, or a parameter of another kind
    /// (as every parameter setter does); the next `tick` takes the transitions it allows.
    #[wasm_bindgen(js_name = setFloat)]
    pub fn set_float(&mut self, name: &str, value: f32) -> Result<(), JsError> {
        self.inner.set_float(name, value).map_err(js_error)
    }

    /// Sets integer parameter `name`.
    #[wasm_bindgen(js_name = setInt)]
    pub fn set_int(&mut self, name: &str, value: i32) -> Result<(), JsError> {
        self.inner.set_int(name, value).map_err(js_error)
    }

    /// Sets boolean parameter `name`.
    #[wasm_bindgen(js_name = setBool)]
    pub fn set_bool(&mut self, name: &str, value: bool) -> Result<(), JsError> {
        self.inner.set_bool(name, value).map_err(js_error)
    }

    /// Sets trigger `name` (consumed by the transition it fires).
    #[wasm_bindgen(js_name = setTrigger)]
    pub fn set_trigger(&mut self, name: &str) -> Result<(), JsError> {
        self.inner.set_trigger(name).map_err(js_error)
    }

    /// Sets vec3 parameter `name` (an IK or look-at target, in the character's space).
    #[wasm_bindgen(js_name = setVec3)]
    pub fn set_vec3(&mut self, name: &str, x: f32, y: f32, z: f32) -> Result<(), JsError> {
        self.inner
            .set_vec3(name, Vec3::new(x, y, z))
            .map_err(js_error)
    }

    /// The current state of graph layer `layer` (default 0); `undefined` for a player that
    /// plays clips or a layer the graph does not have.
    pub fn state(&self, layer: Option<u32>) -> Option<String> {
        self.inner
            .state(layer.unwrap_or(0) as usize)
            .map(str::to_owned)
    }

    /// Skinning matrices of skeleton binding `binding` (16 floats per joint, column-major:
    /// `inverse(meshWorld) · jointWorld · inverseBind`), a view over wasm memory updated in
    /// place by every `tick`. Invalid (length 0) once wasm memory grows: get it again then.
    #[wasm_bindgen(js_name = boneMatrices)]
    pub fn bone_matrices(&self, binding: u32) -> Result<Float32Array, JsError> {
        self.inner
            .bone_matrices(binding as usize)
            .map(view)
            .map_err(js_error)
    }

    /// Every node's world matrix (16 floats per node, glTF node order, column-major), a view
    /// over wasm memory updated in place by every `tick`; length 0 once memory grew.
    #[wasm_bindgen(js_name = worldMatrices)]
    pub fn world_matrices(&self) -> Float32Array {
        view(self.inner.world_matrices())
    }

    /// Every node's local transform (12 floats per node, glTF node order: translation xyz,
    /// rotation quaternion xyzw, scale xyz, two unused), a view over wasm memory updated in
    /// place by every `tick`; length 0 once memory grew.
    #[wasm_bindgen(js_name = localTransforms)]
    pub fn local_transforms(&self) -> Float32Array {
        view(self.inner.local_transforms())
    }

    /// Morph weights of morph binding `binding` (one per target), a view over wasm memory
    /// updated in place by every `tick`; length 0 once memory grew.
    #[wasm_bindgen(js_name = morphWeights)]
    pub fn morph_weights(&self, binding: u32) -> Result<Float32Array, JsError> {
        self.inner
            .morph_weights(binding as usize)
            .map(view)
            .map_err(js_error)
    }
}
