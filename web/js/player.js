// 3D playback of a plan (and optionally its search tree) with three.js: the bodies move along the
// trajectories of the world shown (interpolated between steps: linear position, normalized-lerp
// orientation), orbit/pan/zoom with OrbitControls, the selected body's trail, many-worlds
// alternatives, the tree layer, the goal regions (goal.js), the joints (joints.js). Keys as the desktop viewer
// (docs/viewer.md): space, arrows, [ ], Home/End, R, N/P, T, L, C, J (joints); and G (goal regions). Draws only when something changed (or while playing).
import * as THREE from "three";
import { OrbitControls } from "three/addons/controls/OrbitControls.js";
import { buildBodies, addPlanes, bodyRadius, disposeGeometries } from "./bodies.js";
import { buildTreeLayer, disposeTreeLayer } from "./treelayer.js";
import { buildGoal, goalCircleZ, halfHeight } from "./goal.js";
import { buildJoints } from "./joints.js";
import { paletteColor, temporalAt } from "./plan.js";
import { el } from "./dom.js";
import { CachedStaticLayer, onLayer, softwareGL, STATIC, MOVING } from "./layers.js";

// Colours as in the plan and the desktop viewer (legacy OpenGL): no sRGB conversion of material
// colours nor of the output. This also lets the cached layer be copied to the canvas as is.
THREE.ColorManagement.enabled = false;

const SPEEDS = [1 / 64, 1 / 32, 1 / 16, 1 / 8, 1 / 4, 1 / 2, 1, 2, 4, 8, 16, 32, 64];

function speedLabel(s) {
  return s >= 1 ? `${s}×` : `1/${1 / s}×`;
}

// The stage's floor (m) and margin, as the desktop viewer's (viewer/src/camera.c, stage_floor): the
// lowest point of the static bodies, the moving bodies' first poses and the horizontal planes; half
// the stage's largest extent, at least 0.5 m.
function stageFloor(plan, objects) {
  const box = new THREE.Box3();
  const v = new THREE.Vector3();
  let planeZ = Infinity;
  for (const [i, b] of plan.bodies.entries()) {
    if (b.shape === "plane") {
      const n = b.size;
      const nn = Math.hypot(n[0], n[1], n[2]);
      if (nn > 0 && n[2] > 0.9 * nn) planeZ = Math.min(planeZ, n[3] / n[2]); // a floor
      continue;
    }
    if (!b.moving) {
      box.union(new THREE.Box3().setFromObject(objects[i]));
      continue;
    }
    const r = bodyRadius(b);
    for (const w of plan.worlds) {
      const m = w.traj.get(b.name);
      v.set(m[0], m[1], m[2]);
      box.expandByPoint(v.clone().addScalar(r));
      box.expandByPoint(v.clone().addScalar(-r));
    }
  }
  const size = box.isEmpty() ? new THREE.Vector3() : box.getSize(new THREE.Vector3());
  return { floor: Math.min(box.isEmpty() ? Infinity : box.min.z, planeZ), margin: Math.max(0.5 * Math.max(size.x, size.y, size.z), 0.5) };
}

