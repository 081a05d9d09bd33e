// The three.js adapter against three.js's own AnimationMixer, in headless Chromium: serves
// page.html, check_page.js, the package built by `cargo xtask npm` (target/npm/skel-anim),
// three.js from node_modules and the sample models from ../shared/assets through request
// interception (no server, no network), then prints one row per asset, clip and time and
// fails when a bone is off by more than 1e-5 of the character's diagonal.
import { readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import puppeteer from "puppeteer-core";

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, "../../..");
const pkg = process.env.SKEL_NPM_PACKAGE ?? path.join(repo, "target/npm/skel-anim");
const assets = path.resolve(repo, "../shared/assets");
const TOLERANCE = 1e-5;
const ORIGIN = "http://skel.test";

const routes = [
  ["/pkg/", pkg],
  ["/three/", path.join(here, "node_modules/three")],
  ["/assets/", assets],
];
const types = { ".js": "text/javascript", ".html": "text/html", ".wasm": "application/wasm" };

async function respond(request) {
  const url = new URL(request.url());
  if (url.origin !== ORIGIN) return request.abort();
  let file;
  if (url.pathname === "/favicon.ico") return request.respond({ status: 204, body: "" });
  if (url.pathname === "/") file = path.join(here, "page.html");
  else if (url.pathname === "/check_page.js") file = path.join(here, "check_page.js");
  else {
    const route = routes.find(([prefix]) => url.pathname.startsWith(prefix));
    if (route) file = path.join(route[1], decodeURIComponent(url.pathname.slice(route[0].length)));
  }
  try {
    const body = await readFile(file);
    const type = types[path.extname(file)] ?? "application/octet-stream";
    await request.respond({ status: 200, contentType: type, body });
  } catch {
    await request.respond({ status: 404, body: `not found: ${url.pathname}` });
  }
}

const browser = await puppeteer.launch({
  executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
  headless: true,
  args: ["--no-sandbox", "--disable-gpu"],
});
let failed = false;
try {
  const page = await browser.newPage();
  page.on("console", (m) => console.log(`page: ${m.text()}`));
  page.on("pageerror", (e) => console.log(`page error: ${e.message}`));
  await page.setRequestInterception(true);
  page.on("request", respond);
  await page.goto(`${ORIGIN}/`);
  await page.waitForFunction("window.skelResult !== undefined", { timeout: 120_000 });
  const result = await page.evaluate("window.skelResult");
  if (result.error) throw new Error(result.error);
  console.log(`ok   a bad .glb throws and the module goes on: ${result.badFileMessage}`);
  let worst = 0;
  for (const r of result.rows) {
    const bad = !(r.error <= TOLERANCE) || !(r.moved > 1e-3);
    failed ||= bad;
    worst = Math.max(worst, r.error);
    console.log(
      `${bad ? "FAIL" : "ok  "} ${r.asset} ${r.clip} ${r.driver} t=${r.time.toFixed(3)} s meshes=${r.meshes} error=${r.error.toExponential(2)} of the diagonal (pose moved ${r.moved.toFixed(3)})`,
    );
  }
  console.log(`${result.rows.length} cases, worst ${worst.toExponential(2)} of the diagonal (tolerance ${TOLERANCE})`);
} finally {
  await browser.close();
}
process.exit(failed ? 1 : 0);
