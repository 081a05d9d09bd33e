// skel against three.js in one headless Chromium page (issue 32, "Size and speed"; never in CI).
//
//   cargo xtask web --out target/web          # the wasm page (this script builds nothing)
//   (cd scripts/web-bench && npm ci)          # three.js, pinned in package.json
//   node scripts/web-bench/run.mjs target/web [--query 'n=100,1000&rounds=10&frames=200']
//        [--wasm other_bg.wasm] [--demo] [--out result.json] [--stage target/web-bench]
//
// It copies the built page (DIR), crates/skel-web/web/bench.{html,js}, the built-in
// character's GLB and three.js's modules from node_modules into a stage folder (default
// DIR/../web-bench), with --wasm a replacement skel_web_bg.wasm (an optimised one), serves it
// on 127.0.0.1, starts Debian's /usr/bin/chromedriver and drives /usr/bin/chromium over the W3C
// WebDriver HTTP API (as xtask's webdriver.rs does from Rust), loads bench.html, waits for
// <body data-bench>, prints a table and writes the JSON. --demo first loads the demo page
// (index.html?backend=B&t=0.437&test=1, WebGPU and WebGL2 as `cargo xtask web --check` does) and
// records whether it got ready and the pose it published.
import { spawn } from "node:child_process";
import { copyFileSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { createServer as createNetServer } from "node:net";
import { dirname, extname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = resolve(HERE, "../..");
const CHROMIUM = "/usr/bin/chromium";
const CHROMEDRIVER = "/usr/bin/chromedriver";
// As xtask/src/web_check.rs, plus no throttling of a page that runs for minutes.
const COMMON = [
  "--headless",
  "--no-sandbox",
  "--no-first-run",
  "--disable-quic",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--window-size=900,1000",
  "--disable-background-timer-throttling",
  "--disable-renderer-backgrounding",
  "--disable-backgrounding-occluded-windows",
];
const WEBGPU = [
  "--enable-unsafe-webgpu",
  "--enable-unsafe-swiftshader",
  "--use-angle=swiftshader",
  "--enable-features=Vulkan",
  "--use-vulkan=swiftshader",
];
const WEBGL2 = ["--disable-gpu"];

function parseArgs(argv) {
  const args = { dir: null, query: "", wasm: null, demo: false, out: null, stage: null };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const value = () => {
      if (i + 1 >= argv.length) throw new Error(`${a} needs a value`);
      return argv[++i];
    };
    if (a === "--query") args.query = value();
    else if (a === "--wasm") args.wasm = resolve(value());
    else if (a === "--out") args.out = resolve(value());
    else if (a === "--stage") args.stage = resolve(value());
    else if (a === "--demo") args.demo = true;
    else if (!a.startsWith("--") && !args.dir) args.dir = resolve(a);
    else throw new Error(`unknown argument ${a}`);
  }
  if (!args.dir) throw new Error("usage: node scripts/web-bench/run.mjs DIR [--query Q] [--wasm F] [--demo] [--out F] [--stage D]");
  args.stage ??= join(dirname(args.dir), "web-bench");
  args.out ??= join(args.stage, "result.json");
  return args;
}

/// The page's files, the bench page, the GLB and three.js into `stage`.
function stageFiles({ dir, stage, wasm }) {
  if (!existsSync(join(dir, "skel_web_bg.wasm"))) {
    throw new Error(`${dir} has no skel_web_bg.wasm: run cargo xtask web --out ${dir} first`);
  }
  const three = join(HERE, "node_modules/three");
  if (!existsSync(three)) throw new Error(`${three} is missing: (cd scripts/web-bench && npm ci)`);
  mkdirSync(stage, { recursive: true });
  for (const name of readdirSync(dir)) {
    if (statSync(join(dir, name)).isFile()) copyFileSync(join(dir, name), join(stage, name));
  }
  if (wasm) copyFileSync(wasm, join(stage, "skel_web_bg.wasm"));
  for (const name of ["bench.html", "bench.js"]) {
    copyFileSync(join(ROOT, "crates/skel-web/web", name), join(stage, name));
  }
  copyFileSync(join(ROOT, "crates/skel/assets/default_character.glb"), join(stage, "default_character.glb"));
  for (const path of [
    "build/three.module.js",
    "build/three.core.js",
    "examples/jsm/loaders/GLTFLoader.js",
    "examples/jsm/utils/BufferGeometryUtils.js",
    "examples/jsm/utils/SkeletonUtils.js",
  ]) {
    mkdirSync(dirname(join(stage, "three", path)), { recursive: true });
    cpSync(join(three, path), join(stage, "three", path));
  }
  const version = JSON.parse(readFileSync(join(three, "package.json"), "utf8")).version;
  return { version, wasmBytes: statSync(join(stage, "skel_web_bg.wasm")).size };
}

const TYPES = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".json": "application/json",
  ".wasm": "application/wasm",
  ".glb": "model/gltf-binary",
};

