// three.js objects for the bodies of a plan: one mesh per body with its recorded shape, size and
// colour (cylinders and capsules along their local z, as in ODE), planes as large quads with a
// grid. Pose rows are [px, py, pz, qw, qx, qy, qz, ...] (docs/plan-format.md).
import * as THREE from "three";
import { isDie, pipGeometry, pipColor, disposePipGeometries } from "./dice.js";

const UP = new THREE.Vector3(0, 0, 1);

function material(color) {
  const [r, g, b, a] = color || [0.7, 0.7, 0.7, 1];
  return new THREE.MeshStandardMaterial({
    color: new THREE.Color(r, g, b),
    roughness: 0.65,
    metalness: 0.05,
    transparent: a < 1,
    opacity: a,
    depthWrite: a >= 1,
  });
}

// Geometries are shared between bodies of the same shape and size (400 dice: one box geometry).
const geometryCache = new Map();
function geometry(shape, size) {
  const key = shape + ":" + size.join(",");
  let g = geometryCache.get(key);
  if (g) return g;
  switch (shape) {
    case "box":
      g = new THREE.BoxGeometry(size[0], size[1], size[2]);
      break;
    case "sphere":
      g = new THREE.SphereGeometry(size[0], 32, 16);
      break;
    case "cylinder":
      g = new THREE.CylinderGeometry(size[0], size[0], size[1], 32).rotateX(Math.PI / 2);
      break;
    case "capsule":
      g = new THREE.CapsuleGeometry(size[0], size[1], 8, 24).rotateX(Math.PI / 2);
      break;
    default:
      throw new Error(`unknown shape "${shape}"`);
  }
  geometryCache.set(key, g);
  return g;
}

export function disposeGeometries() {
  for (const g of geometryCache.values()) g.dispose();
  geometryCache.clear();
  disposePipGeometries();
}

// Largest distance from a body's origin to its surface (for fitting the camera).
export function bodyRadius(b) {
  const s = b.size;
  switch (b.shape) {
    case "box":
    case "compound": // size: the box about its origin that holds the parts
      return 0.5 * Math.hypot(s[0], s[1], s[2]);
    case "sphere":
      return s[0];
    case "cylinder":
      return Math.hypot(s[0], 0.5 * s[1]);
    case "capsule":
      return s[0] + 0.5 * s[1];
    default:
      return 0;
  }
}

export function setPose(obj, row, k = 0) {
  obj.position.set(row[k], row[k + 1], row[k + 2]);
  obj.quaternion.set(row[k + 4], row[k + 5], row[k + 6], row[k + 3]);
}

// Grid spacing: a power of ten giving 10 to 100 lines across `extent` (as the desktop viewer).
function gridStep(extent) {
  return Math.pow(10, Math.floor(Math.log10(Math.max(extent, 1e-6) / 10)));
}

// A plane ax + by + cz = d drawn as a square of side `extent` around the scene centre's
// projection onto it, plus a grid slightly above it.
function planeObject(body, center, extent) {
  const [a, b, c, d] = body.size;
  const n = new THREE.Vector3(a, b, c);
  const len = n.length();
  n.divideScalar(len);
  const group = new THREE.Group();
  const q = new THREE.Quaternion().setFromUnitVectors(UP, n);
  const origin = n.clone().multiplyScalar(d / len);
  const c0 = center.clone().sub(n.clone().multiplyScalar(center.clone().sub(origin).dot(n)));
  group.position.copy(c0);
  group.quaternion.copy(q);
  const quad = new THREE.Mesh(new THREE.PlaneGeometry(extent, extent), material(body.color));
  quad.material.polygonOffset = true;
  quad.material.polygonOffsetFactor = 1;
  quad.material.polygonOffsetUnits = 1;
  group.add(quad);
  const step = gridStep(extent / 6);
  const divisions = Math.min(400, Math.round(extent / step));
  const grid = new THREE.GridHelper(divisions * step, divisions, 0x000000, 0x000000);
  grid.material.transparent = true;
  grid.material.opacity = 0.12;
  grid.rotation.x = Math.PI / 2; // GridHelper lies in x-z; the plane's local frame is x-y
  group.add(grid);
  group.userData.isPlane = true;
  return group;
}

