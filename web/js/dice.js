// Dice faces ("all show six" must be seen), as the desktop viewer draws them
// (core/src/plan_die.c, tpPlanBody_IsDie and tpDie_Face): a body is a die when the plan's domain is
// "dice" and the body is a moving box with three equal sides; six is on its local +z (the face up
// when tp.upright holds with its default axis), one on -z, two on +y, three on +x, four on -x, five
// on -y. The pips are discs just above the faces, in a contrasting colour.
import * as THREE from "three";

// number per face, faces in the order +x, -x, +y, -y, +z, -z (tpDie_Face)
export const FACE_NUMBER = [3, 4, 2, 5, 6, 1];
const LAYOUT = [
  [],
  [[0, 0]],
  [[-1, -1], [1, 1]],
  [[-1, -1], [0, 0], [1, 1]],
  [[-1, -1], [-1, 1], [1, -1], [1, 1]],
  [[-1, -1], [-1, 1], [0, 0], [1, -1], [1, 1]],
  [[-1, -1], [-1, 0], [-1, 1], [1, -1], [1, 0], [1, 1]],
];
const STEP = 0.5; // pips half-way between a face's centre and its edge (of the half side)
const RADIUS = 0.18; // of the half side
const SEGMENTS = 12;

export function isDie(plan, b) {
  if (plan.domain !== "dice" || !b.moving || b.shape !== "box" || b.parts) return false;
  const s = b.size[0];
  return s > 0 && Math.abs(b.size[1] - s) <= 1e-9 * s && Math.abs(b.size[2] - s) <= 1e-9 * s;
}

// The pips of a die of side `side` (m) as one geometry in the die's frame; userData.faces: the
// number of pips on each face, by its name ("+x", ...), for the tests.
const cache = new Map();
export function pipGeometry(side) {
  let g = cache.get(side);
  if (g) return g;
  const pos = [], nrm = [], faces = {};
  const h = side / 2, lift = h * 1.006; // just above the face: no depth fight with the box
  for (let f = 0; f < 6; ++f) {
    const ax = f >> 1, ua = (ax + 1) % 3, va = (ax + 2) % 3, sign = f % 2 ? -1 : 1;
    const n = FACE_NUMBER[f];
    faces[(sign > 0 ? "+" : "-") + "xyz"[ax]] = n;
    for (const [pu, pv] of LAYOUT[n]) {
      for (let s = 0; s < SEGMENTS; ++s) {
        const a0 = (2 * Math.PI * s * sign) / SEGMENTS, a1 = (2 * Math.PI * (s + 1) * sign) / SEGMENTS;
        for (const [du, dv] of [[0, 0], [Math.cos(a0), Math.sin(a0)], [Math.cos(a1), Math.sin(a1)]]) {
          const p = [0, 0, 0];
          p[ax] = sign * lift;
          p[ua] = h * (STEP * pu + RADIUS * du);
          p[va] = h * (STEP * pv + RADIUS * dv);
          pos.push(...p);
          const q = [0, 0, 0];
          q[ax] = sign;
          nrm.push(...q);
        }
      }
    }
  }
  g = new THREE.BufferGeometry();
  g.setAttribute("position", new THREE.Float32BufferAttribute(pos, 3));
  g.setAttribute("normal", new THREE.Float32BufferAttribute(nrm, 3));
  g.userData.faces = faces;
  cache.set(side, g);
  return g;
}

// White pips on a dark die, near-black on a light one.
export function pipColor(color) {
  const [r, g, b] = color || [0.7, 0.7, 0.7];
  const c = 0.3 * r + 0.59 * g + 0.11 * b > 0.6 ? 0.08 : 0.95;
  return new THREE.Color(c, c, c);
}

export function disposePipGeometries() {
  for (const g of cache.values()) g.dispose();
  cache.clear();
}
