// The Babylon.js adapter fed a real glTF AssetContainer (@babylonjs/core's types), type-checked
// by `npm run types` with skipLibCheck (Babylon's own .d.ts redeclare WebXR types that
// TypeScript 7's DOM lib now has). Never run.
import { LoadAssetContainerAsync, type Scene } from "@babylonjs/core";
import { loadAsset, type SkelAsset, type SkelPlayer } from "skel-anim";
import { SkelBabylonCharacter } from "skel-anim/babylon";

export async function babylonPage(url: string, scene: Scene): Promise<void> {
  const container = await LoadAssetContainerAsync(url, scene);
  container.addAllToScene();
  for (const group of container.animationGroups) group.stop();
  const character = new SkelBabylonCharacter(container, await loadAsset(url));
  // The same character with skel's skinning matrices written straight into its skeletons.
  new SkelBabylonCharacter(container, character.asset, { skinning: "direct" }).dispose();
  character.play(character.clipNames[0] ?? 0);
  character.play(0, false);
  character.seek(0.25);
  scene.onBeforeRenderObservable.add(() => character.update(scene.getEngine().getDeltaTime() / 1000));
  const player: SkelPlayer = character.player;
  const asset: SkelAsset = character.asset;
  console.log(player.localTransforms().length, asset.nodeCount);
  character.dispose();
}
