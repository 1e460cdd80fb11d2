// #/open: plays a plan file (and its tree file) from the user's disk, no server round trip; the
// same player as the job page.
import { el, clear } from "./dom.js";
import { parsePlan } from "./plan.js";
import { parseTree } from "./tree.js";
import { Player } from "./player.js";

export class OpenFilesPage {
  constructor(container) {
    this.root = el("section", { class: "open-files" });
    container.append(this.root);
    this.planInput = el("input", { type: "file", accept: ".json,application/json", id: "open-plan" });
    this.treeInput = el("input", { type: "file", id: "open-tree" });
    this.error = el("div", { class: "error", role: "alert", hidden: true });
    this.box = el("div", { class: "player-box" });
    const go = () => this.load();
    this.planInput.addEventListener("change", go);
    this.treeInput.addEventListener("change", go);
    this.root.append(el("div", { class: "card" }, el("h2", {}, "Open a plan"),
      el("p", { class: "muted small" }, "A plan file written by tplan plan -o (and optionally its --tree file); nothing is uploaded."),
      el("label", { class: "field", for: "open-plan" }, el("span", {}, "plan (.json)"), this.planInput),
      el("label", { class: "field", for: "open-tree" }, el("span", {}, "tree (optional)"), this.treeInput), this.error), this.box);
  }

  async load() {
    const pf = this.planInput.files[0], tf = this.treeInput.files[0];
    if (!pf) return;
    this.error.hidden = true;
    try {
      const plan = parsePlan(await pf.text());
      const tree = tf ? parseTree(await tf.arrayBuffer()) : null;
      if (this.player) this.player.dispose();
      clear(this.box);
      this.player = new Player(this.box, plan);
      if (tree) this.player.setTree(tree);
    } catch (err) {
      this.error.hidden = false;
      this.error.textContent = err.message;
    }
  }

  dispose() {
    if (this.player) this.player.dispose();
    this.root.remove();
  }
}