// A mesh part's own triangles (its frame), flat shaded.
function partMeshGeometry(p) {
  const pos = new Float32Array(p.triangles.length * 9);
  p.triangles.forEach((t, i) => t.forEach((v, c) => pos.set(p.vertices[v], 9 * i + 3 * c)));
  const g = new THREE.BufferGeometry();
  g.setAttribute("position", new THREE.BufferAttribute(pos, 3));
  g.computeVertexNormals();
  return g;
}

// A compound body (plan version 4): a group of its parts, each placed in the body frame.
function compoundObject(b) {
  const group = new THREE.Group();
  const mat = material(b.color);
  for (const p of b.parts) {
    const g = p.shape === "mesh" ? partMeshGeometry(p) : geometry(p.shape, p.size);
    const m = new THREE.Mesh(g, mat);
    m.position.set(p.pos[0], p.pos[1], p.pos[2]);
    m.quaternion.set(p.quat[1], p.quat[2], p.quat[3], p.quat[0]);
    group.add(m);
  }
  group.material = mat; // what the page recolours or disposes on the body's object
  return group;
}

// Moving opaque bodies of the same shape and size drawn as one instanced mesh (one draw call for
// 400 dice) when at least this many share it.
const INSTANCE_MIN = 8;

function shapeKey(b) {
  return b.shape + ":" + b.size.join(",");
}

// Builds the bodies: one object per body (null for planes, added by addPlanes once the scene's
// extent is known). Static bodies are meshes at their pose; a moving body is a mesh, or, in a
// group of identical bodies, a proxy Object3D whose pose update() copies into its instance
// (userData.instance = {mesh, k}). Returns {objects, instanced: [InstancedMesh]}.
export function buildBodies(plan, scene) {
  const groups = new Map();
  plan.bodies.forEach((b, i) => {
    if (!b.moving || b.shape === "plane" || b.parts || (b.color ? b.color[3] : 1) < 1) return;
    const k = shapeKey(b);
    if (!groups.has(k)) groups.set(k, []);
    groups.get(k).push(i);
  });
  const objects = plan.bodies.map((b) => {
    if (b.shape === "plane") return null;
    const obj = b.parts ? compoundObject(b) : new THREE.Mesh(geometry(b.shape, b.size), material(b.color));
    if (!b.moving) setPose(obj, b.pose);
    obj.userData.body = b;
    obj.name = b.name;
    if (isDie(plan, b)) {
      const pips = new THREE.Mesh(pipGeometry(b.size[0]), new THREE.MeshStandardMaterial({ color: pipColor(b.color), roughness: 0.5 }));
      pips.name = `${b.name} pips`;
      pips.userData.pips = true;
      obj.add(pips); // moves with its die
    }
    return obj;
  });
  const instanced = [];
  for (const members of groups.values()) {
    if (members.length < INSTANCE_MIN) continue;
    const first = plan.bodies[members[0]];
    const mesh = new THREE.InstancedMesh(geometry(first.shape, first.size), material([1, 1, 1, 1]), members.length);
    mesh.frustumCulled = false; // the instances move
    mesh.userData.bodies = members;
    // dice: their pips as a second instanced mesh on the same matrices
    const dice = isDie(plan, first);
    const pips = dice ? new THREE.InstancedMesh(pipGeometry(first.size[0]), new THREE.MeshStandardMaterial({ roughness: 0.5 }), members.length) : null;
    if (pips) {
      pips.frustumCulled = false;
      pips.userData.bodies = members;
      pips.userData.pips = true;
    }
    members.forEach((i, k) => {
      const b = plan.bodies[i];
      mesh.setColorAt(k, new THREE.Color(b.color[0], b.color[1], b.color[2]));
      if (pips) pips.setColorAt(k, pipColor(b.color));
      objects[i].traverse((o) => o.material && o.material.dispose()); // the box and any pips
      const proxy = new THREE.Object3D();
      proxy.userData.body = b;
      proxy.userData.instance = { mesh, k, pips };
      proxy.name = b.name;
      objects[i] = proxy;
    });
    instanced.push(mesh);
    scene.add(mesh);
    if (pips) {
      instanced.push(pips);
      scene.add(pips);
    }
  }
  for (const o of objects) if (o && !o.userData.instance) scene.add(o);
  return { objects, instanced };
}

export function addPlanes(plan, scene, objects, center, extent) {
  plan.bodies.forEach((b, i) => {
    if (b.shape !== "plane") return;
    const obj = planeObject(b, center, Math.max(extent, 1e-3));
    obj.userData.body = b;
    obj.name = b.name;
    scene.add(obj);
    objects[i] = obj;
  });
}