// Scene bounds, as the desktop viewer fits its camera (tpView_SceneBounds): every static non-plane
// body's box; every moving body around every recorded position of every world (sampled to at most
// ~200 rows per body and world) except the positions of a body that fell away, a margin below the
// stage's floor (off a table with no floor under it: a 2 km fall made the scene a speck);
// and the goal regions, where the action is meant to go (their bounded sides).
function sceneBounds(plan, objects) {
  const box = new THREE.Box3();
  const v = new THREE.Vector3();
  const { floor, margin } = stageFloor(plan, objects);
  const cutoff = isFinite(floor) ? floor - margin : -Infinity;
  for (const [i, b] of plan.bodies.entries()) {
    if (b.shape === "plane") continue;
    if (!b.moving) {
      box.union(new THREE.Box3().setFromObject(objects[i]));
      continue;
    }
    const r = bodyRadius(b);
    const add = (row, k) => {
      if (k > 0 && row[k + 2] < cutoff) return;
      v.set(row[k], row[k + 1], row[k + 2]);
      box.expandByPoint(v.clone().addScalar(r));
      box.expandByPoint(v.clone().addScalar(-r));
    };
    for (const w of plan.worlds) {
      const m = w.traj.get(b.name);
      const n = m.length / 13;
      const stride = Math.max(1, Math.floor(n / 200));
      for (let k = 0; k < n; k += stride) add(m, k * 13);
      add(m, (n - 1) * 13);
    }
  }
  if (!box.isEmpty()) {
    for (const g of plan.goal || []) {
      const lo = [], hi = [];
      if (g.kind === "box") {
        const blo = box.min.toArray(), bhi = box.max.toArray();
        for (let a = 0; a < 3; a++) {
          const l = g.min[a], h = g.max[a];
          lo[a] = l !== null ? l : h !== null ? Math.min(h, bhi[a]) : blo[a];
          hi[a] = h !== null ? h : l !== null ? Math.max(l, blo[a]) : bhi[a];
        }
      } else {
        const z = g.kind === "circle" ? goalCircleZ(plan, g) : g.center[2];
        const dz = g.kind === "circle" ? halfHeight(plan.bodies[g.body]) : g.radius;
        lo.push(g.center[0] - g.radius, g.center[1] - g.radius, z - dz);
        hi.push(g.center[0] + g.radius, g.center[1] + g.radius, z + dz);
      }
      box.expandByPoint(v.set(...lo));
      box.expandByPoint(v.set(...hi));
    }
  }
  if (box.isEmpty()) box.set(new THREE.Vector3(-1, -1, -1), new THREE.Vector3(1, 1, 1));
  return box;
}

// A moving body smaller than this share of the scene's radius (a soccer ball on a 100 m pitch) is
// a few pixels at the fitted view: it also gets a marker of MARKER_PX pixels whatever the zoom, in
// its colour, drawn over the scene so that the play stays readable.
const MARKER_SHARE = 0.01;
const MARKER_PX = 10;

function addMarkers(objects, sceneRadius) {
  let n = 0;
  for (const o of objects) {
    const body = o && o.userData.body;
    if (!body || !body.moving || o.userData.instance || bodyRadius(body) >= MARKER_SHARE * sceneRadius) continue;
    const [r, g, b] = body.color || [0.9, 0.9, 0.9];
    const geo = new THREE.BufferGeometry().setAttribute("position", new THREE.Float32BufferAttribute([0, 0, 0], 3));
    const mat = new THREE.PointsMaterial({ color: new THREE.Color(r, g, b), size: MARKER_PX, sizeAttenuation: false, depthTest: false });
    const marker = new THREE.Points(geo, mat);
    marker.renderOrder = 10;
    marker.userData.marker = true;
    marker.raycast = () => {}; // clicks pick the body, never its marker
    o.add(marker); // moves with the body
    ++n;
  }
  return n;
}

