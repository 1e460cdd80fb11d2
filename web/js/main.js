// The page: header (server health), jobs list (left), and the routed view (right):
//   #/ (or #/new)   the New-job form      #/jobs/<id>   a job      #/open   play local files
//   #/cluster       the nodes, their leases and running jobs, the concurrency limits
import { api, setToken, setUnauthorizedHandler, token } from "./api.js";
import { clear } from "./dom.js";
import { JobsList } from "./jobslist.js";
import { NewJobForm } from "./newjob.js";
import { JobPage } from "./jobpage.js";
import { OpenFilesPage } from "./openfiles.js";
import { ClusterPage } from "./cluster.js";

const main = document.getElementById("main");
const healthBox = document.getElementById("health");
let view = null;
let list = null;

// ---- token: asked once in a dialog when the server answers 401, kept in sessionStorage ----
const dialog = document.getElementById("token-dialog");
const tokenInput = document.getElementById("token-input");
const tokenMessage = document.getElementById("token-message");
let pending = null;
setUnauthorizedHandler((err) => {
  if (!pending) {
    pending = new Promise((resolve) => {
      tokenMessage.textContent = token() ? "The token was refused; enter it again." : err.message || "This server needs a token.";
      tokenInput.value = "";
      dialog.showModal();
      dialog.addEventListener("close", function done() {
        dialog.removeEventListener("close", done);
        setToken(tokenInput.value.trim());
        pending = null;
        resolve();
      });
    });
  }
  return pending;
});
document.getElementById("token-form").addEventListener("submit", (e) => {
  e.preventDefault();
  if (tokenInput.value.trim()) dialog.close();
});
dialog.addEventListener("cancel", (e) => e.preventDefault()); // Esc: the page cannot work without it
document.getElementById("forget-token").addEventListener("click", () => {
  setToken("");
  location.reload();
});

// ---- router ----
function route() {
  if (view) view.dispose();
  view = null;
  clear(main);
  const h = location.hash.replace(/^#\/?/, "");
  const m = /^jobs\/(\d+)$/.exec(h);
  if (m) {
    const id = Number(m[1]);
    list.select(id);
    document.title = `job ${id} · tplan`;
    view = new JobPage(main, id, { onJob: (job) => list.update(job), onDeleted: (jid) => list.remove(jid) });
  } else if (h === "cluster") {
    list.select(null);
    document.title = "cluster · tplan";
    view = new ClusterPage(main);
  } else if (h === "open") {
    list.select(null);
    document.title = "open a plan · tplan";
    view = new OpenFilesPage(main);
  } else {
    list.select(null);
    document.title = "new job · tplan";
    const form = new NewJobForm(main, { onSubmitted: (id) => {
      location.hash = `#/jobs/${id}`;
      list.refresh();
    } });
    view = { dispose: () => form.root.remove() };
  }
}

async function health() {
  try {
    const h = await api.health();
    const keep = h.retention ? ` · keeps ${[h.retention.keep_jobs ? `${h.retention.keep_jobs} jobs` : "",
      h.retention.keep_days ? `${h.retention.keep_days} days` : "", h.retention.keep_mb ? `${h.retention.keep_mb} MB` : ""]
      .filter(Boolean).join(", ") || "every job"}` : "";
    healthBox.textContent = h.workers === undefined ? h.status
      : `${h.status} · ${h.workers} workers · ${h.running} running · ${h.queued} queued${keep}`;
    healthBox.title = "finished jobs beyond the retention policy are deleted with their files (tplan serve --keep-*)";
    healthBox.className = h.status === "ok" ? "health ok" : "health bad";
  } catch (err) {
    healthBox.textContent = `server: ${err.message}`;
    healthBox.className = "health bad";
  }
}

list = new JobsList(document.getElementById("jobs"));
window.addEventListener("hashchange", route);
route();
health();
setInterval(() => !document.hidden && health(), 5000);
document.getElementById("forget-token").hidden = !token();
