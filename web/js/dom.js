// Small DOM helpers: el("div", {class: "x", onclick: fn}, child, "text", ...).
export function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith("on") && typeof v === "function") e.addEventListener(k.slice(2), v);
    else if (k === "dataset") Object.assign(e.dataset, v);
    else e.setAttribute(k, v === true ? "" : String(v));
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    e.append(c instanceof Node ? c : String(c));
  }
  return e;
}

export function clear(e) {
  while (e.firstChild) e.firstChild.remove();
  return e;
}

// "2.3 s", "1 min 5 s", "1 h 2 min".
export function duration(s) {
  if (typeof s !== "number" || !isFinite(s)) return "–";
  if (s < 10) return `${s.toFixed(2)} s`;
  if (s < 60) return `${s.toFixed(1)} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${Math.round(s % 60)} s`;
  return `${Math.floor(s / 3600)} h ${Math.round((s % 3600) / 60)} min`;
}

export function count(n) {
  return typeof n === "number" ? n.toLocaleString("en") : "–";
}

export function when(unix) {
  if (typeof unix !== "number") return "–";
  const d = new Date(unix * 1000);
  const today = new Date();
  const t = d.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit", second: "2-digit" });
  return d.toDateString() === today.toDateString() ? t : `${d.toLocaleDateString()} ${t}`;
}

export function number(x) {
  if (typeof x !== "number") return "–";
  if (Number.isInteger(x)) return x.toLocaleString("en");
  return Math.abs(x) >= 100 ? x.toFixed(1) : x.toPrecision(4);
}

export const FINAL = new Set(["solved", "approximate", "failed", "cancelled"]);
