// The page's plan and tree readers (web/js/plan.js, web/js/tree.js) on files written by
// `tplan plan`, in node (no browser): the worlds of a many-worlds plan with their steps and
// trajectories, the tree's names, counts and parents; a flipped byte anywhere in the tree is a
// checksum error, a truncated tree and a plan of another format are refused with a message.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { main, check, log, join, WEB } from "./harness.mjs";

const { parsePlan, temporalAt } = await import(join(WEB, "js/plan.js"));
const { parseTree } = await import(join(WEB, "js/tree.js"));

function refused(fn, pattern, what) {
  try {
    fn();
  } catch (err) {
    check(pattern.test(err.message), `${what}: unexpected message "${err.message}"`);
    log(`${what}: ${err.message}`);
    return;
  }
  throw new Error(`${what}: not refused`);
}

await main(async ({ tplan, outDir }) => {
  const planPath = join(outDir, "golf.json"), treePath = join(outDir, "golf.tree");
  execFileSync(tplan, ["plan", "minigolf", "--solutions", "3",
    "-q", "-o", planPath, "--tree", treePath], { stdio: "inherit" });
  const raw = JSON.parse(readFileSync(planPath, "utf8"));
  const plan = parsePlan(readFileSync(planPath, "utf8"));
  log(`plan: ${plan.bodies.length} bodies, ${plan.worlds.length} worlds, steps ${plan.worlds.map((w) => w.steps).join(", ")}`);
  check(plan.worlds.length === 1 + raw.alternatives.length, "one world per solution");
  check(plan.worlds[0].steps === raw.steps && plan.worlds[0].cost === raw.cost, "world 0 is the selected solution");
  raw.alternatives.forEach((a, k) => check(plan.worlds[k + 1].steps === a.steps, `world ${k + 1} has the steps of alternatives[${k}]`));
  const moving = raw.bodies.filter((b) => b.trajectory);
  for (const b of moving) {
    const m = plan.worlds[0].traj.get(b.name);
    check(m.length === (raw.steps + 1) * 13, `${b.name}: ${m.length / 13} state rows`);
    check(m[13 * raw.steps + 2] === b.trajectory[raw.steps][2], `${b.name}: the last row's z`);
  }
  check(plan.bodies.filter((b) => b.moving).map((b) => b.palette).join() === moving.map((_, i) => i).join(),
    "moving bodies get palette colours 0, 1, … in world order");

  const bytes = readFileSync(treePath);
  const buf = () => bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length);
  const tree = parseTree(buf());
  log(`tree: ${tree.nnodes} nodes, bodies ${tree.names.join(", ")}`);
  check(tree.names.join() === moving.map((b) => b.name).join(), "the tree's bodies are the plan's moving bodies");
  check(tree.nnodes === raw.stats.nodes, `the tree has ${tree.nnodes} nodes, the plan says ${raw.stats.nodes}`);
  check(tree.parent[0] === -1 && tree.pos.length === tree.nnodes * tree.nbodies * 3, "root and positions");
  for (const at of [0, 30, Math.floor(bytes.length / 2), bytes.length - 9, bytes.length - 1]) {
    const b = new Uint8Array(buf());
    b[at] ^= 0x10;
    refused(() => parseTree(b.buffer), /checksum mismatch|bad magic/, `byte ${at} flipped`);
  }
  refused(() => parseTree(buf().slice(0, bytes.length - 100)), /checksum|does not match|truncated/, "truncated tree");
  refused(() => parsePlan(JSON.stringify({ ...raw, format: "x" })), /not a tplan plan/, "another format");
  refused(() => parsePlan(JSON.stringify({ ...raw, version: 5 })), /unsupported plan version 5/, "version 5");
  /* version 4: a compound body's parts (a table's top and four legs), drawn as one group of five meshes */
  const tablePath = join(outDir, "table.json");
  execFileSync(tplan, ["plan", join(WEB, "../tests/e2e/scripts/compound_table.lua"), "-q", "-o", tablePath], { stdio: "inherit" });
  const tplanJson = readFileSync(tablePath, "utf8");
  const tp = parsePlan(tplanJson);
  const table = tp.bodies.find((b) => b.name === "table");
  check(table.shape === "compound" && table.parts.length === 5 && table.parts[1].shape === "cylinder",
    "the compound table reads with its five parts");
  const { buildBodies } = await import(join(WEB, "js/bodies.js"));
  const THREE = await import(join(WEB, "node_modules/three/build/three.module.js"));
  const { objects } = buildBodies(tp, new THREE.Scene());
  const obj = objects[tp.bodies.indexOf(table)];
  check(obj.children.length === 5 && Math.abs(obj.children[0].position.z - table.parts[0].pos[2]) < 1e-12,
    "the page draws the table as a group of its five parts, each at its place");
  const rawT = JSON.parse(tplanJson);
  delete rawT.bodies.find((b) => b.name === "table").compound;
  refused(() => parsePlan(rawT), /compound: a compound needs its parts/, "a compound without parts");
  check(parsePlan(JSON.stringify({ ...raw, version: 2, start: { time: 1, rest: {} } })).bodies.length === parsePlan(raw).bodies.length,
    "a version 2 plan (from a start state) reads as its version 1 twin");
  refused(() => parsePlan("{\"format\":"), /invalid JSON/, "truncated plan");
  check(parsePlan(raw).temporal === null && temporalAt(plan, 0, 0) === "", "a plan without conditions over time");

  // conditions over time (member "temporal"): the kick's sequence, step by step, as the player shows it
  const kickPath = join(outDir, "kick.json");
  execFileSync(tplan, ["plan", "pool_kick", "-q", "-o", kickPath], { stdio: "inherit" });
  const kraw = JSON.parse(readFileSync(kickPath, "utf8"));
  const kick = parsePlan(readFileSync(kickPath, "utf8"));
  check(kick.temporal && kick.temporal.conditions[0].kind === "sequence", "the kick's temporal member");
  const at = (s) => temporalAt(kick, 0, s);
  log(`kick at step 0: ${at(0)}; at the end: ${at(kraw.steps)}`);
  check(/^tp\.sequence \(pool_kick\.lua:\d+\): 0 of 3 · tp\.never \(pool_kick\.lua:\d+\): holds/.test(at(0)), `step 0: ${at(0)}`);
  check(at(kraw.steps).startsWith("tp.sequence") && at(kraw.steps).includes(": 3 of 3"), `the end: ${at(kraw.steps)}`);
  const [step2] = kraw.temporal.changes[0].find(([, k, v]) => k === 0 && v === 2);
  check(at(step2 - 1).includes(": 1 of 3") && at(step2).includes(": 2 of 3"), `the red is hit at step ${step2}`);
  check(parsePlan(JSON.stringify({ ...kraw, temporal: { ...kraw.temporal, version: 3 } })).temporal === null,
    "a temporal member of another version is left out");
}, { browser: false });
