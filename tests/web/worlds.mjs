// Many-worlds browsing on the page: a minigolf job with "solutions": 5 shows its
// five worlds side by side (small multiples: each canvas draws its trails, and two worlds' drawings
// differ), each with its summary; a query typed in the Worlds card hides the worlds that do not
// match -- exactly the ones GET /v1/jobs/{id}/worlds says, in its rank order -- Clear shows them
// all again, a query naming an unknown body shows the server's one-line error and outlines the
// field, and clicking a world plays it in the 3-D player. Screenshots go to OUTDIR.
import { main, startServer, launchBrowser, newPage, waitFor, check, log, assertNoPageErrors, join } from "./harness.mjs";

// Per world figure: its number, whether hidden, and how many pixels differ from the background.
function figures() {
  return [...document.querySelectorAll(".worlds-card figure.world")].map((f) => {
    const c = f.querySelector("canvas");
    const d = c.getContext("2d").getImageData(0, 0, c.width, c.height).data;
    let inked = 0;
    for (let i = 0; i < d.length; i += 4) if (Math.abs(d[i] - 0x23) + Math.abs(d[i + 1] - 0x28) + Math.abs(d[i + 2] - 0x33) > 40) inked++;
    return { world: Number(f.dataset.world), hidden: f.hidden, inked, caption: f.querySelector("figcaption").innerText,
      pixels: Array.from(d.filter((_, i) => i % 16 === 0)) };
  });
}

async function filter(page, where, rank) {
  await page.$eval(".worlds-form input[name=where]", (e, v) => { e.value = v; }, where);
  await page.$eval(".worlds-form input[name=rank]", (e, v) => { e.value = v; }, rank);
  await page.evaluate(() => { document.querySelector(".worlds-card").dataset.state = "asked"; });
  await page.click('.worlds-form button[type="submit"]');
  await page.waitForFunction(() => ["ready", "error"].includes(document.querySelector(".worlds-card").dataset.state),
    { timeout: 30000 });
}

await main(async ({ tplan, outDir }) => {
  const { base } = await startServer(tplan, outDir);
  const browser = await launchBrowser();
  const page = await newPage(browser);
  await page.goto(base + "/", { waitUntil: "load" });
  const id = await page.evaluate(async (body) => (await (await fetch("/v1/jobs", { method: "POST", body })).json()).id,
    JSON.stringify({ domain: "minigolf", seed: 1, solutions: 5, tree: false }));
  check(Number.isInteger(id), "no job id");
  await page.goto(base + `/#/jobs/${id}`, { waitUntil: "load" });
  await waitFor(page, `.job-page[data-id="${id}"][data-status="solved"] .worlds-card[data-state="ready"]`, "the Worlds card", 120000);

  let f = await page.evaluate(figures);
  log(`worlds: ${f.map((x) => `${x.world}: ${x.inked} px`).join(", ")}`);
  check(f.length === 5, `${f.length} small multiples, not 5`);
  check(f.every((x) => !x.hidden && x.inked >= 100), `a small multiple is hidden or (almost) blank: ${JSON.stringify(f.map((x) => [x.hidden, x.inked]))}`);
  check(f.some((x) => x.pixels.join() !== f[0].pixels.join()), "all five small multiples are the same picture");
  check(f.every((x) => /control .* N·s over/.test(x.caption) && /cost/.test(x.caption)), `captions: ${f.map((x) => x.caption).join(" | ")}`);
  await (await page.$(".worlds-card")).screenshot({ path: join(outDir, "worlds-all.png") });

  const where = "duration < 13";
  const want = await page.evaluate(async (id, w) => (await (await fetch(`/v1/jobs/${id}/worlds?where=${encodeURIComponent(w)}&rank=-duration`)).json()), id, where);
  check(want.order.length > 0 && want.order.length < 5, `the query '${where}' does not split the worlds: ${JSON.stringify(want.order)}`);
  await filter(page, where, "-duration");
  f = await page.evaluate(figures);
  const shown = f.filter((x) => !x.hidden).map((x) => x.world);
  log(`'${where}' ranked by -duration: shown ${shown}, the server's order ${want.order}`);
  check(JSON.stringify(shown) === JSON.stringify(want.order), `shown ${shown} in that order, the server says ${want.order}`);
  check(f.filter((x) => x.hidden).length === 5 - want.order.length, "the worlds that do not match are not all hidden");
  const count = await page.$eval(".worlds-count", (e) => e.textContent);
  check(count === `${want.order.length} of 5 match`, `the count says '${count}'`);
  await (await page.$(".worlds-card")).screenshot({ path: join(outDir, "worlds-filtered.png") });

  // a world that matches plays in the player when clicked
  const pick = want.order[want.order.length - 1];
  await page.click(`.worlds-card figure.world[data-world="${pick}"]`);
  await page.waitForFunction((k) => document.querySelector(".player").dataset.world === String(k), { timeout: 10000 }, pick);
  check(await page.$eval(`figure.world[data-world="${pick}"]`, (e) => e.classList.contains("current")), "the clicked world is not marked");

  // an unknown body: the server's message, the field outlined, nothing hidden changed
  await filter(page, "bal ends at rest", "");
  const err = await page.$eval(".worlds-error", (e) => ({ hidden: e.hidden, text: e.innerText }));
  log(`bad query: ${err.text}`);
  check(!err.hidden && /bad_field/.test(err.text) && /no body named 'bal'/.test(err.text), `the error box: ${JSON.stringify(err)}`);
  check(await page.$eval(".worlds-form input[name=where]", (e) => e.classList.contains("invalid")), "the query field is not outlined");

  // Clear: every world again
  await page.evaluate(() => { document.querySelector(".worlds-card").dataset.state = "asked"; });
  await page.click(".worlds-form button[type=button]");
  await page.waitForFunction(() => document.querySelector(".worlds-card").dataset.state === "ready", { timeout: 30000 });
  f = await page.evaluate(figures);
  check(f.every((x) => !x.hidden), "Clear does not show every world");
  check(await page.$eval(".worlds-error", (e) => e.hidden), "the error stays after Clear");

  // a single-solution job has no Worlds card
  const one = await page.evaluate(async (body) => (await (await fetch("/v1/jobs", { method: "POST", body })).json()).id,
    JSON.stringify({ domain: "minigolf", seed: 1, tree: false }));
  await page.goto(base + `/#/jobs/${one}`, { waitUntil: "load" });
  await waitFor(page, `.job-page[data-id="${one}"][data-status="solved"] .player`, "the one-world job's player", 120000);
  check(!(await page.$(`.job-page[data-id="${one}"] .worlds-card`)), "a one-world plan shows a Worlds card");
  assertNoPageErrors(page, (e) => /status of 400/.test(e)); // the bad query's answer
  await browser.close();
});
