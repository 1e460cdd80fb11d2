// The Cluster view (#/cluster, docs/web.md): reached from the header; a server with a concurrency
// limit (--limit gpu=1) shows itself as its one node (up), the running job of the tag, the limit
// full (1 / 1) and the other job of the tag queued; after SIGTERM the node is shown draining (the
// page polls GET /v1/cluster), and a second signal ends the drain.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { main, SOURCE, startServer, launchBrowser, newPage, waitFor, check, log, assertNoPageErrors } from "./harness.mjs";

await main(async ({ tplan, outDir }) => {
  const { base, proc } = await startServer(tplan, outDir, ["--limit", "gpu=1", "--drain-timeout", "600"]);
  const post = async (body) => {
    const r = await fetch(base + "/v1/jobs", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
    check(r.status === 201, `POST /v1/jobs: ${r.status}`);
    return (await r.json()).id;
  };
  // a script whose goal is never reached, at 1e9 iterations: plans until stopped (a shipped domain
  // may solve within seconds, and the drain then ends with it: the server exits before the page
  // sees it draining)
  const tiny = readFileSync(join(SOURCE, "tests/service/scripts/tiny.lua"), "utf8");
  const never = tiny.replace("goal = function(s) return s.t > 0.2 * W end", "goal = function(s) return false end")
    .replace("max_iters = 300", "max_iters = 1000000000");
  check(never.includes("return false") && never.includes("1000000000"), "tiny.lua changed: the never-solved script");
  const long = { script: never, time_limit: 300, tags: ["gpu"], name: "held" };
  const a = await post(long);
  const b = await post(long);
  const browser = await launchBrowser();
  const page = await newPage(browser);

  log("the header's Cluster link opens the view");
  await page.goto(base + "/", { waitUntil: "load" });
  await page.click('header nav a[href="#/cluster"]');
  await waitFor(page, '.cluster-page[data-store="sqlite"] tr.node[data-state="up"]', "this server as its one node, up");
  check(await page.evaluate(() => document.title) === "cluster · tplan", "the title");

  log("the running job of the tag, the limit full, the other job queued");
  await waitFor(page, `tr.running-job[data-id="${a}"]`, `job ${a} running`);
  const full = await waitFor(page, 'tr.limit[data-tag="gpu"] td.count.full', "the gpu limit full");
  check(await full.evaluate((e) => e.textContent) === "1 / 1", "the limit's count");
  check(await page.$(`tr.running-job[data-id="${b}"]`) === null, `job ${b} is held by the limit`);
  await page.waitForFunction(() => /1 running · 1 queued/.test(document.querySelector(".cluster-summary").textContent),
    { timeout: 30000 });
  const name = await page.$eval(`tr.running-job[data-id="${a}"] td:nth-child(3)`, (e) => e.textContent);
  check(name === "held", `the job's name: ${name}`);
  await page.screenshot({ path: `${outDir}/cluster.png` });

  log("the job's link opens its page");
  await page.click(`tr.running-job[data-id="${a}"] a`);
  await waitFor(page, `.job-page[data-id="${a}"]`, `job ${a}'s page`);
  await page.goBack();
  await waitFor(page, `tr.running-job[data-id="${a}"]`, "back on the Cluster view");

  log("SIGTERM: the node is shown draining; a second signal ends the drain");
  const exited = new Promise((res) => proc.on("exit", (code, signal) => res({ code, signal })));
  const unavailable = []; // the 503 answers: only health's (draining) is expected
  page.on("response", (r) => r.status() === 503 && unavailable.push(new URL(r.url()).pathname));
  proc.kill("SIGTERM");
  await waitFor(page, 'tr.node[data-state="draining"]', "this server draining", 30000);
  await page.waitForFunction(() => /this server is draining/.test(document.querySelector(".cluster-summary").textContent),
    { timeout: 30000 });
  await page.waitForFunction(() => /^draining · 2 workers/.test(document.getElementById("health").textContent) &&
    document.getElementById("health").classList.contains("bad"), { timeout: 30000 }); // health 503 draining
  await page.screenshot({ path: `${outDir}/cluster-draining.png` });
  check(unavailable.length > 0 && unavailable.every((u) => u === "/v1/health"), `503 answers: ${unavailable.join(", ")}`);
  assertNoPageErrors(page, (e) => /status of 503/.test(e)); // health's, checked above
  proc.kill("SIGINT");
  const e = await exited;
  check(e.code === 0, `tplan serve exit after the drain: ${e.signal || e.code}`);
});
