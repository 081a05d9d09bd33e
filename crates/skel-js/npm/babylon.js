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

/** The glTF node index of a Babylon object (its own `/nodes/<i>` pointer), or undefined. */
function nodeIndex(object) {
  for (const pointer of object?._internalMetadata?.gltf?.pointers ?? []) {
    const match = NODE_POINTER.exec(pointer);
    if (match !== null) return Number(match[1]);
  }
  return undefined;
}

/**
 * skel's skeleton binding for each Babylon skeleton of the load, `[binding, skeleton, prepare,
 * same]`: a binding whose joints are the skeleton's bones in order (where several are, one skin
 * on several mesh nodes, the nearest below). `prepare` is Babylon's own, run once here on the
 * pose the nodes hold (skel's, just written); `same` says whether Babylon's skinning matrices
 * then are skel's to f32 rounding. They are where the skinned mesh's world is the one glTF
 * gives it (CesiumMan, Fox); they are not where the loader puts the mesh elsewhere
 * (RobotExpressive's hands under a scaled armature), and such a skeleton keeps Babylon's own.
 */
function skeletonBindings(container, asset, views) {
  const out = [];
  for (const skeleton of container.skeletons ?? []) {
    const bones = skeleton.bones.map((b) => nodeIndex(b.getTransformNode?.()));
    const prepare = skeleton.prepare;
    // Once as Babylon does it: the array (one matrix per bone and one more) and, where the
    // engine keeps bone matrices in a texture, the texture.
    prepare.call(skeleton, true);
    const theirs = skeleton._transformMatrices;
    let found;
    let nearest = Infinity;
    let scale = 1;
    for (let b = 0; b < asset.skeletonCount; b++) {
      const joints = asset.skeletonJoints(b);
      if (joints.length !== bones.length || !joints.every((j, i) => j === bones[i])) continue;
      const ours = views.boneMatrices(b);
      let far = 0;
      for (let k = 0; k < ours.length; k++) {
        far = Math.max(far, Math.abs(ours[k] - theirs[k]));
        scale = Math.max(scale, Math.abs(theirs[k]));
      }
      if (found === undefined || far < nearest) [found, nearest] = [b, far];
    }
    if (found === undefined) {
      throw new Error(`skel-anim/babylon: skeleton ${JSON.stringify(skeleton.name)} matches no skin of the asset: give skel the same file`);
    }
    out.push([found, skeleton, prepare, nearest <= 1e-5 * scale]);
  }
  return out;
}

/** A Babylon.js glTF character animated by skel (see babylon.d.ts). */
export class SkelBabylonCharacter extends SkelCharacter {
  #nodes;
  /** In "direct" skinning: `[binding, skeleton, prepare]`, the skeletons skel's matrices feed. */
  #skeletons = [];
  /** In "direct" skinning: the joints' nodes, whose world matrices are frozen. */
  #frozen = [];

  constructor(container, asset, options = {}) {
    super(asset, options);
    const nodes = [...(container.transformNodes ?? []), ...(container.meshes ?? [])];
    const targets = nodeTargets(nodes, asset);
    if (targets.length === 0) {
      throw new Error("skel-anim/babylon: no glTF node found (expected the glTF loader's transformNodes/meshes)");
    }
    if (options.skinning === "direct") {
      // skel's skinning matrices go straight into each skeleton's transform matrices (the
      // same floats Babylon's Skeleton.prepare makes: skin order, the mesh's world applied
      // after them), Babylon's prepare only uploads them, and the joints' nodes are left out
      // of the pose and their world matrices frozen (nothing reads them for skinning).
      // Every node (the joints too) written first, so that Babylon's matrices, made once
      // while the skeletons are matched, are of skel's pose.
      this.#nodes = targets;
      this[WRITE_POSE]();
      const joints = new Set();
      const kept = new Set();
      for (const [binding, skeleton, prepare, same] of skeletonBindings(container, asset, this[VIEWS])) {
        const set = same ? joints : kept;
        for (const joint of asset.skeletonJoints(binding)) set.add(joint);
        if (!same) continue;
        skeleton.prepare = function () {
          if (this.isUsingTextureForMatrices && this._transformMatrixTexture) {
            this._transformMatrixTexture.update(this._transformMatrices);
          }
        };
        this.#skeletons.push([binding, skeleton, prepare]);
      }
      // A joint a kept skeleton reads stays written.
      for (const joint of kept) joints.delete(joint);
      this.#nodes = targets.filter(([node]) => !joints.has(node));
      this.#frozen = targets.filter(([node]) => joints.has(node)).map(([, target]) => target);
    } else if (options.skinning === undefined || options.skinning === "bones") {
      this.#nodes = targets;
    } else {
      throw new Error(`skel-anim/babylon: skinning is "bones" or "direct", not ${JSON.stringify(options.skinning)}`);
    }
    this[WRITE_POSE]();
    for (const target of this.#frozen) {
      target.computeWorldMatrix?.(true);
      target.freezeWorldMatrix?.();
    }
  }

  /** Writes the local transforms into the TransformNodes, and in "direct" skinning the
   *  skinning matrices into the skeletons. */
  [WRITE_POSE]() {
    const trs = this[VIEWS].localTransforms();
    for (const [node, target] of this.#nodes) {
      const o = node * STRIDE;
      target.position.set(trs[o], trs[o + 1], trs[o + 2]);
      target.rotationQuaternion.set(trs[o + 3], trs[o + 4], trs[o + 5], trs[o + 6]);
      target.scaling.set(trs[o + 7], trs[o + 8], trs[o + 9]);
    }
    for (const [binding, skeleton] of this.#skeletons) {
      skeleton._transformMatrices.set(this[VIEWS].boneMatrices(binding));
    }
  }

  /** Hands the skeletons and joints back to Babylon, then frees skel's player. */
  dispose() {
    for (const [, skeleton, prepare] of this.#skeletons) {
      skeleton.prepare = prepare;
    }
    for (const target of this.#frozen) {
      target.unfreezeWorldMatrix?.();
    }
    this.#skeletons = [];
    this.#frozen = [];
    super.dispose();
  }
}
