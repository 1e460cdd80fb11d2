// The Cluster view (#/cluster): GET /v1/cluster every 2 s while the page is visible: the nodes with
// their state (up, draining after SIGTERM, silent: no heartbeat for a lease) and heartbeat, the
// running jobs with the node holding each one's lease and the time left on it, the queue and the
// concurrency limits (tplan serve --limit TAG=N). A single server (SQLite) shows itself alone.
import { api } from "./api.js";
import { el, clear, duration, count, when } from "./dom.js";

const POLL_MS = 2000;

function role(n) {
  if (!n.http) return "worker node";
  return n.workers > 0 ? "server" : "front end";
}

export class ClusterPage {
  constructor(container) {
    this.root = el("div", { class: "cluster-page" });
    this.summary = el("p", { class: "muted cluster-summary" }, "…");
    this.nodes = el("tbody");
    this.running = el("tbody");
    this.limits = el("tbody");
    this.error = el("div", { class: "error", hidden: true });
    const table = (cls, heads, body) =>
      el("table", { class: `cluster ${cls}` }, el("thead", {}, el("tr", {}, ...heads.map((h) => el("th", {}, h)))), body);
    this.root.append(
      el("h2", {}, "Cluster"), this.summary, this.error,
      el("div", { class: "card" }, el("h3", {}, "Nodes"),
        table("cluster-nodes", ["node", "role", "state", "heartbeat", "workers", "running", "finished", "reclaimed", "lost"],
          this.nodes)),
      el("div", { class: "card" }, el("h3", {}, "Running jobs"),
        table("cluster-running", ["#", "domain", "name", "node", "attempt", "lease left", "started", "failures"],
          this.running)),
      el("div", { class: "card" }, el("h3", {}, "Concurrency limits"),
        table("cluster-limits", ["tag", "running / at most"], this.limits)));
    container.append(this.root);
    this.refresh();
    this.timer = setInterval(() => !document.hidden && this.refresh(), POLL_MS);
  }

  dispose() {
    clearInterval(this.timer);
    this.root.remove();
  }

  async refresh() {
    if (this.busy) return;
    this.busy = true;
    try {
      this.render(await api.cluster());
      this.error.hidden = true;
    } catch (err) {
      this.error.hidden = false;
      this.error.textContent = `GET /v1/cluster: ${err.message}`;
    } finally {
      this.busy = false;
    }
  }

  render(c) {
    this.root.dataset.store = c.store;
    this.root.dataset.loaded = "1";
    const up = c.nodes.filter((n) => n.state === "up").length;
    this.summary.textContent = `${c.store === "postgresql" ? "PostgreSQL store" : "SQLite store (one server)"} · ` +
      `${c.nodes.length} node${c.nodes.length === 1 ? "" : "s"} (${up} up) · ${c.running.length} running · ` +
      `${count(c.queued)} queued${c.draining ? " · this server is draining" : ""}` +
      (c.lease ? ` · lease ${c.lease} s` : "");
    clear(this.nodes).append(...c.nodes.map((n) => el("tr", { class: "node", dataset: { state: n.state, id: n.id } },
      el("td", { class: "mono small" }, n.id, n.self ? el("span", { class: "muted" }, " (this server)") : null),
      el("td", {}, role(n)),
      el("td", {}, el("span", { class: `badge node-state ${n.state === "up" ? "solved" : n.state === "draining" ? "approximate" : "failed"}` }, n.state)),
      el("td", { class: "num" }, n.self && c.store === "sqlite" ? "–" : `${duration(n.heartbeat_age)} ago`),
      el("td", { class: "num" }, `${n.workers}${n.interactive_workers ? ` + ${n.interactive_workers}` : ""}`),
      el("td", { class: "num" }, count(n.running)),
      el("td", { class: "num" }, count(n.finished)),
      el("td", { class: "num" }, n.reclaimed === undefined ? "–" : count(n.reclaimed)),
      el("td", { class: "num" }, n.lost === undefined ? "–" : count(n.lost)))));
    if (!c.nodes.length) this.nodes.append(el("tr", {}, el("td", { colspan: 9, class: "muted" }, "no node has a heartbeat in the store")));
    clear(this.running).append(...c.running.map((j) => el("tr", { class: "running-job", dataset: { id: j.id } },
      el("td", {}, el("a", { href: `#/jobs/${j.id}` }, String(j.id))),
      el("td", {}, j.domain),
      el("td", {}, j.name || ""),
      el("td", { class: "mono small" }, j.node || "–"),
      el("td", { class: "num" }, j.attempt === undefined ? "–" : String(j.attempt)),
      el("td", { class: "num lease" }, typeof j.lease_left === "number" ? duration(Math.max(0, j.lease_left)) : "–"),
      el("td", {}, when(j.started)),
      el("td", { class: "num" }, `${j.failures}${j.lease_losses ? ` (${j.lease_losses} lease lost)` : ""}`))));
    if (!c.running.length) this.running.append(el("tr", {}, el("td", { colspan: 8, class: "muted" }, "no job running")));
    clear(this.limits).append(...c.limits.map((l) => el("tr", { class: "limit", dataset: { tag: l.tag } },
      el("td", {}, el("span", { class: "tag" }, l.tag)),
      el("td", { class: `num count${l.running >= l.max ? " full" : ""}` }, `${l.running} / ${l.max}`))));
    if (!c.limits.length) this.limits.append(el("tr", {}, el("td", { colspan: 2, class: "muted" }, "none (tplan serve --limit TAG=N)")));
  }
}
