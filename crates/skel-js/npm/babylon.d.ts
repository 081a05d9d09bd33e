// Types of skel-anim/babylon. They describe the few Babylon.js members the adapter touches, so
// the package needs no Babylon.js types of its own; a glTF AssetContainer satisfies them.
import type { CharacterOptions, SkelCharacter } from "./character.js";
import type { SkelAsset } from "./skel_js.js";

export type { CharacterOptions };

/** The part of a Babylon.js `TransformNode` the adapter writes. */
export interface BabylonNode {
  position: { set(x: number, y: number, z: number): unknown };
  rotationQuaternion: { set(x: number, y: number, z: number, w: number): unknown } | null;
  scaling: { set(x: number, y: number, z: number): unknown };
}

/** What the adapter reads from a load: an `AssetContainer` (or an `ImportMeshAsync` result). */
export interface BabylonGltfNodes {
  transformNodes?: readonly BabylonNode[];
  meshes?: readonly BabylonNode[];
}

/**
 * A character loaded by Babylon.js's glTF loader, animated by skel instead of its
 * AnimationGroups (stop those): every `update(dt)` ticks skel's player and writes each glTF
 * node's local translation, rotation quaternion and scale into its TransformNode (found through
 * the loader's `/nodes/<i>` pointers), as an animation group does. Babylon makes the world and
 * skinning matrices from them as always, in the scene's handedness.
 */
export class SkelBabylonCharacter extends SkelCharacter {
  /**
   * @param container the glTF loader's result for the file.
   * @param asset     skel's asset from the same bytes (`loadAsset`); throws when they disagree.
   * @param options a graph to drive the character (`{ graph: asset.compileGraph(json) }`); clips by `play` without.
   */
  constructor(container: BabylonGltfNodes, asset: SkelAsset, options?: CharacterOptions);
  /** Frees skel's player; the nodes keep the last pose. */
  dispose(): void;
}
