// The web page end to end: submit minigolf from the New-job form, follow the job page to
// `solved`, see it in the jobs list, play it, and check the 3D view: the canvas is not blank and
// differs between two timeline positions; a screenshot is saved under OUTDIR.
import { main, startServer, launchBrowser, newPage, waitFor, check, log, assertNoPageErrors, join } from "./harness.mjs";

// Statistics of the WebGL canvas: pixels unlike the background and distinct colours. The frame is
// drawn and read in the same task (the canvas keeps no copy) and kept in the page as
// window.tplanFrames[name], so that two frames are compared there (framesDiffering): sending the
// pixels themselves to the test costs minutes through WebDriver BiDi (every number a JSON object).
function canvasPixels(name) {
  window.tplanPlayer.drawNow();
  const c = document.querySelector(".player-canvas");
  const g = Object.assign(document.createElement("canvas"), { width: c.width, height: c.height }).getContext("2d");
  g.drawImage(c, 0, 0);
  const d = g.getImageData(0, 0, c.width, c.height).data;
  (window.tplanFrames ||= {})[name] = d;
  const bg = [d[0], d[1], d[2]]; // a corner: the clear colour or the ground
  let unlike = 0;
  const colours = new Set();
  for (let i = 0; i < d.length; i += 4) {
    if (Math.abs(d[i] - bg[0]) + Math.abs(d[i + 1] - bg[1]) + Math.abs(d[i + 2] - bg[2]) > 30) unlike++;
    colours.add((d[i] << 16) | (d[i + 1] << 8) | d[i + 2]);
  }
  return { width: c.width, height: c.height, unlike, colours: colours.size };
}

// Pixels that differ between two frames kept by canvasPixels.
function framesDiffering(x, y) {
  const a = window.tplanFrames[x], b = window.tplanFrames[y];
  let n = 0;
  for (let i = 0; i < a.length; i += 4) {
    if (Math.abs(a[i] - b[i]) + Math.abs(a[i + 1] - b[i + 1]) + Math.abs(a[i + 2] - b[i + 2]) > 30) n++;
  }
  return n;
}

// Waits until the player drew the state it was brought to (it draws on the next animation frame).
async function drawn(page) {
  await page.waitForFunction(() => window.tplanPlayer && !window.tplanPlayer.dirty, { timeout: 30000, polling: "raf" });
}

await main(async ({ tplan, outDir }) => {
  const { base } = await startServer(tplan, outDir);
  const browser = await launchBrowser();
  const page = await newPage(browser);

  log("open the page, fill the New-job form: minigolf");
  await page.goto(base + "/", { waitUntil: "load" });
  await waitFor(page, "select#domain option[value=minigolf]", "the domain picker with minigolf");
  await page.select("select#domain", "pool"); // the form follows the domain: pool's parameters
  await waitFor(page, "#param-mode", "pool's parameter 'mode' in the form");
  await page.select("select#domain", "minigolf");
  await page.waitForFunction(() => !document.querySelector("#param-mode"), { timeout: 10000 });
  const tree = await page.$eval("#pl-tree", (e) => e.checked);
  check(tree, "the 'also write the search tree' box should be checked by default");
  await page.click("form.new-job button[type=submit]");

  await page.waitForFunction(() => /^#\/jobs\/\d+$/.test(location.hash) || !document.querySelector(".form-error").hidden, { timeout: 30000 });
  const formError = await page.evaluate(() => (/^#\/jobs\//.test(location.hash) ? "" : document.querySelector(".form-error").textContent));
  check(!formError, `the form shows an error: ${formError}`);
  const id = Number((await page.evaluate(() => location.hash)).split("/")[2]);
  log(`job ${id}: waiting for solved on the job page`);
  await waitFor(page, `.job-page[data-id="${id}"][data-status="solved"]`, `job ${id} solved on its page`, 180000);
  const status = await page.$eval(".job-status", (e) => e.textContent);
  check(status === "solved", `the job page's status badge says "${status}"`);

  log("the jobs list shows it");
  await waitFor(page, `tr.job-row[data-id="${id}"][data-status="solved"]`, `job ${id} as solved in the jobs list`);
  const row = await page.$eval(`tr.job-row[data-id="${id}"]`, (e) => e.innerText);
  check(/minigolf/.test(row) && /bgt/.test(row), `the jobs list row of job ${id} lacks domain or planner: ${row}`);

  log("summary and downloads");
  const links = await page.$$eval(".downloads a", (as) => as.map((a) => a.getAttribute("href")));
  check(links.includes(`/v1/jobs/${id}/plan`) && links.includes(`/v1/jobs/${id}/tree`), `download links: ${links}`);
  const summary = await page.$eval(".summary", (e) => e.innerText);
  check(/steps/.test(summary) && /nodes/.test(summary), `the summary lacks steps/nodes: ${summary}`);

  log("the player: plan and tree loaded");
  await waitFor(page, ".player .player-canvas", "the 3D player");
  await page.waitForFunction(() => window.tplanPlayer && window.tplanPlayer.treeLayer, { timeout: 60000 });
  const info = await page.evaluate(() => ({ steps: tplanPlayer.steps, tree: tplanPlayer.treeLayer.info }));
  log(`player: ${info.steps} steps, tree ${info.tree}`);
  check(info.steps > 1, "the plan has fewer than 2 steps");

  log("press play; it plays, then pause");
  await page.click('.player-bar button[title^="play / pause"]');
  await page.waitForFunction(() => document.querySelector(".player").dataset.playing === "true", { timeout: 10000 });
  await page.waitForFunction(() => Number(document.querySelector(".player").dataset.step) > 0, { timeout: 60000, polling: "raf" });
  await page.keyboard.press(" "); // space: the key value, which both protocols know (BiDi has no "Space" name)
  await page.waitForFunction(() => document.querySelector(".player").dataset.playing === "false", { timeout: 10000 });

  log("two timeline positions: step 0 (Home) and the last step (the scrubber)");
  await page.keyboard.press("Home");
  await page.waitForFunction(() => document.querySelector(".player").dataset.step === "0", { timeout: 10000 });
  await drawn(page);
  const first = await page.evaluate(canvasPixels, "first");
  await page.$eval(".scrub", (s) => {
    s.value = s.max;
    s.dispatchEvent(new Event("input", { bubbles: true }));
  });
  await page.waitForFunction((n) => document.querySelector(".player").dataset.step === String(n), { timeout: 10000 }, info.steps);
  await drawn(page);
  const last = await page.evaluate(canvasPixels, "last");
  const differ = await page.evaluate(framesDiffering, "first", "last");
  const total = first.width * first.height;
  log(`canvas ${first.width}x${first.height}: ${first.unlike} pixels unlike the corner, ${first.colours} colours; ` +
      `${differ} pixels differ between step 0 and step ${info.steps}`);
  check(first.unlike > total * 0.01 && first.colours >= 16, "the canvas looks blank");
  check(differ >= 20, "the canvas does not change between step 0 and the last step");

  log("keys: ← one step back from the end, ] doubles the speed");
  await page.keyboard.press("ArrowLeft");
  await page.waitForFunction((n) => document.querySelector(".player").dataset.step === String(n - 1), { timeout: 10000 }, info.steps);
  await page.keyboard.press("]");
  const speed = await page.$eval(".player-bar .speed", (e) => e.textContent);
  check(speed === "2×", `speed after ] is ${speed}`);

  const shot = join(outDir, "job-page.png");
  await page.screenshot({ path: shot });
  log(`screenshot ${shot}`);
  assertNoPageErrors(page);
});
