// A small line chart on a canvas: best quality (y) over elapsed planning time (x), redrawn from
// the points so far. No library: axes with the extreme values, one polyline, the last point dot.
export class Chart {
  constructor(canvas, { label = "best quality" } = {}) {
    this.canvas = canvas;
    this.label = label;
    this.points = [];
  }

  add(x, y) {
    if (this.push(x, y)) this.draw();
  }

  // The whole series at once (a finished job's summary.progress: [[elapsed, quality | null, nodes]]):
  // replaces what was seen live, which is only the part since the page was opened.
  setSeries(rows) {
    this.points = [];
    for (const r of rows) if (Array.isArray(r)) this.push(r[0], r[1]);
    this.draw();
  }

  push(x, y) {
    if (typeof x !== "number" || typeof y !== "number" || !isFinite(y)) return false;
    const last = this.points[this.points.length - 1];
    if (last && last[0] === x && last[1] === y) return false;
    this.points.push([x, y]);
    this.canvas.dataset.points = String(this.points.length); // for the tests
    return true;
  }

  draw() {
    const c = this.canvas;
    c.dataset.points = String(this.points.length);
    const dpr = window.devicePixelRatio || 1;
    const w = c.clientWidth || 320, h = c.clientHeight || 120;
    if (c.width !== Math.round(w * dpr)) c.width = Math.round(w * dpr);
    if (c.height !== Math.round(h * dpr)) c.height = Math.round(h * dpr);
    const g = c.getContext("2d");
    g.setTransform(dpr, 0, 0, dpr, 0, 0);
    g.clearRect(0, 0, w, h);
    const style = getComputedStyle(c);
    g.font = "11px system-ui, sans-serif";
    g.fillStyle = style.getPropertyValue("--muted") || "#889";
    const pts = this.points;
    if (!pts.length) {
      g.fillText(`${this.label}: none reported (yet)`, 8, h / 2);
      return;
    }
    const pad = { l: 48, r: 10, t: 10, b: 18 };
    let x0 = pts[0][0], x1 = pts[pts.length - 1][0];
    let y0 = Infinity, y1 = -Infinity;
    for (const [, y] of pts) (y0 = Math.min(y0, y)), (y1 = Math.max(y1, y));
    if (x1 - x0 < 1e-9) x1 = x0 + 1;
    if (y1 - y0 < 1e-12) (y0 -= 0.5 * Math.abs(y0 || 1)), (y1 += 0.5 * Math.abs(y1 || 1));
    const X = (x) => pad.l + ((x - x0) / (x1 - x0)) * (w - pad.l - pad.r);
    const Y = (y) => h - pad.b - ((y - y0) / (y1 - y0)) * (h - pad.t - pad.b);
    g.strokeStyle = style.getPropertyValue("--line") || "#445";
    g.beginPath();
    g.moveTo(pad.l, pad.t), g.lineTo(pad.l, h - pad.b), g.lineTo(w - pad.r, h - pad.b);
    g.stroke();
    g.fillText(fmt(y1), 4, pad.t + 8);
    g.fillText(fmt(y0), 4, h - pad.b);
    g.fillText(`${x0.toFixed(1)} s`, pad.l, h - 4);
    const xr = `${x1.toFixed(1)} s`;
    g.fillText(xr, w - pad.r - g.measureText(xr).width, h - 4);
    g.strokeStyle = style.getPropertyValue("--accent") || "#4af";
    g.lineWidth = 1.5;
    g.beginPath();
    pts.forEach(([x, y], i) => (i ? g.lineTo(X(x), Y(y)) : g.moveTo(X(x), Y(y))));
    g.stroke();
    const [lx, ly] = pts[pts.length - 1];
    g.fillStyle = g.strokeStyle;
    g.beginPath();
    g.arc(X(lx), Y(ly), 3, 0, 2 * Math.PI);
    g.fill();
  }
}

function fmt(y) {
  return Math.abs(y) >= 1000 || Number.isInteger(y) ? String(Math.round(y)) : y.toPrecision(3);
}
