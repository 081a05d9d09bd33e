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

/**
 * The skinned meshes of the asset's skeleton bindings: `[binding, mesh]` for every
 * SkinnedMesh that is binding's mesh node or one of its primitives (GLTFLoader makes a Group
 * of SkinnedMeshes for a mesh of several primitives, each with its own Skeleton).
 */
function skinnedMeshes(nodes, asset) {
  const byNode = new Map(nodes);
  const out = [];
  for (let binding = 0; binding < asset.skeletonCount; binding++) {
    const object = byNode.get(asset.skeletonMeshNode(binding));
    if (object === undefined) continue;
    for (const mesh of [object, ...object.children]) {
      if (mesh.isSkinnedMesh !== true) continue;
      const joints = asset.skeletonJoints(binding).length;
      if (mesh.skeleton.bones.length !== joints) {
        throw new Error(
          `skel-anim/three: a skinned mesh of node ${asset.skeletonMeshNode(binding)} has ${mesh.skeleton.bones.length} bones, the asset's skin ${joints}: give skel the same file`,
        );
      }
      out.push([binding, mesh]);
    }
  }
  return out;
}

/** A three.js glTF character animated by skel (see three.d.ts). */
export class SkelThreeCharacter extends SkelCharacter {
  #nodes;
  /** Every object whose transform updates skel has turned off. */
  #held;
  /** In "direct" skinning: `[binding, mesh, saved]`, the skinned meshes skel's matrices feed. */
  #skinned = [];

  constructor(gltf, asset, options = {}) {
    super(asset, options);
    this.root = gltf.scene;
    const nodes = nodeObjects(gltf, asset);
    if (options.skinning === "direct") {
      // Joints carry no matrix of their own: skel's skinning matrices go straight into each
      // skeleton, and the mesh is detached from its bind matrix so that three.js's skinning
      // (bindMatrixInverse · boneMatrix · bindMatrix) is skel's.
      const joints = new Set();
      for (let b = 0; b < asset.skeletonCount; b++) {
        for (const joint of asset.skeletonJoints(b)) joints.add(joint);
      }
      for (const [binding, mesh] of skinnedMeshes(nodes, asset)) {
        const skeleton = mesh.skeleton;
        const saved = { bindMode: mesh.bindMode, bindMatrix: mesh.bindMatrix.clone(), bindMatrixInverse: mesh.bindMatrixInverse.clone() };
        mesh.bindMode = "detached";
        mesh.bindMatrix.identity();
        mesh.bindMatrixInverse.identity();
        // The renderer calls update() before it draws: the matrices are skel's already.
        skeleton.update = () => {
          if (skeleton.boneTexture) skeleton.boneTexture.needsUpdate = true;
        };
        this.#skinned.push([binding, mesh, saved]);
      }
      // The joints' objects keep the matrices they had (three.js stops composing them too).
      this.#nodes = nodes.filter(([node]) => !joints.has(node));
    } else if (options.skinning === undefined || options.skinning === "bones") {
      this.#nodes = nodes;
    } else {
      throw new Error(`skel-anim/three: skinning is "bones" or "direct", not ${JSON.stringify(options.skinning)}`);
    }
    this.#held = nodes.map(([, object]) => object);
    for (const object of this.#held) {
      object.matrixAutoUpdate = false;
      object.matrixWorldAutoUpdate = false;
    }
    this[WRITE_POSE]();
  }

  /** Writes the world matrices (under the root's) into the three.js objects, and in "direct"
   *  skinning the skinning matrices into the skeletons. */
  [WRITE_POSE]() {
    const world = this[VIEWS].worldMatrices();
    this.root.updateWorldMatrix(true, false);
    const root = this.root.matrixWorld.elements;
    for (const [node, object] of this.#nodes) {
      multiply(root, world, node * 16, object.matrixWorld.elements);
    }
    for (const [binding, mesh] of this.#skinned) {
      mesh.skeleton.boneMatrices.set(this[VIEWS].boneMatrices(binding));
      if (mesh.skeleton.boneTexture) mesh.skeleton.boneTexture.needsUpdate = true;
    }
  }

  /** Hands the objects back to three.js's own transform updates (and to an AnimationMixer). */
  dispose() {
    for (const object of this.#held) {
      object.matrixAutoUpdate = true;
      object.matrixWorldAutoUpdate = true;
    }
    for (const [, mesh, saved] of this.#skinned) {
      mesh.bindMode = saved.bindMode;
      mesh.bindMatrix.copy(saved.bindMatrix);
      mesh.bindMatrixInverse.copy(saved.bindMatrixInverse);
      delete mesh.skeleton.update;
    }
    this.#skinned = [];
    super.dispose();
  }
}