export class Player {
  constructor(container, plan) {
    this.plan = plan;
    this.world = 0;
    this.time = 0;
    this.playing = false;
    this.speedIndex = SPEEDS.indexOf(1);
    this.showTree = true;
    this.showTrail = true;
    this.showGoal = true;
    this.tree = null;
    this.treeLayer = null;
    this.frames = 0; // frames drawn (for fps measurements)
    this.dirty = true;
    this.disposed = false;


    this.root = el("div", { class: "player", tabindex: "0" });
    this.viewport = el("div", { class: "viewport" });
    this.root.append(this.viewport, this.buildBar());
    container.append(this.root);

    const software = softwareGL();
    this.renderer = new THREE.WebGLRenderer({ antialias: !software });
    this.renderer.outputColorSpace = THREE.LinearSRGBColorSpace;
    this.layers = new CachedStaticLayer(this.renderer, software ? 0 : 4);
    this.renderer.setPixelRatio(Math.min(window.devicePixelRatio || 1, 2));
    this.renderer.domElement.className = "player-canvas";
    this.viewport.append(this.renderer.domElement);

    this.scene = new THREE.Scene();
    this.renderer.setClearColor(0x1d2128, 1); // not scene.background, which would clear the cached layer
    this.scene.add(new THREE.HemisphereLight(0xdde6ff, 0x3a3026, 2.0));
    const key = new THREE.DirectionalLight(0xffffff, 2.6);
    key.position.set(0.6, -0.8, 1.6);
    const fill = new THREE.DirectionalLight(0xffffff, 0.8);
    fill.position.set(-1, 0.7, 0.5);
    this.scene.add(key, fill);
    this.scene.traverse((o) => o.layers.enableAll()); // the lights

    this.camera = new THREE.PerspectiveCamera(45, 1, 0.01, 1000);
    this.camera.up.set(0, 0, 1);
    this.controls = new OrbitControls(this.camera, this.renderer.domElement);
    this.controls.addEventListener("change", () => this.redrawStatic());

    const built = buildBodies(plan, this.scene);
    this.objects = built.objects;
    this.instanced = built.instanced;
    for (const m of this.instanced) onLayer(m, MOVING);
    this.bounds = sceneBounds(plan, this.objects);
    this.center = this.bounds.getCenter(new THREE.Vector3());
    this.radius = Math.max(1e-3, this.bounds.getSize(new THREE.Vector3()).length() / 2);
    addPlanes(plan, this.scene, this.objects, this.center, this.radius * 8);
    this.markers = addMarkers(this.objects, this.radius);
    this.goal = buildGoal(plan, this.bounds); // the goal regions, in the colours of their bodies
    onLayer(this.goal, STATIC);
    this.scene.add(this.goal);
    this.goalLabel.hidden = this.goal.children.length === 0;
    this.joints = buildJoints(plan, this.objects, this.radius); // anchors and axes, over everything
    onLayer(this.joints.group, MOVING);
    this.scene.add(this.joints.group);
    for (const o of this.objects) if (o && !o.userData.instance) onLayer(o, o.userData.body.moving ? MOVING : STATIC);
    this.buildTrail();
    this.selectBody(this.defaultBody());
    this.resetCamera();

    this.onKey = (e) => this.key(e);
    document.addEventListener("keydown", this.onKey);
    this.renderer.domElement.addEventListener("pointerdown", (e) => (this.down = [e.clientX, e.clientY]));
    this.renderer.domElement.addEventListener("pointerup", (e) => this.click(e));
    this.resizeObserver = new ResizeObserver(() => this.resize());
    this.resizeObserver.observe(this.viewport);
    this.resize();
    this.resetCamera(); // the fit depends on the aspect ratio
    this.last = performance.now();
    this.loop = this.loop.bind(this);
    this.raf = requestAnimationFrame(this.loop);
    this.update();
    this.root.dataset.markers = String(this.markers); // for the tests: small bodies marked
    this.root.dataset.goal = String(this.goal.children.length); // ... and goal regions drawn
    this.root.dataset.joints = String(plan.joints.length); // ... and joints
    window.tplanPlayer = this; // for the browser tests and measurements (docs/web.md)
  }

