// Uses every export of the skel-anim package (cargo xtask npm) so that `tsc --noEmit` checks
// its declarations: the entry module, the wasm-bindgen classes and the three.js adapter fed
// with a real GLTFLoader result (@types/three). Type-checked only, never run.
import * as THREE from "three";
import { GLTFLoader } from "three/examples/jsm/loaders/GLTFLoader.js";
import { initSkel, loadAsset, PoseViews, SkelAsset, SkelPlayer } from "skel-anim";
import { SkelThreeCharacter } from "skel-anim/three";

export async function plainPage(url: string): Promise<number> {
  await initSkel();
  const asset: SkelAsset = await loadAsset(url, { leftHanded: false });
  const again: SkelAsset = SkelAsset.fromBytes(new Uint8Array(await (await fetch(url)).arrayBuffer()), true);
  const names: string[] = asset.clipNames;
  const walk: number = asset.clipIndex(names[0] ?? "Walk");
  const seconds: number = asset.clipDuration(walk);
  const parent: number | undefined = asset.nodeParent(asset.nodeCount - 1);
  const joints: Uint32Array = asset.skeletonJoints(0);
  const meshNode: number = asset.skeletonMeshNode(0);
  const morphNode: number | undefined =
    asset.morphBindingCount > 0 ? asset.morphBindingNode(0) : undefined;
  const player: SkelPlayer = asset.createPlayer();
  player.play(walk, true);
  player.playNamed(names[0] ?? "Walk");
  player.seek(seconds / 2);
  player.tick(1 / 60);
  const bones: Float32Array = player.boneMatrices(0);
  const world: Float32Array = player.worldMatrices();
  const weights: Float32Array | undefined =
    asset.morphBindingCount > 0 ? player.morphWeights(0) : undefined;
  const views = new PoseViews(player);
  const sum =
    views.boneMatrices(0)[0] + views.worldMatrices()[0] + (asset.morphBindingCount > 0 ? views.morphWeights(0)[0] : 0);
  player.stop();
  player.free();
  again.free();
  return sum + bones.length + world.length + (weights?.length ?? 0) + joints.length + meshNode + (parent ?? 0) + (morphNode ?? 0);
}

export async function threePage(url: string, scene: THREE.Scene, renderer: THREE.WebGLRenderer, camera: THREE.Camera): Promise<void> {
  const bytes = await (await fetch(url)).arrayBuffer();
  const gltf = await new GLTFLoader().parseAsync(bytes.slice(0), "");
  const character = new SkelThreeCharacter(gltf, await loadAsset(bytes));
  scene.add(gltf.scene);
  character.play(character.clipNames[0] ?? 0);
  character.play(0, false);
  character.seek(0.5);
  const clock = new THREE.Clock();
  renderer.setAnimationLoop(() => {
    character.update(clock.getDelta());
    renderer.render(scene, camera);
  });
  const player: SkelPlayer = character.player;
  const asset: SkelAsset = character.asset;
  console.log(player.worldMatrices().length, asset.nodeCount, character.root.matrixWorld.elements[0]);
  character.dispose();
}
