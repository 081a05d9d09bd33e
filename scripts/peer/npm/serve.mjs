// Headless Chromium on a page of this folder, served by request interception (no server, no
// network): page.html with the module script `script` (a file of this folder, which may import
// others of it), the package
// built by `cargo xtask npm` (target/npm/skel-anim, or $SKEL_NPM_PACKAGE), three.js from
// node_modules and the sample models from ../shared/assets. check_three.mjs and
// bench_three.mjs run their pages through it.
import { readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import puppeteer from "puppeteer-core";

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, "../../..");
const pkg = process.env.SKEL_NPM_PACKAGE ?? path.join(repo, "target/npm/skel-anim");
const assets = path.resolve(repo, "../shared/assets");
const ORIGIN = "http://skel.test";

const routes = [
  ["/pkg/", pkg],
  ["/three/", path.join(here, "node_modules/three")],
  ["/assets/", assets],
  ["/fixtures/", path.join(repo, "fixtures")],
];
const types = { ".js": "text/javascript", ".html": "text/html", ".wasm": "application/wasm" };

/**
 * Opens page.html running `script` with the query `query`, waits (up to `timeoutMs`) for the
 * page to set `window.skelResult`, and returns it; throws the page's error when it set one.
 */
export async function runPage(script, query = "", timeoutMs = 120_000) {
  async function respond(request) {
    const url = new URL(request.url());
    if (url.origin !== ORIGIN) return request.abort();
    if (url.pathname === "/favicon.ico") return request.respond({ status: 204, body: "" });
    let file;
    let body;
    if (url.pathname === "/") {
      const html = await readFile(path.join(here, "page.html"), "utf8");
      body = html.replace("/check_page.js", `/${script}`);
      file = "page.html";
    } else if (/^\/[\w-]+\.js$/.test(url.pathname)) {
      // The page's script and the modules it imports from this folder.
      file = path.join(here, url.pathname.slice(1));
    } else {
      const route = routes.find(([prefix]) => url.pathname.startsWith(prefix));
      if (route) file = path.join(route[1], decodeURIComponent(url.pathname.slice(route[0].length)));
    }
    try {
      body ??= await readFile(file);
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
  try {
    const page = await browser.newPage();
    page.on("console", (m) => console.log(`page: ${m.text()}`));
    page.on("pageerror", (e) => console.log(`page error: ${e.message}`));
    await page.setRequestInterception(true);
    page.on("request", respond);
    await page.goto(`${ORIGIN}/${query}`);
    await page.waitForFunction("window.skelResult !== undefined", { timeout: timeoutMs });
    const result = await page.evaluate("window.skelResult");
    if (result.error) throw new Error(result.error);
    return result;
  } finally {
    await browser.close();
  }
}
