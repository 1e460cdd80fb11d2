// The search tree as line segments (the paper's Fig. 8(e), as the desktop viewer draws it): for
// the first MAX_NODES nodes, every moving body's position at the node joined to its position at
// the parent, one colour per body (PALETTE); the selected branch (flag bit 2) in a lighter colour
// on top, goal nodes (bit 1) as yellow points. Bodies sharing a palette colour share one buffer,
// so a frame is at most 8 + 8 + 1 draw calls. Above MAX_SEGMENTS segments in all, only the first
// bodies are drawn (as the desktop viewer), and `info` says so.
import * as THREE from "three";
import { paletteColor } from "./plan.js";

export const MAX_NODES = 100000;
export const MAX_SEGMENTS = 4000000;

export function buildTreeLayer(plan, tree) {
  const pal = tree.names.map((name) => {
    const b = plan.bodies.find((x) => x.moving && x.name === name);
    if (!b) throw new Error(`tree: body "${name}" is not a moving body of the plan (tree of another plan?)`);
    return b.palette;
  });
  const n = Math.min(tree.nnodes, MAX_NODES);
  const nb = tree.nbodies;
  let drawn = nb;
  while (drawn > 1 && (n - 1) * drawn > MAX_SEGMENTS) --drawn;
  const { parent, flags, pos } = tree;

  // Count segments per colour, then fill one Float32Array per colour.
  const ncol = Math.min(8, Math.max(1, ...pal.slice(0, drawn).map((p) => p + 1)));
  const perColour = new Array(ncol).fill(0);
  for (let b = 0; b < drawn; ++b) perColour[pal[b] % 8] += Math.max(0, n - 1);
  const group = new THREE.Group();
  const bufs = perColour.map((c) => new Float32Array(c * 6));
  const fill = new Array(ncol).fill(0);
  for (let i = 1; i < n; ++i) {
    const pi = parent[i];
    for (let b = 0; b < drawn; ++b) {
      const c = pal[b] % 8;
      const buf = bufs[c];
      let o = fill[c];
      const q = (pi * nb + b) * 3, p = (i * nb + b) * 3;
      buf[o++] = pos[q], buf[o++] = pos[q + 1], buf[o++] = pos[q + 2];
      buf[o++] = pos[p], buf[o++] = pos[p + 1], buf[o++] = pos[p + 2];
      fill[c] = o;
    }
  }
  bufs.forEach((buf, c) => {
    if (!buf.length) return;
    const g = new THREE.BufferGeometry();
    g.setAttribute("position", new THREE.BufferAttribute(buf, 3));
    const m = new THREE.LineBasicMaterial({ color: new THREE.Color(...paletteColor(c)), transparent: true, opacity: 0.55, depthWrite: false });
    group.add(new THREE.LineSegments(g, m));
  });

  // Selected branch and goal nodes.
  const sel = [], goals = [];
  for (let i = 1; i < n; ++i) {
    if (flags[i] & 4 && flags[parent[i]] & 4) sel.push(i);
  }
  for (let i = 0; i < n; ++i) if (flags[i] & 2) goals.push(i);
  for (let b = 0; b < drawn; ++b) {
    if (!sel.length) break;
    const buf = new Float32Array(sel.length * 6);
    sel.forEach((i, k) => {
      buf.set(pos.subarray((parent[i] * nb + b) * 3, (parent[i] * nb + b) * 3 + 3), k * 6);
      buf.set(pos.subarray((i * nb + b) * 3, (i * nb + b) * 3 + 3), k * 6 + 3);
    });
    const g = new THREE.BufferGeometry();
    g.setAttribute("position", new THREE.BufferAttribute(buf, 3));
    const col = new THREE.Color(...paletteColor(pal[b])).lerp(new THREE.Color(1, 1, 1), 0.55);
    const line = new THREE.LineSegments(g, new THREE.LineBasicMaterial({ color: col }));
    line.renderOrder = 2;
    group.add(line);
  }
  if (goals.length) {
    const buf = new Float32Array(goals.length * drawn * 3);
    let o = 0;
    for (const i of goals) for (let b = 0; b < drawn; ++b) buf.set(pos.subarray((i * nb + b) * 3, (i * nb + b) * 3 + 3), (o++) * 3);
    const g = new THREE.BufferGeometry();
    g.setAttribute("position", new THREE.BufferAttribute(buf, 3));
    const pts = new THREE.Points(g, new THREE.PointsMaterial({ color: 0xffe033, size: 6, sizeAttenuation: false }));
    pts.renderOrder = 3;
    group.add(pts);
  }
  let info = `${n.toLocaleString("en")} of ${tree.nnodes.toLocaleString("en")} nodes`;
  if (drawn < nb) info += `, first ${drawn} of ${nb} bodies`;
  return { group, info, nodes: n, bodies: drawn, segments: (n - 1) * drawn };
}

export function disposeTreeLayer(layer) {
  if (!layer) return;
  layer.group.traverse((o) => {
    if (o.geometry) o.geometry.dispose();
    if (o.material) o.material.dispose();
  });
}
