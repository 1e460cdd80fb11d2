// The page defects of the animator audit ("the page and the panel"), each checked in the DOM at 800 px
// width: a job's name is shown whole in the jobs list (it was cut to 7 characters), no two boxes
// of the header, the jobs table's header or the job page's head overlap, the skill row names the
// skills of an alternative solution (it was blank), and Delete asks first (dismissed: no DELETE is
// sent and the job stays; accepted: the job is gone), and the chart of a job opened after it ended
// shows the run's progress series (it was one dot); the dice domain's dice show their pips; a
// plan's joints are drawn (the anchor and axis of a hinge, in the joint colour, and
// nothing of it once hidden with J).
import { main, startServer, launchBrowser, newPage, waitFor, check, log, assertNoPageErrors, join } from "./harness.mjs";

const NAME = "bowl shot, six props, take 12";

// Pairs of boxes (DOMRects as plain objects) that overlap by more than half a pixel both ways.
function overlaps(boxes) {
  const out = [];
  for (let i = 0; i < boxes.length; ++i) {
    for (let j = i + 1; j < boxes.length; ++j) {
      const a = boxes[i], b = boxes[j];
      if (!a.w || !b.w) continue; // hidden
      const x = Math.min(a.r, b.r) - Math.max(a.l, b.l), y = Math.min(a.b, b.b) - Math.max(a.t, b.t);
      if (x > 0.5 && y > 0.5) out.push(`${a.what} and ${b.what} overlap by ${x.toFixed(1)} x ${y.toFixed(1)} px`);
    }
  }
  return out;
}

async function boxes(page, selector) {
  return page.$$eval(selector, (es) => es.map((e, k) => {
    const r = e.getBoundingClientRect();
    return { what: `${e.tagName.toLowerCase()}.${e.className || k} "${e.textContent.slice(0, 20)}"`,
      l: r.left, r: r.right, t: r.top, b: r.bottom, w: r.width };
  }));
}

