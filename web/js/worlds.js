// Many-worlds browsing on the job page (docs/web.md): the solutions of a run side
// by side as small multiples -- each world's trails drawn flat on the two axes along which the
// bodies moved most, with the goal regions, and its summary (duration, cost, control, at rest) --
// filtered and ranked by a space-time query that the server evaluates (GET /v1/jobs/{id}/worlds:
// the same evaluator as `tplan worlds` and libtplan's tplan_worlds). A world that does not match is
// hidden; the matching ones are shown in rank order; clicking one plays it in the 3-D player.
import { api } from "./api.js";
import { el, clear, duration, number } from "./dom.js";

const W = 176;
const H = 120;

function cssColor(c, alpha = 1) {
  const [r, g, b] = (c || [0.6, 0.6, 0.6]).map((v) => Math.round(255 * Math.min(1, Math.max(0, v))));
  return `rgba(${r}, ${g}, ${b}, ${alpha})`;
}

// The two axes (0 x, 1 y, 2 z) along which the moving bodies' trails spread most, over every world,
// and their common bounds: every small multiple uses the same frame so that they compare.
function frame(plan) {
  const lo = [Infinity, Infinity, Infinity];
  const hi = [-Infinity, -Infinity, -Infinity];
  for (const w of plan.worlds) {
    for (const m of w.traj.values()) {
      for (let k = 0; k < m.length; k += 13) {
        for (let a = 0; a < 3; a++) {
          lo[a] = Math.min(lo[a], m[k + a]);
          hi[a] = Math.max(hi[a], m[k + a]);
        }
      }
    }
  }
  const ext = [0, 1, 2].map((a) => (hi[a] > lo[a] ? hi[a] - lo[a] : 0));
  const axes = [0, 1, 2].sort((a, b) => ext[b] - ext[a] || a - b).slice(0, 2).sort((a, b) => a - b);
  const pad = 0.08 * Math.max(1e-3, ext[axes[0]], ext[axes[1]]);
  return { axes, lo: axes.map((a) => lo[a] - pad), hi: axes.map((a) => hi[a] + pad) };
}

// The 8 corners of a static body's box (its half extents rotated by its pose; a sphere's or a round
// shape's bounding box), in world coordinates: the caller draws the hull of their projection.
function footprint(b) {
  const s = b.size || [0, 0, 0];
  const h = b.shape === "box" || b.shape === "mesh" || b.shape === "compound" ? [s[0] / 2, s[1] / 2, s[2] / 2]
    : b.shape === "sphere" ? [s[0], s[0], s[0]] : [s[0], s[0], s[1] / 2];
  const [px, py, pz, w, x, y, z] = b.pose;
  const r = [1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y),
    2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x),
    2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)];
  const pts = [];
  for (let k = 0; k < 8; k++) {
    const l = [k & 1 ? h[0] : -h[0], k & 2 ? h[1] : -h[1], k & 4 ? h[2] : -h[2]];
    pts.push([px + r[0] * l[0] + r[1] * l[1] + r[2] * l[2], py + r[3] * l[0] + r[4] * l[1] + r[5] * l[2],
      pz + r[6] * l[0] + r[7] * l[1] + r[8] * l[2]]);
  }
  return pts;
}

// The convex hull (gift wrap) of 2-D points, counter-clockwise.
function hull2(pts) {
  const p = pts.slice().sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const cross = (o, a, b) => (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0]);
  const lower = [];
  for (const q of p) {
    while (lower.length >= 2 && cross(lower[lower.length - 2], lower[lower.length - 1], q) <= 0) lower.pop();
    lower.push(q);
  }
  const upper = [];
  for (const q of p.reverse()) {
    while (upper.length >= 2 && cross(upper[upper.length - 2], upper[upper.length - 1], q) <= 0) upper.pop();
    upper.push(q);
  }
  return lower.slice(0, -1).concat(upper.slice(0, -1));
}

