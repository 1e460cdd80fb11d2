// Figures for docs/web.md (not a test: nothing here passes or fails on a time):
//   node tests/web/measure.mjs build/tplan OUTDIR
// 1. page load on the loopback: navigation to first paint / first contentful paint / load event,
//    cache disabled, median of 5 loads of `/`; and a solved minigolf job's page to its first 3D
//    frame (plan and tree fetched, parsed, uploaded, drawn).
// 2. 3D playback frame rate in headless chromium with software WebGL (SwiftShader): frames drawn
//    per second of wall time while playing at 1x for 8 s, for a minigolf plan with a
//    100,000-node tree (BK-RRT, 100,000 iterations) and for the 400-dice plan with its tree.
import { main, startServer, launchBrowser, newPage, log, check } from "./harness.mjs";

async function api(base, path, body) {
  const res = await fetch(base + path, body ? { method: "POST", body: JSON.stringify(body), headers: { "Content-Type": "application/json" } } : {});
  const json = await res.json();
  if (!res.ok) throw new Error(`${path}: ${JSON.stringify(json)}`);
  return json;
}

async function solved(base, body) {
  const { id } = await api(base, "/v1/jobs", body);
  for (;;) {
    const j = await api(base, `/v1/jobs/${id}`);
    if (j.status === "solved" || j.status === "approximate") return j;
    check(j.status === "queued" || j.status === "running", `job ${id} ended ${j.status}: ${JSON.stringify(j.error)}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

const median = (a) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)];

async function playbackFps(browser, base, job, label) {
  const page = await newPage(browser);
  await page.setCacheEnabled(false);
  const t0 = Date.now();
  await page.goto(`${base}/#/jobs/${job.id}`, { waitUntil: "load" });
  await page.waitForFunction(() => window.tplanPlayer && window.tplanPlayer.treeLayer && window.tplanPlayer.frames > 0, { timeout: 600000, polling: 100 });
  const ready = Date.now() - t0;
  const r = await page.evaluate(async () => {
    const p = window.tplanPlayer;
    p.seek(0);
    p.play();
    const f0 = p.frames, s0 = p.layers.staticDraws, t0 = performance.now();
    await new Promise((res) => setTimeout(res, 8000));
    const frames = p.frames - f0, s = (performance.now() - t0) / 1000, statics = p.layers.staticDraws - s0;
    p.pause();
    const c = p.renderer.domElement;
    return { fps: frames / s, frames, s, statics, canvas: `${c.width}x${c.height}`, tree: p.treeLayer.info, segments: p.treeLayer.segments, steps: p.steps };
  });
  log(`${label}: page to first frame with the tree ${ready} ms; playback ${r.fps.toFixed(1)} fps (${r.frames} frames in ${r.s.toFixed(1)} s, ${r.statics} redraws of the cached layer), ` +
      `canvas ${r.canvas}, tree ${r.tree} (${r.segments.toLocaleString("en")} segments), ${r.steps} steps`);
  await page.close();
}

await main(async ({ tplan, outDir }) => {
  const { base } = await startServer(tplan, outDir);
  const browser = await launchBrowser();
  const golf = await solved(base, { domain: "minigolf", tree: true });

  const paints = [], loads = [], firstFrame = [];
  for (let i = 0; i < 5; ++i) {
    const page = await newPage(browser);
    await page.setCacheEnabled(false);
    await page.goto(base + "/", { waitUntil: "load" });
    await page.waitForSelector("select#domain option");
    const t = await page.evaluate(() => new Promise((resolve, reject) => {
      const nav = performance.getEntriesByType("navigation")[0];
      const timer = setTimeout(() => reject(new Error("no first-contentful-paint entry within 10 s")), 10000);
      new PerformanceObserver((list, obs) => {
        const e = list.getEntries().find((x) => x.name === "first-contentful-paint");
        if (!e) return;
        obs.disconnect();
        clearTimeout(timer);
        resolve({ fcp: e.startTime, load: nav.loadEventEnd });
      }).observe({ type: "paint", buffered: true });
    }));
    paints.push(t.fcp);
    loads.push(t.load);
    await page.goto("about:blank");
    const t0 = Date.now();
    await page.goto(`${base}/#/jobs/${golf.id}`);
    await page.waitForFunction(() => window.tplanPlayer && window.tplanPlayer.treeLayer && window.tplanPlayer.frames > 0, { timeout: 60000, polling: "raf" });
    firstFrame.push(Date.now() - t0);
    await page.close();
  }
  log(`page / : first contentful paint ${median(paints).toFixed(0)} ms, load event ${median(loads).toFixed(0)} ms (median of 5, cache off; all: ${paints.map((x) => x.toFixed(0)).join(", ")} ms)`);
  log(`minigolf job page to its first 3D frame (plan + tree): ${median(firstFrame)} ms (median of 5; all: ${firstFrame.join(", ")} ms)`);

  const golf100k = await solved(base, { domain: "minigolf", planner: "rrt", max_iters: 100000, solutions: 10000, tree: true });
  await playbackFps(browser, base, golf100k, "minigolf, 100,000-node tree");
  const dice = await solved(base, { domain: "dice", tree: true });
  await playbackFps(browser, base, dice, "dice (400)");
}, {});
