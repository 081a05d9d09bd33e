// skel-anim/three: skel drives a character loaded by three.js's GLTFLoader instead of an
// AnimationMixer. Give skel the same .glb bytes; every `update(dt)` ticks skel's player and
// writes its node world matrices into the three.js objects of those nodes (the bones
// included), placed under the character's root. three.js then makes the skinning matrices as
// always (`Skeleton.update`: bone.matrixWorld · boneInverse) when it renders. This module
// imports nothing from three.js: it only reads and writes `matrixWorld.elements`.
import { SkelCharacter, VIEWS, WRITE_POSE } from "./character.js";

// out = a · b[offset .. offset + 16], column-major 4×4.
function multiply(a, b, offset, out) {
  for (let col = 0; col < 4; col++) {
    const b0 = b[offset + col * 4];
    const b1 = b[offset + col * 4 + 1];
    const b2 = b[offset + col * 4 + 2];
    const b3 = b[offset + col * 4 + 3];
    for (let row = 0; row < 4; row++) {
      out[col * 4 + row] = a[row] * b0 + a[4 + row] * b1 + a[8 + row] * b2 + a[12 + row] * b3;
    }
  }
}

/**
 * The glTF node index → three.js object map GLTFLoader records in `parser.associations`.
 * Throws when the map is missing (not a GLTFLoader result) or names a node past the asset's.
 */
function nodeObjects(gltf, asset) {
  const associations = gltf.parser?.associations;
  if (!(associations instanceof Map)) {
    throw new Error("skel-anim/three: expected a GLTFLoader result (gltf.parser.associations)");
  }
  const nodes = [];
  for (const [object, ref] of associations) {
    if (object?.isObject3D !== true || ref?.nodes === undefined) {
      continue;
    }
    if (ref.nodes >= asset.nodeCount) {
      throw new Error(
        `skel-anim/three: three.js node ${ref.nodes} is not in the asset (${asset.nodeCount} nodes): give skel the same file`,
      );
    }
    nodes.push([ref.nodes, object]);
  }
  return nodes;
}

/** A three.js glTF character animated by skel (see three.d.ts). */
export class SkelThreeCharacter extends SkelCharacter {
  #nodes;

  constructor(gltf, asset, options = {}) {
    super(asset, options);
    this.root = gltf.scene;
    this.#nodes = nodeObjects(gltf, asset);
    for (const [, object] of this.#nodes) {
      object.matrixAutoUpdate = false;
      object.matrixWorldAutoUpdate = false;
    }
    this[WRITE_POSE]();
  }

  /** Writes the world matrices (under the root's) into the three.js objects. */
  [WRITE_POSE]() {
    const world = this[VIEWS].worldMatrices();
    this.root.updateWorldMatrix(true, false);
    const root = this.root.matrixWorld.elements;
    for (const [node, object] of this.#nodes) {
      multiply(root, world, node * 16, object.matrixWorld.elements);
    }
  }

  /** Hands the objects back to three.js's own transform updates (and to an AnimationMixer). */
  dispose() {
    for (const [, object] of this.#nodes) {
      object.matrixAutoUpdate = true;
      object.matrixWorldAutoUpdate = true;
    }
    super.dispose();
  }
}
