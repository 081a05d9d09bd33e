// skel-anim: skel's skeletal animation in WebAssembly. This entry module starts the module
// once (`initSkel`), loads assets from bytes or a URL (`loadAsset`), and keeps pose views
// valid across wasm memory growth (`PoseViews`). The classes come from wasm-bindgen's glue.
import init, { SkelAsset, SkelGraph, SkelPlayer } from "./skel_js.js";

export { SkelAsset, SkelGraph, SkelPlayer };

let started;

/**
 * Instantiates the WebAssembly module once; later calls return the same promise. Without an
 * argument it fetches `skel_js_bg.wasm` beside this file; pass a URL, a Response, bytes or a
 * compiled `WebAssembly.Module` to load it from elsewhere.
 */
export function initSkel(wasm) {
  if (started === undefined) {
    started = init(wasm === undefined ? undefined : { module_or_path: wasm }).then(() => undefined);
  }
  return started;
}

/**
 * Loads a `.glb` (or a `.gltf` with embedded buffers) from a URL (fetched), an ArrayBuffer or a
 * Uint8Array, starting the module first if needed. Throws an Error that says what is wrong with
 * a bad file or a failed fetch; nothing else is affected, so the page may go on.
 */
export async function loadAsset(source, options = {}) {
  await initSkel();
  let bytes;
  if (typeof source === "string" || source instanceof URL) {
    const response = await fetch(source);
    if (!response.ok) {
      throw new Error(`cannot fetch ${source}: HTTP ${response.status}`);
    }
    bytes = new Uint8Array(await response.arrayBuffer());
  } else if (source instanceof ArrayBuffer) {
    bytes = new Uint8Array(source);
  } else {
    bytes = source;
  }
  return SkelAsset.fromBytes(bytes, options.leftHanded === true);
}

// A view is stale once wasm memory grew: its ArrayBuffer is detached and reads 0 bytes.
const stale = (view) => view === undefined || view.buffer.byteLength === 0;

/**
 * A player's pose views, each taken once and taken again only after wasm memory grew (which
 * detaches every view over the old memory). Reading through these getters each frame costs a
 * property check, never a copy.
 */
export class PoseViews {
  #player;
  #bones = [];
  #world;
  #local;
  #morphs = [];

  constructor(player) {
    this.#player = player;
  }

  /** The skinning matrices of skeleton binding `binding` (16 floats per joint). */
  boneMatrices(binding = 0) {
    if (stale(this.#bones[binding])) {
      this.#bones[binding] = this.#player.boneMatrices(binding);
    }
    return this.#bones[binding];
  }

  /** Every node's world matrix (16 floats per node, glTF node order). */
  worldMatrices() {
    if (stale(this.#world)) {
      this.#world = this.#player.worldMatrices();
    }
    return this.#world;
  }

  /** Every node's local transform (12 floats per node: translation, rotation xyzw, scale, 2 unused). */
  localTransforms() {
    if (stale(this.#local)) {
      this.#local = this.#player.localTransforms();
    }
    return this.#local;
  }

  /** The morph weights of morph binding `binding`. */
  morphWeights(binding = 0) {
    if (stale(this.#morphs[binding])) {
      this.#morphs[binding] = this.#player.morphWeights(binding);
    }
    return this.#morphs[binding];
  }
}
