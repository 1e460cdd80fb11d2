// The job page of a job that a drain handed back with its best plan kept (docs/service.md#drain): a
// server given SIGTERM (--drain-timeout 1) in the middle of a job with no solution hands it back with
// an interim plan; after the restart, while the job is planned again, its page says an interim plan
// exists and links it (the link serves the plan, X-Tplan-Plan: interim); no page error.
import { readFileSync } from "node:fs";
import { main, startServer, launchBrowser, newPage, waitFor, check, log, assertNoPageErrors, join, SOURCE } from "./harness.mjs";

// never solves (its goal is never reached): runs to its time limit, as service_crash.py's NEVER
const TINY = readFileSync(join(SOURCE, "tests/service/scripts/tiny.lua"), "utf8");
const NEVER = TINY.replace("goal = function(s) return s.t > 0.2 * W end", "goal = function(s) return false end")
  .replace("max_iters = 300", "max_iters = 1000000000");
check(NEVER !== TINY && NEVER.includes("return false"), "tiny.lua changed: NEVER no longer replaces its goal");

async function json(base, method, path, body) {
  const r = await fetch(base + path, { method, headers: { "Content-Type": "application/json" }, body: body && JSON.stringify(body) });
  return { status: r.status, headers: r.headers, body: await r.json() };
}

// Polls the job until pred holds (an event of the job: a status, its interim plan), at most 60 s.
async function waitJob(base, id, pred, what) {
  const until = Date.now() + 60000;
  for (;;) {
    const { body } = await json(base, "GET", `/v1/jobs/${id}`);
    if (pred(body)) return body;
    check(Date.now() < until, `job ${id}: timed out waiting for ${what} (now ${JSON.stringify(body).slice(0, 300)})`);
    await new Promise((r) => setTimeout(r, 100)); // a poll interval: the loop ends on the event
  }
}

await main(async ({ tplan, outDir }) => {
  const first = await startServer(tplan, outDir, ["--drain-timeout", "1"]);
  const { status, body: acc } = await json(first.base, "POST", "/v1/jobs", { script: NEVER, time_limit: 300 });
  check(status === 201, `POST /v1/jobs: ${status} ${JSON.stringify(acc)}`);
  await waitJob(first.base, acc.id, (j) => j.status === "running", "running");
  log("SIGTERM: the drain hands the job back with its best plan");
  const exited = new Promise((r) => first.proc.on("exit", (c, s) => r({ code: c, signal: s })));
  first.proc.kill("SIGTERM");
  const e = await exited;
  check(e.code === 0, `the drained server exited ${e.signal || e.code}: ${first.stderr().slice(-1500)}`);
  check(first.stderr().includes(`job ${acc.id} handed back to the queue with its best approximate plan kept as interim plan 1`),
        `no hand-back in the log: ${first.stderr().slice(-1500)}`);

  const { base } = await startServer(tplan, outDir); // planned again from the start
  const job = await waitJob(base, acc.id, (j) => j.status === "running" && j.interim_plan, "running with its interim plan");
  const browser = await launchBrowser();
  const page = await newPage(browser);
  await page.goto(`${base}/#/jobs/${acc.id}`, { waitUntil: "load" });
  const note = await waitFor(page, ".interim", "the job page's interim plan line");
  const text = await note.evaluate((n) => n.textContent);
  check(text.includes("interim plan 1") && text.includes("iterations"), `the interim line says: ${text}`);
  const href = await page.$eval(".interim a", (a) => a.getAttribute("href"));
  check(href === job.interim_plan.url, `its link is ${href}, not ${job.interim_plan.url}`);
  const r = await fetch(base + href);
  check(r.status === 200 && r.headers.get("x-tplan-plan") === "interim", `GET ${href}: ${r.status} ${r.headers.get("x-tplan-plan")}`);
  check((await r.json()).status === "approximate", "the interim plan is not an approximate plan file");
  await page.screenshot({ path: join(outDir, "interim.png") });
  log("the job ends: its own plan replaces the interim one, the line goes");
  const { body: end } = await json(base, "POST", `/v1/jobs/${acc.id}/stop`);
  check(end.status === "approximate" && end.interim_plan === null, `stopped: ${JSON.stringify(end).slice(0, 300)}`);
  await page.waitForFunction(() => !document.querySelector(".interim") && document.querySelector(".downloads"), { timeout: 30000 });
  assertNoPageErrors(page);
});
