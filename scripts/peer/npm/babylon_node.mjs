// What check_babylon.mjs and bench_babylon.mjs share: the built package loaded in node (its
// wasm instantiated from the file) and glTF copies loaded into a Babylon.js scene under a
// NullEngine (no browser, no GPU; `scene.render()` still runs the animations and the matrices).
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { FreeCamera, LoadAssetContainerAsync, Logger, NullEngine, Scene, Vector3 } from "@babylonjs/core/index.js";
import "@babylonjs/loaders/glTF/index.js";

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, "../../..");
const pkg = process.env.SKEL_NPM_PACKAGE ?? path.join(repo, "target/npm/skel-anim");
/** The shared sample models (`../shared/assets` beside the repository). */
export const assets = path.resolve(repo, "../shared/assets");

Logger.LogLevels = Logger.ErrorLogLevel;
const entry = await import(pathToFileURL(path.join(pkg, "index.js")).href);
const adapter = await import(pathToFileURL(path.join(pkg, "babylon.js")).href);
await entry.initSkel(readFileSync(path.join(pkg, "skel_js_bg.wasm")));
export const { loadAsset } = entry;
export const { SkelBabylonCharacter } = adapter;

/**
 * A scene under a NullEngine (right-handed or Babylon's default left-handed) holding `copies`
 * copies of the `.glb` `bytes`, added to it with their animation groups stopped, and a camera
 * that sees them at the origin: `{ scene, containers }`.
 */
export async function babylonScene(bytes, { copies = 1, rightHanded = false } = {}) {
  const scene = new Scene(new NullEngine());
  scene.useRightHandedSystem = rightHanded;
  new FreeCamera("camera", new Vector3(0, 0, -10), scene);
  const data = "data:;base64," + bytes.toString("base64");
  const containers = [];
  for (let i = 0; i < copies; i++) {
    const container = await LoadAssetContainerAsync(data, scene, {
      pluginExtension: ".glb",
      pluginOptions: { gltf: { animationStartMode: 0 } },
    });
    container.addAllToScene();
    containers.push(container);
  }
  return { scene, containers };
}
