// Types of skel-anim's entry module (index.js); the classes' types are wasm-bindgen's.
import type { InitInput } from "./skel_js.js";
import { SkelAsset, SkelGraph, SkelPlayer } from "./skel_js.js";

export { SkelAsset, SkelGraph, SkelPlayer };

/**
 * Instantiates the WebAssembly module once; later calls return the same promise. Without an
 * argument it fetches `skel_js_bg.wasm` beside the entry module.
 */
export function initSkel(wasm?: InitInput | Promise<InitInput>): Promise<void>;

/** A `.gltf`'s external buffer files: each URI, as the JSON writes it, to its bytes. */
export type GltfFiles =
  | Map<string, Uint8Array | ArrayBuffer>
  | Record<string, Uint8Array | ArrayBuffer>;

/** How `loadAsset` reads the file. */
export interface LoadOptions {
  /** Mirror the roots into skel's left-handed space (default false: glTF's right-handed space, as three.js and Babylon's glTF loader keep node transforms). */
  leftHanded?: boolean;
  /** The buffer files a `.gltf` names by relative URI. From a URL they are fetched relative to it unless given here; from bytes they must be given. */
  files?: GltfFiles;
}

/**
 * Loads a `.glb` or a `.gltf` from a URL, an ArrayBuffer or a Uint8Array. From a URL, a
 * `.gltf`'s buffer files are fetched relative to it; from bytes, pass them as `options.files`.
 * Rejects with an Error saying what is wrong with a bad file, a buffer missing from `files`, or
 * a failed fetch.
 */
export function loadAsset(
  source: string | URL | ArrayBuffer | Uint8Array,
  options?: LoadOptions,
): Promise<SkelAsset>;

/**
 * A player's pose views, each re-taken only after wasm memory grew (a grown memory detaches
 * every view over the old one).
 */
export class PoseViews {
  constructor(player: SkelPlayer);
  /** The skinning matrices of skeleton binding `binding` (16 floats per joint, column-major). */
  boneMatrices(binding?: number): Float32Array;
  /** Every node's world matrix (16 floats per node, glTF node order, column-major). */
  worldMatrices(): Float32Array;
  /** Every node's local transform (12 floats per node: translation xyz, rotation xyzw, scale xyz, 2 unused). */
  localTransforms(): Float32Array;
  /** The morph weights of morph binding `binding`. */
  morphWeights(binding?: number): Float32Array;
}
