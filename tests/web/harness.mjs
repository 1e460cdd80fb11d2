// Shared by the web page's browser tests: starts `tplan serve` on a free port in a fresh data
// directory (waits for its ready line, never sleeps), launches the system browser headless
// through puppeteer-core from web/node_modules, and cleans up. The browser is Debian's chromium
// (DevTools protocol), or firefox-esr (WebDriver BiDi) with `--browser firefox` after the
// arguments. Exit 77 (ctest SKIP_RETURN_CODE) only when that browser or web/node_modules is missing.
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const SOURCE = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
export const WEB = join(SOURCE, "web");
export const CHROMIUM = process.env.TPLAN_CHROMIUM || "/usr/bin/chromium";
export const FIREFOX = process.env.TPLAN_FIREFOX || "/usr/bin/firefox-esr";
const BROWSERS = { chromium: CHROMIUM, firefox: FIREFOX };
// The browser the tests drive: "chromium" or "firefox" (set by main from the command line).
export let BROWSER = "chromium";
export const SKIP = 77;

const cleanups = [];
let OUT = ".";

export function log(...a) {
  console.log(`[${new Date().toISOString().slice(11, 23)}]`, ...a);
}

export function fail(message) {
  throw new Error(message);
}

export function check(cond, message) {
  if (!cond) fail(message);
}

// Runs the test body; cleans up (browser, server) whatever happens; exit 0, 1 or 77.
export async function main(body, { browser = true } = {}) {
  const [tplan, outDir, ...opts] = process.argv.slice(2);
  if (opts.length === 2 && opts[0] === "--browser" && opts[1] in BROWSERS) BROWSER = opts[1];
  if (!tplan || !outDir || (opts.length && BROWSER !== opts[1])) {
    console.error("usage: node test.mjs path/to/tplan OUTDIR [--browser chromium|firefox]");
    process.exit(2);
  }
  const exe = BROWSERS[BROWSER];
  if (browser && !existsSync(exe)) {
    console.log(`SKIP: no ${BROWSER} at ${exe} (.ci/install-deps installs it)`);
    process.exit(SKIP);
  }
  if (browser && !existsSync(join(WEB, "node_modules/puppeteer-core/package.json"))) {
    console.log("SKIP: web/node_modules has no puppeteer-core (.ci/install-deps runs npm ci in web/)");
    process.exit(SKIP);
  }
  if (!existsSync(join(WEB, "node_modules/three/build/three.module.js"))) {
    console.log("SKIP: web/node_modules has no three (.ci/install-deps runs npm ci in web/)");
    process.exit(SKIP);
  }
  OUT = outDir;
  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(outDir, { recursive: true });
  let code = 0;
  try {
    await body({ tplan, outDir });
    log("PASS");
  } catch (err) {
    console.error("FAIL:", err && err.stack ? err.stack : err);
    code = 1;
  }
  for (const c of cleanups.reverse()) {
    try {
      await c();
    } catch (err) {
      console.error("cleanup:", err.message);
      code = code || 1;
    }
  }
  process.exit(code);
}

// A child process whose stderr is kept and which is stopped at the end of the test (SIGTERM, then
// SIGKILL after graceMs); onStopped(exit) may fail the test on how it ended.
function spawnTracked(cmd, args, stdio, graceMs, onStopped) {
  const proc = spawn(cmd, args, { stdio });
  let stderr = "";
  proc.stderr.on("data", (d) => (stderr += d));
  let exited = null;
  const exitedP = new Promise((res) => proc.on("exit", (c, s) => res((exited = { code: c, signal: s }))));
  cleanups.push(async () => {
    if (exited) return;
    proc.kill("SIGTERM");
    const t = setTimeout(() => proc.kill("SIGKILL"), graceMs);
    const e = await exitedP;
    clearTimeout(t);
    if (onStopped) onStopped(e, stderr);
  });
  return { proc, exitedP, stderr: () => stderr };
}

