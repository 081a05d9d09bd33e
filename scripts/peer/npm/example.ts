// Uses every export of the skel-anim package (cargo xtask npm) so that `tsc --noEmit` checks
// its declarations: the entry module, the wasm-bindgen classes and the three.js adapter fed
// with a real GLTFLoader result (@types/three). Type-checked only, never run.
import * as THREE from "three";
import { GLTFLoader } from "three/examples/jsm/loaders/GLTFLoader.js";
import { initSkel, loadAsset, PoseViews, SkelAsset, SkelGraph, SkelPlayer } from "skel-anim";
import { SkelThreeCharacter, type CharacterOptions, type ThreeCharacterOptions } from "skel-anim/three";
import { type BabylonCharacterOptions, SkelBabylonCharacter } from "skel-anim/babylon";

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
  const local: Float32Array = player.localTransforms();
  const weights: Float32Array | undefined =
    asset.morphBindingCount > 0 ? player.morphWeights(0) : undefined;
  const views = new PoseViews(player);
  let sum =
    views.boneMatrices(0)[0] + views.worldMatrices()[0] + views.localTransforms()[0] + (asset.morphBindingCount > 0 ? views.morphWeights(0)[0] : 0);
  player.stop();
  player.free();
  again.free();
  sum += graphPlayer(asset);
  return sum + bones.length + world.length + local.length + (weights?.length ?? 0) + joints.length + meshNode + (parent ?? 0) + (morphNode ?? 0);
}

// A graph compiled once, a player per character, its parameters of every kind.
function graphPlayer(asset: SkelAsset): number {
  const graph: SkelGraph = asset.compileGraph(
    '{"parameters": {"speed": {"type": "float"}}, "layers": [{"name": "base", "entry": "walk", "states": {"walk": {"clip": "Walk"}}}]}',
  );
  const names: string[] = graph.parameterNames;
  const kinds: string[] = graph.parameterKinds;
  const player: SkelPlayer = graph.createPlayer();
  player.setFloat("speed", 1.5);
  player.setInt("mood", 2);
  player.setBool("crouch", true);
  player.setTrigger("jump");
  player.setVec3("look", 0, 1.6, 2);
  player.tick(1 / 60);
  const state: string | undefined = player.state(0) ?? player.state();
  const n = names.length + kinds.length + (state?.length ?? 0) + player.boneMatrices(0).length;
  player.free();
  graph.free();
  return n;
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
  const skelAsset = await loadAsset(bytes);
  const options: CharacterOptions = { graph: skelAsset.compileGraph('{"layers": [{"name": "base", "entry": "walk", "states": {"walk": {"clip": "Walk"}}}]}') };
  const driven = new SkelThreeCharacter(gltf, skelAsset, options);
  driven.player.setFloat("speed", 2);
  driven.update(1 / 60);
  driven.dispose();
  const crowd: ThreeCharacterOptions = { skinning: "direct", graph: options.graph };
  const fast = new SkelThreeCharacter(gltf, skelAsset, crowd);
  fast.update(1 / 60);
  fast.dispose();
}

// A Babylon-shaped node list without Babylon.js (whose own .d.ts do not pass TypeScript 7's lib
// check: example_babylon.ts checks the adapter against the real types with skipLibCheck).
export async function babylonShaped(url: string): Promise<number> {
  const v = { set: (_x: number, _y: number, _z: number) => undefined };
  const node = {
    position: v,
    rotationQuaternion: { set: (_x: number, _y: number, _z: number, _w: number) => undefined },
    scaling: v,
  };
  const asset = await loadAsset(url);
  const graph = asset.compileGraph('{"layers": [{"name": "base", "entry": "walk", "states": {"walk": {"clip": "Walk"}}}]}');
  new SkelBabylonCharacter({ transformNodes: [node], meshes: [] }, asset, { graph }).dispose();
  const direct: BabylonCharacterOptions = { skinning: "direct", graph };
  new SkelBabylonCharacter({ transformNodes: [node], meshes: [], skeletons: [] }, asset, direct).dispose();
  const character = new SkelBabylonCharacter({ transformNodes: [node], meshes: [] }, asset);
  character.play("Walk", true);
  character.seek(0.1);
  character.update(1 / 60);
  const n = character.player.localTransforms().length + character.asset.nodeCount + character.clipNames.length;
  character.dispose();
  return n;
}
