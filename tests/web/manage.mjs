// Managing jobs from the page: parameters with declared choices are lists (pool's mode and target),
// a job's name and tags (form, job page, jobs list), Stop keeps the best plan where Cancel keeps
// none (and the user's own cancel is a note, not a red error), a job that failed before planning
// shows no empty Progress card, a failed script job is edited and resubmitted, Delete removes a
// finished job, the "approximate" badge stays in its column, the header shows the retention, and
// the soccer ball gets a marker of a few pixels whatever the zoom.
import { main, startServer, launchBrowser, newPage, waitFor, check, log, assertNoPageErrors, join } from "./harness.mjs";

// a job that plans until it is stopped or cancelled: minigolf_random finds no solution
const LONG = { max_iters: "1000000000", time_limit: "300" };

async function openForm(page, base) {
  await page.goto(base + "/#/", { waitUntil: "load" });
  await waitFor(page, "select#domain option[value=minigolf]", "the domain picker");
}

async function submitted(page, old) {
  await page.waitForFunction((o) => /^#\/jobs\/\d+$/.test(location.hash) && location.hash !== o, { timeout: 30000 }, old || "");
  return Number((await page.evaluate(() => location.hash)).split("/")[2]);
}

async function longJob(page, base, extra = {}) {
  await openForm(page, base);
  await page.select("select#domain", "minigolf_random");
  for (const [k, v] of Object.entries({ ...LONG, ...extra })) await page.$eval(`#pl-${k}`, (e, x) => (e.value = x), v);
  const old = await page.evaluate(() => location.hash);
  await page.click("form.new-job button[type=submit]");
  const id = await submitted(page, old);
  await waitFor(page, `.job-page[data-id="${id}"][data-status="running"] .stop:not([hidden])`, `job ${id} running with Stop`);
  return id;
}

await main(async ({ tplan, outDir }) => {
  const { base } = await startServer(tplan, outDir);
  const browser = await launchBrowser();
  const page = await newPage(browser);

  log("the header shows the retention policy");
  await page.goto(base + "/", { waitUntil: "load" });
  await page.waitForFunction(() => /keeps 5000 jobs, 7 days, 2048 MB/.test(document.getElementById("health").textContent), { timeout: 30000 });

  log("pool: mode and target are lists of their declared choices");
  await openForm(page, base);
  await page.select("select#domain", "pool");
  await waitFor(page, "select#param-mode", "pool's mode as a select");
  const modes = await page.$$eval("select#param-mode option", (os) => os.map((o) => o.value));
  check(JSON.stringify(modes) === JSON.stringify(["chain", "single"]), `mode choices: ${modes}`);
  const targets = await page.$$eval("select#param-target option", (os) => os.map((o) => o.value));
  check(targets.includes("red") && targets.includes("black") && !targets.includes("cue"), `target choices: ${targets}`);
  check(await page.$eval("select#param-target", (e) => e.value) === "red", "the target's default is not selected");
  check(await page.$("input#param-layout") !== null, "a free string parameter (layout) stays a text box");

  log("name and tags: from the form to the job page and the list");
  await page.select("select#domain", "minigolf");
  await page.type("#job-name", "hole A");
  await page.type("#job-tags", "golf, level-2");
  await page.click("form.new-job button[type=submit]");
  const named = await submitted(page);
  await waitFor(page, `.job-page[data-id="${named}"][data-status="solved"]`, `job ${named} solved`, 120000);
  const title = await page.$eval(".job-head h2", (e) => e.textContent);
  check(/hole A/.test(title), `the job's name is not in its title: ${title}`);
  const tags = await page.$$eval(".job-head .tag", (ts) => ts.map((t) => t.textContent));
  check(JSON.stringify(tags) === JSON.stringify(["golf", "level-2"]), `tags on the page: ${tags}`);
  await waitFor(page, `tr.job-row[data-id="${named}"]`, "the named job in the list");
  const cell = await page.$eval(`tr.job-row[data-id="${named}"] td:nth-child(3)`, (e) => e.textContent);
  check(/hole A/.test(cell), `the list does not show the name: ${cell}`);

  log("Stop keeps the best plan (approximate, with its downloads and player)");
  const stopped = await longJob(page, base);
  await page.click(".job-page .stop");
  await waitFor(page, `.job-page[data-id="${stopped}"][data-status="approximate"]`, `job ${stopped} stopped as approximate`);
  await waitFor(page, ".downloads a", "the plan download of the stopped job");
  check(await page.$eval(".job-error", (e) => e.hidden), "a stopped job shows an error");
  await waitFor(page, `tr.job-row[data-id="${stopped}"][data-status="approximate"]`, "the stopped job in the list");
  // the badge stays inside its cell (it used to run into the domain column)
  const fits = await page.$eval(`tr.job-row[data-id="${stopped}"] td:nth-child(2)`, (td) => {
    const b = td.querySelector(".badge").getBoundingClientRect(), c = td.getBoundingClientRect();
    return b.right <= c.right + 0.5 && b.left >= c.left - 0.5;
  });
  check(fits, "the approximate badge runs out of its cell");

  log("Cancel keeps none and is shown as a note, not an error");
  const cancelled = await longJob(page, base);
  await page.click(".job-page .cancel");
  await waitFor(page, `.job-page[data-id="${cancelled}"][data-status="cancelled"]`, `job ${cancelled} cancelled`);
  check(await page.$eval(".job-error", (e) => e.hidden), "the user's own cancel is shown as an error");
  const note = await page.$eval(".job-note", (e) => (e.hidden ? "" : e.textContent));
  check(/Cancelled/.test(note), `no cancel note: ${note}`);
  check(!(await page.$(".downloads a")), "a cancelled job offers a plan");

  log("a failed script job: no empty Progress card; edit, resubmit");
  await openForm(page, base);
  await page.click("input[name=mode][value=script]");
  await page.type("textarea#script", "local tp = require 'tp'\nerror('not yet')\n");
  await page.type("#job-name", "draft");
  await page.click("form.new-job button[type=submit]");
  const failed = await submitted(page);
  await waitFor(page, `.job-page[data-id="${failed}"][data-status="failed"]`, `job ${failed} failed`, 120000);
  check(await page.$eval(".progress-card", (e) => e.hidden), "a job that failed before planning shows a Progress card");
  await waitFor(page, ".job-page .resubmit:not([hidden])", "Edit and resubmit");
  await page.click(".job-page .resubmit");
  await waitFor(page, 'form.new-job[data-resubmitted="true"]', "the form filled from the failed job");
  const text = await page.$eval("textarea#script", (e) => e.value);
  check(text === "local tp = require 'tp'\nerror('not yet')\n", `the script was not filled in: ${JSON.stringify(text)}`);
  check(await page.$eval("#job-name", (e) => e.value) === "draft", "the name was not filled in");
  await page.$eval("textarea#script", (e) => (e.value = e.value.replace("not yet", "still not")));
  await page.click("form.new-job button[type=submit]");
  const again = await submitted(page);
  check(again > failed, `no new job after resubmitting (${again})`);
  await waitFor(page, `.job-page[data-id="${again}"][data-status="failed"]`, `job ${again} failed`, 120000);
  const msg = await page.$eval(".job-error", (e) => e.innerText);
  check(/job\.lua:2: still not/.test(msg), `the edited script did not run: ${msg}`);

  log("soccer: the ball, a few pixels at the fitted view, gets a marker");
  const soccer = await page.evaluate(async () => (await (await fetch("/v1/jobs", { method: "POST",
    body: JSON.stringify({ domain: "soccer", seed: 3, tree: false }) })).json()).id);
  await page.goto(base + `/#/jobs/${soccer}`, { waitUntil: "load" });
  await waitFor(page, `.job-page[data-id="${soccer}"][data-status="solved"] .player[data-markers]`, "the soccer plan's player", 120000);
  const markers = await page.$eval(".player", (p) => Number(p.dataset.markers));
  check(markers >= 1, `no marker for the soccer ball (${markers})`);
  await page.evaluate(() => window.tplanPlayer.drawNow());
  await page.screenshot({ path: join(outDir, "soccer.png") });

  log("Delete removes a finished job, from the list too");
  await page.goto(base + `/#/jobs/${named}`, { waitUntil: "load" });
  await waitFor(page, ".job-page .delete:not([hidden])", "Delete on a finished job");
  page.once("dialog", (d) => d.accept()); // Delete asks first (picture.mjs checks the dismissed case)
  await page.click(".job-page .delete");
  await page.waitForFunction(() => !/^#\/jobs\//.test(location.hash), { timeout: 30000 });
  await page.waitForFunction((id) => !document.querySelector(`tr.job-row[data-id="${id}"]`), { timeout: 30000 }, named);
  const res = await page.evaluate(async (id) => (await fetch(`/v1/jobs/${id}`)).status, named);
  check(res === 404, `the deleted job answers ${res}`);
  await page.screenshot({ path: join(outDir, "manage.png") });
  assertNoPageErrors(page, (e) => /status of 404/.test(e));
});
