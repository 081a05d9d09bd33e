// Headless-Chromium check of the built demo page (`cargo xtask web --out DIR`), no npm
// packages: serves DIR on 127.0.0.1, drives Debian's chromium through chromedriver's
// WebDriver HTTP API (Node's own fetch), once per backend, waits for <body data-skel-ready>
// or data-skel-error, and saves a screenshot of the page.
//
//   node scripts/web/check.mjs --dir target/web --shots target/web-check [--require webgpu]
//       [--backends webgpu,webgl2] [--asset URL-relative-to-the-page] [--timeout SECONDS]
//
// Exit status 0 when every backend ended in ready or error (never a hang or a panic) and every
// --require'd backend is ready. Prints one JSON line per backend.
import { spawn } from "node:child_process";
import { createServer } from "node:http";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { extname, join, normalize } from "node:path";

const args = Object.fromEntries(
  process.argv.slice(2).reduce((acc, a, i, all) => (a.startsWith("--") ? [...acc, [a.slice(2), all[i + 1]]] : acc), []),
);
const dir = args.dir ?? "target/web";
const shots = args.shots ?? "target/web-check";
const required = (args.require ?? "").split(",").filter(Boolean);
const timeoutMs = Number(args.timeout ?? 120) * 1000;
const chromium = args.chromium ?? "/usr/bin/chromium";
const chromedriver = args.chromedriver ?? "/usr/bin/chromedriver";

const common = ["--headless", "--no-sandbox", "--no-first-run", "--disable-quic", "--disable-background-networking",
  "--disable-component-update", "--disable-sync", "--window-size=800,700"];
const FLAGS = {
  webgpu: [...common, "--enable-unsafe-webgpu", "--enable-unsafe-swiftshader", "--use-angle=swiftshader",
    "--enable-features=Vulkan", "--use-vulkan=swiftshader"],
  webgl2: [...common, "--disable-gpu"],
};
const TYPES = { ".html": "text/html", ".js": "text/javascript", ".wasm": "application/wasm", ".glb": "model/gltf-binary" };

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function serve() {
  const server = createServer((req, res) => {
    const path = normalize(decodeURIComponent(req.url.split("?")[0])).replace(/^(\.\.[/\\])+/, "");
    const file = join(dir, path.endsWith("/") ? path + "index.html" : path);
    try {
      const body = readFileSync(file);
      res.writeHead(200, { "Content-Type": TYPES[extname(file)] ?? "application/octet-stream" });
      res.end(body);
    } catch {
      res.writeHead(404).end("not found");
    }
  });
  return new Promise((r) => server.listen(0, "127.0.0.1", () => r(server)));
}

async function wd(base, method, path, body) {
  const res = await fetch(base + path, {
    method,
    headers: { "Content-Type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = await res.json();
  if (!res.ok) throw new Error(`${method} ${path}: ${JSON.stringify(json.value).slice(0, 400)}`);
  return json.value;
}

async function check(base, pageUrl, backend) {
  const started = Date.now();
  const session = await wd(base, "POST", "/session", {
    capabilities: { alwaysMatch: { browserName: "chrome", "goog:loggingPrefs": { browser: "ALL" },
      "goog:chromeOptions": { binary: chromium, args: FLAGS[backend] } } },
  });
  const s = `/session/${session.sessionId}`;
  const result = { backend, ready: null, error: null, stats: null, ms: 0, shot: null };
  try {
    const asset = args.asset ? `&asset=${encodeURIComponent(args.asset)}` : "";
    await wd(base, "POST", `${s}/url`, { url: `${pageUrl}?backend=${backend}${asset}` });
    const probe = "const b = document.body; return [b.getAttribute('data-skel-ready'), " +
      "b.getAttribute('data-skel-error'), (document.getElementById('stats') || {}).textContent || ''];";
    while (Date.now() - started < timeoutMs) {
      const [ready, error] = await wd(base, "POST", `${s}/execute/sync`, { script: probe, args: [] });
      if (ready !== null || error !== null) {
        result.ready = ready;
        result.error = error;
        break;
      }
      await sleep(250);
    }
    result.ms = Date.now() - started;
    if (result.ready !== null) await sleep(1500); // a few more frames for the stats and the picture
    const [, lateError, stats] = await wd(base, "POST", `${s}/execute/sync`, { script: probe, args: [] });
    result.error = result.error ?? lateError;
    result.stats = stats;
    const body = await wd(base, "POST", `${s}/element`, { using: "css selector", value: "body" });
    const png = await wd(base, "GET", `${s}/element/${Object.values(body)[0]}/screenshot`);
    result.shot = join(shots, `${backend}${args.asset ? "-" + args.asset.replace(/\W+/g, "_") : ""}.png`);
    writeFileSync(result.shot, Buffer.from(png, "base64"));
    const logs = await wd(base, "POST", `${s}/se/log`, { type: "browser" }).catch(() => []);
    result.console = logs.filter((l) => l.level !== "INFO").map((l) => l.message.slice(0, 300)).slice(0, 8);
  } finally {
    await wd(base, "DELETE", s).catch(() => {});
  }
  return result;
}

mkdirSync(shots, { recursive: true });
const server = await serve();
const pageUrl = `http://127.0.0.1:${server.address().port}/`;
const port = 9500 + Math.floor(Math.random() * 400);
const driver = spawn(chromedriver, [`--port=${port}`], { stdio: "ignore" });
const base = `http://127.0.0.1:${port}`;
let failed = false;
try {
  for (let i = 0; ; i++) {
    try { await wd(base, "GET", "/status"); break; } catch (e) { if (i > 40) throw e; await sleep(250); }
  }
  for (const backend of (args.backends ?? "webgpu,webgl2").split(",")) {
    const r = await check(base, pageUrl, backend);
    console.log(JSON.stringify(r));
    const hung = r.ready === null && r.error === null;
    const panicked = (r.error ?? "").includes("panic");
    if (hung || panicked || (required.includes(backend) && (r.ready !== backend || r.error !== null))) failed = true;
  }
} finally {
  driver.kill();
  server.close();
}
process.exit(failed ? 1 : 0);
