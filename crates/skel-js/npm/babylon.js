// skel-anim/babylon: skel drives a character loaded by Babylon.js's glTF loader instead of its
// AnimationGroups. Give skel the same .glb bytes; every `update(dt)` ticks skel's player and
// writes each glTF node's local transform (translation, rotation quaternion, scale, as the
// animation groups write them) into the node's TransformNode. Babylon then makes the world and
// skinning matrices as always (`Skeleton.prepare` reads the bones' linked transform nodes), in
// whichever handedness the scene uses (its `__root__` node converts). This module imports
// nothing from Babylon.js.
import { SkelCharacter, VIEWS, WRITE_POSE } from "./character.js";

const STRIDE = 12;
const NODE_POINTER = /^\/nodes\/(\d+)$/;

/**
 * The glTF node index → TransformNode map Babylon's loader records in each object's
 * `_internalMetadata.gltf.pointers`. Nodes whose transform Babylon ignores (a skinned mesh's
 * node, per glTF's skin rules: no rotationQuaternion) are left out.
 */
function nodeTargets(nodes, asset) {
  const targets = new Map();
  for (const node of nodes) {
    if (node?.rotationQuaternion == null || node.skeleton) {
      continue;
    }
    for (const pointer of node._internalMetadata?.gltf?.pointers ?? []) {
      const match = NODE_POINTER.exec(pointer);
      if (match === null) continue;
      const index = Number(match[1]);
      if (index >= asset.nodeCount) {
        throw new Error(
          `skel-anim/babylon: Babylon node ${index} is not in the asset (${asset.nodeCount} nodes): give skel the same file`,
        );
      }
      targets.set(index, node);
    }
  }
  return [...targets];
}

/** A Babylon.js glTF character animated by skel (see babylon.d.ts). */
export class SkelBabylonCharacter extends SkelCharacter {
  #nodes;

  constructor(container, asset, options = {}) {
    super(asset, options);
    const nodes = [...(container.transformNodes ?? []), ...(container.meshes ?? [])];
    this.#nodes = nodeTargets(nodes, asset);
    if (this.#nodes.length === 0) {
      throw new Error("skel-anim/babylon: no glTF node found (expected the glTF loader's transformNodes/meshes)");
    }
    this[WRITE_POSE]();
  }

  /** Writes the local transforms into the TransformNodes. */
  [WRITE_POSE]() {
    const trs = this[VIEWS].localTransforms();
    for (const [node, target] of this.#nodes) {
      const o = node * STRIDE;
      target.position.set(trs[o], trs[o + 1], trs[o + 2]);
      target.rotationQuaternion.set(trs[o + 3], trs[o + 4], trs[o + 5], trs[o + 6]);
      target.scaling.set(trs[o + 7], trs[o + 8], trs[o + 9]);
    }
  }
}
