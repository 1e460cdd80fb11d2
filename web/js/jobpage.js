// The job page (#/jobs/<id>): live progress from the job's event stream (iterations, nodes,
// solutions, best quality over time as a chart), Stop (keep the best plan) and Cancel (keep none),
// and once the job is final its summary, the plan and tree downloads, the 3D playback, the worlds
// of a many-worlds run side by side (filtered and ranked by a query: worlds.js), Delete, and for a
// script job "Edit and resubmit".
import { api, getBytes, withToken } from "./api.js";
import { el, clear, duration, count, number, when, FINAL } from "./dom.js";
import { Chart } from "./chart.js";
import { parsePlan } from "./plan.js";
import { parseTree } from "./tree.js";
import { Player } from "./player.js";
import { WorldsPanel } from "./worlds.js";

export class JobPage {
  constructor(container, id, { onJob, onDeleted }) {
    this.id = id;
    this.onJob = onJob;
    this.onDeleted = onDeleted;
    this.job = null;
    this.closed = false;
    this.root = el("section", { class: "job-page", dataset: { id: String(id) } });
    container.append(this.root);
    this.head = el("div", { class: "job-head" });
    this.errorBox = el("div", { class: "error job-error", role: "alert", hidden: true });
    this.noteBox = el("div", { class: "notice job-note", hidden: true }); // the user's own cancel: not an error
    this.progress = el("dl", { class: "progress" });
    this.chartCanvas = el("canvas", { class: "chart", "aria-label": "best quality over time" });
    this.chart = new Chart(this.chartCanvas);
    this.liveNote = el("div", { class: "muted small" });
    this.summary = el("div", { class: "summary" });
    this.playerBox = el("div", { class: "player-box" });
    this.worldsBox = el("div", { class: "worlds-box" });
    this.playerStatus = el("div", { class: "muted small player-status" });
    this.progressCard = el("div", { class: "card progress-card" }, el("h3", {}, "Progress"), this.progress, this.chartCanvas, this.liveNote);
    this.root.append(this.head, this.errorBox, this.noteBox, this.playerStatus, this.playerBox, this.worldsBox,
      el("div", { class: "job-grid" },
        this.progressCard,
        el("div", { class: "card" }, el("h3", {}, "Result"), this.summary)));
    this.chart.draw();
    this.start();
  }

  async start() {
    try {
      this.show(await api.job(this.id));
    } catch (err) {
      this.fail(err.code === "not_found" ? `job ${this.id} not found` : `cannot load job ${this.id}: ${err.message}`);
      return;
    }
    if (!FINAL.has(this.job.status)) this.listen();
  }

  listen() {
    if (this.closed) return;
    const es = new EventSource(api.eventsUrl(this.id));
    this.es = es;
    this.liveNote.textContent = "live";
    let events = 0;
    const onEvent = (e) => {
      this.root.dataset.events = String(++events); // for the tests: the stream works
      try {
        this.show(JSON.parse(e.data));
      } catch (err) {
        this.liveNote.textContent = `bad event from the server: ${err.message}`;
      }
    };
    es.addEventListener("job", onEvent);
    es.addEventListener("end", (e) => {
      es.close();
      onEvent(e);
      this.liveNote.textContent = "";
    });
    es.addEventListener("error", async () => {
      if (es.readyState !== EventSource.CLOSED) {
        this.liveNote.textContent = "connection lost, reconnecting…";
        return;
      }
      // closed by the browser (an HTTP error): read the job once more, which reports why
      try {
        this.show(await api.job(this.id));
        if (!FINAL.has(this.job.status)) setTimeout(() => this.listen(), 2000);
      } catch (err) {
        this.liveNote.textContent = `live updates stopped: ${err.message}`;
      }
    });
  }

  fail(message) {
    this.headParts = null;
    clear(this.head).append(el("h2", {}, `Job ${this.id}`));
    this.errorBox.hidden = false;
    this.errorBox.textContent = message;
  }

  show(job) {
    const was = this.job;
    this.job = job;
    this.root.dataset.status = job.status;
    this.onJob(job);
    this.renderHead();
    this.renderProgress();
    this.renderPending();
    const err = job.error;
    const ownCancel = err && err.code === "cancelled"; // asked for: a note, not a red error
    this.errorBox.hidden = !err || ownCancel;
    this.noteBox.hidden = !ownCancel;
    if (ownCancel) {
      clear(this.noteBox).append("Cancelled", job.started ? " while running: no plan was kept (Stop keeps the best plan)." : " before it started.");
    } else if (err) {
      clear(this.errorBox).append(el("strong", {}, err.code), " ", el("span", { class: "mono message" }, err.message));
    }
    if (FINAL.has(job.status) && (!was || !FINAL.has(was.status) || !this.summaryShown)) {
      this.summaryShown = true;
      this.renderSummary();
      this.loadResult();
    }
  }

