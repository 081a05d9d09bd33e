// The three.js adapter against three.js's own AnimationMixer, in headless Chromium: runs
// check_page.js (serve.mjs serves it, the package and the models), then prints one row per
// asset, clip, time and driver and fails when a bone is off by more than 1e-5 of the
// character's diagonal.
import { runPage } from "./serve.mjs";

const TOLERANCE = 1e-5;

let failed = false;
const result = await runPage("check_page.js");
{
  console.log(`ok   a bad .glb throws and the module goes on: ${result.badFileMessage}`);
  const g = result.gltfFiles;
  const gltfBad = !(g.worst === 0) || !(g.moved > 1e-3);
  failed ||= gltfBad;
  console.log(
    `${gltfBad ? "FAIL" : "ok  "} a .gltf by URL (its .bin fetched beside it) poses as its bytes with the .bin given: largest difference ${g.worst}, pose moved ${g.moved.toFixed(3)}; without the .bin: ${g.missing}`,
  );
  let worst = 0;
  for (const r of result.rows) {
    // A NaN distance comes back from the page as null (JSON).
    r.error ??= NaN;
    r.moved ??= NaN;
    const bad = !(r.error <= TOLERANCE) || !(r.moved > 1e-3);
    failed ||= bad;
    worst = Math.max(worst, r.error);
    console.log(
      `${bad ? "FAIL" : "ok  "} ${r.asset} ${r.clip} ${r.driver} t=${r.time.toFixed(3)} s meshes=${r.meshes} error=${r.error.toExponential(2)} of the diagonal (pose moved ${r.moved.toFixed(3)})`,
    );
  }
  console.log(`${result.rows.length} cases, worst ${worst.toExponential(2)} of the diagonal (tolerance ${TOLERANCE})`);
}
process.exit(failed ? 1 : 0);