  // ---- the bar under the canvas ----
  buildBar() {
    // a mouse click leaves no focus on the button, so that space plays/pauses instead of clicking it again
    const b = (label, title, fn) => el("button", { type: "button", title, onclick: (e) => {
      fn();
      if (e.detail > 0) e.currentTarget.blur();
    } }, label);
    this.playButton = b("▶", "play / pause (space)", () => this.toggle());
    this.scrub = el("input", { type: "range", min: "0", max: "1", step: "any", value: "0", class: "scrub", "aria-label": "timeline" });
    this.scrub.addEventListener("input", () => this.seek(Number(this.scrub.value)));
    this.timeLabel = el("span", { class: "time mono" });
    this.speedLabel = el("span", { class: "mono speed" });
    this.worldSelect = el("select", { title: "world (N / P)", "aria-label": "world" });
    this.plan.worlds.forEach((w, k) =>
      this.worldSelect.append(el("option", { value: String(k) }, `${k === 0 ? "selected" : "alternative " + k} · cost ${fmt(w.cost)}`)));
    this.worldSelect.addEventListener("change", () => this.setWorld(Number(this.worldSelect.value)));
    this.bodySelect = el("select", { title: "body whose trail is shown (or click a body)", "aria-label": "trail body" });
    for (const [i, body] of this.plan.bodies.entries()) if (body.moving) this.bodySelect.append(el("option", { value: String(i) }, body.name));
    this.bodySelect.addEventListener("change", () => this.selectBody(Number(this.bodySelect.value)));
    this.treeBox = el("input", { type: "checkbox", checked: "" });
    this.treeBox.addEventListener("change", () => this.setTreeVisible(this.treeBox.checked));
    this.trailBox = el("input", { type: "checkbox", checked: "" });
    this.trailBox.addEventListener("change", () => this.setTrailVisible(this.trailBox.checked));
    this.treeLabel = el("label", { class: "toggle", title: "search tree (T)", hidden: "" }, this.treeBox, " tree");
    this.goalBox = el("input", { type: "checkbox", checked: "" });
    this.goalBox.addEventListener("change", () => this.setGoalVisible(this.goalBox.checked));
    this.goalLabel = el("label", { class: "toggle", title: "goal regions (G)", hidden: "" }, this.goalBox, " goal");
    this.treeInfo = el("span", { class: "muted small" });
    this.skillLabel = el("div", { class: "skills muted small mono" });
    this.temporalLabel = el("div", { class: "temporal muted small mono" });
    return el("div", { class: "player-bar" },
      el("div", { class: "row" },
        b("|◀", "first step (Home)", () => this.seekStep(0)),
        b("◀", "one step back (←)", () => this.stepBy(-1)),
        this.playButton,
        b("▶|", "one step forward (→)", () => this.stepBy(1)),
        this.scrub, this.timeLabel),
      el("div", { class: "row small" },
        b("[", "half speed ([)", () => this.setSpeed(this.speedIndex - 1)), this.speedLabel,
        b("]", "double speed (])", () => this.setSpeed(this.speedIndex + 1)),
        el("label", { title: "world (N / P)" }, "world ", this.worldSelect),
        el("label", { title: "trail of (L: on/off)" }, el("span", {}, "trail "), this.trailBox, " ", this.bodySelect),
        this.goalLabel, this.treeLabel, this.treeInfo,
        b("⟲ camera", "reset the camera (C)", () => this.resetCamera())),
      this.skillLabel, this.temporalLabel);
  }

  get steps() {
    return this.plan.worlds[this.world].steps;
  }

  get duration() {
    return this.steps * this.plan.dt;
  }

  defaultBody() {
    const i = this.plan.bodies.findIndex((b) => b.moving && b.cls === "active");
    return i >= 0 ? i : this.plan.bodies.findIndex((b) => b.moving);
  }

  // ---- camera: the plan's view, or fitted (from -y, 55 degrees up), as the desktop viewer ----
  resetCamera() {
    const v = this.plan.view || {};
    const yaw = THREE.MathUtils.degToRad(v.yaw ?? -90);
    const pitch = THREE.MathUtils.degToRad(v.pitch ?? 55);
    const target = v.target ? new THREE.Vector3(...v.target) : this.center.clone();
    const dir = new THREE.Vector3(Math.cos(pitch) * Math.cos(yaw), Math.cos(pitch) * Math.sin(yaw), Math.sin(pitch));
    const dist = v.distance > 0 ? v.distance : this.fitDistance(target, dir);
    this.camera.position.copy(target).addScaledVector(dir, dist);
    this.camera.near = dist / 1000;
    this.camera.far = dist * 50 + this.radius * 20;
    this.camera.updateProjectionMatrix();
    this.controls.target.copy(target);
    this.controls.update();
    this.redrawStatic();
  }

  // The distance along `dir` from `target` at which every corner of the scene's bounds is in the
  // view (both the vertical and the horizontal field of view), with a small margin.
  fitDistance(target, dir) {
    const right = new THREE.Vector3().crossVectors(dir, this.camera.up).normalize();
    if (right.lengthSq() < 1e-12) right.set(1, 0, 0);
    const up = new THREE.Vector3().crossVectors(right, dir).normalize();
    const tv = Math.tan(THREE.MathUtils.degToRad(this.camera.fov / 2));
    const th = tv * this.camera.aspect;
    let d = 0;
    const c = new THREE.Vector3();
    for (let k = 0; k < 8; ++k) {
      c.set(k & 1 ? this.bounds.max.x : this.bounds.min.x, k & 2 ? this.bounds.max.y : this.bounds.min.y,
        k & 4 ? this.bounds.max.z : this.bounds.min.z).sub(target);
      const along = c.dot(dir);
      d = Math.max(d, along + Math.abs(c.dot(right)) / th, along + Math.abs(c.dot(up)) / tv);
    }
    return Math.max(d * 1.08, this.radius * 0.1);
  }

