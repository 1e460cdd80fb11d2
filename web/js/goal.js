// The goal regions of a plan (member "goal", docs/plan-format.md) as three.js objects, in the colour
// of the body each belongs to (its trail's): a circle as a translucent column of the body's height
// from its bottom where it meets the circle (a circle bounds x, y only), a sphere as a translucent ball, a box as a translucent
// box with its edges, its unbounded sides (null) cut at the scene's bounds. They write no depth, so
// the bodies moving through them stay visible. Each object's userData.goal holds the region as
// drawn (for the browser tests): {kind, body, center, radius[, height]} or {kind, body, min, max}.
import * as THREE from "three";
import { paletteColor } from "./plan.js";

const FILL_OPACITY = 0.3;

// Height of a body's lowest point below its centre, as drawn upright.
export function halfHeight(b) {
  const s = b.size;
  switch (b.shape) {
    case "sphere":
      return s[0];
    case "cylinder":
      return 0.5 * s[1];
    case "capsule":
      return s[0] + 0.5 * s[1];
    case "box":
    case "mesh":
    case "compound":
      return 0.5 * s[2];
    default:
      return 0;
  }
}

// Where circle r applies in height (as the desktop viewer's tpView_GoalCircleZ): the z of its
// body's centre at the first state of the selected world at which the centre is within the circle,
// else at the start. A circle bounds x and y only, so its column is drawn where the body meets it (a
// hole on a lower floor on that floor, not at the table's height the ball started from).
export function goalCircleZ(plan, r) {
  const b = plan.bodies[r.body];
  if (!b.moving) return b.pose[2];
  const m = plan.worlds[0].traj.get(b.name);
  const rr = r.radius * r.radius;
  for (let k = 0; k < m.length; k += 13) {
    const dx = m[k] - r.center[0], dy = m[k + 1] - r.center[1];
    if (dx * dx + dy * dy <= rr) return m[k + 2];
  }
  return m[2];
}

function materials(colour) {
  const fill = new THREE.MeshBasicMaterial({
    color: colour, transparent: true, opacity: FILL_OPACITY, depthWrite: false, side: THREE.DoubleSide,
  });
  const line = new THREE.LineBasicMaterial({ color: colour });
  return { fill, line };
}

// A circle bounds x, y only: drawn as a translucent column of the body's height standing where the
// body meets it (a ball's hole on the green, a robot's pad on the floor), rings at both ends.
function column(r, plan, lift) {
  const b = plan.bodies[r.body];
  const h = Math.max(2 * halfHeight(b), lift);
  const z = goalCircleZ(plan, r) - halfHeight(b) + lift; // bottom
  const { fill, line } = materials(new THREE.Color(...paletteColor(b.palette)));
  const group = new THREE.Group();
  const side = new THREE.Mesh(new THREE.CylinderGeometry(r.radius, r.radius, h, 48).rotateX(Math.PI / 2), fill);
  side.position.z = h / 2;
  group.add(side);
  const ringPts = [];
  for (let k = 0; k <= 64; ++k) {
    const a = (k / 64) * 2 * Math.PI;
    ringPts.push(new THREE.Vector3(r.radius * Math.cos(a), r.radius * Math.sin(a), 0));
  }
  const ring = new THREE.BufferGeometry().setFromPoints(ringPts);
  for (const dz of [0, h]) {
    const loop = new THREE.Line(ring, line);
    loop.position.z = dz;
    group.add(loop);
  }
  group.position.set(r.center[0], r.center[1], z);
  group.userData.goal = { kind: "circle", body: b.name, center: [r.center[0], r.center[1], z], radius: r.radius, height: h };
  return group;
}

function ball(r, plan) {
  const b = plan.bodies[r.body];
  const { fill } = materials(new THREE.Color(...paletteColor(b.palette)));
  const mesh = new THREE.Mesh(new THREE.SphereGeometry(r.radius, 20, 10), fill);
  mesh.position.set(r.center[0], r.center[1], r.center[2]);
  mesh.userData.goal = { kind: "sphere", body: b.name, center: r.center.slice(), radius: r.radius };
  return mesh;
}

function box(r, plan, bounds, lift) {
  const b = plan.bodies[r.body];
  const lo = [], hi = [];
  for (let a = 0; a < 3; ++a) {
    const axis = "xyz"[a];
    const cut0 = bounds.min[axis], cut1 = bounds.max[axis];
    lo[a] = r.min[a] ?? Math.min(cut0, r.max[a] ?? cut0);
    hi[a] = r.max[a] ?? Math.max(cut1, lo[a]);
    if (hi[a] - lo[a] < lift) hi[a] = lo[a] + lift; // a flat region stays visible
  }
  const size = [hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]];
  const { fill, line } = materials(new THREE.Color(...paletteColor(b.palette)));
  const geometry = new THREE.BoxGeometry(...size);
  const group = new THREE.Group();
  group.add(new THREE.Mesh(geometry, fill), new THREE.LineSegments(new THREE.EdgesGeometry(geometry), line));
  group.position.set((lo[0] + hi[0]) / 2, (lo[1] + hi[1]) / 2, (lo[2] + hi[2]) / 2);
  group.userData.goal = { kind: "box", body: b.name, min: lo, max: hi };
  return group;
}

// The group of the plan's goal regions (empty when it has none); bounds is the scene's Box3.
export function buildGoal(plan, bounds) {
  const group = new THREE.Group();
  group.name = "goal";
  const lift = 2e-4 * Math.max(1e-3, bounds.getSize(new THREE.Vector3()).length()); // over the floor
  for (const r of plan.goal || []) {
    const obj = r.kind === "circle" ? column(r, plan, lift) : r.kind === "sphere" ? ball(r, plan) : box(r, plan, bounds, lift);
    group.add(obj);
  }
  return group;
}
