// The plan file (docs/plan-format.md) as the player needs it: static bodies, moving bodies and
// the worlds (0 = the selected solution, 1.. = the alternatives in file order), each world a map
// body name -> Float64Array of (steps+1) x 13 state rows.

// One colour per moving body for trails and the tree, as the desktop viewer (viewer/src/draw.c).
export const PALETTE = [
  [1.0, 0.55, 0.1], [0.2, 0.7, 1.0], [1.0, 0.3, 0.75], [0.65, 1.0, 0.2],
  [0.7, 0.5, 1.0], [1.0, 0.9, 0.2], [0.2, 1.0, 0.8], [1.0, 0.35, 0.3],
];

export function paletteColor(i) {
  return PALETTE[((i % PALETTE.length) + PALETTE.length) % PALETTE.length];
}

function rows(name, m, steps) {
  if (!Array.isArray(m) || m.length !== steps + 1) {
    throw new Error(`${name}: expected ${steps + 1} state rows, got ${Array.isArray(m) ? m.length : typeof m}`);
  }
  const out = new Float64Array(m.length * 13);
  m.forEach((r, i) => {
    if (!Array.isArray(r) || r.length !== 13) throw new Error(`${name}[${i}]: expected 13 numbers`);
    out.set(r, i * 13);
  });
  return out;
}

// The conditions over time of a parsed plan file's object p (member "temporal", docs/plan-format.md):
// {conditions: [{name, kind, size}], changes: per world (0 = the plan's, as the file orders them)
// [[step, condition, value], ...]}, or null (none, or a version this page does not know).
function parseTemporal(p) {
  const t = p.temporal;
  if (!t || (t.version !== 1 && t.version !== 2) || !Array.isArray(t.conditions) || !Array.isArray(t.changes)) return null;
  return {
    conditions: t.conditions.map((c) => ({ name: String(c.name), kind: String(c.kind), size: Number(c.size) })),
    changes: t.changes.map((w) => (Array.isArray(w) ? w : [])),
    unmet: typeof t.unmet === "string" ? t.unmet : null,
  };
}

// What each condition over time remembers after step s of world w, in words: "tp.sequence (x.lua:3)
// 2 of 3", "tp.never (x.lua:9) held", ... ("" for a plan without them).
export function temporalAt(plan, w, s) {
  const t = plan.temporal;
  if (!t || !t.changes[w]) return "";
  const mem = t.conditions.map(() => 0);
  for (const [step, k, v] of t.changes[w]) if (step <= s && k >= 0 && k < mem.length) mem[k] = v;
  return t.conditions.map((c, k) => {
    const m = mem[k];
    const words = c.kind === "sequence" ? `${m} of ${c.size}`
      : c.kind === "never" ? (m ? "broken" : "holds")
      : c.kind === "at_time" ? ["pending", "held", "failed"][m] || String(m)
      : m ? "held" : "not yet";
    return `${c.name}: ${words}`;
  }).join(" · ");
}

// The goal of a parsed plan file's object p: regions whose body is in `bodies` (others, and
// unknown kinds from a newer writer, are skipped: the page draws what it understands).
function parseGoal(p, bodies) {
  const regions = p.goal && Array.isArray(p.goal.regions) ? p.goal.regions : [];
  const out = [];
  for (const r of regions) {
    const body = bodies.findIndex((b) => b.name === r.body);
    if (body < 0) continue;
    if ((r.kind === "circle" || r.kind === "sphere") && Array.isArray(r.center) && r.radius > 0) {
      out.push({ kind: r.kind, body, center: r.center.slice(0, 3), radius: r.radius });
    } else if (r.kind === "box" && Array.isArray(r.min) && Array.isArray(r.max)) {
      out.push({ kind: "box", body, min: r.min.slice(0, 3), max: r.max.slice(0, 3) });
    }
  }
  return out;
}

/* A compound body's parts ({shape, size, pos, quat, vertices, triangles} in the body frame), or null. */
function compoundParts(i, b) {
  if (b.shape !== "compound") return null;
  const parts = b.compound && b.compound.parts;
  if (!Array.isArray(parts) || parts.length < 1) throw new Error(`plan: bodies[${i}].compound: a compound needs its parts`);
  return parts.map((p, k) => {
    if (!Array.isArray(p.pos) || p.pos.length !== 3 || !Array.isArray(p.quat) || p.quat.length !== 4)
      throw new Error(`plan: bodies[${i}].compound.parts[${k}]: needs pos and quat`);
    return { shape: p.shape, size: p.size || [], pos: p.pos, quat: p.quat, vertices: p.vertices, triangles: p.triangles };
  });
}

