// Types of skel-anim's entry module (index.js); the classes' types are wasm-bindgen's.
import type { InitInput } from "./skel_js.js";
import { SkelAsset, SkelGraph, SkelPlayer } from "./skel_js.js";

export { SkelAsset, SkelGraph, SkelPlayer };

/**
 * Instantiates the WebAssembly module once; later calls return the same promise. Without an
 * argument it fetches `skel_js_bg.wasm` beside the entry module.
 */
export function initSkel(wasm?: InitInput | Promise<InitInput>): Promise<void>;

/** How `loadAsset` reads the file. */
export interface LoadOptions {
  /** Mirror the roots into skel's left-handed space (default false: glTF's right-handed space, as three.js and Babylon's glTF loader keep node transforms). */
  leftHanded?: boolean;
}

/**
 * Loads a `.glb` (or a `.gltf` with embedded buffers) from a URL, an ArrayBuffer or a
 * Uint8Array. Rejects with an Error saying what is wrong with a bad file or a failed fetch.
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