await main(async ({ tplan, outDir }) => {
  const { base } = await startServer(tplan, outDir);
  const browser = await launchBrowser();
  const page = await newPage(browser);
  await page.setViewport({ width: 800, height: 700 });
  await page.goto(base + "/", { waitUntil: "load" });

  log("a minigolf job with alternatives and a long name");
  const id = await page.evaluate(async (name) => (await (await fetch("/v1/jobs", { method: "POST",
    body: JSON.stringify({ domain: "minigolf", seed: 1, solutions: 3, tree: false, name }) })).json()).id, NAME);
  await page.goto(base + `/#/jobs/${id}`, { waitUntil: "load" });
  await waitFor(page, `.job-page[data-id="${id}"][data-status="solved"] .player[data-step]`, `job ${id} solved, with its player`, 120000);
  await waitFor(page, `tr.job-row[data-id="${id}"]`, "the job in the list");

  log("no overlapping boxes in the header, the jobs table's header and the job page's head at 800 px");
  const bad = [
    ...overlaps(await boxes(page, "header.top > *")),
    ...overlaps(await boxes(page, "table.jobs thead th")),
    ...overlaps(await boxes(page, ".job-head > *")),
    ...overlaps(await boxes(page, ".job-head .head-actions > button")),
  ];
  const table = await page.$eval("table.jobs", (t) => {
    const r = t.getBoundingClientRect(), s = t.closest(".sidebar").getBoundingClientRect();
    return { tr: r.right, sr: s.right, scroll: t.closest(".sidebar").scrollWidth, client: t.closest(".sidebar").clientWidth };
  });
  // a column narrower than its title: the title runs into the next column (what was seen)
  const spill = await page.$$eval("table.jobs thead th", (ths) => ths.filter((t) => getComputedStyle(t).display !== "none" && t.scrollWidth > t.clientWidth + 1)
    .map((t) => `"${t.textContent}" needs ${t.scrollWidth} px in ${t.clientWidth}`));
  bad.push(...spill);
  check(!bad.length, bad.join("; "));
  check(table.scroll <= table.client + 1, `the jobs table is wider than the sidebar (${table.scroll} > ${table.client} px)`);
  await page.screenshot({ path: join(outDir, "picture-800.png") });

  log("the name is shown whole in the jobs list");
  const cell = await page.$eval(`tr.job-row[data-id="${id}"] td.name`, (td) => ({
    text: td.textContent, scroll: td.scrollWidth, client: td.clientWidth, height: td.getBoundingClientRect().height,
  }));
  check(cell.text.includes(NAME), `the list cell does not hold the name: ${JSON.stringify(cell.text)}`);
  check(cell.scroll <= cell.client + 1, `the name is cut: ${cell.scroll} px of text in a ${cell.client} px cell`);
  check(cell.client >= 40, `the name's cell is ${cell.client} px wide`);

  log("the skill row names the skills of an alternative solution");
  const nworlds = await page.$$eval(".player select[aria-label=world] option", (os) => os.length);
  check(nworlds >= 2, `minigolf seed 1 with --solutions 3 gave ${nworlds} worlds`);
  const selectedRow = await page.$eval(".player .skills", (e) => e.textContent);
  check(/^\w+: [a-z_]+/.test(selectedRow), `the selected solution's skill row: ${JSON.stringify(selectedRow)}`);
  await page.select(".player select[aria-label=world]", "1");
  await page.waitForFunction(() => document.querySelector(".player").dataset.world === "1", { timeout: 30000 });
  const altRow = await page.$eval(".player .skills", (e) => e.textContent);
  check(/^\w+: [a-z_]+/.test(altRow), `the skill row of alternative 1 is blank: ${JSON.stringify(altRow)}`);

  log("the chart of a job opened after it finished shows its whole progress series");
  const ran = await page.evaluate(async () => (await (await fetch("/v1/jobs", { method: "POST",
    body: JSON.stringify({ domain: "minigolf_random", max_iters: 1000000000, time_limit: 1.5, tree: false }) })).json()).id);
  await page.waitForFunction(async (j) => (await (await fetch(`/v1/jobs/${j}`)).json()).status === "approximate",
    { timeout: 120000, polling: 200 }, ran);
  await page.goto(base + `/#/jobs/${ran}`, { waitUntil: "load" });
  await waitFor(page, `.job-page[data-id="${ran}"][data-status="approximate"] canvas.chart[data-points]`, "the finished job's chart");
  const points = await page.$eval(`.job-page[data-id="${ran}"] canvas.chart`, (c) => Number(c.dataset.points));
  check(points > 1, `the finished job's chart has ${points} point(s)`);
  await page.goto(base + `/#/jobs/${id}`, { waitUntil: "load" });
  await waitFor(page, `.job-page[data-id="${id}"][data-status="solved"]`, `job ${id} again`);

  log("dice show their pips: six on local +z, one pip set per die, white where the dice lie");
  const dice = await page.evaluate(async () => (await (await fetch("/v1/jobs", { method: "POST",
    body: JSON.stringify({ domain: "dice", set: { count: "30", text: "I", force: "0.3" }, tree: false }) })).json()).id);
  await page.goto(base + `/#/jobs/${dice}`, { waitUntil: "load" });
  await waitFor(page, `.job-page[data-id="${dice}"][data-status="solved"] .player[data-step]`, "the dice plan's player", 120000);
  const pips = await page.evaluate(() => {
    const p = window.tplanPlayer, found = [];
    p.scene.traverse((o) => o.userData.pips && found.push(o));
    const instances = found.reduce((n, o) => n + (o.isInstancedMesh ? o.count : 1), 0);
    const faces = found.length ? found[0].geometry.userData.faces : null;
    const grids = [];
    p.scene.traverse((o) => o.type === "GridHelper" && grids.push(o));
    const ndice = p.plan.bodies.filter((b) => b.moving && b.shape === "box").length;
    // the dice at rest on their cells (the last step), seen close over the pattern, below the
    // pegs, without the goal's balls
    p.seekStep(p.steps);
    p.goal.visible = false;
    p.controls.target.set(0, 0, 0);
    p.camera.position.set(0, -0.45, 1.15);
    p.camera.lookAt(0, 0, 0);
    p.redrawStatic(); // the static layer is cached per camera
    const white = () => {
      p.drawNow();
      const c = document.querySelector(".player-canvas");
      const g = Object.assign(document.createElement("canvas"), { width: c.width, height: c.height }).getContext("2d");
      g.drawImage(c, 0, 0);
      const d = g.getImageData(0, 0, c.width, c.height).data;
      let n = 0;
      for (let i = 0; i < d.length; i += 4) {
        const lo = Math.min(d[i], d[i + 1], d[i + 2]), hi = Math.max(d[i], d[i + 1], d[i + 2]);
        n += lo > 200 && hi - lo <= 12;
      }
      return n;
    };
    const shown = white();
    for (const o of found) o.visible = false;
    p.redrawStatic();
    const hidden = white();
    for (const o of found) o.visible = true;
    p.redrawStatic();
    return { instances, faces, ndice, shown, hidden, grids: grids.length };
  });
  log(`pips: ${JSON.stringify(pips)}`);
  await page.evaluate(() => window.tplanPlayer.drawNow());
  await page.screenshot({ path: join(outDir, "dice-pips.png") });
  check(pips.ndice === 30 && pips.instances === 30, `pip sets ${pips.instances} for ${pips.ndice} dice`);
  check(JSON.stringify(pips.faces) === JSON.stringify({ "+x": 3, "-x": 4, "+y": 2, "-y": 5, "+z": 6, "-z": 1 }), `faces ${JSON.stringify(pips.faces)}`);
  check(pips.grids === 1, `the dice bucket's floor has ${pips.grids} grids`);
  check(pips.shown > 200 && pips.hidden < 10, `white pixels: ${pips.shown} with the pips, ${pips.hidden} without`);

  log("joints are drawn: a hinge's anchor and axis in the joint colour (magenta), none with J");
  const hingeScript = "local tp = require 'tp'\n" +
    "return tp.domain { name = 'hinge', dt = 1 / 60,\n" +
    "  bodies = { tp.plane { name = 'floor', color = { 0.3, 0.3, 0.35, 1 } },\n" +
    "    tp.box { name = 'bar', class = 'passive', size = { 1, 0.1, 0.1 }, mass = 1,\n" +
    "    pos = { 0.5, 0, 1.5 }, color = { 0.6, 0.6, 0.6, 1 } } },\n" +
    "  joints = { tp.joint { name = 'pin', kind = 'hinge', bodies = { 'bar', 'world' },\n" +
    "    anchor = { 0, 0, 1.5 }, axis = { 0, 1, 0 } } },\n" +
    "  goal = function(s) return s.t > 0.1 end }\n";
  const hinge = await page.evaluate(async (script) => (await (await fetch("/v1/jobs", { method: "POST",
    body: JSON.stringify({ script, tree: false }) })).json()).id, hingeScript);
  await page.goto(base + `/#/jobs/${hinge}`, { waitUntil: "load" });
  await waitFor(page, `.job-page[data-id="${hinge}"][data-status="solved"] .player[data-joints="1"]`, "the hinge plan's player", 120000);
  const joint = await page.evaluate(() => {
    const p = window.tplanPlayer;
    p.seekStep(0);
    p.controls.target.set(0.3, 0, 1.3);
    p.camera.position.set(0.3, -2, 1.9);
    p.camera.lookAt(0.3, 0, 1.3);
    p.redrawStatic();
    const magenta = () => {
      p.drawNow();
      const c = document.querySelector(".player-canvas");
      const g = Object.assign(document.createElement("canvas"), { width: c.width, height: c.height }).getContext("2d");
      g.drawImage(c, 0, 0);
      const d = g.getImageData(0, 0, c.width, c.height).data;
      let n = 0;
      for (let i = 0; i < d.length; i += 4) n += d[i] > 200 && d[i + 1] < 90 && d[i + 2] > 200;
      return n;
    };
    const drawn = p.joints.group.userData.joints;
    const shown = magenta();
    p.key(new KeyboardEvent("keydown", { key: "j" }));
    const hidden = magenta();
    p.key(new KeyboardEvent("keydown", { key: "j" }));
    return { drawn, shown, hidden };
  });
  log(`joints: ${JSON.stringify(joint)}`);
  await page.screenshot({ path: join(outDir, "joints.png") });
  const at = joint.drawn.length === 1 ? joint.drawn[0].anchor : [NaN, NaN, NaN];
  check(joint.drawn.length === 1 && joint.drawn[0].name === "pin" && joint.drawn[0].kind === "hinge" &&
    Math.hypot(at[0], at[1], at[2] - 1.5) < 1e-6, `the joints drawn: ${JSON.stringify(joint.drawn)}`);
  check(joint.shown > 25 && joint.hidden < 5, `magenta pixels: ${joint.shown} with the joints, ${joint.hidden} hidden`);

  log("no grid without a floor");
  const script = "local tp = require 'tp'\n" +
    "return tp.domain { name = 'nofloor', dt = 1 / 60, gravity = { 0, 0, 0 },\n" +
    "  bodies = { tp.box { name = 'crate', class = 'passive', size = { 0.5, 0.5, 0.5 }, mass = 1,\n" +
    "    pos = { 0, 0, 1 }, vel = { 0.5, 0, 0 }, color = { 0.9, 0.2, 0.2, 1 } } },\n" +
    "  goal = tp.within { body = 'crate', center = { 1, 0, 1 }, radius = 0.2 } }\n";
  const floorless = await page.evaluate(async (script) => (await (await fetch("/v1/jobs", { method: "POST",
    body: JSON.stringify({ script, tree: false }) })).json()).id, script);
  await page.goto(base + `/#/jobs/${floorless}`, { waitUntil: "load" });
  await waitFor(page, `.job-page[data-id="${floorless}"][data-status="solved"] .player[data-step]`, "the floorless plan's player", 120000);
  const lines = await page.evaluate(() => {
    const n = [];
    window.tplanPlayer.scene.traverse((o) => (o.type === "GridHelper" || o.isLineSegments) && o.visible && n.push(o.type));
    return n;
  });
  check(lines.filter((t) => t === "GridHelper").length === 0, `a scene without a floor has grids: ${lines}`);

  log("the camera frames the action, not a body that fell away (fall_camera)");
  const fallScript = "local tp = require 'tp'\n" +
    "return tp.domain { name = 'fall_camera', dt = 1 / 30, substeps = 4,\n" +
    "  bodies = { tp.box { name = 'table', class = 'static', size = {1, 1, 0.1}, pos = {0, 0, 0.7} },\n" +
    "    tp.sphere { name = 'ball', class = 'active', radius = 0.05, mass = 0.1, pos = {0, 0, 0.8}, vel = {1, 0, 0} } },\n" +
    "  tactics = { tp.tactic { name = 'w', body = 'ball', skills = { tp.skill.wait { name = 'wait', duration = 1 } } } },\n" +
    "  goal = function(st) return st.t >= 20 end, planner = { max_iters = 600, seed = 1 } }\n";
  const fallId = await page.evaluate(async (script) => (await (await fetch("/v1/jobs", { method: "POST",
    body: JSON.stringify({ script, tree: false }) })).json()).id, fallScript);
  await page.goto(base + `/#/jobs/${fallId}`, { waitUntil: "load" });
  await waitFor(page, `.job-page[data-id="${fallId}"][data-status="solved"] .player[data-step]`, "the fall plan's player", 120000);
  const framed = await page.evaluate(() => {
    const p = window.tplanPlayer;
    const V = p.bounds.min.constructor;
    const m = p.plan.worlds[0].traj.get("ball");
    const c = p.renderer.domElement;
    let x0 = Infinity, x1 = -Infinity;
    for (let k = 0; k < 8; k++) { // the table's corners on the screen
      const v = new V(k & 1 ? 0.5 : -0.5, k & 2 ? 0.5 : -0.5, k & 4 ? 0.75 : 0.65).project(p.camera);
      x0 = Math.min(x0, v.x), x1 = Math.max(x1, v.x);
    }
    return { lowest: m[m.length - 11], minz: p.bounds.min.z, share: (x1 - x0) / 2, w: c.width };
  });
  log(`fall: the ball ends at z ${framed.lowest.toFixed(1)} m, the bounds reach z ${framed.minz.toFixed(2)} m, the table is ${(100 * framed.share).toFixed(0)} % of the width`);
  check(framed.lowest < -50, `the ball did not fall away (z ${framed.lowest})`);
  check(framed.minz > -1, `the player's bounds reach z ${framed.minz}: the fall is framed`);
  check(framed.share > 0.3, `the table is ${framed.share} of the width: a speck`);
  await page.screenshot({ path: join(outDir, "fall-camera.png") });

  await page.goto(base + `/#/jobs/${id}`, { waitUntil: "load" });
  await waitFor(page, `.job-page[data-id="${id}"][data-status="solved"]`, `job ${id} again`);

  log("Delete asks first: dismissed, nothing is sent");
  const deletes = [];
  page.on("request", (r) => r.method() === "DELETE" && deletes.push(r.url()));
  const dialogs = [];
  let answer = false;
  page.on("dialog", async (d) => {
    dialogs.push(`${d.type()}: ${d.message()}`);
    await (answer ? d.accept() : d.dismiss());
  });
  await waitFor(page, ".job-page .delete:not([hidden])", "Delete on the finished job");
  await page.click(".job-page .delete");
  await page.waitForFunction((n) => true, {}, dialogs.length); // the dialog handler ran in click()
  check(dialogs.length === 1 && /^confirm: Delete job \d+/.test(dialogs[0]) && dialogs[0].includes(NAME), `dialogs: ${dialogs}`);
  check(!deletes.length, `a dismissed Delete sent ${deletes}`);
  check(await page.evaluate(async (j) => (await fetch(`/v1/jobs/${j}`)).status, id) === 200, "the job went after a dismissed Delete");
  check(/^#\/jobs\//.test(await page.evaluate(() => location.hash)), "a dismissed Delete left the job page");

  log("Delete asks first: accepted, the job is deleted");
  answer = true;
  await page.click(".job-page .delete");
  await page.waitForFunction(() => !/^#\/jobs\//.test(location.hash), { timeout: 30000 });
  check(dialogs.length === 2 && deletes.length === 1, `dialogs ${dialogs.length}, DELETE requests ${deletes.length}`);
  check(await page.evaluate(async (j) => (await fetch(`/v1/jobs/${j}`)).status, id) === 404, "the job is still there");
  assertNoPageErrors(page, (e) => /status of 404/.test(e));
});