  // The head is built once and updated in place: a button replaced under the pointer between
  // mouse down and up would lose the click (events come up to 4 times a second).
  renderHead() {
    const j = this.job;
    if (!this.headParts) {
      const title = el("span");
      const badge = el("span", { class: "badge job-status" });
      const times = el("div", { class: "muted small" });
      const tags = el("div", { class: "tags" });
      const stop = el("button", { type: "button", class: "stop", title: "end now and keep the best plan found (solved or approximate)",
        onclick: () => this.end("stop") }, "Stop");
      const cancel = el("button", { type: "button", class: "danger cancel", title: "end now and keep no plan",
        onclick: () => this.end("cancel") }, "Cancel");
      const resubmit = el("button", { type: "button", class: "resubmit", onclick: () => this.resubmit() }, "Edit and resubmit");
      const remove = el("button", { type: "button", class: "danger delete", title: "delete the job and its files",
        onclick: () => this.remove() }, "Delete");
      clear(this.head).append(el("h2", {}, title, " ", badge), tags, times,
        el("div", { class: "head-actions" }, stop, cancel, resubmit, remove));
      this.headParts = { title, badge, times, tags };
      this.cancelButton = cancel;
      this.stopButton = stop;
      this.resubmitButton = resubmit;
      this.deleteButton = remove;
    }
    const { title, badge, times, tags } = this.headParts;
    title.textContent = `Job ${j.id} · ${j.name ? `${j.name} · ` : ""}${j.domain}`;
    clear(tags).append(...(j.tags || []).map((t) => el("span", { class: "tag" }, t)));
    badge.className = `badge ${j.status} job-status`;
    badge.textContent = j.status;
    times.textContent = `created ${when(j.created)}` + (j.started ? ` · started ${when(j.started)}` : "") +
      (j.finished ? ` · finished ${when(j.finished)}` : "");
    const final = FINAL.has(j.status);
    this.cancelButton.hidden = final;
    this.stopButton.hidden = j.status !== "running"; // a queued job has no plan to keep yet: Cancel
    this.deleteButton.hidden = !final;
    this.resubmitButton.hidden = !final || j.domain !== "job.lua";
    // a job that ended before planning (failed at load, cancelled while queued) has no progress to show
    this.progressCard.hidden = final && !(j.progress && j.progress.iterations > 0);
  }

  renderPending() {
    if (!FINAL.has(this.job.status) && !this.summary.firstChild) {
      this.summary.append(el("p", { class: "muted" }, `the summary, downloads and 3D view come when the job ends (now ${this.job.status})`));
    }
    // a node's drain handed the job back with its best plan so far: there until the job ends
    // (docs/service.md#drain); its final plan replaces it
    const ip = this.job.interim_plan;
    const shown = this.summary.querySelector(".interim");
    if (FINAL.has(this.job.status) || !ip) {
      if (shown && !FINAL.has(this.job.status)) shown.remove();
      return;
    }
    if (shown && shown.dataset.n === String(ip.n)) return;
    if (shown) shown.remove();
    this.summary.append(el("p", { class: "muted interim", dataset: { n: String(ip.n) } },
      `interim plan ${ip.n} (approximate: a node's drain handed the job back with it): ${count(ip.iterations)} iterations, quality ${ip.quality === null ? "–" : number(ip.quality)} `,
      el("a", { href: withToken(ip.url), download: `job-${this.job.id}.interim-${ip.n}.plan.json`, class: "button" }, "⤓ interim plan")));
  }

  renderProgress() {
    const p = this.job.progress || {};
    clear(this.progress);
    const rows = [
      ["iterations", count(p.iterations)], ["nodes", count(p.nodes)], ["solutions", count(p.solutions)],
      ["best quality", p.best_quality === null || p.best_quality === undefined ? "–" : number(p.best_quality)],
      ["elapsed", duration(p.elapsed)],
    ];
    for (const [k, v] of rows) this.progress.append(el("dt", {}, k), el("dd", { class: "num", dataset: { key: k } }, v));
    const series = this.job.summary && this.job.summary.progress;
    if (FINAL.has(this.job.status) && Array.isArray(series) && series.length) {
      if (this.chartSeries !== series.length) this.chart.setSeries(series); // the whole run, not only since the page opened
      this.chartSeries = series.length;
    } else {
      this.chart.add(p.elapsed, p.best_quality);
    }
  }

