// Types of skel-anim/babylon. They describe the few Babylon.js members the adapter touches, so
// the package needs no Babylon.js types of its own; a glTF AssetContainer satisfies them.
import type { CharacterOptions, SkelCharacter } from "./character.js";
import type { SkelAsset } from "./skel_js.js";

export type { CharacterOptions };

/** How a `SkelBabylonCharacter` poses its character. */
export interface BabylonCharacterOptions extends CharacterOptions {
  /**
   * `"bones"` (the default): every glTF node's local transform is written, the bones' included,
   * and Babylon makes the world and skinning matrices from them (`Skeleton.prepare`) as always.
   * `"direct"`: skel's skinning matrices go straight into each skeleton's transform matrices
   * (`Skeleton.prepare` only uploads them), and the bones' nodes are not written and their world
   * matrices frozen: faster for crowds (docs/npm.md has the figures), but a mesh attached to a
   * bone, or a pick against the skinned mesh, sees the bones where they were. It writes
   * Babylon.js's private `Skeleton._transformMatrices` (checked against Babylon.js 9.31).
   */
  skinning?: "bones" | "direct";
}

/** The part of a Babylon.js `TransformNode` the adapter writes. */
export interface BabylonNode {
  position: { set(x: number, y: number, z: number): unknown };
  rotationQuaternion: { set(x: number, y: number, z: number, w: number): unknown } | null;
  scaling: { set(x: number, y: number, z: number): unknown };
}

/** The part of a Babylon.js `Skeleton` the `"direct"` skinning reads and replaces. */
export interface BabylonSkeleton {
  readonly name: string;
  readonly bones: readonly { getTransformNode(): unknown }[];
  prepare(dontCheckFrameId?: boolean): void;
}

/** What the adapter reads from a load: an `AssetContainer` (or an `ImportMeshAsync` result). */
export interface BabylonGltfNodes {
  transformNodes?: readonly BabylonNode[];
  meshes?: readonly BabylonNode[];
  skeletons?: readonly BabylonSkeleton[];
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
   * @param options a graph to drive the character (`{ graph: asset.compileGraph(json) }`; clips by `play` without) and how to skin it (`skinning`).
   */
  constructor(container: BabylonGltfNodes, asset: SkelAsset, options?: BabylonCharacterOptions);
  /** Gives the skeletons and bones back to Babylon and frees skel's player; the nodes keep the last pose. */
  dispose(): void;
}
