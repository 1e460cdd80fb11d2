// The joints of a plan (member "joints", docs/plan-format.md) as three.js objects, as the desktop
// viewer draws them: each anchor a point of JOINT_PX pixels in JOINT_COLOR, axis 1 (held by the
// first body) a line through it in the same colour, axis 2 (held by the second: a universal's, a
// hinge2's spin) a line in JOINT2_COLOR, a distance joint's rod a line between its two points (both
// marked). Drawn over everything (no depth test): an anchor usually lies inside the bodies it joins.
// Anchors and axes are in the frames of the bodies that hold them, so `update` places them from the
// bodies' objects (as the player has posed them) every frame. The group's userData.joints holds the
// joints drawn (for the browser tests): [{name, kind, anchor: [x, y, z] in the world}].
import * as THREE from "three";

export const JOINT_COLOR = [1.0, 0.15, 1.0]; // magenta (no key colour of PALETTE)
export const JOINT2_COLOR = [0.1, 0.9, 1.0]; // cyan
const JOINT_PX = 9;
const nonzero = (v) => v[0] !== 0 || v[1] !== 0 || v[2] !== 0;

// { group, update() }: the joints' objects (an empty group without joints); sceneRadius sizes the
// axis lines.
export function buildJoints(plan, objects, sceneRadius) {
  const group = new THREE.Group();
  group.name = "joints";
  group.userData.joints = [];
  const joints = plan.joints || [];
  if (!joints.length) return { group, update() {} };
  const half = Math.min(0.6, Math.max(0.1, 0.2 * sceneRadius)); // half an axis line, m
  const over = (o) => {
    o.renderOrder = 11;
    o.frustumCulled = false;
    o.raycast = () => {}; // clicks pick the bodies, never a joint
    group.add(o);
    return o;
  };
  const buffer = (n) => new THREE.BufferGeometry().setAttribute("position", new THREE.Float32BufferAttribute(new Float32Array(3 * n), 3));
  let npoints = 0, nlines = 0, nlines2 = 0;
  for (const j of joints) {
    npoints += j.kind === "distance" ? 2 : 1;
    nlines += j.kind === "distance" || nonzero(j.axis) ? 1 : 0;
    nlines2 += j.kind !== "distance" && nonzero(j.axis2) ? 1 : 0;
  }
  const colour = (c) => new THREE.Color(...c);
  const points = over(new THREE.Points(buffer(npoints),
    new THREE.PointsMaterial({ color: colour(JOINT_COLOR), size: JOINT_PX, sizeAttenuation: false, depthTest: false })));
  const lines = over(new THREE.LineSegments(buffer(2 * nlines), new THREE.LineBasicMaterial({ color: colour(JOINT_COLOR), depthTest: false })));
  const lines2 = over(new THREE.LineSegments(buffer(2 * nlines2), new THREE.LineBasicMaterial({ color: colour(JOINT2_COLOR), depthTest: false })));
  const p = new THREE.Vector3(), q = new THREE.Vector3(), d = new THREE.Vector3();
  // local (in body i's frame; the world's for -1) to the world, a point or a direction
  const toWorld = (i, v, out, point) => {
    out.set(v[0], v[1], v[2]);
    const o = i >= 0 ? objects[i] : null;
    if (!o) return out;
    out.applyQuaternion(o.quaternion);
    return point ? out.add(o.position) : out;
  };
  const update = () => {
    const P = points.geometry.attributes.position, L = lines.geometry.attributes.position, L2 = lines2.geometry.attributes.position;
    let ip = 0, il = 0, il2 = 0;
    const drawn = [];
    for (const j of joints) {
      toWorld(j.a, j.anchor, p, true);
      P.setXYZ(ip++, p.x, p.y, p.z);
      drawn.push({ name: j.name, kind: j.kind, anchor: [p.x, p.y, p.z] });
      if (j.kind === "distance") {
        toWorld(j.b, j.anchor2, q, true);
        P.setXYZ(ip++, q.x, q.y, q.z);
        L.setXYZ(il++, p.x, p.y, p.z);
        L.setXYZ(il++, q.x, q.y, q.z);
        continue;
      }
      if (nonzero(j.axis)) {
        toWorld(j.a, j.axis, d, false).multiplyScalar(half);
        L.setXYZ(il++, p.x - d.x, p.y - d.y, p.z - d.z);
        L.setXYZ(il++, p.x + d.x, p.y + d.y, p.z + d.z);
      }
      if (nonzero(j.axis2)) {
        toWorld(j.b, j.anchor2, q, true);
        toWorld(j.b, j.axis2, d, false).multiplyScalar(0.6 * half);
        L2.setXYZ(il2++, q.x - d.x, q.y - d.y, q.z - d.z);
        L2.setXYZ(il2++, q.x + d.x, q.y + d.y, q.z + d.z);
      }
    }
    P.needsUpdate = L.needsUpdate = L2.needsUpdate = true;
    group.userData.joints = drawn;
  };
  update();
  return { group, update };
}