const JOINT_KINDS = ["hinge", "slider", "ball", "fixed", "universal", "hinge2", "distance"];

const vec3 = (v) => Array.isArray(v) && v.length === 3 && v.every((x) => Number.isFinite(x));

// The joints (member "joints", drawn by joints.js) of a parsed plan file's object p whose bodies
// are in `bodies` (others, and unknown kinds from a newer writer, are skipped: the page draws what
// it understands).
export function parseJoints(p, bodies) {
  const out = [];
  for (const j of Array.isArray(p.joints) ? p.joints : []) {
    if (!j || !JOINT_KINDS.includes(j.kind) || !Array.isArray(j.bodies) || j.bodies.length !== 2) continue;
    const a = bodies.findIndex((b) => b.name === j.bodies[0]);
    const b = j.bodies[1] === null ? -1 : bodies.findIndex((x) => x.name === j.bodies[1]);
    if (a < 0 || (j.bodies[1] !== null && b < 0)) continue;
    if (![j.anchor, j.axis, j.anchor2, j.axis2].every(vec3)) continue;
    out.push({ name: j.name || "", kind: j.kind, a, b, anchor: j.anchor, axis: j.axis, anchor2: j.anchor2, axis2: j.axis2 });
  }
  return out;
}

export function parsePlan(text) {
  let p;
  try {
    p = typeof text === "string" ? JSON.parse(text) : text;
  } catch (err) {
    throw new Error(`plan: invalid JSON (${err.message})`);
  }
  if (!p || p.format !== "tplan-plan") throw new Error("plan: not a tplan plan file");
  /* version 2: a plan from a given start state ("start"); version 3: driven joint motors ("motors",
     their targets: not drawn); version 4: compound bodies (their "compound" parts, drawn); their
     trajectories read as version 1's */
  if (p.version !== 1 && p.version !== 2 && p.version !== 3 && p.version !== 4)
    throw new Error(`plan: unsupported plan version ${p.version} (this page reads versions 1, 2, 3 and 4)`);
  if (!(p.dt > 0) || !Array.isArray(p.bodies)) throw new Error("plan: missing dt or bodies");
  const bodies = [];
  // active: tactic name -> skill index per step, for the skill row of every world
  const selected = { cost: p.cost, steps: p.steps, traj: new Map(), active: new Map() };
  for (const t of p.tactics || []) if (Array.isArray(t.active)) selected.active.set(t.name, t.active);
  let nmoving = 0;
  for (const [i, b] of p.bodies.entries()) {
    const moving = Array.isArray(b.trajectory);
    const body = {
      name: b.name,
      cls: b.class,
      shape: b.shape,
      size: b.size,
      color: b.color,
      moving,
      pose: moving ? null : Float64Array.from(b.pose || [0, 0, 0, 1, 0, 0, 0]),
      palette: moving ? nmoving++ : -1,
      parts: compoundParts(i, b),
    };
    if (moving) selected.traj.set(b.name, rows(`bodies[${i}].trajectory`, b.trajectory, p.steps));
    bodies.push(body);
  }
  const worlds = [selected];
  for (const [k, a] of (p.alternatives || []).entries()) {
    const w = { cost: a.cost, steps: a.steps, traj: new Map(), active: new Map() };
    for (const [name, act] of Object.entries(a.active || {})) if (Array.isArray(act)) w.active.set(name, act);
    for (const b of bodies) {
      if (!b.moving) continue;
      const m = a.trajectories && a.trajectories[b.name];
      if (!m) throw new Error(`plan: alternatives[${k}].trajectories: no entry for moving body "${b.name}"`);
      w.traj.set(b.name, rows(`alternatives[${k}].trajectories.${b.name}`, m, a.steps));
    }
    worlds.push(w);
  }
  const tactics = (p.tactics || []).map((t) => ({ name: t.name, body: t.body, skills: t.skills, active: t.active }));
  return {
    domain: p.domain ? p.domain.name : "?",
    planner: p.planner || {},
    seed: p.seed,
    status: p.status,
    dt: p.dt,
    view: p.view || null,
    goal: parseGoal(p, bodies), // [{kind, body: index, center, radius | min, max}]
    joints: parseJoints(p, bodies), // [{name, kind, a, b: body indices (-1: the world), anchor, axis, anchor2, axis2}]
    temporal: parseTemporal(p), // null, or {conditions, changes per world, unmet}
    bodies,
    tactics,
    worlds,
    stats: p.stats || {},
  };
}