  redrawStatic() {
    this.layers.stale = true;
    this.dirty = true;
  }

  resize() {
    const w = Math.max(1, this.viewport.clientWidth), h = Math.max(1, this.viewport.clientHeight);
    if (this.size && this.size[0] === w && this.size[1] === h) return; // (the observer also fires for no change)
    this.size = [w, h];
    this.renderer.setSize(w, h, false);
    const px = this.renderer.getDrawingBufferSize(new THREE.Vector2());
    this.layers.setSize(px.x, px.y);
    this.camera.aspect = w / h;
    this.camera.updateProjectionMatrix();
    this.dirty = true;
  }

  // ---- trail of the selected body: whole path faint, travelled part bright ----
  buildTrail() {
    if (this.trail) {
      this.scene.remove(this.trail.group);
      this.trail.geometry.dispose();
    }
    this.trail = null;
    const body = this.plan.bodies[this.selected];
    if (!body || !body.moving) return;
    const m = this.plan.worlds[this.world].traj.get(body.name);
    const n = m.length / 13;
    const pts = new Float32Array(n * 3);
    for (let i = 0; i < n; ++i) pts.set([m[i * 13], m[i * 13 + 1], m[i * 13 + 2]], i * 3);
    const geometry = new THREE.BufferGeometry();
    geometry.setAttribute("position", new THREE.BufferAttribute(pts, 3));
    const colour = new THREE.Color(...paletteColor(body.palette));
    const faint = new THREE.Line(geometry, new THREE.LineBasicMaterial({ color: colour, transparent: true, opacity: 0.3 }));
    const bright = new THREE.Line(geometry, new THREE.LineBasicMaterial({ color: colour }));
    bright.renderOrder = 1;
    const group = new THREE.Group();
    group.add(faint, bright);
    group.visible = this.showTrail;
    onLayer(group, MOVING);
    this.scene.add(group);
    this.trail = { group, geometry, bright, n };
  }

  selectBody(i) {
    if (i < 0 || !this.plan.bodies[i] || !this.plan.bodies[i].moving) return;
    this.selected = i;
    this.bodySelect.value = String(i);
    this.buildTrail();
    this.update();
  }

  setTrailVisible(on) {
    this.showTrail = on;
    this.trailBox.checked = on;
    if (this.trail) this.trail.group.visible = on;
    this.dirty = true;
  }

  click(e) {
    if (!this.down || Math.hypot(e.clientX - this.down[0], e.clientY - this.down[1]) > 4) return; // a drag
    const r = this.renderer.domElement.getBoundingClientRect();
    const ndc = new THREE.Vector2(((e.clientX - r.left) / r.width) * 2 - 1, -((e.clientY - r.top) / r.height) * 2 + 1);
    const ray = new THREE.Raycaster();
    ray.setFromCamera(ndc, this.camera);
    const movers = this.objects.filter((o) => o && o.userData.body.moving && !o.userData.instance);
    const hit = ray.intersectObjects([...movers, ...this.instanced], false)[0];
    if (!hit) return;
    if (hit.object.isInstancedMesh) this.selectBody(hit.object.userData.bodies[hit.instanceId]);
    else this.selectBody(this.plan.bodies.indexOf(hit.object.userData.body));
  }

  setGoalVisible(on) {
    this.showGoal = on;
    this.goalBox.checked = on;
    this.goal.visible = on;
    this.redrawStatic();
  }

  // ---- tree ----
  setTree(tree) {
    if (this.treeLayer) {
      this.scene.remove(this.treeLayer.group);
      disposeTreeLayer(this.treeLayer);
    }
    this.treeLayer = buildTreeLayer(this.plan, tree);
    this.treeLayer.group.visible = this.showTree && this.world === 0;
    onLayer(this.treeLayer.group, STATIC);
    this.scene.add(this.treeLayer.group);
    this.treeLabel.hidden = false;
    this.treeInfo.textContent = this.treeLayer.info;
    this.redrawStatic();
  }

