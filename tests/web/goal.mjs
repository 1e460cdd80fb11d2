// The goal region on the page: plans carry the spatial leaves of their domain's goal
// ("goal" in docs/plan-format.md) and the player draws them. For minigolf (a column: tp.within the
// hole) and soccer (a box open below: tp.inside the goal mouth) the scene graph has the goal object
// at the recorded place and size, in the plan's numbers, and the canvas changes where it is drawn
// when it is hidden (G) and shown again; and for dice (10: a ball round each die's target) the
// same per die. Screenshots go to OUTDIR.
import { main, startServer, launchBrowser, newPage, waitFor, check, log, assertNoPageErrors, join } from "./harness.mjs";

// The goal group of the player: per region its userData.goal and its world-space bounding box.
function goalObjects() {
  const p = window.tplanPlayer;
  const THREE_Box3 = p.bounds.constructor; // three's Box3, without importing three into the test
  return p.goal.children.map((o) => {
    const box = new THREE_Box3().setFromObject(o);
    return { goal: o.userData.goal, min: box.min.toArray(), max: box.max.toArray(), visible: p.goal.visible };
  });
}

// Pixels that differ between the frame drawn now and the frame kept under `name` (and keeps this one).
function frameDiff(name) {
  window.tplanPlayer.drawNow();
  const c = document.querySelector(".player-canvas");
  const g = Object.assign(document.createElement("canvas"), { width: c.width, height: c.height }).getContext("2d");
  g.drawImage(c, 0, 0);
  const d = g.getImageData(0, 0, c.width, c.height).data;
  const before = (window.tplanFrames ||= {})[name];
  window.tplanFrames[name] = d;
  if (!before) return -1;
  let n = 0;
  for (let i = 0; i < d.length; i += 4) {
    if (Math.abs(d[i] - before[i]) + Math.abs(d[i + 1] - before[i + 1]) + Math.abs(d[i + 2] - before[i + 2]) > 30) n++;
  }
  return n;
}

const near = (a, b, tol) => Math.abs(a - b) <= tol;

async function openJob(page, base, domain, seed, set = undefined) {
  const id = await page.evaluate(async (body) => (await (await fetch("/v1/jobs", { method: "POST", body })).json()).id,
    JSON.stringify({ domain, seed, tree: false, set }));
  check(Number.isInteger(id), `no job id for ${domain}`);
  await page.goto(base + `/#/jobs/${id}`, { waitUntil: "load" });
  await waitFor(page, `.job-page[data-id="${id}"][data-status="solved"] .player[data-goal]`, `the ${domain} plan's player`, 120000);
  await page.waitForFunction(() => window.tplanPlayer && !window.tplanPlayer.dirty, { timeout: 30000, polling: "raf" });
  const plan = await page.evaluate(async (id) => (await (await fetch(`/v1/jobs/${id}/plan`)).json()).goal, id);
  return { id, recorded: plan };
}

// Hides the goal with the G key and shows it again: the canvas must change, and come back.
async function toggles(page, label) {
  await page.evaluate(() => document.activeElement && document.activeElement.blur());
  await page.evaluate(frameDiff, "shown");
  await page.keyboard.press("g");
  await page.waitForFunction(() => !window.tplanPlayer.goal.visible, { timeout: 10000 });
  const hidden = await page.evaluate(frameDiff, "shown");
  check(!(await page.evaluate(() => window.tplanPlayer.goalBox.checked)), "the goal box is still checked after G");
  await page.keyboard.press("g");
  await page.waitForFunction(() => window.tplanPlayer.goal.visible, { timeout: 10000 });
  const again = await page.evaluate(frameDiff, "shown");
  log(`${label}: ${hidden} pixels change when the goal is hidden, ${again} differ from that when it is shown again`);
  check(hidden >= 20, `${label}: hiding the goal changes ${hidden} pixels: it is not drawn where the camera looks`);
  check(again >= 20, `${label}: showing the goal again changes ${again} pixels`);
}

