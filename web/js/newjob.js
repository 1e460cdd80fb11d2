// The New-job form, built from GET /v1/domains: a domain and its parameters (tp.param names,
// defaults, ranges), or a Lua script (pasted or from a file); the planner settings, prefilled
// with the domain's defaults. Errors of the server are shown under the form, next to the field
// they name; a script's own errors come later, on the job page (the job ends failed).
import { api } from "./api.js";
import { el, clear } from "./dom.js";

const PLANNER_FIELDS = [
  { name: "seed", label: "seed", integer: true, min: 0 },
  { name: "max_iters", label: "max iterations", integer: true, min: 1 },
  // the service always limits a job's time: 0 or empty sends none, so the server's default applies
  { name: "time_limit", label: "time limit (s, 0 = server default)", min: 0, zeroOmitted: true },
  { name: "solutions", label: "solutions", integer: true, min: 1 },
  { name: "mu", label: "μ (BGT ratio)", min: 0 },
];

function paramInput(p) {
  const id = `param-${p.name}`;
  let input;
  if (p.type === "boolean") {
    input = el("input", { type: "checkbox", id, checked: p.default === true });
  } else if (p.type === "number") {
    input = el("input", {
      type: "number", id, value: String(p.default), step: p.integer ? "1" : "any",
      min: p.min ?? null, max: p.max ?? null,
    });
  } else if (Array.isArray(p.choices)) { // tp.param(..., { choices = {...} }): a list, not a text box
    input = el("select", { id }, ...p.choices.map((c) => el("option", { value: c, selected: c === p.default }, c === "" ? "(none)" : c)));
  } else {
    input = el("input", { type: "text", id, value: String(p.default ?? "") });
  }
  input.dataset.field = `set.${p.name}`;
  const range = p.min !== undefined && p.max !== undefined ? ` (${p.min} … ${p.max}${p.integer ? ", integer" : ""})` : "";
  return { p, input, row: el("label", { class: "field", for: id }, el("span", {}, p.name, el("span", { class: "muted small" }, range)), input) };
}

export class NewJobForm {
  constructor(container, { onSubmitted }) {
    this.onSubmitted = onSubmitted;
    this.domains = [];
    this.root = el("form", { class: "new-job card", novalidate: true });
    this.root.addEventListener("submit", (e) => {
      e.preventDefault();
      this.submit();
    });
    container.append(this.root);
    this.root.append(el("p", { class: "muted" }, "loading domains…"));
    this.load();
  }

  async load() {
    try {
      this.domains = (await api.domains()).domains;
      this.build();
    } catch (err) {
      clear(this.root).append(el("div", { class: "error", role: "alert" }, `cannot load the domains: ${err.message}`));
    }
  }

  build() {
    const r = clear(this.root);
    this.modeDomain = el("input", { type: "radio", name: "mode", value: "domain", checked: true });
    this.modeScript = el("input", { type: "radio", name: "mode", value: "script" });
    for (const m of [this.modeDomain, this.modeScript]) m.addEventListener("change", () => this.showMode());
    this.domainSelect = el("select", { id: "domain", "data-field": "domain" },
      ...this.domains.map((d) => el("option", { value: d.name }, d.name)));
    this.domainSelect.addEventListener("change", () => this.showDomain());
    this.description = el("p", { class: "muted small description" });
    this.params = el("div", { class: "params" });
    this.script = el("textarea", { id: "script", rows: "12", spellcheck: "false", "data-field": "script",
      placeholder: "-- a domain script (docs/lua-api.md)\nlocal tp = require 'tp'\n…" });
    this.file = el("input", { type: "file", accept: ".lua,text/plain" });
    this.file.addEventListener("change", async () => {
      const f = this.file.files[0];
      if (f) this.script.value = await f.text();
    });
    this.domainPart = el("fieldset", {}, el("legend", {}, "Domain"),
      el("label", { class: "field", for: "domain" }, el("span", {}, "domain"), this.domainSelect), this.description, this.params);
    this.scriptPart = el("fieldset", { hidden: true }, el("legend", {}, "Lua script"), this.script,
      el("label", { class: "small" }, "or load a file: ", this.file));

    this.planner = el("select", { id: "planner", "data-field": "planner" }, el("option", { value: "bgt" }, "BK-BGT"), el("option", { value: "rrt" }, "BK-RRT"));
    this.planner.addEventListener("change", () => this.showPlanner());
    this.plannerInputs = {};
    const rows = PLANNER_FIELDS.map((f) => {
      const input = el("input", { type: "number", id: `pl-${f.name}`, step: f.integer ? "1" : "any", min: f.min, "data-field": f.name });
      this.plannerInputs[f.name] = input;
      return el("label", { class: "field", for: input.id }, el("span", {}, f.label), input);
    });
    this.muRow = rows[rows.length - 1];
    this.tree = el("input", { type: "checkbox", id: "pl-tree", checked: true, "data-field": "tree" });
    this.name = el("input", { type: "text", id: "job-name", maxlength: "200", "data-field": "name", placeholder: "optional" });
    this.tags = el("input", { type: "text", id: "job-tags", "data-field": "tags", placeholder: "optional, comma-separated" });
    this.error = el("div", { class: "error form-error", role: "alert", hidden: true });
    this.submitButton = el("button", { type: "submit", class: "primary" }, "Plan");
    r.append(
      el("h2", {}, "New job"),
      el("div", { class: "modes" },
        el("label", {}, this.modeDomain, " built-in domain"), el("label", {}, this.modeScript, " Lua script")),
      this.domainPart, this.scriptPart,
      el("fieldset", {}, el("legend", {}, "Job"),
        el("label", { class: "field", for: "job-name" }, el("span", {}, "name"), this.name),
        el("label", { class: "field", for: "job-tags" }, el("span", {}, "tags"), this.tags)),
      el("fieldset", {}, el("legend", {}, "Planner"),
        el("label", { class: "field", for: "planner" }, el("span", {}, "planner"), this.planner), ...rows,
        el("label", { class: "field", for: "pl-tree" }, el("span", {}, "also write the search tree"), this.tree)),
      // kept in view at the bottom of the scrolled form (a laptop screen does not show it all)
      el("div", { class: "form-footer" }, this.error, el("div", { class: "actions" }, this.submitButton)));
    this.showDomain();
    this.prefill();
  }

