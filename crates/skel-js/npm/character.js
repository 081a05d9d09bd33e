// The part the engine adapters (skel-anim/three, skel-anim/babylon) share: skel's player for
// one character, its clip controls and the tick that writes the pose. Each adapter extends
// SkelCharacter and defines `[WRITE_POSE]()`, which puts the pose (the player's PoseViews, at
// `this[VIEWS]`) into its engine's objects; this module is not in the package's exports, so
// those two symbol-keyed members are no part of its API.
import { PoseViews } from "./index.js";

/** The key of the method an adapter defines to write the pose into its engine's objects. */
export const WRITE_POSE = Symbol("skel-anim write pose");
/** The key of the player's PoseViews, which `[WRITE_POSE]()` reads. */
export const VIEWS = Symbol("skel-anim pose views");

/** One character posed by skel (see character.d.ts); an adapter's base class. */
export class SkelCharacter {
  constructor(asset, options = {}) {
    this.asset = asset;
    this.player = options.graph === undefined ? asset.createPlayer() : options.graph.createPlayer();
    this[VIEWS] = new PoseViews(this.player);
    this.clipNames = asset.clipNames;
  }

  /** Plays a clip alone from its start, by index or name; looping unless `loop` is false. */
  play(clip, loop = true) {
    if (typeof clip === "string") {
      this.player.playNamed(clip, loop);
    } else {
      this.player.play(clip, loop);
    }
  }

  /** Moves the playhead to `time` seconds; the pose follows at the next `update`. */
  seek(time) {
    this.player.seek(time);
  }

  /** Advances by `dt` seconds and writes the pose into the engine's objects. */
  update(dt) {
    this.player.tick(dt);
    this[WRITE_POSE]();
  }

  /** Frees skel's player. */
  dispose() {
    this.player.free();
  }
}