await main(async ({ tplan, outDir }) => {
  const { base } = await startServer(tplan, outDir);
  const browser = await launchBrowser();
  const page = await newPage(browser);
  await page.goto(base + "/", { waitUntil: "load" });

  log("minigolf: the hole, a column of the ball's height over it");
  const mg = await openJob(page, base, "minigolf", 1);
  check(mg.recorded && mg.recorded.regions.length === 1, `minigolf's plan records ${JSON.stringify(mg.recorded)}`);
  const hole = mg.recorded.regions[0];
  check(hole.kind === "circle" && hole.body === "ball" && hole.radius === 0.054, `minigolf's goal region: ${JSON.stringify(hole)}`);
  let drawn = await page.evaluate(goalObjects);
  check(drawn.length === 1, `minigolf: ${drawn.length} goal objects`);
  let g = drawn[0];
  log(`drawn: ${JSON.stringify(g)}`);
  check(g.goal.kind === "circle" && g.goal.body === "ball", `minigolf: drawn as ${JSON.stringify(g.goal)}`);
  check(near((g.min[0] + g.max[0]) / 2, hole.center[0], 1e-6) && near((g.min[1] + g.max[1]) / 2, hole.center[1], 1e-6),
    `minigolf: the column is centred at ${g.min}..${g.max}, not at the hole ${hole.center}`);
  check(near(g.max[0] - g.min[0], 2 * hole.radius, 1e-6) && near(g.max[1] - g.min[1], 2 * hole.radius, 1e-6),
    `minigolf: the column is ${g.max[0] - g.min[0]} m wide, not ${2 * hole.radius}`);
  const ballStart = await page.evaluate(() => {
    const p = window.tplanPlayer.plan;
    return p.worlds[0].traj.get("ball")[2] - p.bodies.find((b) => b.name === "ball").size[0];
  });
  check(near(g.min[2], ballStart, 0.002) && near(g.max[2] - g.min[2], 2 * 0.021, 0.002),
    `minigolf: the column is not the ball's height (0.042 m) from its bottom (${ballStart} m): z ${g.min[2]}..${g.max[2]}`);
  await toggles(page, "minigolf");
  await page.screenshot({ path: join(outDir, "goal-minigolf.png") });

  log("soccer: the goal mouth, a box open below, cut at the scene's bounds");
  const sc = await openJob(page, base, "soccer", 3);
  check(sc.recorded && sc.recorded.regions.length === 1, `soccer's plan records ${JSON.stringify(sc.recorded)}`);
  const mouth = sc.recorded.regions[0];
  check(mouth.kind === "box" && mouth.body === "ball" && mouth.min[2] === null && mouth.max[2] === 0.2,
    `soccer's goal region: ${JSON.stringify(mouth)}`);
  drawn = await page.evaluate(goalObjects);
  check(drawn.length === 1, `soccer: ${drawn.length} goal objects`);
  g = drawn[0];
  log(`drawn: ${JSON.stringify(g)}`);
  for (let a = 0; a < 2; ++a) {
    check(near(g.min[a], mouth.min[a], 1e-6) && near(g.max[a], mouth.max[a], 1e-6),
      `soccer: the box spans ${g.min[a]}..${g.max[a]} on axis ${a}, not ${mouth.min[a]}..${mouth.max[a]}`);
  }
  const floor = await page.evaluate(() => window.tplanPlayer.bounds.min.z);
  check(near(g.max[2], 0.2, 1e-6) && near(g.min[2], floor, 1e-6), `soccer: the box spans z ${g.min[2]}..${g.max[2]}, not ${floor}..0.2`);
  await toggles(page, "soccer");
  await page.screenshot({ path: join(outDir, "goal-soccer.png") });

  log("dice (10): one ball per die round its target, of the arrangement's radius");
  const dice = await openJob(page, base, "dice", 1, { count: 10 });
  const targets = dice.recorded.regions;
  check(targets.length === 10 && targets.every((r) => r.kind === "sphere" && /^die/.test(r.body)),
    `dice's plan records ${JSON.stringify(dice.recorded)}`);
  drawn = await page.evaluate(goalObjects);
  check(drawn.length === 10, `dice: ${drawn.length} goal objects`);
  drawn.forEach((d, k) => {
    const r = targets[k];
    check(d.goal.kind === "sphere" && d.goal.body === r.body, `dice: object ${k} is ${JSON.stringify(d.goal)}, not ${r.body}'s`);
    for (let a = 0; a < 3; ++a) {
      check(near((d.min[a] + d.max[a]) / 2, r.center[a], 1e-6) && near(d.max[a] - d.min[a], 2 * r.radius, 1e-6),
        `dice: ${r.body}'s ball spans ${d.min[a]}..${d.max[a]} on axis ${a}, not ${r.radius} m round ${r.center[a]}`);
    }
  });
  await toggles(page, "dice");
  await page.screenshot({ path: join(outDir, "goal-dice.png") });
  assertNoPageErrors(page);
});
