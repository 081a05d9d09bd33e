// Speed of the three.js adapter against three.js's own AnimationMixer, in headless Chromium
// (bench_page.js says what a frame holds): for each asset and count, alternating rounds of
// FRAMES frames, milliseconds per frame on each side and their ratio. Never in CI; timings
// swing with the machine's load, so compare only sides of one run.
//
//   node bench_three.mjs [COUNT...]          (default 100 1000; ROUNDS, FRAMES from the env)
import { runPage } from "./serve.mjs";

const counts = process.argv.length > 2 ? process.argv.slice(2).map(Number) : [100, 1000];
const ASSETS = [
  ["Fox/Fox.glb", "Run"],
  ["CesiumMan/CesiumMan.glb", "0"],
];
const rounds = process.env.ROUNDS ?? "5";
const frames = process.env.FRAMES ?? "100";
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
for (const [asset, clip] of ASSETS) {
  for (const count of counts) {
    const query = `?asset=${encodeURIComponent(asset)}&clip=${clip}&count=${count}&frames=${frames}&rounds=${rounds}`;
    const r = await runPage("bench_page.js", query, 600_000);
    const mixer = r.rounds.map((x) => x.mixer);
    const skel = r.rounds.map((x) => x.skel);
    const ratios = r.rounds.map((x) => x.mixer / x.skel);
    console.log(
      `${asset} ${r.clip} ×${count}: AnimationMixer ${median(mixer).toFixed(3)} ms a frame ` +
        `(${Math.min(...mixer).toFixed(3)}–${Math.max(...mixer).toFixed(3)}), skel ${median(skel).toFixed(3)} ms ` +
        `(${Math.min(...skel).toFixed(3)}–${Math.max(...skel).toFixed(3)}); mixer / skel ${median(ratios).toFixed(2)}× ` +
        `(${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)}) over ${r.rounds.length} rounds of ${r.frames} frames; ` +
        `skinning "direct" ${median(r.rounds.map((x) => x.skelDirect)).toFixed(3)} ms (mixer / direct ${median(r.rounds.map((x) => x.mixer / x.skelDirect)).toFixed(2)}×); ` +
        `of skel's: its ticks ${median(r.rounds.map((x) => x.skelTicks)).toFixed(3)} ms, three.js's world matrices and skeletons ` +
        `${median(r.rounds.map((x) => x.threeShare)).toFixed(3)} ms`,
    );
  }
}