  setTreeVisible(on) {
    this.showTree = on;
    this.treeBox.checked = on;
    if (this.treeLayer) this.treeLayer.group.visible = on;
    this.redrawStatic();
  }

  // ---- playback ----
  setWorld(k) {
    const n = this.plan.worlds.length;
    this.world = ((k % n) + n) % n;
    this.worldSelect.value = String(this.world);
    this.time = Math.min(this.time, this.duration);
    this.buildTrail();
    this.update();
  }

  setSpeed(i) {
    this.speedIndex = Math.max(0, Math.min(SPEEDS.length - 1, i));
    this.update();
  }

  toggle() {
    if (this.playing) this.pause();
    else this.play();
  }

  play() {
    if (this.time >= this.duration) this.time = 0;
    this.playing = true;
    this.last = performance.now();
    this.update();
  }

  pause() {
    this.playing = false;
    this.update();
  }

  seek(t) {
    this.time = Math.max(0, Math.min(this.duration, t));
    this.update();
  }

  seekStep(s) {
    this.pause();
    this.seek(Math.max(0, Math.min(this.steps, s)) * this.plan.dt);
  }

  get step() {
    // time / dt is not exact in binary: the end of the timeline (steps * dt) must be the last step
    return Math.min(this.steps, Math.floor(this.time / this.plan.dt + 1e-6));
  }

  stepBy(d) {
    // from between two steps, one step forward lands on the next one and back on the previous
    const s = d > 0 ? this.step + d : Math.ceil(this.time / this.plan.dt - 1e-6) + d;
    this.seekStep(s);
  }