// A colour light enough to read on the dark panel: dark ones are mixed toward white.
function trailColor(c) {
  const [r, g, b] = c || [0.6, 0.6, 0.6];
  const lum = 0.3 * r + 0.59 * g + 0.11 * b;
  const t = lum < 0.35 ? (0.35 - lum) / 0.35 * 0.7 : 0;
  return cssColor([r + (1 - r) * t, g + (1 - g) * t, b + (1 - b) * t]);
}

// Draws world w of plan into a W x H canvas: goal regions, static bodies' centres, trails, ends.
function drawWorld(canvas, plan, w, fr) {
  const g = canvas.getContext("2d");
  g.fillStyle = "#232833"; // --panel2
  g.fillRect(0, 0, W, H);
  const [u, v] = fr.axes;
  const s = Math.min((W - 8) / (fr.hi[0] - fr.lo[0]), (H - 8) / (fr.hi[1] - fr.lo[1]));
  const ox = (W - s * (fr.hi[0] - fr.lo[0])) / 2;
  const oy = (H - s * (fr.hi[1] - fr.lo[1])) / 2;
  const X = (p) => ox + s * (p[u] - fr.lo[0]);
  const Y = (p) => H - (oy + s * (p[v] - fr.lo[1])); // up is up
  for (const r of plan.goal || []) {
    const b = plan.bodies[r.body];
    g.strokeStyle = cssColor(b && b.color, 0.9);
    g.fillStyle = cssColor(b && b.color, 0.15);
    g.beginPath();
    if (r.kind === "box") {
      const lo = r.min.map((x, a) => (x === null ? (a === u ? fr.lo[0] : a === v ? fr.lo[1] : 0) : x));
      const hi = r.max.map((x, a) => (x === null ? (a === u ? fr.hi[0] : a === v ? fr.hi[1] : 0) : x));
      g.rect(X(lo), Y(hi), X(hi) - X(lo), Y(lo) - Y(hi));
    } else if (r.kind === "sphere" || (u < 2 && v < 2)) { // a circle bounds x and y only: seen from above
      const c = [r.center[0], r.center[1], r.center[2] || 0];
      g.arc(X(c), Y(c), Math.max(1.5, s * r.radius), 0, 2 * Math.PI);
    }
    g.fill();
    g.stroke();
  }
  g.fillStyle = "rgba(160, 170, 185, 0.35)";
  for (const b of plan.bodies) {
    if (b.moving || b.shape === "plane" || !b.pose) continue;
    const hull = hull2(footprint(b).map((p) => [X(p), Y(p)]));
    g.beginPath();
    hull.forEach(([x, y], i) => (i ? g.lineTo(x, y) : g.moveTo(x, y)));
    g.closePath();
    g.fill();
  }
  for (const b of plan.bodies) {
    const m = b.moving && w.traj.get(b.name);
    if (!m || m.length < 13) continue;
    g.strokeStyle = trailColor(b.color);
    g.lineWidth = 1.5;
    g.beginPath();
    const stride = 13 * Math.max(1, Math.floor(m.length / 13 / 300));
    for (let k = 0; k < m.length; k += stride) {
      const p = [m[k], m[k + 1], m[k + 2]];
      if (k === 0) g.moveTo(X(p), Y(p));
      else g.lineTo(X(p), Y(p));
    }
    const e = m.length - 13;
    const end = [m[e], m[e + 1], m[e + 2]];
    g.lineTo(X(end), Y(end));
    g.stroke();
    g.fillStyle = trailColor(b.color);
    g.beginPath();
    g.arc(X(end), Y(end), 2.5, 0, 2 * Math.PI);
    g.fill();
  }
}

