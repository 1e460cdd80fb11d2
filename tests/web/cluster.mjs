// The Cluster view (#/cluster, docs/web.md): reached from the header; a server with a concurrency
// limit (--limit gpu=1) shows itself as its one node (up), the running job of the tag, the limit
// full (1 / 1) and the other job of the tag queued; after SIGTERM the node is shown draining (the
// page polls GET /v1/cluster), and a second signal ends the drain.
import { main, startServer, launchBrowser, newPage, waitFor, check, log, assertNoPageErrors } from "./harness.mjs";

await main(async ({ tplan, outDir }) => {
  const { base, proc } = await startServer(tplan, outDir, ["--limit", "gpu=1", "--drain-timeout", "600"]);
  const post = async (body) => {
    const r = await fetch(base + "/v1/jobs", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
    check(r.status === 201, `POST /v1/jobs: ${r.status}`);
    return (await r.json()).id;
  };
  // minigolf_random at 1e9 iterations: plans until stopped (no solution in 300 s)
  const long = { domain: "minigolf_random", max_iters: 1000000000, time_limit: 300, tags: ["gpu"], name: "held" };
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
  proc.kill("SIGTERM");
  await waitFor(page, 'tr.node[data-state="draining"]', "this server draining", 30000);
  await page.waitForFunction(() => /this server is draining/.test(document.querySelector(".cluster-summary").textContent),
    { timeout: 30000 });
  await page.waitForFunction(() => /^draining · 2 workers/.test(document.getElementById("health").textContent) &&
    document.getElementById("health").classList.contains("bad"), { timeout: 30000 }); // health 503 draining
  await page.screenshot({ path: `${outDir}/cluster-draining.png` });
  assertNoPageErrors(page);
  proc.kill("SIGINT");
  const e = await exited;
  check(e.code === 0, `tplan serve exit after the drain: ${e.signal || e.code}`);
});
