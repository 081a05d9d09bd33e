// Types of skel-anim/three. They describe the few three.js members the adapter touches, so the
// package needs no three.js types of its own; a GLTFLoader result satisfies them.
import type { CharacterOptions, SkelCharacter } from "./character.js";
import type { SkelAsset } from "./skel_js.js";

export type { CharacterOptions };

/** How skel poses a three.js character. */
export interface ThreeCharacterOptions extends CharacterOptions {
  /**
   * `"bones"` (the default): every glTF node's world matrix is written, the bones' included,
   * and three.js makes the skinning matrices from them (`Skeleton.update`) as always.
   * `"direct"`: skel's skinning matrices go straight into each skeleton's `boneMatrices`
   * (the mesh detached from its bind matrix, `Skeleton.update` left with nothing to compute),
   * and the bones' objects are not updated at all: faster for crowds (docs/npm.md has the
   * figures), but an object attached to a bone, or a raycast against the skinned mesh, sees
   * the bones where they were.
   */
  skinning?: "bones" | "direct";
}

/** The part of a three.js `Object3D` the adapter reads and writes. */
export interface ThreeObject3D {
  readonly isObject3D: true;
  matrixAutoUpdate: boolean;
  matrixWorldAutoUpdate: boolean;
  readonly matrixWorld: { elements: number[] };
  updateWorldMatrix(updateParents: boolean, updateChildren: boolean): void;
}

/** The part of a GLTFLoader result the adapter reads: the scene and the node associations. */
export interface ThreeGltf {
  scene: ThreeObject3D;
  parser: { associations: Map<unknown, { nodes?: number }> };
}

/**
 * A character loaded by three.js's GLTFLoader, animated by skel instead of an AnimationMixer:
 * every `update(dt)` ticks skel's player and writes each glTF node's world matrix (under
 * `gltf.scene`'s own) into its three.js object, bones included. Those objects stop computing
 * their own matrices (`matrixAutoUpdate` and `matrixWorldAutoUpdate` off) until `dispose()`;
 * their children and the skinning matrices (`Skeleton.update` at render) follow as usual.
 */
export class SkelThreeCharacter extends SkelCharacter {
  /**
   * @param gltf  GLTFLoader's result for the file.
   * @param asset skel's asset from the same bytes (`loadAsset`); throws when the two disagree.
   * @param options a graph to drive the character (`{ graph: asset.compileGraph(json) }`; clips by `play` without), and how to skin (`skinning`); throws for an unknown `skinning`.
   */
  constructor(gltf: ThreeGltf, asset: SkelAsset, options?: ThreeCharacterOptions);
  /** `gltf.scene`: move it to place the character. */
  readonly root: ThreeObject3D;
  /** Gives the objects back to three.js's own updates and frees skel's player. */
  dispose(): void;
}