function caption(s) {
  const c = s.control || {};
  return [
    el("strong", {}, s.world === 0 ? "world 0 (selected)" : `world ${s.world}`),
    el("span", {}, `${duration(s.duration)} · cost ${number(s.cost)}`),
    el("span", {}, `control ${number(c.impulse)} N·s over ${duration(c.time)}`),
    el("span", {}, s.at_rest ? "ends at rest" : "ends moving"),
  ];
}

export class WorldsPanel {
  // container: where the card goes; plan: parsePlan's; jobId: the job whose plan it is; onPick(k):
  // called with a world's number when it is clicked.
  constructor(container, plan, jobId, onPick) {
    this.plan = plan;
    this.jobId = jobId;
    this.onPick = onPick;
    this.where = el("input", { type: "text", name: "where", class: "mono", spellcheck: "false", "aria-label": "query",
      placeholder: "ball inside [0,1]x[-1,1]x[0,2] between 2 3 and never ball touches vase and ends at rest" });
    this.rank = el("input", { type: "text", name: "rank", class: "mono", spellcheck: "false", "aria-label": "rank by",
      placeholder: "duration,-impulse" });
    this.error = el("div", { class: "error worlds-error", role: "alert", hidden: true });
    this.count = el("span", { class: "muted small worlds-count" });
    this.grid = el("div", { class: "worlds-grid" });
    const form = el("form", { class: "worlds-form", onsubmit: (e) => { e.preventDefault(); this.apply(); } },
      el("label", {}, "where ", this.where), el("label", {}, "rank ", this.rank),
      el("button", { type: "submit" }, "Filter"),
      el("button", { type: "button", onclick: () => { this.where.value = ""; this.rank.value = ""; this.apply(); } }, "Clear"),
      this.count);
    this.root = el("div", { class: "card worlds-card" }, el("h3", {}, `Worlds (${plan.worlds.length})`), form, this.error, this.grid);
    container.append(this.root);
    const fr = frame(plan);
    this.figures = plan.worlds.map((w, k) => {
      const canvas = el("canvas", { width: W, height: H, class: "world-canvas" });
      drawWorld(canvas, plan, w, fr);
      const cap = el("figcaption", {}, el("strong", {}, k === 0 ? "world 0 (selected)" : `world ${k}`));
      const f = el("figure", { class: "world", dataset: { world: String(k) }, tabindex: "0", title: "play this world",
        onclick: () => this.pick(k), onkeydown: (e) => { if (e.key === "Enter") this.pick(k); } }, canvas, cap);
      this.grid.append(f);
      return { f, cap };
    });
    this.figures[0].f.classList.add("current");
    this.apply();
  }

  pick(k) {
    for (const { f } of this.figures) f.classList.toggle("current", Number(f.dataset.world) === k);
    this.onPick(k);
  }

  // Asks the server which worlds match and in which order; hides the others.
  async apply() {
    const where = this.where.value.trim();
    const rank = this.rank.value.trim();
    this.root.dataset.state = "loading";
    try {
      const r = await api.worlds(this.jobId, where, rank);
      this.error.hidden = true;
      for (const s of r.worlds) clear(this.figures[s.world].cap).append(...caption(s));
      const shown = new Set(r.order);
      for (const { f } of this.figures) f.hidden = !shown.has(Number(f.dataset.world));
      for (const k of r.order) this.grid.append(this.figures[k].f); // rank order, the hidden ones after
      for (const { f } of this.figures) if (f.hidden) this.grid.append(f);
      this.count.textContent = where ? `${r.order.length} of ${r.worlds.length} match` : `${r.worlds.length} worlds`;
      this.root.dataset.shown = r.order.join(",");
      this.root.dataset.state = "ready";
      this.where.classList.remove("invalid");
    } catch (err) {
      this.error.hidden = false;
      clear(this.error).append(el("strong", {}, err.code || "error"), " ", el("span", { class: "mono message" }, err.message));
      (err.field === "rank" ? this.rank : this.where).classList.add("invalid");
      this.root.dataset.state = "error";
    }
  }
}
