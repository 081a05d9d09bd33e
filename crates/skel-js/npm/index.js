// skel-anim: skel's skeletal animation in WebAssembly. This entry module starts the module
// once (`initSkel`), loads assets from bytes or a URL (`loadAsset`: a `.glb`, or a `.gltf` and
// the buffer files it names), and keeps pose views
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
 * Loads a `.glb` or a `.gltf` from a URL (fetched), an ArrayBuffer or a Uint8Array, starting the
 * module first if needed. From a URL, the buffers a `.gltf` names by relative URI are fetched
 * relative to its URL; from bytes, pass them as `options.files` (a Map or an object from each
 * buffer's URI, as the JSON writes it, to its bytes). Throws an Error that says what is wrong
 * with a bad file or a failed fetch; nothing else is affected, so the page may go on.
 */
export async function loadAsset(source, options = {}) {
  await initSkel();
  const leftHanded = options.leftHanded === true;
  let bytes;
  let files = options.files;
  if (typeof source === "string" || source instanceof URL) {
    const url = absoluteUrl(source);
    bytes = await fetchBytes(url);
    if (files === undefined) {
      files = await fetchSiblings(bytes, url);
    }
  } else if (source instanceof ArrayBuffer) {
    bytes = new Uint8Array(source);
  } else {
    bytes = source;
  }
  return files === undefined
    ? SkelAsset.fromBytes(bytes, leftHanded)
    : SkelAsset.fromGltf(bytes, files, leftHanded);
}

// `source` resolved against the page (a relative string is relative to the document, as fetch
// takes it), so that a .gltf's siblings resolve against the .gltf's own URL.
function absoluteUrl(source) {
  const base = globalThis.document?.baseURI ?? globalThis.location?.href;
  return base === undefined ? new URL(source) : new URL(source, base);
}

async function fetchBytes(url) {
  const response = await fetch(url);
  if (!response.ok) {
    throw new Error(`cannot fetch ${url}: HTTP ${response.status}`);
  }
  return new Uint8Array(await response.arrayBuffer());
}

// "glTF": a binary container, whose buffer 0 is inside it.
const isGlb = (bytes) =>
  bytes.length >= 4 && bytes[0] === 0x67 && bytes[1] === 0x6c && bytes[2] === 0x54 && bytes[3] === 0x46;

/**
 * The files a `.gltf`'s buffers name by relative URI (not `data:`), fetched relative to `url`:
 * a Map from each URI as written to its bytes, or undefined for a `.glb`, text that is not JSON
 * (the loader then says what is wrong) or a file without external buffers. Images are not
 * fetched: skel does not read them.
 */
async function fetchSiblings(bytes, url) {
  if (isGlb(bytes)) {
    return undefined;
  }
  let json;
  try {
    json = JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    return undefined;
  }
  const buffers = Array.isArray(json?.buffers) ? json.buffers : [];
  const uris = [
    ...new Set(
      buffers
        .map((b) => b?.uri)
        .filter((uri) => typeof uri === "string" && !uri.startsWith("data:")),
    ),
  ];
  if (uris.length === 0) {
    return undefined;
  }
  const fetched = await Promise.all(uris.map((uri) => fetchBytes(new URL(uri, url))));
  return new Map(uris.map((uri, i) => [uri, fetched[i]]));
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