/// A static server of `stage` on 127.0.0.1; cross-origin isolated, so that performance.now()
/// is not coarsened to 100 µs.
function serve(stage) {
  const server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url, "http://x").pathname);
    const file = join(stage, path === "/" ? "index.html" : path);
    if (!file.startsWith(stage) || !existsSync(file) || !statSync(file).isFile()) {
      res.writeHead(404).end("not found");
      return;
    }
    res.writeHead(200, {
      "Content-Type": TYPES[extname(file)] ?? "application/octet-stream",
      "Cross-Origin-Opener-Policy": "same-origin",
      "Cross-Origin-Embedder-Policy": "require-corp",
      "Cache-Control": "no-store",
    });
    res.end(readFileSync(file));
  });
  return new Promise((ok) => server.listen(0, "127.0.0.1", () => ok(server)));
}

function freePort() {
  return new Promise((ok, fail) => {
    const s = createNetServer();
    s.on("error", fail);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => ok(port));
    });
  });
}

const sleep = (ms) => new Promise((ok) => setTimeout(ok, ms));

/// chromedriver on a free port, and W3C WebDriver commands to it over fetch.
async function startDriver() {
  for (const tool of [CHROMIUM, CHROMEDRIVER]) {
    if (!existsSync(tool)) throw new Error(`${tool} is missing: bash scripts/install-browser.sh`);
  }
  const port = await freePort();
  const child = spawn(CHROMEDRIVER, [`--port=${port}`], { stdio: "ignore" });
  const base = `http://127.0.0.1:${port}`;
  const request = async (method, path, body) => {
    const res = await fetch(base + path, {
      method,
      headers: { "Content-Type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json = await res.json();
    if (!res.ok) throw new Error(`${method} ${path}: ${json?.value?.message ?? res.status}`);
    return json.value;
  };
  const started = Date.now();
  for (;;) {
    try {
      await request("GET", "/status");
      break;
    } catch (e) {
      if (Date.now() - started > 20000) throw new Error(`${CHROMEDRIVER} did not answer: ${e}`);
      await sleep(200);
    }
  }
  const session = async (args) => {
    const value = await request("POST", "/session", {
      capabilities: {
        alwaysMatch: {
          browserName: "chrome",
          "goog:loggingPrefs": { browser: "ALL" },
          "goog:chromeOptions": { binary: CHROMIUM, args },
        },
      },
    });
    const path = `/session/${value.sessionId}`;
    await request("POST", `${path}/timeouts`, { script: 600000, pageLoad: 120000 });
    return {
      version: value.capabilities?.browserVersion,
      navigate: (url) => request("POST", `${path}/url`, { url }),
      execute: (script) => request("POST", `${path}/execute/sync`, { script, args: [] }),
      console: async () =>
        ((await request("POST", `${path}/se/log`, { type: "browser" }).catch(() => [])) ?? [])
          .filter((l) => l.level !== "INFO")
          .map((l) => l.message.slice(0, 300)),
      close: () => request("DELETE", path).catch(() => {}),
    };
  };
  return { session, stop: () => child.kill() };
}

/// Polls the page's <body> attributes until `done` returns a value or `limitMs` passes.
async function waitFor(session, probe, done, limitMs, onProgress) {
  const started = Date.now();
  for (;;) {
    const state = await session.execute(probe);
    const value = done(state);
    if (value !== undefined) return value;
    onProgress?.(state);
    if (Date.now() - started > limitMs) throw new Error(`no result after ${limitMs / 1000} s`);
    await sleep(1000);
  }
}

/// The demo page on one backend: ready (or its error) and the wasm pose of ?test=1.
async function demo(driver, origin, backend) {
  const session = await driver.session([...COMMON, ...(backend === "webgpu" ? WEBGPU : WEBGL2)]);
  try {
    const started = Date.now();
    await session.navigate(`${origin}/?backend=${backend}&t=0.437&test=1`);
    const probe =
      "const b = document.body; return [b.getAttribute('data-skel-ready'), " +
      "b.getAttribute('data-skel-error'), b.getAttribute('data-skel-pose')];";
    const [ready, error, pose] = await waitFor(
      session,
      probe,
      (s) => (s[0] || s[1] ? s : undefined),
      180000,
    );
    const result = { backend, ready, error, ready_s: (Date.now() - started) / 1000, pose };
    if (error) result.console = await session.console();
    return result;
  } finally {
    await session.close();
  }
}

function table(report) {
  const shared = report.results.some((r) => r.three_shared);
  const rows = report.results.map((r) => {
    const cells = [
      r.n,
      r.skel.median_ms_per_frame.toFixed(3),
      r.three.median_ms_per_frame.toFixed(3),
      r.skel.us_per_character.toFixed(2),
      r.three.us_per_character.toFixed(2),
      `${r.ratio.toFixed(1)}×`,
    ];
    if (shared && r.three_shared) {
      cells.push(r.three_shared.us_per_character.toFixed(2), `${r.ratio_shared.toFixed(1)}×`);
    }
    return `| ${cells.join(" | ")} |`;
  });
  const head = [
    "characters",
    "skel ms/frame",
    "three.js ms/frame",
    "skel µs/character",
    "three.js µs/character",
    "three.js / skel",
    ...(shared ? ["three.js, one Skeleton per character: µs/character", "that / skel"] : []),
  ];
  return [`| ${head.join(" | ")} |`, `|${" ---: |".repeat(head.length)}`, ...rows].join("\n");
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  const { version, wasmBytes } = stageFiles(args);
  console.error(`web-bench: staged ${args.stage} (three ${version}, skel_web_bg.wasm ${wasmBytes} bytes)`);
  const server = await serve(args.stage);
  const origin = `http://127.0.0.1:${server.address().port}`;
  const driver = await startDriver();
  const output = { three_npm: version, wasm_bytes: wasmBytes, wasm: args.wasm ?? join(args.dir, "skel_web_bg.wasm") };
  try {
    if (args.demo) {
      output.demo = [];
      for (const backend of ["webgpu", "webgl2"]) {
        const r = await demo(driver, origin, backend);
        console.error(`web-bench: demo on ${backend}: ${r.ready ? `ready (${r.ready} after ${r.ready_s} s)` : `FAILED: ${r.error}`}`);
        output.demo.push(r);
      }
    }
    const session = await driver.session([...COMMON, ...WEBGL2]);
    try {
      output.chromium = session.version;
      const started = Date.now();
      await session.navigate(`${origin}/bench.html${args.query ? "?" + args.query : ""}`);
      const probe =
        "const b = document.body; return [b.getAttribute('data-bench'), " +
        "b.getAttribute('data-bench-error'), b.getAttribute('data-bench-progress')];";
      let last = "";
      const report = await waitFor(
        session,
        probe,
        ([json, error]) => {
          if (error) throw new Error(error);
          return json ? JSON.parse(json) : undefined;
        },
        60 * 60 * 1000,
        ([, , progress]) => {
          if (progress && progress !== last) console.error(`web-bench: ${progress}`);
          last = progress;
        },
      ).catch(async (e) => {
        for (const line of await session.console()) console.error(`web-bench: console: ${line}`);
        throw e;
      });
      report.seconds = (Date.now() - started) / 1000;
      Object.assign(output, report);
    } finally {
      await session.close();
    }
  } finally {
    driver.stop();
    server.close();
  }
  writeFileSync(args.out, JSON.stringify(output, null, 2) + "\n");
  console.log(table(output));
  for (const r of output.results) {
    const sums = Object.entries(r.checksum)
      .filter(([k]) => k !== "relative_difference")
      .map(([k, v]) => `${k} ${v.toFixed(4)}`)
      .join(", ");
    const best = (side) => r[side] && `${side} ${((r[side].min_ms_per_frame * 1000) / r.n).toFixed(2)}`;
    console.log(
      `n=${r.n}: best round, µs/character: ${["skel", "three", "three_shared"].map(best).filter(Boolean).join(", ")}; ` +
        `three / skel ${(r.three.min_ms_per_frame / r.skel.min_ms_per_frame).toFixed(1)}×`,
    );
    console.log(
      `n=${r.n}: checksums ${sums} (skel vs three: relative difference ${r.checksum.relative_difference.toExponential(2)})`,
    );
  }
  console.error(`web-bench: ${output.chromium ? `Chromium ${output.chromium}, ` : ""}${output.seconds.toFixed(0)} s; wrote ${args.out}`);
}

main().catch((e) => {
  console.error(`web-bench: ${e.stack ?? e}`);
  process.exit(1);
});
