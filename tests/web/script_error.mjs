// Errors on the page, never in an alert box, and Cancel: a field the server refuses (400 bad_field) is shown
// under the New-job form next to the field; a script with a syntax error becomes a failed job
// whose page shows the `job.lua:LINE: message` of the server. A running job is cancelled from its
// page.
import { main, startServer, launchBrowser, newPage, waitFor, check, log, assertNoPageErrors, join } from "./harness.mjs";

await main(async ({ tplan, outDir }) => {
  const { base } = await startServer(tplan, outDir);
  const browser = await launchBrowser();
  const page = await newPage(browser);
  page.on("dialog", async (d) => {
    page.errors.push(`a dialog box was opened: ${d.message()}`);
    await d.dismiss();
  });

  await page.goto(base + "/", { waitUntil: "load" });
  await waitFor(page, "select#domain option[value=minigolf]", "the domain picker");

  log("a field the server refuses: seed -1 -> bad_field next to the seed input");
  await page.select("select#domain", "minigolf");
  await page.$eval("#pl-seed", (e) => (e.value = "-1"));
  await page.click("form.new-job button[type=submit]");
  await waitFor(page, ".form-error:not([hidden])", "the form's error message");
  const formError = await page.$eval(".form-error", (e) => e.textContent);
  log(`form error: ${formError}`);
  check(/bad_field/.test(formError) && /seed/.test(formError), `unexpected form error: ${formError}`);
  check(await page.$eval("#pl-seed", (e) => e.classList.contains("invalid")), "the seed input is not marked invalid");
  check(/^#\/?$|^$/.test(await page.evaluate(() => location.hash)), "the page left the form after a refused request");
  await page.$eval("#pl-seed", (e) => (e.value = "1"));

  log("a script with a syntax error on line 3");
  await page.click("input[name=mode][value=script]");
  await waitFor(page, "textarea#script", "the script box");
  await page.type("textarea#script", "local tp = require 'tp'\n-- line 2\nlocal x = = 1\n");
  await page.click("form.new-job button[type=submit]");
  await page.waitForFunction(() => /^#\/jobs\/\d+$/.test(location.hash) || !document.querySelector(".form-error").hidden, { timeout: 30000 });
  const err2 = await page.evaluate(() => (/^#\/jobs\//.test(location.hash) ? "" : document.querySelector(".form-error").textContent));
  check(!err2, `the form shows an error: ${err2}`);
  const id = Number((await page.evaluate(() => location.hash)).split("/")[2]);
  log(`job ${id}: waiting for failed`);
  await waitFor(page, `.job-page[data-id="${id}"][data-status="failed"]`, `job ${id} failed on its page`, 120000);
  await waitFor(page, ".job-error:not([hidden])", "the job's error");
  const message = await page.$eval(".job-error", (e) => e.innerText);
  log(`job page error: ${message}`);
  check(/script_error/.test(message), `no script_error code on the page: ${message}`);
  check(/job\.lua:3:/.test(message), `no job.lua:3: message on the page: ${message}`);
  await waitFor(page, `tr.job-row[data-id="${id}"][data-status="failed"]`, `job ${id} as failed in the jobs list`);
  await page.screenshot({ path: join(outDir, "script-error.png") });

  log("Cancel: a long job (RRT, up to 1,000,000 iterations, 5 s at most) cancelled from its page");
  await page.goto(base + "/#/", { waitUntil: "load" });
  await waitFor(page, "select#domain option[value=minigolf]", "the domain picker");
  await page.select("select#domain", "minigolf");
  await page.select("#planner", "rrt");
  await page.$eval("#pl-max_iters", (e) => (e.value = "1000000"));
  await page.$eval("#pl-solutions", (e) => (e.value = "10000"));
  await page.$eval("#pl-time_limit", (e) => (e.value = "5"));
  await page.click("form.new-job button[type=submit]");
  await page.waitForFunction((old) => /^#\/jobs\/\d+$/.test(location.hash) && location.hash !== old, { timeout: 30000 }, `#/jobs/${id}`);
  const long = Number((await page.evaluate(() => location.hash)).split("/")[2]);
  await waitFor(page, `.job-page[data-id="${long}"][data-status="running"] .cancel:not([hidden])`, `job ${long} running, with its Cancel button`);
  await page.click(".job-page .cancel");
  await waitFor(page, `.job-page[data-id="${long}"][data-status="cancelled"]`, `job ${long} cancelled`);
  check(await page.$eval(".job-page .cancel", (b) => b.hidden), "the Cancel button is still shown after the cancel");
  await waitFor(page, `tr.job-row[data-id="${long}"][data-status="cancelled"]`, `job ${long} as cancelled in the jobs list`);
  assertNoPageErrors(page, (e) => /status of 400/.test(e)); // the refused POST, shown by the form
});