// Starts the server on a port the system picks (--port 0); resolves with its base URL, read from
// the ready line it prints.
export function startServer(tplan, outDir, extra = []) {
  const data = join(outDir, "data");
  // --drain-timeout 0: the SIGTERM at the end stops at once (a drain would give running jobs 30 s)
  const args = ["serve", "--port", "0", "--data", data, "--workers", "2", "--web", WEB, "--drain-timeout", "0", ...extra];
  log("tplan", args.join(" "));
  const { proc, exitedP, stderr: err } = spawnTracked(tplan, args, ["ignore", "pipe", "pipe"], 20000, (e, stderr) => {
    if (e.signal || e.code !== 0) fail(`tplan serve stopped with ${e.signal || "exit " + e.code}\n${stderr.slice(-2000)}`);
  });
  return new Promise((res, rej) => {
    let out = "";
    const timer = setTimeout(() => rej(new Error(`no ready line from tplan serve within 60 s; stderr:\n${err()}`)), 60000);
    proc.stdout.on("data", (d) => {
      out += d;
      const m = /listening on (http:\/\/[^,\s]+),/.exec(out);
      if (m) {
        clearTimeout(timer);
        log(m[0]);
        res({ base: m[1], proc, stderr: err });
      }
    });
    exitedP.then((e) => {
      clearTimeout(timer);
      rej(new Error(`tplan serve exited (${e.signal || e.code}) before it was ready:\n${err()}`));
    });
  });
}

// A private X server (Xvfb, which picks a free display itself: -displayfd, no race between tests
// run in parallel); resolves with its DISPLAY. Headless Firefox has WebGL only with a display: it
// creates its GL contexts through GLX (here Mesa's llvmpipe); with none, WebGL is unavailable
// (FEATURE_FAILURE_WEBGL_EXHAUSTED_DRIVERS). The page is still drawn headless, not in a window.
function startXvfb() {
  const { proc, exitedP, stderr } = spawnTracked("Xvfb", ["-displayfd", "3", "-screen", "0", "1366x768x24", "-nolisten", "tcp"],
                                                 ["ignore", "ignore", "pipe", "pipe"], 10000, null);
  return new Promise((res, rej) => {
    let out = "";
    const timer = setTimeout(() => rej(new Error(`Xvfb gave no display within 30 s:\n${stderr()}`)), 30000);
    proc.stdio[3].on("data", (d) => {
      out += d;
      if (/\n/.test(out)) {
        clearTimeout(timer);
        log(`Xvfb on :${out.trim()}`);
        res(`:${out.trim()}`);
      }
    });
    proc.on("error", (err) => {
      clearTimeout(timer);
      rej(new Error(`cannot start Xvfb (the xvfb package; .ci/install-deps installs it): ${err.message}`));
    });
    exitedP.then((e) => {
      clearTimeout(timer);
      rej(new Error(`Xvfb exited (${e.signal || e.code}) before giving a display:\n${stderr()}`));
    });
  });
}

export async function launchBrowser() {
  const require = createRequire(join(WEB, "package.json"));
  const puppeteer = require("puppeteer-core");
  let browser;
  if (BROWSER === "firefox") {
    const display = await startXvfb();
    browser = await puppeteer.launch({
      browser: "firefox", executablePath: FIREFOX, headless: true,
      args: ["--width=1366", "--height=768"],
      env: { ...process.env, DISPLAY: display },
    });
  } else {
    const args = ["--use-gl=angle", "--use-angle=swiftshader", "--enable-unsafe-swiftshader", "--window-size=1366,768"];
    if (process.getuid && process.getuid() === 0) args.push("--no-sandbox");
    browser = await puppeteer.launch({ executablePath: CHROMIUM, headless: true, args });
  }
  cleanups.push(() => browser.close());
  log(`browser: ${await browser.version()}`);
  return browser;
}

// A new page that records uncaught errors and failed requests (checked by assertNoPageErrors).
export async function newPage(browser) {
  const page = await browser.newPage();
  await page.setViewport({ width: 1366, height: 768 });
  page.errors = [];
  page.on("pageerror", (e) => page.errors.push(`page error: ${e.message}`));
  page.on("console", (m) => {
    if (m.type() === "error") page.errors.push(`console error: ${m.text()}`);
  });
  page.on("requestfailed", (r) => {
    const why = r.failure() ? r.failure().errorText : "";
    // aborted by the page itself (a navigation or a reload during a request, EventSource.close):
    // Chromium's and Firefox's names for it
    if (why !== "net::ERR_ABORTED" && why !== "NS_BINDING_ABORTED") page.errors.push(`request failed: ${r.url()} ${why}`);
  });
  return page;
}

export function assertNoPageErrors(page, allow = () => false) {
  const errs = page.errors.filter((e) => !allow(e));
  check(!errs.length, `the page reported errors:\n${errs.join("\n")}`);
}

// page.waitForSelector with a message naming what was awaited.
export async function waitFor(page, selector, what, timeout = 60000) {
  try {
    return await page.waitForSelector(selector, { timeout });
  } catch (err) {
    const shot = join(OUT, `timeout-${Date.now()}.png`);
    await page.screenshot({ path: shot }).catch(() => {});
    fail(`timed out after ${timeout / 1000} s waiting for ${what} (${selector}); screenshot ${shot}`);
  }
}

export { join };