  key(e) {
    if (this.disposed || e.ctrlKey || e.metaKey || e.altKey) return;
    const t = e.target;
    if (t && (t.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName)) && t.type !== "range" && t.type !== "checkbox") return;
    if (t && (t.tagName === "BUTTON" || t.tagName === "A") && (e.key === " " || e.key === "Enter")) return; // activates it
    const actions = {
      " ": () => this.toggle(),
      ArrowLeft: () => this.stepBy(-1),
      ArrowRight: () => this.stepBy(1),
      ArrowDown: () => this.stepBy(-10),
      ArrowUp: () => this.stepBy(10),
      "[": () => this.setSpeed(this.speedIndex - 1),
      "]": () => this.setSpeed(this.speedIndex + 1),
      r: () => { this.time = 0; this.update(); },
      Home: () => this.seekStep(0),
      End: () => this.seekStep(this.steps),
      n: () => this.setWorld(this.world + 1),
      p: () => this.setWorld(this.world - 1),
      t: () => this.treeLayer && this.setTreeVisible(!this.showTree),
      l: () => this.setTrailVisible(!this.showTrail),
      g: () => this.goal.children.length && this.setGoalVisible(!this.showGoal),
      j: () => { this.joints.group.visible = !this.joints.group.visible; this.dirty = true; },
      c: () => this.resetCamera(),
    };
    const fn = actions[e.key.length === 1 ? e.key.toLowerCase() : e.key];
    if (!fn) return;
    e.preventDefault();
    fn();
  }

  // Places the moving bodies at this.time in the world shown; updates the bar.
  update() {
    const w = this.plan.worlds[this.world];
    const f = this.time / this.plan.dt;
    const i = this.step;
    const j = Math.min(w.steps, i + 1);
    const a = Math.min(1, Math.max(0, f - i));
    const qa = new THREE.Quaternion(), qb = new THREE.Quaternion();
    for (const obj of this.objects) {
      const body = obj && obj.userData.body;
      if (!body || !body.moving) continue;
      const m = w.traj.get(body.name);
      const p = i * 13, q = j * 13;
      obj.position.set(m[p] + (m[q] - m[p]) * a, m[p + 1] + (m[q + 1] - m[p + 1]) * a, m[p + 2] + (m[q + 2] - m[p + 2]) * a);
      qa.set(m[p + 4], m[p + 5], m[p + 6], m[p + 3]);
      qb.set(m[q + 4], m[q + 5], m[q + 6], m[q + 3]);
      if (qa.dot(qb) < 0) qb.set(-qb.x, -qb.y, -qb.z, -qb.w);
      obj.quaternion.set(qa.x + (qb.x - qa.x) * a, qa.y + (qb.y - qa.y) * a, qa.z + (qb.z - qa.z) * a, qa.w + (qb.w - qa.w) * a).normalize();
      const inst = obj.userData.instance;
      if (inst) {
        obj.updateMatrix();
        inst.mesh.setMatrixAt(inst.k, obj.matrix);
        if (inst.pips) inst.pips.setMatrixAt(inst.k, obj.matrix);
      }
    }
    for (const m of this.instanced) m.instanceMatrix.needsUpdate = true;
    this.joints.update(); // from the bodies as posed above
    if (this.trail) this.trail.bright.geometry.setDrawRange(0, Math.min(this.trail.n, i + 1));
    this.dirty = true;
    // While playing, the bar follows at 10 Hz: repainting page text every frame costs as much as
    // the 3D frame on a software rasterizer.
    const now = performance.now();
    if (this.playing && now - (this.barTime || 0) < 100) return;
    this.barTime = now;
    this.updateBar(i, w);
  }

  updateBar(i, w) {
    this.scrub.max = String(this.duration);
    this.scrub.value = String(this.time);
    this.playButton.textContent = this.playing ? "❚❚" : "▶";
    this.timeLabel.textContent = `step ${i} / ${w.steps} · ${this.time.toFixed(2)} / ${this.duration.toFixed(2)} s`;
    this.speedLabel.textContent = speedLabel(SPEEDS[this.speedIndex]);
    this.skillLabel.textContent = this.skillsAt(Math.min(i, w.steps - 1), w);
    this.temporalLabel.textContent = temporalAt(this.plan, this.world, i); // the goal's progress so far
    this.root.dataset.step = String(i);
    this.root.dataset.playing = String(this.playing);
    this.root.dataset.world = String(this.world);
  }

  // The skill each tactic applies at step s of world w (a count per skill with more than 8
  // tactics): the selected solution's from the tactics, an alternative's from its own `active`.
  skillsAt(s, w = this.plan.worlds[this.world]) {
    const t = this.plan.tactics;
    if (!t.length || s < 0) return "";
    const name = (x) => {
      const act = (w && w.active && w.active.get(x.name)) || (w === this.plan.worlds[0] ? x.active : null);
      return act && s < act.length && x.skills[act[s]] !== undefined ? x.skills[act[s]] : "–";
    };
    if (t.length <= 8) return t.map((x) => `${x.name}: ${name(x)}`).join(" · ");
    const count = new Map();
    for (const x of t) count.set(name(x), (count.get(name(x)) || 0) + 1);
    return `${t.length} tactics: ` + [...count].map(([k, v]) => `${k} ${v}`).join(", ");
  }

  // Draws the frame at once. The canvas keeps no copy of its drawing buffer (that costs a
  // full-canvas copy per frame on software GL): read it (drawImage, toDataURL) right after this
  // call, in the same task.
  drawNow() {
    this.layers.render(this.scene, this.camera);
    this.frames++;
    this.dirty = false;
  }

  loop(now) {
    if (this.disposed) return;
    const dtWall = Math.min(0.25, (now - this.last) / 1000);
    this.last = now;
    if (this.playing) {
      this.time += dtWall * SPEEDS[this.speedIndex];
      if (this.time >= this.duration) {
        this.time = this.duration;
        this.playing = false;
      }
      this.update();
    }
    if (this.dirty) this.drawNow();
    this.raf = requestAnimationFrame(this.loop);
  }

  dispose() {
    this.disposed = true;
    cancelAnimationFrame(this.raf);
    document.removeEventListener("keydown", this.onKey);
    this.resizeObserver.disconnect();
    this.controls.dispose();
    disposeTreeLayer(this.treeLayer);
    this.scene.traverse((o) => {
      if (o.material) o.material.dispose();
      if (o.geometry) o.geometry.dispose();
    });
    disposeGeometries();
    this.layers.dispose();
    this.renderer.dispose();
    this.root.remove();
  }
}

function fmt(x) {
  return typeof x === "number" ? (Math.abs(x) >= 1000 || Number.isInteger(x) ? String(Math.round(x * 1000) / 1000) : x.toPrecision(4)) : "?";
}