  renderSummary() {
    const j = this.job;
    const s = j.summary;
    clear(this.summary);
    if (s) {
      const rows = [
        ["status", s.status], ["planner", `${s.planner}${s.planner === "bgt" ? ` (μ ${s.mu})` : ""}`], ["seed", s.seed],
        ["solutions", `${count(s.nsolutions)} of ${count(s.solutions)}`], ["steps", count(s.steps)],
        ["duration", duration(s.duration)], ["cost", number(s.cost)], ["iterations", count(s.iterations)],
        ["nodes", count(s.nodes)], ["rejected", count(s.rejected)], ["tree", s.tree_mb === undefined ? "–" : `${number(s.tree_mb)} MB`],
      ];
      // why states were rejected: a row per reason, its count and the first as the domain put it
      for (const [k, r] of Object.entries(s.rejections || {})) {
        rows.push([`rejected: ${k.replace(/_/g, " ")}`, `${count(r.count)}, first at iteration ${count(r.iteration)}: ${r.first}`]);
      }
      for (const [k, v] of Object.entries(s.report || {})) rows.push([k, number(v)]);
      if (s.time) rows.push(["time", Object.entries(s.time).map(([k, v]) => `${k} ${duration(v)}`).join(", ")]);
      this.summary.append(el("dl", {}, ...rows.flatMap(([k, v]) => [el("dt", {}, k), el("dd", {}, String(v))])));
    } else if (!j.error) {
      this.summary.append(el("p", { class: "muted" }, "no summary"));
    }
    const links = el("div", { class: "downloads" });
    if (j.plan) links.append(el("a", { href: withToken(j.plan), download: `job-${j.id}.plan.json`, class: "button" }, "⤓ plan"));
    if (j.tree) links.append(el("a", { href: withToken(j.tree), download: `job-${j.id}.tree`, class: "button" }, "⤓ tree"));
    if (links.firstChild) this.summary.append(links);
    const req = { ...j.request };
    this.summary.append(el("details", {}, el("summary", {}, "request"), el("pre", { class: "mono small" }, JSON.stringify(req, null, 2))));
  }

  async loadResult() {
    const j = this.job;
    if (!j.plan || this.loading) return;
    this.loading = true;
    try {
      this.playerStatus.textContent = "loading the plan…";
      const plan = parsePlan(new TextDecoder().decode(await getBytes(j.plan)));
      if (this.closed) return;
      this.player = new Player(this.playerBox, plan);
      if (plan.worlds.length > 1) { // the solutions side by side, filtered by the server's query evaluator
        this.worlds = new WorldsPanel(this.worldsBox, plan, j.id, (k) => this.player.setWorld(k));
      }
      this.playerStatus.textContent = "";
      if (j.tree) {
        this.playerStatus.textContent = "loading the search tree…";
        const buf = await getBytes(j.tree, (got, total) => {
          this.playerStatus.textContent = `loading the search tree… ${(got / 1e6).toFixed(1)}${total ? ` / ${(total / 1e6).toFixed(1)}` : ""} MB`;
        });
        if (this.closed) return;
        this.player.setTree(parseTree(buf));
        this.playerStatus.textContent = "";
      }
    } catch (err) {
      this.playerStatus.textContent = "";
      this.playerBox.append(el("div", { class: "error", role: "alert" }, `cannot show the result: ${err.message}`));
    }
  }

  async end(how) {
    const buttons = [this.cancelButton, this.stopButton];
    for (const b of buttons) b.disabled = true;
    try {
      this.show(await (how === "stop" ? api.stop(this.id) : api.cancel(this.id)));
    } catch (err) {
      this.errorBox.hidden = false;
      this.errorBox.textContent = `cannot ${how}: ${err.code}: ${err.message}`;
    } finally {
      for (const b of buttons) b.disabled = false;
    }
  }

  // Delete cannot be undone (the job and its plan, tree and log go): asked once, in the browser's
  // own dialog, before anything is sent.
  async remove() {
    const j = this.job;
    const what = `job ${this.id}${j && j.name ? ` (${j.name})` : ""}`;
    if (!window.confirm(`Delete ${what} and its plan, tree and log? This cannot be undone.`)) return;
    this.deleteButton.disabled = true;
    try {
      await api.remove(this.id);
      this.onDeleted?.(this.id);
      location.hash = "#/";
    } catch (err) {
      this.errorBox.hidden = false;
      this.errorBox.textContent = `cannot delete: ${err.code}: ${err.message}`;
      this.deleteButton.disabled = false;
    }
  }

  // A script job back in the New-job form, its script and settings filled in (kept for one form).
  async resubmit() {
    this.resubmitButton.disabled = true;
    try {
      const script = await api.script(this.id);
      const j = this.job;
      sessionStorage.setItem("tplan-resubmit", JSON.stringify({ script, name: j.name, tags: j.tags, request: j.request || {} }));
      location.hash = "#/new";
    } catch (err) {
      this.errorBox.hidden = false;
      this.errorBox.textContent = `cannot load the script: ${err.code}: ${err.message}`;
      this.resubmitButton.disabled = false;
    }
  }

  dispose() {
    this.closed = true;
    if (this.es) this.es.close();
    if (this.player) this.player.dispose();
    this.root.remove();
  }
}
