// The jobs list (sidebar): newest first, refreshed every 2 s while the page is visible (the API
// has no list stream), plus at once when a job page sees a change; "older" pages with `after`.
import { api } from "./api.js";
import { el, clear, duration, count } from "./dom.js";

const POLL_MS = 2000;

export class JobsList {
  constructor(container) {
    this.container = container;
    this.jobs = new Map(); // id -> job (the newest page plus any older pages loaded)
    this.next = null;
    this.current = null;
    this.body = el("tbody");
    this.status = el("div", { class: "muted small list-status" });
    this.more = el("button", { type: "button", class: "link", hidden: true, onclick: () => this.loadOlder() }, "older jobs…");
    this.filter = el("select", { "aria-label": "status filter", onchange: () => this.reset() },
      ...["", "queued", "running", "solved", "approximate", "failed", "cancelled"].map((s) => el("option", { value: s }, s || "all")));
    container.append(
      el("div", { class: "list-head" }, el("h2", {}, "Jobs"), this.filter),
      el("table", { class: "jobs" },
        el("thead", {}, el("tr", {}, ...["#", "status", "domain", "planner", "seed", "time", "nodes"].map((h) => el("th", {}, h)))),
        this.body),
      this.more, this.status);
    this.refresh();
    this.timer = setInterval(() => !document.hidden && this.refresh(), POLL_MS);
    document.addEventListener("visibilitychange", () => !document.hidden && this.refresh());
  }

  reset() {
    this.jobs.clear();
    this.next = null;
    this.refresh();
  }

  async refresh() {
    if (this.busy) return;
    this.busy = true;
    try {
      const res = await api.jobs({ limit: 50, status: this.filter.value });
      const fresh = new Set(res.jobs.map((j) => j.id));
      // jobs of the first page that vanished from it (filtered out) are dropped
      const lowest = res.jobs.length ? res.jobs[res.jobs.length - 1].id : Infinity;
      for (const id of this.jobs.keys()) if (id >= lowest && !fresh.has(id)) this.jobs.delete(id);
      for (const j of res.jobs) this.jobs.set(j.id, j);
      if (this.next === null || !this.loadedOlder) this.next = res.next;
      this.status.textContent = "";
      this.render();
    } catch (err) {
      this.status.textContent = `cannot list jobs: ${err.message}`;
    } finally {
      this.busy = false;
    }
  }

  async loadOlder() {
    if (this.next === null) return;
    try {
      const res = await api.jobs({ limit: 50, after: this.next, status: this.filter.value });
      for (const j of res.jobs) this.jobs.set(j.id, j);
      this.next = res.next;
      this.loadedOlder = true;
      this.render();
    } catch (err) {
      this.status.textContent = `cannot list jobs: ${err.message}`;
    }
  }

  // A job page saw a newer state of a job: show it now.
  update(job) {
    if (!this.filter.value || this.filter.value === job.status) this.jobs.set(job.id, job);
    this.render();
  }

  // A job deleted from its page: gone from the list at once.
  remove(id) {
    this.jobs.delete(id);
    this.render();
  }

  select(id) {
    this.current = id;
    this.render();
  }

  // Rows are kept per job and updated in place (a row replaced between mouse down and up would
  // lose the click); the body is re-ordered by moving the same nodes.
  render() {
    const jobs = [...this.jobs.values()].sort((a, b) => b.id - a.id);
    this.rows = this.rows || new Map();
    for (const [id, tr] of this.rows) {
      if (!this.jobs.has(id)) {
        tr.remove();
        this.rows.delete(id);
      }
    }
    if (!jobs.length) {
      clear(this.body).append(el("tr", {}, el("td", { colspan: 7, class: "muted" }, "no jobs yet")));
    } else if (!this.body.querySelector("tr.job-row")) {
      clear(this.body);
    }
    for (const j of jobs) {
      let tr = this.rows.get(j.id);
      if (!tr) {
        tr = el("tr", { class: "job-row", dataset: { id: String(j.id) }, onclick: () => (location.hash = `#/jobs/${j.id}`) },
          el("td", {}, el("a", { href: `#/jobs/${j.id}` }, String(j.id))),
          el("td", {}, el("span", {})), el("td", { class: "name" }), el("td", { class: "planner" }), el("td", { class: "seed" }),
          el("td", { class: "num" }), el("td", { class: "num" }));
        this.rows.set(j.id, tr);
      }
      const req = j.request || {};
      const s = j.summary || {};
      const time = j.progress && typeof j.progress.elapsed === "number" ? j.progress.elapsed : null;
      const cells = tr.children;
      tr.className = "job-row" + (j.id === this.current ? " current" : "");
      tr.dataset.status = j.status;
      cells[1].firstChild.className = `badge ${j.status}`;
      cells[1].firstChild.textContent = j.status;
      cells[2].textContent = j.name ? `${j.name} · ${j.domain}` : j.domain;
      cells[2].title = [j.name, j.domain, ...(j.tags || []).map((t) => `#${t}`)].filter(Boolean).join(" ");
      cells[3].textContent = s.planner || req.planner || "–";
      cells[4].textContent = String(s.seed ?? req.seed ?? "–");
      cells[5].textContent = time === null ? "–" : duration(time);
      cells[6].textContent = count(j.progress ? j.progress.nodes : undefined);
      this.body.append(tr); // in order: moves the existing node
    }
    this.more.hidden = this.next === null;
  }
}
