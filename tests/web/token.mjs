// A server with --token-file: the page asks for the token once (an in-page dialog, not a browser
// prompt), keeps it in sessionStorage, and then everything works with it — the API calls (bearer
// header) and the job's event stream (EventSource cannot send headers: ?access_token=). A wrong
// token is asked again.
import { writeFileSync } from "node:fs";
import { main, startServer, launchBrowser, newPage, waitFor, check, log, assertNoPageErrors, join } from "./harness.mjs";

const TOKEN = "web-test-token-0123456789";

await main(async ({ tplan, outDir }) => {
  const tokenFile = join(outDir, "token");
  writeFileSync(tokenFile, TOKEN + "\n", { mode: 0o600 });
  const { base } = await startServer(tplan, outDir, ["--token-file", tokenFile]);
  const browser = await launchBrowser();
  const page = await newPage(browser);
  page.on("dialog", async (d) => {
    page.errors.push(`a browser dialog box was opened: ${d.message()}`);
    await d.dismiss();
  });

  await page.goto(base + "/", { waitUntil: "load" });
  log("the page asks for the token; a wrong one first");
  await waitFor(page, "dialog#token-dialog[open]", "the token dialog");
  await page.type("#token-input", "wrong-token-123");
  await page.click("#token-form button[type=submit]");
  await page.waitForFunction(() => document.querySelector("#token-dialog").open && /refused/.test(document.querySelector("#token-message").textContent), { timeout: 30000 });
  log("asked again after a wrong token; now the right one");
  await page.type("#token-input", TOKEN);
  await page.click("#token-form button[type=submit]");
  await waitFor(page, "select#domain option[value=minigolf]", "the domains, loaded with the token");
  check(await page.evaluate(() => sessionStorage.getItem("tplan.token")) === TOKEN, "the token is not in sessionStorage");

  log("a job, followed live through the event stream");
  await page.select("select#domain", "minigolf");
  // a run of a few seconds (RRT on until 100,000 iterations), so that progress events come
  await page.select("#planner", "rrt");
  await page.$eval("#pl-max_iters", (e) => (e.value = "100000"));
  await page.$eval("#pl-solutions", (e) => (e.value = "10000"));
  await page.click("form.new-job button[type=submit]");
  await page.waitForFunction(() => /^#\/jobs\/\d+$/.test(location.hash) || !document.querySelector(".form-error").hidden, { timeout: 30000 });
  const formError = await page.evaluate(() => (/^#\/jobs\//.test(location.hash) ? "" : document.querySelector(".form-error").textContent));
  check(!formError, `the form shows an error: ${formError}`);
  const id = Number((await page.evaluate(() => location.hash)).split("/")[2]);
  await waitFor(page, `.job-page[data-id="${id}"][data-status="solved"]`, `job ${id} solved`, 300000);
  const events = await page.$eval(".job-page", (e) => Number(e.dataset.events || 0));
  log(`${events} events from the job's stream`);
  check(events >= 2, "the job page got fewer than 2 events from the stream (with ?access_token=)");
  await page.waitForFunction(() => window.tplanPlayer && window.tplanPlayer.treeLayer, { timeout: 60000 });

  log("a reload asks nothing (same tab: sessionStorage)");
  await page.reload({ waitUntil: "load" });
  await waitFor(page, `tr.job-row[data-id="${id}"][data-status="solved"]`, "the jobs list after a reload");
  check(!(await page.$eval("#token-dialog", (d) => d.open)), "the token was asked again after a reload");
  await page.screenshot({ path: join(outDir, "token.png") });
  assertNoPageErrors(page, (e) => /status of 401/.test(e)); // the requests made before the token was known
});