  // "Edit and resubmit" of a script job (its page left the script and settings here for one form).
  prefill() {
    const saved = sessionStorage.getItem("tplan-resubmit");
    if (!saved) return;
    sessionStorage.removeItem("tplan-resubmit");
    let r;
    try {
      r = JSON.parse(saved);
    } catch {
      return;
    }
    this.modeScript.checked = true;
    this.showMode();
    this.script.value = r.script || "";
    this.name.value = r.name || "";
    this.tags.value = (r.tags || []).join(", ");
    const req = r.request || {};
    if (req.planner === "rrt" || req.planner === "bgt") this.planner.value = req.planner;
    for (const f of PLANNER_FIELDS) if (typeof req[f.name] === "number") this.plannerInputs[f.name].value = String(req[f.name]);
    if (typeof req.tree === "boolean") this.tree.checked = req.tree;
    this.showPlanner();
    this.root.dataset.resubmitted = "true"; // for the tests
  }

  domain() {
    return this.domains.find((d) => d.name === this.domainSelect.value);
  }

  showMode() {
    const script = this.modeScript.checked;
    this.domainPart.hidden = script;
    this.scriptPart.hidden = !script;
  }

  showDomain() {
    const d = this.domain();
    clear(this.params);
    this.paramInputs = [];
    if (!d) return;
    this.description.textContent = d.description || "";
    for (const p of d.params || []) {
      const pi = paramInput(p);
      this.paramInputs.push(pi);
      this.params.append(pi.row);
    }
    if (!(d.params || []).length) this.params.append(el("p", { class: "muted small" }, "no parameters"));
    const pl = d.planner || {};
    this.planner.value = pl.planner === "rrt" ? "rrt" : "bgt";
    for (const f of PLANNER_FIELDS) this.plannerInputs[f.name].value = pl[f.name] ?? "";
    this.showPlanner();
  }

  showPlanner() {
    this.muRow.hidden = this.planner.value !== "bgt";
  }

  // The request body; throws {field, message} for a value the browser can already tell is wrong.
  body() {
    const body = {};
    if (this.modeScript.checked) {
      if (!this.script.value.trim()) throw { field: "script", message: "the script is empty" };
      body.script = this.script.value;
    } else {
      body.domain = this.domainSelect.value;
      const set = {};
      for (const { p, input } of this.paramInputs) {
        let v;
        if (p.type === "boolean") v = input.checked;
        else if (p.type === "number") {
          if (input.value.trim() === "" || !isFinite(Number(input.value))) throw { field: `set.${p.name}`, message: `${p.name}: a number is needed` };
          v = Number(input.value);
        } else v = input.value;
        if (v !== p.default) set[p.name] = v;
      }
      if (Object.keys(set).length) body.set = set;
    }
    body.planner = this.planner.value;
    for (const f of PLANNER_FIELDS) {
      if (f.name === "mu" && body.planner !== "bgt") continue;
      const s = this.plannerInputs[f.name].value.trim();
      if (s === "") continue;
      const v = Number(s);
      if (!isFinite(v) || (f.integer && !Number.isInteger(v))) throw { field: f.name, message: `${f.label}: ${f.integer ? "an integer" : "a number"} is needed` };
      if (f.zeroOmitted && v === 0) continue;
      body[f.name] = v;
    }
    body.tree = this.tree.checked;
    if (this.name.value.trim()) body.name = this.name.value.trim();
    const tags = this.tags.value.split(",").map((t) => t.trim()).filter(Boolean);
    if (tags.length) body.tags = tags;
    return body;
  }

  showError(message, field) {
    for (const e of this.root.querySelectorAll(".invalid")) e.classList.remove("invalid");
    this.error.hidden = !message;
    this.error.textContent = message || "";
    if (field) {
      const input = this.root.querySelector(`[data-field="${CSS.escape(field)}"]`);
      if (input) {
        input.classList.add("invalid");
        input.focus();
      }
    }
  }

  async submit() {
    let body;
    try {
      body = this.body();
    } catch (e) {
      this.showError(e.message, e.field);
      return;
    }
    this.showError("");
    this.submitButton.disabled = true;
    try {
      const res = await api.submit(body);
      this.onSubmitted(res.id);
    } catch (err) {
      const field = err.field ? ` (field ${err.field})` : "";
      this.showError(`${err.code}: ${err.message}${field}`, err.field);
    } finally {
      this.submitButton.disabled = false;
    }
  }
}
