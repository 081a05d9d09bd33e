// Types of the base class both engine adapters (skel-anim/three, skel-anim/babylon) extend.
import type { SkelAsset, SkelGraph, SkelPlayer } from "./skel_js.js";

/** What drives a character. */
export interface CharacterOptions {
  /** A graph compiled against the same asset (`asset.compileGraph(json)`): it chooses the clips, and the character's parameters are set on `player` (`setFloat`, `setTrigger`, ...). Without one, `play` chooses them. */
  graph?: SkelGraph;
}

/** One character posed by skel: its player, the clip controls and the tick that writes the pose. */
export class SkelCharacter {
  readonly asset: SkelAsset;
  /** skel's player: weights, seeks and the pose views are there too. */
  readonly player: SkelPlayer;
  /** The clips' names in the file's order (as the engine's loader lists its animations). */
  readonly clipNames: string[];
  /** Plays a clip alone from its start, by index or name; loops unless `loop` is false. Throws for an unknown clip, or when a graph drives the character. */
  play(clip: number | string, loop?: boolean): void;
  /** Moves the playhead to `time` seconds; the pose follows at the next `update`. */
  seek(time: number): void;
  /** Advances by `dt` seconds and writes the pose into the engine's objects. */
  update(dt: number): void;
  /** Frees skel's player. */
  dispose(): void;
}
